package sitecheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
)

func TestParseSitemap(t *testing.T) {
	for _, tt := range []struct {
		name, xml       string
		pages, sitemaps []string
		err             bool
	}{
		{name: "urlset", xml: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<url><loc> https://a.example/x/ </loc><lastmod>2024-01-01</lastmod></url><url><loc>https://a.example/y</loc></url></urlset>`,
			pages: []string{"https://a.example/x/", "https://a.example/y"}},
		{name: "index", xml: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://a.example/sitemap-0.xml</loc></sitemap></sitemapindex>`,
			sitemaps: []string{"https://a.example/sitemap-0.xml"}},
		{name: "escaped", xml: `<urlset><url><loc>https://a.example/?a=1&amp;b=2</loc></url></urlset>`, pages: []string{"https://a.example/?a=1&b=2"}},
		{name: "HTML page", xml: `<!DOCTYPE html><html><body>not found</body></html>`, err: true},
		{name: "empty", xml: ``, err: true},
		{name: "broken", xml: `<urlset><url><loc>https://a.example/x`, err: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sm, err := ParseSitemap([]byte(tt.xml))
			if (err != nil) != tt.err {
				t.Fatalf("error %v, want one: %v", err, tt.err)
			}
			if !tt.err && (!slices.Equal(sm.Pages, tt.pages) || !slices.Equal(sm.Sitemaps, tt.sitemaps)) {
				t.Errorf("%+v, want pages %v sitemaps %v", sm, tt.pages, tt.sitemaps)
			}
		})
	}
}

// TestParseSitemapIsBounded: a sitemap of more addresses than MaxLocations
// is read up to that many.
func TestParseSitemapIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for range MaxLocations + 10 {
		b.WriteString("<url><loc>/x</loc></url>")
	}
	b.WriteString("</urlset>")
	sm, err := ParseSitemap([]byte(b.String()))
	if err != nil || len(sm.Pages) != MaxLocations {
		t.Errorf("%d pages, %v", len(sm.Pages), err)
	}
}

func TestPages(t *testing.T) {
	insight := func(slug, date, page string, given bool) content.Insight {
		return content.Insight{Slug: slug, DateISO: date, Page: page, PageGiven: given}
	}
	site := &content.Site{Insights: []content.Insight{
		insight("Javascript-Tips", "2024-03-05", "/insights/Javascript-Tips", false), // Jekyll keeps case
		insight("Mixed-Case", "2023-05-09", "/insights/Mixed-Case", false),           // Hugo lowercases
		insight("Hello World", "2023-01-01", "/insights/Hello%20World", false),       // Jekyll slugifies
		insight("own", "2023-01-01", "/notes/own/", true),                            // the owner's word
		insight("go", "2022-01-01", "/insights/go", false),                           // also a tag
		insight("twice", "2021-06-01", "/insights/twice", false),                     // in two years
		insight("ambiguous", "2020-06-01", "/insights/ambiguous", false),             // twice, neither by year
		insight("already", "2020-01-01", "/already/", false),                         // where the site has it
		insight("absent", "2020-01-01", "/insights/absent", false),                   // not in the sitemap
		insight("elsewhere", "2020-01-01", "https://other.example/elsewhere", false), // another site
		insight("café", "2020-01-01", "/insights/caf%C3%A9", false),                  // non-ASCII
		insight("dated-name", "2024-06-03", "/insights/dated-name", false),           // Eleventy keeps the date
		insight("no-slash", "2020-01-02", "/2020/01/02/no-slash", true),              // the owner\'s, as a folder
	}}
	m := Pages(site, []string{
		"https://blog.example/2024/03/05/Javascript-Tips/",
		"https://blog.example/posts/mixed-case/",
		"https://blog.example/2023/01/01/Hello-World.html",
		"https://blog.example/notes/somewhere-else/own/",
		"https://blog.example/tags/go/", "https://blog.example/posts/go/", "https://blog.example/page/2/",
		"https://blog.example/2021/twice/", "https://blog.example/2019/twice/",
		"https://blog.example/a/ambiguous/", "https://blog.example/b/ambiguous/",
		"https://blog.example/already/", "https://blog.example/x/already/",
		"https://blog.example/posts/elsewhere/",
		"https://blog.example/posts/caf%C3%A9/",
		"https://blog.example/posts/2024-06-03-dated-name/",
		"https://blog.example/2020/01/02/no-slash/",
		"https://blog.example/", "::not a url",
	})
	want := map[string]string{
		"Javascript-Tips": "/2024/03/05/Javascript-Tips/", "Mixed-Case": "/posts/mixed-case/",
		"Hello World": "/2023/01/01/Hello-World.html", "own": "/notes/own/", "go": "/posts/go/",
		"twice": "/2021/twice/", "ambiguous": "/insights/ambiguous", "already": "/already/",
		"absent": "/insights/absent", "elsewhere": "https://other.example/elsewhere", "café": "/posts/caf%C3%A9/",
		"dated-name": "/posts/2024-06-03-dated-name/", "no-slash": "/2020/01/02/no-slash/",
	}
	for _, in := range m.Site.Insights {
		if in.Page != want[in.Slug] {
			t.Errorf("%s: %q, want %q", in.Slug, in.Page, want[in.Slug])
		}
	}
	if m.Matched != 9 || m.Unmatched != 2 || m.Changed != 8 {
		t.Errorf("matched %d, unmatched %d, changed %d; want 9, 2, 8", m.Matched, m.Unmatched, m.Changed)
	}
	if site.Insights[0].Page != "/insights/Javascript-Tips" {
		t.Error("the site given was modified")
	}
	if m := Pages(site, nil); m.Site != site || m.Changed != 0 {
		t.Errorf("an empty sitemap changed the site: %+v", m)
	}
	// The same address in two sitemaps is one candidate, not two.
	twice := Pages(&content.Site{Insights: []content.Insight{insight("once", "2024-01-01", "/insights/once", false)}},
		[]string{"https://blog.example/2024/once/", "https://blog.example/2024/once/"})
	if got := twice.Site.Insights[0].Page; got != "/2024/once/" {
		t.Errorf("an address listed by two sitemaps: %q, want it matched", got)
	}
}

func TestShutOut(t *testing.T) {
	for _, tt := range []struct {
		name, robots string
		want         []string
	}{
		{"named", "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n", []string{"GPTBot"}},
		{"several in one group", "User-agent: CCBot\nUser-agent: ClaudeBot # training\nDisallow: /\n", []string{"ClaudeBot", "CCBot"}},
		{"case of the name", "user-agent: gptbot\ndisallow: /\n", []string{"GPTBot"}},
		{"everyone shut out", "User-agent: *\nDisallow: /\n", aiTrainingCrawlers},
		{"everyone but GPTBot", "User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\nDisallow:\n", slices.DeleteFunc(slices.Clone(aiTrainingCrawlers), func(s string) bool { return s == "GPTBot" })},
		{"a part only", "User-agent: GPTBot\nDisallow: /private/\n", nil},
		{"shut but for a path", "User-agent: GPTBot\nDisallow: /\nAllow: /blog/\n", nil},
		{"nothing", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShutOut([]byte(tt.robots)); !slices.Equal(got, tt.want) {
				t.Errorf("%v, want %v", got, tt.want)
			}
		})
	}
}

func TestSameOrigin(t *testing.T) {
	for link, want := range map[string]string{
		"https://blog.example/sitemap.xml": "/sitemap.xml",
		"/sitemap-0.xml":                   "/sitemap-0.xml",
		"sitemap.xml":                      "/sitemap.xml",
		"https://blog.example/a/../b.xml":  "/b.xml",
		"ftp://blog.example/sitemap.xml":   "",
		"https://blog.example":             "",
	} {
		got, ok := SameOrigin(link)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", link, got, ok, want)
		}
	}
}
