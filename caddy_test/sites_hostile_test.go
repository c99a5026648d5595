package caddytest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Reading the site as an anonymous visitor, within bounds, whatever the
// site serves (issues 34 and 35): a bare discovery in front of sites that
// show some visitors more than others, and of sites that answer with what
// no reader should take in whole.

// guardedPosts are the posts of testdata/sites/guarded that any visitor
// may read.
var guardedPosts = []sitePost{
	{"Seed swap in March", "2025-02-10", "/posts/seed-swap-in-march/", ""},
	{"First frost of the year", "2024-10-28", "/posts/first-frost/", ""},
	{"New benches by the pond", "2024-05-02", "/posts/new-benches/", ""},
}

// hiddenWords are what only some visitors see: the guarded site's private
// and members' sections (linked from its home page, listed in its feed
// and sitemap) and the other host's intranet.
var hiddenWords = []string{
	"/private/", "/members/", "/intranet/", "Budget draft", "Volunteer rota", "Committee meeting notes",
	"Shed door codes", "Insurance renewal", "Facilities Desk",
}

// TestSiteReadAsAnonymousVisitor (issue 34): the site is read with nothing
// of the visitor whose request started the reader. The garden's site
// keeps /private/ for addresses a remote_ip matcher trusts and /members/
// behind basic_auth, and links both from its home page, feed and sitemap;
// its host name 127.0.0.1 serves an intranet. Whatever the first request
// (from a trusted address, with credentials and a cookie, to the intranet
// host while base_url names the public one), nothing of those is
// published.
func TestSiteReadAsAnonymousVisitor(t *testing.T) {
	public, err := filepath.Abs(filepath.Join("testdata", "sites", "guarded"))
	if err != nil {
		t.Fatal(err)
	}
	intranet, err := filepath.Abs(filepath.Join("testdata", "sites", "intranet"))
	if err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("compost-heap-42"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	credentials := "Basic " + base64.StdEncoding.EncodeToString([]byte("member:compost-heap-42"))
	for _, tc := range []struct {
		name string
		port int
		// first is where the first request goes (from this test, on
		// loopback, which remote_ip trusts), probe what it carries.
		first string
		probe http.Header
		// baseURL is the discovery block's base_url, "" for none.
		baseURL string
	}{
		{"first request from a trusted address", 9358, "http://localhost:9358", nil, ""},
		{"first request with credentials and a cookie", 9359, "http://localhost:9359",
			http.Header{"Authorization": {credentials}, "Cookie": {"member_session=elsa"}}, ""},
		{"base_url another host than the first request's", 9360, "http://127.0.0.1:9360", nil, "http://localhost:9360"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			origin := fmt.Sprintf("http://localhost:%d", tc.port)
			discovery := "discovery"
			if tc.baseURL != "" {
				discovery = "discovery {\n\t\tbase_url " + tc.baseURL + "\n\t}"
			}
			caddyfile := siteCaddyfile(tc.port, fmt.Sprintf(`http://localhost:%[1]d, http://127.0.0.1:%[1]d {
	%[2]s
	@intranet host 127.0.0.1
	handle @intranet {
		root * %[3]s
		file_server
	}
	handle {
		root * %[4]s
		@outside not remote_ip 127.0.0.0/8 ::1
		handle /private/* {
			respond @outside 403
			file_server
		}
		basic_auth /members/* {
			member %[5]s
		}
		file_server
	}
}
`, tc.port, discovery, intranet, public, hash))
			p := startProcessProbing(t, "Caddy", tc.first, caddyfile, tc.probe)
			siteRead(t, p, origin)

			// The sections are there for those the site lets in: this
			// test's address, the member's credentials, the intranet's
			// host.
			for _, check := range []struct {
				address string
				headers []string
				status  int
			}{
				{origin + "/private/budget-draft/", nil, http.StatusOK},
				{origin + "/members/committee-notes/", nil, http.StatusUnauthorized},
				{origin + "/members/committee-notes/", []string{"Authorization", credentials}, http.StatusOK},
			} {
				if resp, _ := ask(t, check.address, check.headers...); resp.StatusCode != check.status {
					t.Errorf("%s %v: %s, want %d", check.address, check.headers, resp.Status, check.status)
				}
			}
			if _, body := ask(t, fmt.Sprintf("http://127.0.0.1:%d/", tc.port)); !bytes.Contains(body, []byte("Facilities Desk")) {
				t.Errorf("the host 127.0.0.1 does not serve the intranet:\n%s", body)
			}

			c := newSiteClient(t, origin, nil)
			insights := c.insights()
			for _, post := range guardedPosts {
				if in, ok := insights[post.path]; !ok || in.Title != post.title || in.DateISO != post.date {
					t.Errorf("the public post %s: %+v", post.path, in)
				}
			}
			if len(insights) != len(guardedPosts) {
				t.Errorf("insights %v, want the %d public posts", insightPaths(insights), len(guardedPosts))
			}
			for _, doc := range []string{"/api/v1/profile", "/api/v1/insights", "/sitemap-discovery.xml", "/llms.txt", "/llms-full.txt"} {
				_, body := c.ask(doc)
				for _, word := range hiddenWords {
					if bytes.Contains(body, []byte(word)) {
						t.Errorf("%s publishes %q, which only some visitors see", doc, word)
					}
				}
			}
			var profile siteProfile
			decodeJSON(t, c.validJSON("/api/v1/profile"), &profile)
			if profile.Name != "Elsa Brandvold" {
				t.Errorf("the profile names %q", profile.Name)
			}
		})
	}
}

// insightPaths are the addresses of insights, sorted.
func insightPaths(m map[string]blogInsight) []string {
	return slices.Sorted(mapKeys(m))
}

// badSite is a small site of two good posts, behind reverse_proxy, with
// one address that answers with something hostile.
type badSite struct {
	// links are addresses the home page links beside the good posts.
	links []string
	// head is added to the home page's <head>.
	head string
	// robots is its robots.txt, "" for none.
	robots string
	// hostile answers the addresses the good site does not have.
	hostile http.HandlerFunc
}

// badSitePosts are the good posts every bad site has.
var badSitePosts = []sitePost{
	{"Pruning the old pear tree", "2024-02-11", "/posts/pruning-the-pear/", "cut back to three main branches"},
	{"A rain barrel for the allotment", "2024-06-23", "/posts/rain-barrel/", "two hundred litres in one storm"},
}

// serve is the bad site's handler.
func (b *badSite) serve() http.HandlerFunc {
	paragraphs := map[string]string{
		"/posts/pruning-the-pear/": "The pear tree was cut back to three main branches this winter, after two years of fruit too high to reach. The cuts were sealed with nothing at all, as the old gardeners advised.",
		"/posts/rain-barrel/":      "The new barrel by the shed filled with two hundred litres in one storm. A diverter on the downpipe sends the rest to the pond once it is full.",
	}
	return func(w http.ResponseWriter, r *http.Request) {
		post := func(p sitePost) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			ld, _ := json.Marshal(map[string]any{"@context": "https://schema.org", "@type": "BlogPosting", "headline": p.title,
				"datePublished": p.date + "T09:00:00Z", "author": map[string]any{"@type": "Person", "name": "Tomas Reyes"}})
			fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title><script type="application/ld+json">%s</script></head>`+
				`<body><main><article><h1>%s</h1><p>%s</p><p>More from the allotment next month.</p></article></main></body></html>`,
				html.EscapeString(p.title), ld, html.EscapeString(p.title), html.EscapeString(paragraphs[p.path]))
		}
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			ld, _ := json.Marshal(map[string]any{"@context": "https://schema.org", "@type": "Person", "name": "Tomas Reyes",
				"description": "Tomas Reyes keeps an allotment and writes about it."})
			var links strings.Builder
			for _, p := range badSitePosts {
				fmt.Fprintf(&links, `<li><a href="%s">%s</a></li>`, p.path, html.EscapeString(p.title))
			}
			for _, l := range b.links {
				fmt.Fprintf(&links, `<li><a href="%s">More</a></li>`, l)
			}
			fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Allotment Notes</title>%s<script type="application/ld+json">%s</script></head>`+
				`<body><main><h1>Allotment Notes</h1><ul>%s</ul></main></body></html>`, b.head, ld, links.String())
		case "/robots.txt":
			if b.robots == "" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, b.robots)
		case badSitePosts[0].path:
			post(badSitePosts[0])
		case badSitePosts[1].path:
			post(badSitePosts[1])
		default:
			if b.hostile != nil {
				b.hostile(w, r)
				return
			}
			http.NotFound(w, r)
		}
	}
}

// startBadSite starts the bad site on loopback and a Caddy with a bare
// discovery in front of it, behind reverse_proxy, on port; it waits for
// the first full read.
func startBadSite(t *testing.T, port int, b *badSite) *process {
	t.Helper()
	backend := httptest.NewServer(b.serve())
	t.Cleanup(backend.Close)
	origin := fmt.Sprintf("http://localhost:%d", port)
	p := startProcess(t, "Caddy", origin, siteCaddyfile(port, fmt.Sprintf(`%s {
	discovery
	reverse_proxy %s
}
`, origin, strings.TrimPrefix(backend.URL, "http://"))))
	awaitLog(t, p, `"msg":"site read","site":"`+origin+`"`, 40*time.Second)
	return p
}

// checkStillServed checks that the module read the rest of the site and
// serves it: the good posts are insights, a good post's Markdown and the
// module's documents are served, none with a 5xx; and that nothing
// panicked.
func checkStillServed(t *testing.T, p *process) {
	t.Helper()
	c := newSiteClient(t, p.url, nil)
	insights := c.insights()
	for _, post := range badSitePosts {
		if in, ok := insights[post.path]; !ok || in.Title != post.title {
			t.Errorf("the good post %s is not read: %v", post.path, insightPaths(insights))
		}
	}
	for _, doc := range []string{"/api/v1/profile", "/llms.txt", "/llms-full.txt", "/sitemap-discovery.xml", "/developers", "/robots.txt"} {
		if resp, body := c.ask(doc); resp.StatusCode >= 500 {
			t.Errorf("%s: %s\n%s", doc, resp.Status, body)
		}
	}
	if resp, _ := c.ask(badSitePosts[0].path, "Accept", "text/markdown"); resp.StatusCode != http.StatusOK {
		t.Errorf("a good post as Markdown: %s", resp.Status)
	}
	log := p.log.String()
	for _, bad := range []string{"panic", "goroutine "} {
		if strings.Contains(log, bad) {
			t.Errorf("the log has %q", bad)
		}
	}
}

// warned checks that the log has a WARN whose message has want.
func warned(t *testing.T, p *process, want string) {
	t.Helper()
	for _, line := range strings.Split(p.log.String(), "\n") {
		if strings.Contains(line, `"level":"warn"`) && strings.Contains(line, want) {
			return
		}
	}
	t.Errorf("no WARN with %q in the log", want)
}

// TestBadInputFromTheSite (issue 35 §5): each kind of hostile answer,
// from a site behind reverse_proxy, gets a WARN and is skipped; the rest
// of the site is read and served, nothing panics, the module answers no
// 5xx.
func TestBadInputFromTheSite(t *testing.T) {
	t.Run("feed with entity expansion", func(t *testing.T) {
		laughs := `<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rss version="2.0"><channel><title>&lol9;</title><link>/</link>
<item><title>&lol9;</title><link>/posts/pruning-the-pear/</link><description>&lol9;</description></item>
</channel></rss>`
		p := startBadSite(t, 9363, &badSite{
			head: `<link rel="alternate" type="application/rss+xml" href="/feed.xml">`,
			hostile: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/feed.xml" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/rss+xml")
				fmt.Fprint(w, laughs)
			},
		})
		checkStillServed(t, p)
		warned(t, p, "feed")
		for _, doc := range []string{"/api/v1/insights", "/llms-full.txt"} {
			if _, body := ask(t, p.url+doc); bytes.Contains(body, []byte("lollol")) || bytes.Contains(body, []byte("&lol")) {
				t.Errorf("%s has the feed's entities: %s", doc, lineWith(body, "lol"))
			}
		}
	})

	t.Run("gzip bomb", func(t *testing.T) {
		bomb := gzipBomb(t, "", 1100<<20)
		p := startBadSite(t, 9364, &badSite{
			links: []string{"/posts/compost/"},
			hostile: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/posts/compost/" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(bomb)
			},
		})
		checkStillServed(t, p)
		warned(t, p, "larger than the reader reads")
	})

	t.Run("sitemap index that loops", func(t *testing.T) {
		p := startBadSite(t, 9365, &badSite{
			robots: "User-agent: *\nAllow: /\n\nSitemap: http://allotment.example/sitemap-a.xml\n",
			hostile: func(w http.ResponseWriter, r *http.Request) {
				index := `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://allotment.example/%s</loc></sitemap></sitemapindex>`
				w.Header().Set("Content-Type", "application/xml")
				switch r.URL.Path {
				case "/sitemap-a.xml":
					fmt.Fprintf(w, index, "sitemap-b.xml")
				case "/sitemap-b.xml":
					fmt.Fprintf(w, index, "sitemap-a.xml")
				default:
					http.NotFound(w, r)
				}
			},
		})
		checkStillServed(t, p)
		warned(t, p, "sitemap")
	})

	t.Run("redirect off the site", func(t *testing.T) {
		var asked atomic.Int32
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			fmt.Fprint(w, "<html><body><h1>Somewhere else</h1></body></html>")
		}))
		t.Cleanup(elsewhere.Close)
		p := startBadSite(t, 9366, &badSite{
			links: []string{"/posts/moved/"},
			hostile: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/posts/moved/" {
					http.NotFound(w, r)
					return
				}
				http.Redirect(w, r, elsewhere.URL+"/landing", http.StatusFound)
			},
		})
		checkStillServed(t, p)
		warned(t, p, "redirects off the site")
		if n := asked.Load(); n != 0 {
			t.Errorf("the other host was asked %d times", n)
		}
	})

	t.Run("100 MB feed", func(t *testing.T) {
		var written atomic.Int64
		p := startBadSite(t, 9367, &badSite{
			head: `<link rel="alternate" type="application/rss+xml" href="/feed.xml">`,
			hostile: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/feed.xml" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/rss+xml")
				fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Allotment Notes</title><link>/</link>`)
				item := []byte(`<item><title>Another day at the allotment</title><link>/posts/pruning-the-pear/</link><description>` +
					strings.Repeat("Weeding, watering and waiting. ", 30) + `</description></item>`)
				for written.Load() < 100<<20 {
					n, err := w.Write(item)
					written.Add(int64(n))
					if err != nil {
						return // the reader stopped reading
					}
				}
				fmt.Fprint(w, `</channel></rss>`)
			},
		})
		checkStillServed(t, p)
		warned(t, p, "larger than the reader reads")
		t.Logf("the backend wrote %d MB of the feed before the reader stopped reading", written.Load()>>20)
	})

	t.Run("page that never ends", func(t *testing.T) {
		var ended atomic.Bool
		p := startBadSite(t, 9368, &badSite{
			links: []string{"/posts/endless/"},
			hostile: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/posts/endless/" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Endless</title></head><body><p>`)
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-r.Context().Done():
						ended.Store(true)
						return
					case <-tick.C:
						fmt.Fprint(w, "still growing. ")
						w.(http.Flusher).Flush()
					}
				}
			},
		})
		checkStillServed(t, p)
		warned(t, p, "did not answer in time")
		deadline := time.Now().Add(10 * time.Second)
		for !ended.Load() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !ended.Load() {
			t.Error("the endless page's request was never ended")
		}
	})

	t.Run("markup in titles", func(t *testing.T) {
		// Two titles: one with markup in it (a script and a bold word, as
		// a careless CMS puts them in JSON-LD), which the reader keeps as
		// its text; one whose text names a tag, kept as written.
		titled := map[string]struct{ markup, text string }{
			"/posts/markup/":     {`<script>alert("title")</script>Compost <b>temperatures</b>`, "Compost temperatures"},
			"/posts/script-tag/": {"Why a <script> tag in a title breaks feeds", "Why a <script> tag in a title breaks feeds"},
		}
		p := startBadSite(t, 9369, &badSite{
			links: []string{"/posts/markup/", "/posts/script-tag/"},
			hostile: func(w http.ResponseWriter, r *http.Request) {
				title, ok := titled[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				ld, _ := json.Marshal(map[string]any{"@context": "https://schema.org", "@type": "BlogPosting", "headline": title.markup, "datePublished": "2024-08-01T09:00:00Z"})
				fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s</title><script type="application/ld+json">%s</script></head>`+
					`<body><article><h1>%s</h1><p>A post whose title has markup in it, shown as text.</p></article></body></html>`,
					html.EscapeString(title.markup), ld, html.EscapeString(title.markup))
			},
		})
		checkStillServed(t, p)
		c := newSiteClient(t, p.url, nil)
		insights := c.insights()
		for path, title := range titled {
			if in := insights[path]; in.Title != title.text {
				t.Errorf("%s: the API's title is %q, want the text %q", path, in.Title, title.text)
			}
		}
		for _, doc := range []string{"/developers", "/llms.txt", "/llms-full.txt", "/api/v1/insights", "/sitemap-discovery.xml", "/api/v1/profile"} {
			resp, body := c.ask(doc)
			for _, raw := range []string{"<script>alert(", "<b>temperatures", "<script> tag"} {
				// In Markdown a "<" escaped with a backslash is text.
				if unescaped := regexp.MustCompile(`(^|[^\\])` + regexp.QuoteMeta(raw)); unescaped.Match(body) {
					t.Errorf("%s (%s) has %q, unescaped: %s", doc, resp.Header.Get("Content-Type"), raw, lineWith(body, raw))
				}
			}
		}
	})
}

// lineWith is the first line of body that has want.
func lineWith(body []byte, want string) string {
	for _, line := range strings.Split(string(body), "\n") {
		if strings.Contains(line, want) {
			return line
		}
	}
	return "(none)"
}

// TestSiteCheckBoundsBehindReverseProxy (issue 34): the site check's
// bounds hold whatever the next handler is. A sitemap index lists a 9 MB
// sitemap (past the old check's 8 MiB, within the reader's 16 MiB: read)
// and a 17 MB one (past it: reverse_proxy aborts when the reader stops
// taking its bytes) before the good one: the good one is read, the abort
// is a WARN and no ERROR. An index of 16 × 100 000 addresses keeps
// 100 000 in all.
func TestSiteCheckBoundsBehindReverseProxy(t *testing.T) {
	// The addresses of the large sitemaps are disallowed to every crawler:
	// the bound under test is the sitemaps', not the pages' (5 000 a read).
	const robots = "User-agent: *\nDisallow: /gallery/\nDisallow: /p/\n\nSitemap: http://bounds.example/sitemap-index.xml\n"
	// imageSitemap writes a sitemap of about size bytes: gallery pages
	// with their images' captions.
	imageSitemap := func(w http.ResponseWriter, size int) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">`)
		caption := strings.Repeat("A view of the allotments from the railway bridge in the late afternoon. ", 20)
		for i, n := 0, 0; n < size; i++ {
			m, err := fmt.Fprintf(w, "<url><loc>http://bounds.example/gallery/%d/</loc><image:image><image:loc>http://bounds.example/img/%d.jpg</image:loc><image:caption>%s</image:caption></image:image></url>\n", i, i, caption)
			if err != nil {
				return
			}
			n += m
		}
		fmt.Fprint(w, `</urlset>`)
	}

	t.Run("oversized sitemaps before a good one", func(t *testing.T) {
		p := startBadSite(t, 9361, &badSite{
			robots: robots,
			hostile: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/sitemap-index.xml":
					w.Header().Set("Content-Type", "application/xml")
					fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
						`<sitemap><loc>http://bounds.example/sitemap-9mb.xml</loc></sitemap>`+
						`<sitemap><loc>http://bounds.example/sitemap-17mb.xml</loc></sitemap>`+
						`<sitemap><loc>http://bounds.example/sitemap-posts.xml</loc></sitemap></sitemapindex>`)
				case "/sitemap-9mb.xml":
					imageSitemap(w, 9<<20)
				case "/sitemap-17mb.xml":
					imageSitemap(w, 17<<20)
				case "/sitemap-posts.xml":
					w.Header().Set("Content-Type", "application/xml")
					fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
						`<url><loc>http://bounds.example/notes/seed-potatoes/</loc></url></urlset>`)
				case "/notes/seed-potatoes/":
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Chitting seed potatoes</title>`+
						`<script type="application/ld+json">{"@type":"BlogPosting","headline":"Chitting seed potatoes","datePublished":"2024-03-01"}</script></head>`+
						`<body><article><h1>Chitting seed potatoes</h1><p>The seed potatoes sit in egg boxes on the windowsill for six weeks.</p></article></body></html>`)
				default:
					http.NotFound(w, r)
				}
			},
		})
		checkStillServed(t, p)
		if _, ok := newSiteClient(t, p.url, nil).insights()["/notes/seed-potatoes/"]; !ok {
			t.Error("the post only the good sitemap lists is not read")
		}
		warned(t, p, "larger than the reader reads")
		if log := p.log.String(); strings.Contains(log, `"level":"error"`) {
			t.Errorf("the log has an ERROR:\n%s", log)
		}
	})

	t.Run("16 × 100 000 addresses", func(t *testing.T) {
		p := startBadSite(t, 9362, &badSite{
			robots: robots,
			hostile: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				if r.URL.Path == "/sitemap-index.xml" {
					fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
					for i := range 16 {
						fmt.Fprintf(w, `<sitemap><loc>http://bounds.example/sitemap-%d.xml</loc></sitemap>`, i)
					}
					fmt.Fprint(w, `</sitemapindex>`)
					return
				}
				var file int
				if _, err := fmt.Sscanf(r.URL.Path, "/sitemap-%d.xml", &file); err != nil {
					http.NotFound(w, r)
					return
				}
				fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for i := range 100_000 {
					fmt.Fprintf(w, "<url><loc>http://bounds.example/p/%d/%d</loc></url>\n", file, i)
				}
				fmt.Fprint(w, `</urlset>`)
			},
		})
		m := regexp.MustCompile(`"msg":"site read","site":"` + regexp.QuoteMeta(p.url) + `".*"sitemap_addresses":(\d+)`).FindStringSubmatch(p.log.String())
		if m == nil {
			t.Fatal("no site read logged")
		}
		n, _ := strconv.Atoi(m[1])
		if n > 100_000 || n == 0 {
			t.Errorf("%d sitemap addresses kept, want at most 100 000 in all", n)
		}
		t.Logf("%d sitemap addresses kept of 1 600 000; %s", n, siteReadFigures(p.log.String(), p.url))
		checkStillServed(t, p)
		warned(t, p, "list more addresses than the reader takes")
	})
}
