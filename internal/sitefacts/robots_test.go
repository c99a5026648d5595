package sitefacts

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestRobots: which paths the reader may read under the robots.txt files
// sites serve, and the sitemaps they name.
func TestRobots(t *testing.T) {
	for _, tc := range []struct {
		name     string
		robots   string
		allowed  []string
		denied   []string
		sitemaps []string
	}{
		{
			name:    "none at all",
			robots:  "",
			allowed: []string{"/", "/wp-admin/", "/anything?x=1"},
		},
		{
			name: "WordPress's virtual robots.txt",
			robots: "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\n" +
				"Sitemap: https://notes.example.org/wp-sitemap.xml\n",
			allowed:  []string{"/", "/2024/05/post/", "/wp-admin/admin-ajax.php", "/feed/?paged=2"},
			denied:   []string{"/wp-admin/", "/wp-admin/options.php"},
			sitemaps: []string{"https://notes.example.org/wp-sitemap.xml"},
		},
		{
			name: "a group for the module's own token wins over *",
			robots: "User-agent: *\nDisallow: /\n\n" +
				"User-agent: Caddy-Discovery\nDisallow: /private/\n",
			allowed: []string{"/", "/blog/post/"},
			denied:  []string{"/private/", "/private/x"},
		},
		{
			name: "groups for other crawlers do not apply; AI crawlers shut out leave the reader in",
			robots: "User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\n" +
				"User-agent: Googlebot\nDisallow: /nogoogle/\n\nUser-agent: *\nDisallow: /tmp/\n",
			allowed: []string{"/", "/nogoogle/"},
			denied:  []string{"/tmp/x"},
		},
		{
			name:    "a token that only begins like the module's is another crawler",
			robots:  "User-agent: caddy\nDisallow: /\n\nUser-agent: caddy-discovery-beta\nDisallow: /\n",
			allowed: []string{"/", "/x"},
		},
		{
			name:    "agents of one group share its rules; rules before any agent are ignored",
			robots:  "Disallow: /orphan/\nUser-agent: otherbot\nUser-agent: *\nDisallow: /shared/\nCrawl-delay: 10\nSitemap: /relative-sitemap.xml\nDisallow: /after-delay/\n",
			allowed: []string{"/orphan/"},
			denied:  []string{"/shared/a", "/after-delay/"},
			sitemaps: []string{
				"/relative-sitemap.xml",
			},
		},
		{
			name:    "wildcards and $",
			robots:  "User-agent: *\nDisallow: /*.pdf$\nDisallow: /search*\nAllow: /search/help\n",
			allowed: []string{"/doc.pdf?x", "/searc", "/search/help"},
			denied:  []string{"/files/doc.pdf", "/search", "/search?q=x"},
		},
		{
			name:    "comments, a byte order mark, CRLF, odd case, Sitemap lines deduplicated",
			robots:  "\ufeffUSER-AGENT: * # everyone\r\nDISALLOW: /x # not x\r\nsitemap: https://s.example/a.xml\r\nSitemap: https://s.example/a.xml\r\n",
			allowed: []string{"/y"},
			denied:  []string{"/x/1"},
			sitemaps: []string{
				"https://s.example/a.xml",
			},
		},
		{
			name:    "an empty Disallow allows everything",
			robots:  "User-agent: *\nDisallow:\n",
			allowed: []string{"/", "/a/b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ParseRobots([]byte(tc.robots))
			for _, p := range tc.allowed {
				if !r.Allowed(p) {
					t.Errorf("%s is not allowed", p)
				}
			}
			for _, p := range tc.denied {
				if r.Allowed(p) {
					t.Errorf("%s is allowed", p)
				}
			}
			if got := r.Sitemaps(); !reflect.DeepEqual(got, tc.sitemaps) {
				t.Errorf("sitemaps %q, want %q", got, tc.sitemaps)
			}
		})
	}
}

// TestRobotsHuge: a robots.txt as large as the reader takes (512 KiB) of
// the shapes temoto alone is quadratic on is cut to what applies to the
// reader, each cut reading less rather than more.
func TestRobotsHuge(t *testing.T) {
	const size = 512 << 10
	fill := func(head, line string) []byte {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < size; i++ {
			b.WriteString(strings.ReplaceAll(line, "%d", fmt.Sprint(i)))
		}
		return []byte(b.String())
	}
	t.Run("every agent of a group of thousands, every rule", func(t *testing.T) {
		var b strings.Builder
		for i := 0; b.Len() < size/2; i++ {
			fmt.Fprintf(&b, "User-agent: bot%d\n", i)
		}
		b.WriteString("User-agent: *\n")
		data := fill(b.String(), "Disallow: /d%d/\n")
		kept, _ := keepRobots(data)
		if strings.Count(string(kept), "User-agent:") > MaxRobotsRules+1 {
			t.Errorf("%d agent lines kept", strings.Count(string(kept), "User-agent:"))
		}
		r := ParseRobots(data)
		if r.Allowed("/d1/") || r.Allowed("/d9999999/") || r.Allowed("/") {
			t.Error("past the rule cap, what the kept rules do not allow should be disallowed")
		}
	})
	t.Run("long wildcard rules", func(t *testing.T) {
		long := "/" + strings.Repeat("*a", MaxRobotsRuleBytes)
		r := ParseRobots([]byte("User-agent: *\nAllow: " + long + "\nDisallow: " + long + "\nDisallow: /" + strings.Repeat("x", 2*MaxRobotsRuleBytes) + "\n"))
		kept, _ := keepRobots([]byte("User-agent: *\nAllow: " + long + "\nDisallow: " + long + "\n"))
		if strings.Contains(string(kept), "\nallow:") || !strings.Contains(string(kept), "\ndisallow:") {
			t.Errorf("a long Allow kept or a long Disallow dropped: %.80q", kept)
		}
		if r.Allowed("/" + strings.Repeat("x", MaxRobotsRuleBytes)) {
			t.Error("a long Disallow, shortened, should still disallow what it began with")
		}
	})
	t.Run("wildcard rules past their budget", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, "Disallow: /w%d/*.pdf$\nAllow: /w%d/*.html\n", i, i)
		}
		r := ParseRobots([]byte(b.String()))
		if r.Allowed("/w0/a.pdf") || !r.Allowed("/w0/a.txt") {
			t.Error("the first wildcard rules, within the budget, should be kept as written")
		}
		if r.Allowed("/w99/a.txt") || r.Allowed("/w99/a.html") {
			t.Error("past the budget, a Disallow should keep its prefix and an Allow be dropped")
		}
	})
	t.Run("Sitemap lines", func(t *testing.T) {
		r := ParseRobots(fill("", "Sitemap: https://s.example/%d.xml\n"))
		if len(r.Sitemaps()) != MaxRobotsSitemaps {
			t.Errorf("%d sitemaps", len(r.Sitemaps()))
		}
	})
}

// BenchmarkRobotsAllowed: the cost of one Allowed call, against the
// longest path, under the worst robots.txt files the caps let through:
// wildcard rules up to MaxRobotsWildcardBytes (long ones, or as many short
// ones as fit) that keep the matcher busy to the path's end and fail there,
// then plain rules up to MaxRobotsRules.
func BenchmarkRobotsAllowed(b *testing.B) {
	for _, tc := range []struct{ name, path, rule string }{
		{"long rules, longest path", "/" + strings.Repeat("a", MaxURLBytes-2) + "b", "/" + strings.Repeat("*a", MaxRobotsRuleBytes/2-1) + "$"},
		{"short rules, longest path", "/" + strings.Repeat("a", MaxURLBytes-2) + "b", "/*a*a*a$"},
		{"short rules, usual path", "/2024/05/why-i-dont-prune-in-march/", "/*a*a*a$"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var robots strings.Builder
			robots.WriteString("User-agent: *\n")
			wild := min(MaxRobotsWildcardBytes/len(tc.rule), MaxRobotsRules)
			for i := 0; i < wild; i++ {
				robots.WriteString("Disallow: " + tc.rule + "\n")
			}
			for i := 0; i < MaxRobotsRules-wild; i++ {
				fmt.Fprintf(&robots, "Disallow: /plain/%d/\n", i)
			}
			r := ParseRobots([]byte(robots.String()))
			b.ReportAllocs()
			for b.Loop() {
				if !r.Allowed(tc.path) {
					b.Fatal("not allowed")
				}
			}
		})
	}
}

// FuzzRobots: no robots.txt makes ParseRobots or Allowed panic, and the
// groups of other crawlers never change what the reader may read.
func FuzzRobots(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\nSitemap: https://s.example/wp-sitemap.xml\n"), "/wp-admin/x")
	f.Add([]byte("User-agent: caddy-discovery\nDisallow: /*.pdf$\n\nUser-agent: *\nDisallow: /\n"), "/a.pdf?x=1")
	f.Add([]byte("\ufeffUser-agent: *\r\nCrawl-delay: x\r\nDisallow: *\r\n"), "/")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		r := ParseRobots(data)
		allowed := r.Allowed(path)
		if len(r.Sitemaps()) > MaxRobotsSitemaps {
			t.Errorf("%d sitemaps", len(r.Sitemaps()))
		}
		other := ParseRobots(append([]byte("User-agent: otherbot\nDisallow: /\n\n"), data...))
		if bytes.HasPrefix(data, []byte("User-agent")) && other.Allowed(path) != allowed {
			t.Errorf("another crawler's group changed what the reader may read of %q", path)
		}
	})
}
