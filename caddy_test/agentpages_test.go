package caddytest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The tests here pin what the module adds to the site's own pages: the
// sitemap, the Link headers and the Markdown twins, in front of a
// file_server, a reverse_proxy and a single-page app.

const insightSlug = "the-case-for-a-boring-data-platform"

// sitePages are the pages the sample content names, with their Markdown
// twins.
var sitePages = []struct{ page, twin string }{
	{"/", "/index.md"},
	{"/about", "/about.md"},
	{"/insights", "/insights.md"},
	{"/contact", "/contact.md"},
	{"/insights/" + insightSlug, "/insights/" + insightSlug + ".md"},
}

// siteFiles writes a static site (its pages, and the given extra files)
// and returns its root.
func siteFiles(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"index.html":                        "<!doctype html><title>home</title>",
		"about.html":                        "<!doctype html><title>about</title>",
		"insights.html":                     "<!doctype html><title>insights</title>",
		"insights/" + insightSlug + ".html": "<!doctype html><title>an insight</title>",
		"contact.html":                      "<!doctype html><title>contact</title>",
		"colophon.html":                     "<!doctype html><title>colophon</title>",
	}
	for name, data := range extra {
		files[name] = data
	}
	for name, data := range files {
		writeFile(t, filepath.Join(root, name), data)
	}
	return root
}

var linkValue = regexp.MustCompile(`<([^>]*)>([^,]*)`)
var relParam = regexp.MustCompile(`rel="?([^";]+)"?`)

// links returns every link of the Link fields as "rel target" (with the
// type hint for alternates), in order.
func links(h http.Header) []string {
	var out []string
	for _, field := range h.Values("Link") {
		for _, m := range linkValue.FindAllStringSubmatch(field, -1) {
			rel := relParam.FindStringSubmatch(m[2])
			if rel == nil {
				continue
			}
			for r := range strings.FieldsSeq(rel[1]) {
				v := r + " " + m[1]
				if strings.Contains(m[2], `type="text/markdown"`) {
					v += " markdown"
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// assertPageLinks checks that a site page's answer carries each of the
// module's relations exactly once, the Markdown twin among them.
func assertPageLinks(t *testing.T, r *response, twin string) {
	t.Helper()
	got := links(r.Header)
	for _, want := range []string{
		"api-catalog " + base + "/.well-known/api-catalog",
		"service-desc " + base + "/openapi.json",
		"service-doc " + base + "/developers",
		"describedby " + base + "/llms.txt",
		"alternate " + base + twin + " markdown",
	} {
		if n := countOf(got, want); n != 1 {
			t.Errorf("%s %s: %q %d times in Link %q", r.Request.Method, r.Request.URL.Path, want, n, r.Header.Values("Link"))
		}
	}
}

func countOf(list []string, v string) int {
	n := 0
	for _, s := range list {
		if s == v {
			n++
		}
	}
	return n
}

// varyNames are the field names the Vary fields list.
func varyNames(h http.Header) []string {
	var names []string
	for _, v := range h.Values("Vary") {
		for name := range strings.SplitSeq(v, ",") {
			names = append(names, strings.ToLower(strings.TrimSpace(name)))
		}
	}
	return names
}

type sitemapDoc struct {
	XMLName xml.Name
	URLs    []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

// assertModuleSitemap checks that r is the module's sitemap: valid
// sitemaps.org XML listing the pages, the portal and every insight with
// its modification date.
func assertModuleSitemap(t *testing.T, s *server, r *response) {
	t.Helper()
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("%s: %d %q, want the module's sitemap", r.Request.URL.Path, r.StatusCode, r.Header.Get("Content-Type"))
	}
	var doc sitemapDoc
	if err := xml.Unmarshal(r.body, &doc); err != nil {
		t.Fatalf("%s: not XML: %v\n%s", r.Request.URL.Path, err, r.body)
	}
	if doc.XMLName != (xml.Name{Space: "http://www.sitemaps.org/schemas/sitemap/0.9", Local: "urlset"}) {
		t.Errorf("root element %v", doc.XMLName)
	}
	lastmod := map[string]string{}
	for _, u := range doc.URLs {
		lastmod[u.Loc] = u.LastMod
	}
	var list struct {
		Items []struct{ URL, DateModifiedISO string }
	}
	if err := json.Unmarshal(s.get("/api/v1/insights").body, &list); err != nil || len(list.Items) == 0 {
		t.Fatalf("the insights list: %v", err)
	}
	for _, in := range list.Items {
		if got, ok := lastmod[in.URL]; !ok || got != in.DateModifiedISO {
			t.Errorf("%s: lastmod %q (listed %v), want %s", in.URL, got, ok, in.DateModifiedISO)
		}
	}
	for _, page := range []string{"/", "/about", "/insights", "/contact", "/developers"} {
		if _, ok := lastmod[base+page]; !ok {
			t.Errorf("the sitemap does not list %s", page)
		}
	}
	if len(lastmod) != len(doc.URLs) {
		t.Errorf("an address is listed twice: %d URLs, %d distinct", len(doc.URLs), len(lastmod))
	}
}

// TestSitemapOfASiteWithoutOne: the module's sitemap at /sitemap.xml and
// at its own address, whatever kind of site has none.
func TestSitemapOfASiteWithoutOne(t *testing.T) {
	root := siteFiles(t, nil)
	for name, site := range map[string]string{
		"file_server": "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\tfile_server",
		"spa":         "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\ttry_files {path} /index.html\n\tfile_server",
		"backend 404": "discovery {\n\t\tcontent sample\n\t}\n\treverse_proxy " + robotsBackend(t, http.StatusNotFound, "not here"),
		"nothing":     "discovery {\n\t\tcontent sample\n\t}",
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "http://localhost:9080 {\n\t"+site+"\n}\n")
			own := s.get("/sitemap-discovery.xml")
			assertModuleSitemap(t, s, own)
			s.validate(own)
			r := s.get("/sitemap.xml")
			assertModuleSitemap(t, s, r)
			if string(r.body) != string(own.body) || r.Header.Get("ETag") == "" || r.Header.Get("Last-Modified") != "" {
				t.Errorf("/sitemap.xml is not the module's sitemap with the module's headers: %v", r.Header)
			}
			s.validate(r)
			if again := s.get("/sitemap.xml", "If-None-Match", r.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match: %d", again.StatusCode)
			}
			if head := s.do(http.MethodHead, base+"/sitemap.xml", nil); head.StatusCode != http.StatusOK || len(head.body) != 0 ||
				head.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
				t.Errorf("HEAD: %d %q", head.StatusCode, head.Header.Get("Content-Type"))
			}
			robots := string(s.get("/robots.txt").body)
			if !strings.Contains(robots, "\nSitemap: "+base+"/sitemap-discovery.xml\n") {
				t.Errorf("robots.txt does not name the sitemap:\n%s", robots)
			}
			assertMarkdownSitemap(t, s, own)
		})
	}
}

// assertMarkdownSitemap checks that /sitemap.md is the module's: every
// address of the XML sitemap xml, as a Markdown link, a page with a twin
// followed by the twin's address.
func assertMarkdownSitemap(t *testing.T, s *server, xmlSitemap *response) {
	t.Helper()
	r := s.get("/sitemap.md")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || !strings.HasPrefix(string(r.body), "# ") {
		t.Fatalf("/sitemap.md: %d %q\n%.300s", r.StatusCode, r.Header.Get("Content-Type"), r.body)
	}
	s.validate(r)
	var doc sitemapDoc
	if err := xml.Unmarshal(xmlSitemap.body, &doc); err != nil {
		t.Fatal(err)
	}
	md := string(r.body)
	for _, u := range doc.URLs {
		if !strings.Contains(md, "]("+u.Loc+")") {
			t.Errorf("/sitemap.md lacks %s", u.Loc)
		}
	}
	if !strings.Contains(md, "]("+base+"/about): Markdown "+base+"/about.md") {
		t.Errorf("/sitemap.md does not give the about page's twin:\n%s", md)
	}
}

// TestSiteKeepsItsSitemap: a site with its own sitemap.xml and robots.txt
// keeps both; the module's sitemap is at its own address, which the merged
// robots.txt names beside the site's.
func TestSiteKeepsItsSitemap(t *testing.T) {
	siteSitemap := `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/shop</loc></url></urlset>`
	siteRobots := "User-agent: *\nDisallow: /private/\n\nSitemap: " + base + "/sitemap.xml\n"
	siteMarkdown := "# The shop's own sitemap\n\n- [Shop](https://example.com/shop)\n"
	root := siteFiles(t, map[string]string{"sitemap.xml": siteSitemap, "robots.txt": siteRobots, "sitemap.md": siteMarkdown})
	for name, site := range map[string]string{
		"file_server": "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\tfile_server",
		"spa":         "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\ttry_files {path} /index.html\n\tfile_server",
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "http://localhost:9080 {\n\t"+site+"\n}\n")
			r := s.get("/sitemap.xml")
			if r.StatusCode != http.StatusOK || string(r.body) != siteSitemap || r.Header.Get("Last-Modified") == "" {
				t.Fatalf("/sitemap.xml: %d %q, want the site's own file", r.StatusCode, r.body)
			}
			if r.Header.Get("ETag") == "" {
				t.Error("the site's sitemap lost its ETag")
			}
			if again := s.get("/sitemap.xml", "If-None-Match", r.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidating the site's sitemap: %d", again.StatusCode)
			}
			assertModuleSitemap(t, s, s.get("/sitemap-discovery.xml"))
			if md := s.get("/sitemap.md"); md.StatusCode != http.StatusOK || string(md.body) != siteMarkdown {
				t.Errorf("/sitemap.md: %d %q, want the site's own file", md.StatusCode, md.body)
			}
			robots := string(s.get("/robots.txt").body)
			if !strings.Contains(robots, "Disallow: /private/\n") || strings.Count(robots, "Sitemap: "+base+"/sitemap.xml\n") != 1 ||
				!strings.HasSuffix(robots, "\nSitemap: "+base+"/sitemap-discovery.xml\n") {
				t.Errorf("robots.txt must keep the site's rules and sitemap and name the module's:\n%s", robots)
			}
		})
	}
}

// TestSitemapBehindReverseProxy: the backend's own sitemap, and any answer
// but "none", reaches the client as the backend sent it.
func TestSitemapBehindReverseProxy(t *testing.T) {
	for status, body := range map[int]string{
		http.StatusOK:                  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>`,
		http.StatusInternalServerError: "backend down",
		http.StatusForbidden:           "not for you",
	} {
		backend := startBackend(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/xml")
			w.Header().Set("X-Backend", "yes")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		})
		s := startCaddy(t, "http://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t}\n\treverse_proxy "+backend+"\n}\n")
		r := s.get("/sitemap.xml")
		if r.StatusCode != status || string(r.body) != body || r.Header.Get("X-Backend") != "yes" {
			t.Errorf("backend %d: got %d %q", status, r.StatusCode, r.body)
		}
	}
}

func TestSitemapOptions(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		sitemap off
		site_sitemaps /sitemap_index.xml https://cdn.example.com/sitemap.xml
	}
	respond "the site" 404
}
`)
	for _, path := range []string{"/sitemap.xml", "/sitemap-discovery.xml", "/sitemap.md"} {
		if r := s.get(path); r.StatusCode != http.StatusNotFound || string(r.body) != "the site" {
			t.Errorf("sitemap off: %s is %d %q, want the site's answer", path, r.StatusCode, r.body)
		}
	}
	robots := string(s.get("/robots.txt").body)
	if !strings.HasSuffix(robots, "\nSitemap: "+base+"/sitemap_index.xml\nSitemap: https://cdn.example.com/sitemap.xml\n") ||
		strings.Contains(robots, "sitemap-discovery") {
		t.Errorf("robots.txt:\n%s", robots)
	}
	if strings.Contains(string(s.get("/llms.txt").body), "sitemap") {
		t.Error("sitemap off: llms.txt still links the sitemap")
	}
}

// TestPageLinks: the site's answers for the pages the content names carry
// the module's Link values, GET and HEAD, in front of each kind of site;
// other paths, and answers that are not the page, are left alone.
func TestPageLinks(t *testing.T) {
	root := siteFiles(t, nil)
	for name, site := range map[string]string{
		"file_server": "http://localhost:9080 {\n\troot * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\ttry_files {path} {path}.html\n\tfile_server\n}\n",
		"spa":         "http://localhost:9080 {\n\troot * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\ttry_files {path} /index.html\n\tfile_server\n}\n",
		"make run":    demoSite(t),
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, site)
			for _, p := range sitePages {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					r := s.do(method, base+p.page, nil)
					if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
						t.Fatalf("%s %s: %d %q, want the site's page", method, p.page, r.StatusCode, r.Header.Get("Content-Type"))
					}
					assertPageLinks(t, r, p.twin)
					if !slices.Contains(varyNames(r.Header), "accept") {
						t.Errorf("%s %s: Vary %q lacks Accept", method, p.page, r.Header.Values("Vary"))
					}
					if r.Header.Get("RateLimit-Policy") != "" {
						t.Errorf("%s %s: the site's page is counted against the rate limit", method, p.page)
					}
				}
			}
			for _, path := range []string{"/colophon", "/insights/no-such-insight", "/about/", "/style.css", "/nope"} {
				r := s.get(path)
				if r.Header.Get("Link") != "" || slices.Contains(varyNames(r.Header), "accept") {
					t.Errorf("%s (%d), not a page the content names: Link %q, Vary %q", path, r.StatusCode,
						r.Header.Values("Link"), r.Header.Values("Vary"))
				}
			}
		})
	}
}

// TestPageLinksBesideTheBackends: reverse_proxy copies the backend's Link
// fields; the module's are added beside them, none repeated, and the
// backend's Vary is kept.
func TestPageLinksBesideTheBackends(t *testing.T) {
	var requests atomic.Int32
	backend := startBackend(t, func(w http.ResponseWriter, r *http.Request) {
		// The site check asks the backend for its pages in the background
		// after the first request, while the test runs: only the requests
		// the test's client made count.
		if r.Header.Get("User-Agent") != "caddy-discovery site check" {
			requests.Add(1)
		}
		w.Header().Add("Link", `</style.css>; rel=preload; as=style`)
		w.Header().Add("Link", `</llms.txt>; rel="describedby"; type="text/plain", <https://cdn.example/font.woff2>; rel=preload; as=font`)
		w.Header().Set("Vary", "Accept-Encoding")
		if r.URL.Path == "/insights" {
			w.Header().Set("Vary", "Accept-Encoding, Accept") // the app negotiates too
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/missing", "/about":
			if r.URL.Query().Get("gone") != "" || r.URL.Path == "/missing" {
				w.WriteHeader(http.StatusNotFound)
			}
		}
		fmt.Fprintf(w, "<!doctype html><title>%s</title>", r.URL.Path)
	})
	s := startCaddy(t, "http://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t}\n\treverse_proxy "+backend+"\n}\n")
	for _, p := range sitePages {
		r := s.get(p.page)
		got := links(r.Header)
		for _, want := range []string{"preload " + "/style.css", "preload https://cdn.example/font.woff2"} {
			if n := countOf(got, want); n != 1 {
				t.Errorf("%s: the backend's %q %d times in %q", p.page, want, n, r.Header.Values("Link"))
			}
		}
		// The backend named llms.txt already: the module adds the rest.
		if n := countOf(got, "describedby /llms.txt") + countOf(got, "describedby "+base+"/llms.txt"); n != 1 {
			t.Errorf("%s: describedby %d times in %q", p.page, n, r.Header.Values("Link"))
		}
		for _, rel := range []string{"api-catalog", "service-desc", "service-doc", "alternate"} {
			n := 0
			for _, l := range got {
				if strings.HasPrefix(l, rel+" ") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: %s %d times in %q", p.page, rel, n, r.Header.Values("Link"))
			}
		}
		if v := varyNames(r.Header); countOf(v, "accept-encoding") != 1 || countOf(v, "accept") != 1 {
			t.Errorf("%s: Vary %q", p.page, r.Header.Values("Vary"))
		}
	}
	// A page the backend does not have: no links to a twin of nothing.
	if r := s.get("/about?gone=1"); r.StatusCode != http.StatusNotFound || len(links(r.Header)) != 3 {
		t.Errorf("a 404 of a page: %d, Link %q", r.StatusCode, r.Header.Values("Link"))
	}
	// Markdown is the module's own answer: the backend is not asked.
	before := requests.Load()
	if r := s.get("/", "Accept", "text/markdown"); r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || requests.Load() != before {
		t.Errorf("Markdown of /: %q, backend asked %d times", r.Header.Get("Content-Type"), requests.Load()-before)
	}
}

// TestMarkdownForAgents: Accept: text/markdown on each page the content
// names gives its Markdown, the same as its .md twin; HTML stays the
// default, the q-values are honoured, and both vary on Accept.
func TestMarkdownForAgents(t *testing.T) {
	root := siteFiles(t, nil)
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+root+`
	discovery {
		content sample
		rate_limit 1500 60s
	}
	try_files {path} {path}.html
	file_server
}
`)
	robots := string(s.get("/robots.txt").body)
	signal := regexp.MustCompile(`(?m)^Content-Signal: (.+)$`).FindStringSubmatch(robots)
	if signal == nil {
		t.Fatalf("no Content-Signal in robots.txt:\n%s", robots)
	}
	for _, p := range sitePages {
		twin := s.get(p.twin)
		if twin.StatusCode != http.StatusOK || twin.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%s: %d %q", p.twin, twin.StatusCode, twin.Header.Get("Content-Type"))
		}
		s.validate(twin)
		if twin.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("%s, the twin's own address, is counted against the API's quota: llms.txt links it for agents to follow", p.twin)
		}
		body := string(twin.body)
		// Front matter a YAML parser reads (the Agent Readability Spec's
		// title, description, canonical_url and last_updated), then the
		// title and the pointer at llms.txt.
		front, rest, ok := strings.Cut(strings.TrimPrefix(body, "---\n"), "\n---\n\n")
		var facts map[string]string
		if !ok || !strings.HasPrefix(body, "---\n") || yaml.Unmarshal([]byte(front), &facts) != nil ||
			facts["title"] == "" || len(facts["description"]) < 20 || facts["canonical_url"] != base+p.page || len(facts["last_updated"]) != 10 {
			t.Errorf("%s: front matter %q", p.twin, facts)
		}
		if !strings.HasPrefix(rest, "# "+facts["title"]+"\n") || !strings.Contains(rest[:min(400, len(rest))], "]("+base+"/llms.txt)") {
			t.Errorf("%s does not open with its title and a pointer at llms.txt:\n%.400s", p.twin, body)
		}
		for _, accept := range []string{"text/markdown", "text/markdown, text/html, */*", "text/html;q=0.9, text/markdown", "text/markdown;q=0.5, text/html;q=0.4, */*;q=0.1"} {
			r := s.get(p.page, "Accept", accept)
			if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || string(r.body) != body {
				t.Errorf("%s with Accept %q: %d %q, want the twin's Markdown", p.page, accept, r.StatusCode, r.Header.Get("Content-Type"))
				continue
			}
			if !slices.Contains(varyNames(r.Header), "accept") {
				t.Errorf("%s as Markdown: Vary %q", p.page, r.Header.Values("Vary"))
			}
			if got := links(r.Header); countOf(got, "canonical "+base+p.page) != 1 {
				t.Errorf("%s as Markdown: Link %q lacks the canonical page", p.page, r.Header.Values("Link"))
			}
			if r.Header.Get("Content-Signal") != signal[1] {
				t.Errorf("%s as Markdown: Content-Signal %q, robots.txt says %q", p.page, r.Header.Get("Content-Signal"), signal[1])
			}
			tokens, err := strconv.Atoi(r.Header.Get("X-Markdown-Tokens"))
			if n := utf8.RuneCount(r.body); err != nil || tokens < n/5 || tokens > n/3 {
				t.Errorf("%s as Markdown: X-Markdown-Tokens %q for %d characters", p.page, r.Header.Get("X-Markdown-Tokens"), n)
			}
			if r.Header.Get("RateLimit-Policy") != "" || r.Header.Get("RateLimit") != "" {
				t.Errorf("%s as Markdown at the page's own address is counted against the rate limit, as the page's HTML is not", p.page)
			}
			if again := s.get(p.page, "Accept", accept, "If-None-Match", r.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("%s as Markdown, revalidated: %d", p.page, again.StatusCode)
			}
		}
		if head := s.do(http.MethodHead, base+p.page, nil, "Accept", "text/markdown"); head.StatusCode != http.StatusOK ||
			head.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || len(head.body) != 0 {
			t.Errorf("HEAD %s as Markdown: %d %q", p.page, head.StatusCode, head.Header.Get("Content-Type"))
		}
		if gz := s.get(p.page, "Accept", "text/markdown", "Accept-Encoding", "gzip"); len(twin.body) > 1024 &&
			(gz.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding")) {
			t.Errorf("%s as Markdown, gzip: Content-Encoding %q, Vary %q", p.page, gz.Header.Get("Content-Encoding"), gz.Header.Get("Vary"))
		}
		for _, accept := range []string{"", "*/*", "text/html", "text/*", "text/markdown;q=0.5, */*", "text/markdown;q=0",
			"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"} {
			r := s.get(p.page, "Accept", accept)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !slices.Contains(varyNames(r.Header), "accept") {
				t.Errorf("%s with Accept %q: %q, Vary %q; want the site's HTML, varying on Accept", p.page, accept,
					r.Header.Get("Content-Type"), r.Header.Values("Vary"))
			}
		}
	}
	// The contact page's twin names every channel the profile publishes.
	var profile struct {
		Contact map[string]string `json:"contact"`
	}
	if err := json.Unmarshal(s.get("/api/v1/profile").body, &profile); err != nil || len(profile.Contact) < 2 {
		t.Fatalf("the profile's contact: %v %v", profile.Contact, err)
	}
	contact := string(s.get("/contact.md").body)
	for field, value := range profile.Contact {
		if !strings.Contains(contact, value) {
			t.Errorf("/contact.md lacks the profile's %s %q:\n%s", field, value, contact)
		}
	}

	// Only the pages the content names have twins; the rest is the site's.
	for _, path := range []string{"/colophon.md", "/insights/no-such-insight.md"} {
		if r := s.get(path); r.StatusCode != http.StatusNotFound || r.Header.Get("Content-Type") == "text/markdown; charset=utf-8" {
			t.Errorf("%s: %d %q, want the site's 404", path, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
	if r := s.get("/colophon", "Accept", "text/markdown"); !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/colophon, not named in the content, as Markdown: %q", r.Header.Get("Content-Type"))
	}
	if r := s.do(http.MethodPost, base+"/", nil, "Accept", "text/markdown"); r.Header.Get("Content-Type") == "text/markdown; charset=utf-8" {
		t.Error("POST / was answered with Markdown")
	}
}

// TestMarkdownForAIAgents: a known AI agent that does not ask for HTML by
// name gets each page's Markdown; browsers, and agents that ask for HTML,
// get the site's HTML; every answer at the page varies on Accept and
// User-Agent. With markdown_by_user_agent off, only Accept decides.
func TestMarkdownForAIAgents(t *testing.T) {
	root := siteFiles(t, nil)
	// An app behind reverse_proxy that answers every page with HTML and
	// varies on Accept-Encoding.
	app := startBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Vary", "Accept-Encoding")
		fmt.Fprint(w, "<!doctype html><title>app</title>")
	})
	backends := map[string]string{
		"file_server":   "root * " + root + "\n\ttry_files {path} {path}.html\n\tfile_server",
		"spa":           "root * " + root + "\n\ttry_files {path} /index.html\n\tfile_server",
		"reverse_proxy": "reverse_proxy " + app,
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) { testMarkdownForAIAgents(t, backend) })
	}
}

func testMarkdownForAIAgents(t *testing.T, backend string) {
	site := func(options string) string {
		return "http://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t\trate_limit 1500 60s\n\t\t" + options + "\n\t}\n\t" + backend + "\n}\n"
	}
	const (
		claude = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
		gpt    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot"
		chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
		html   = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	)
	s := startCaddy(t, site(""))
	for _, p := range sitePages {
		twin := s.get(p.twin)
		for _, ua := range []string{claude, gpt} {
			for _, accept := range []string{"", "*/*"} {
				r := s.get(p.page, "User-Agent", ua, "Accept", accept)
				if r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || string(r.body) != string(twin.body) {
					t.Errorf("%s for %.40q, Accept %q: %d %q, want the twin", p.page, ua, accept, r.StatusCode, r.Header.Get("Content-Type"))
				}
				if v := varyNames(r.Header); !slices.Contains(v, "accept") || !slices.Contains(v, "user-agent") {
					t.Errorf("%s as Markdown for an agent: Vary %q", p.page, r.Header.Values("Vary"))
				}
				if countOf(links(r.Header), "canonical "+base+p.page) != 1 {
					t.Errorf("%s as Markdown for an agent: Link %q", p.page, r.Header.Values("Link"))
				}
			}
			if r := s.get(p.page, "User-Agent", ua, "Accept", html); !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Errorf("%s for an agent that asks for HTML: %q", p.page, r.Header.Get("Content-Type"))
			}
		}
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			r := s.do(method, base+p.page, nil, "User-Agent", chrome, "Accept", "*/*")
			v := varyNames(r.Header)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !slices.Contains(v, "accept") || !slices.Contains(v, "user-agent") {
				t.Errorf("%s %s for a browser: %q, Vary %q; want the site's HTML, varying on Accept and User-Agent",
					method, p.page, r.Header.Get("Content-Type"), r.Header.Values("Vary"))
			}
		}
		if head := s.do(http.MethodHead, base+p.page, nil, "User-Agent", claude); head.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || len(head.body) != 0 {
			t.Errorf("HEAD %s for an agent: %q", p.page, head.Header.Get("Content-Type"))
		}
	}
	// Addresses that are not pages the content names are the site's.
	if r := s.get("/colophon", "User-Agent", claude); r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") ||
		slices.Contains(varyNames(r.Header), "user-agent") {
		t.Errorf("/colophon for an agent: %d %q, Vary %q", r.StatusCode, r.Header.Get("Content-Type"), r.Header.Values("Vary"))
	}

	s = startCaddy(t, site("markdown_by_user_agent off"))
	for _, p := range sitePages {
		r := s.get(p.page, "User-Agent", claude)
		if v := varyNames(r.Header); !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !slices.Contains(v, "accept") || slices.Contains(v, "user-agent") {
			t.Errorf("markdown_by_user_agent off: %s for an agent: %q, Vary %q", p.page, r.Header.Get("Content-Type"), r.Header.Values("Vary"))
		}
		if r := s.get(p.page, "User-Agent", claude, "Accept", "text/markdown"); r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("markdown_by_user_agent off: %s with Accept: text/markdown: %q", p.page, r.Header.Get("Content-Type"))
		}
	}
}

// TestAgentPagesSwitchedOff: markdown off and page_links off hand the
// pages back to the site.
func TestAgentPagesSwitchedOff(t *testing.T) {
	root := siteFiles(t, nil)
	site := func(options string) string {
		return "http://localhost:9080 {\n\troot * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t\t" + options +
			"\n\t}\n\ttry_files {path} {path}.html\n\tfile_server\n}\n"
	}
	s := startCaddy(t, site("markdown off"))
	for _, p := range sitePages {
		if r := s.get(p.twin); r.StatusCode != http.StatusNotFound {
			t.Errorf("markdown off: %s is %d, want the site's 404", p.twin, r.StatusCode)
		}
		r := s.get(p.page, "Accept", "text/markdown")
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || slices.Contains(varyNames(r.Header), "accept") {
			t.Errorf("markdown off: %s is %q, Vary %q", p.page, r.Header.Get("Content-Type"), r.Header.Values("Vary"))
		}
		got := links(r.Header)
		if len(got) != 4 || strings.Contains(strings.Join(got, " "), "markdown") {
			t.Errorf("markdown off: %s Link %q, want the four without a twin", p.page, r.Header.Values("Link"))
		}
	}
	llms := string(s.get("/llms.txt").body)
	if strings.Contains(llms, "/index.md)") || strings.Contains(llms, "/about.md)") ||
		!strings.Contains(llms, "]("+base+"/insights/"+insightSlug+")") {
		t.Errorf("markdown off: llms.txt should link the pages themselves:\n%s", llms)
	}

	s = startCaddy(t, site("page_links off"))
	for _, p := range sitePages {
		r := s.get(p.page)
		if r.Header.Get("Link") != "" || !slices.Contains(varyNames(r.Header), "accept") {
			t.Errorf("page_links off: %s Link %q, Vary %q", p.page, r.Header.Values("Link"), r.Header.Values("Vary"))
		}
		if r := s.get(p.page, "Accept", "text/markdown"); r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("page_links off: %s as Markdown: %q", p.page, r.Header.Get("Content-Type"))
		}
	}
}

// TestLLMsTxtOfALargeSite: /llms.txt stays under 50 000 characters with
// thousands of insights, and links the index of them all, which resolves.
func TestLLMsTxtOfALargeSite(t *testing.T) {
	dir := largeContent(t, 2000)
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content `+dir+`
		rate_limit 1500 60s
	}
	respond "the site" 200
}
`)
	llms := string(s.get("/llms.txt").body)
	if n := utf8.RuneCountInString(llms); n >= 50000 {
		t.Errorf("/llms.txt has %d characters", n)
	}
	index := regexp.MustCompile(`- \[All (\d+) insights\]\(([^)]+)\)`).FindStringSubmatch(llms)
	if index == nil || index[1] != "2008" || index[2] != base+"/insights.md" {
		t.Fatalf("no link to the index of every insight: %v", index)
	}
	all := s.get("/insights.md")
	if all.StatusCode != http.StatusOK || strings.Count(string(all.body), "\n- [") != 2008 {
		t.Errorf("/insights.md: %d, %d items", all.StatusCode, strings.Count(string(all.body), "\n- ["))
	}
}

// TestHeaderDirectiveStillRules: the site's own header directive applies to
// what the module adds to its pages, as to everything else.
func TestHeaderDirectiveStillRules(t *testing.T) {
	root := siteFiles(t, nil)
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+root+`
	header -Link
	discovery {
		content sample
	}
	try_files {path} {path}.html
	file_server
}
`)
	for _, p := range sitePages {
		if r := s.get(p.page); r.StatusCode != http.StatusOK || r.Header.Get("Link") != "" {
			t.Errorf("%s with header -Link: %d, Link %q", p.page, r.StatusCode, r.Header.Values("Link"))
		}
	}
}

// TestUnpublishedInsightTwinIsTheSites: the module owns the Markdown twins
// of published insights only; any other /insights/{slug}.md is the site's
// address and gets the site's own answer (its 404 page here), which is
// what /openapi.json must describe for it.
func TestUnpublishedInsightTwinIsTheSites(t *testing.T) {
	root := siteFiles(t, nil)
	for name, site := range map[string]string{
		"respond":     "discovery {\n\t\tcontent sample\n\t}\n\theader Content-Type \"text/html; charset=utf-8\"\n\trespond \"<!doctype html><title>Not found</title>\" 404",
		"file_server": "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\tfile_server",
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "http://localhost:9080 {\n\t"+site+"\n}\n")
			published := s.get("/insights/" + insightSlug + ".md")
			if published.StatusCode != http.StatusOK {
				t.Fatalf("the twin of a published insight: %d", published.StatusCode)
			}
			s.validate(published)
			for _, slug := range []string{"no-such-post", "draft-2031"} {
				r := s.get("/insights/" + slug + ".md")
				if r.StatusCode != http.StatusNotFound || strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
					t.Errorf("/insights/%s.md: %d %q, want the site's own 404", slug, r.StatusCode, r.Header.Get("Content-Type"))
				}
				s.validate(r)
			}
		})
	}
}
