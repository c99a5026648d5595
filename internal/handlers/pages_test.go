package handlers

import (
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/negotiate"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// agentConfig turns on everything the agent pages add, as the module does
// by default.
func agentConfig(cfg Config) Config {
	cfg.Robots, cfg.Sitemap, cfg.PageLinks, cfg.Markdown = true, true, true, true
	return cfg
}

func TestWantsMarkdown(t *testing.T) {
	claude := "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	chrome := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
	for _, tt := range []struct {
		ua, accept string
		byUA, want bool
	}{
		{claude, "", true, true},
		{claude, "*/*", true, true},
		{claude, "text/plain, */*", true, true},
		{claude, "text/html", true, false},
		{claude, "text/html,application/xhtml+xml,*/*;q=0.8", true, false},
		{claude, "text/html;q=0, */*", true, true},
		{claude, "text/markdown, text/html;q=0.5", true, true},
		{claude, "", false, false},
		{chrome, "", true, false},
		{chrome, "*/*", true, false},
		{chrome, "text/markdown", true, true},
		{claude, strings.Repeat("text/plain,", negotiate.MaxRanges) + "*/*", true, false},
	} {
		cfg := &Config{MarkdownByUserAgent: tt.byUA}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("User-Agent", tt.ua)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		if got := cfg.wantsMarkdown(r); got != tt.want {
			t.Errorf("User-Agent %.20q, Accept %.40q, by user agent %v: %v, want %v", tt.ua, tt.accept, tt.byUA, got, tt.want)
		}
	}
}

func TestPlaceAgentRoutes(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	for path, want := range map[string]string{
		"/index.md": "getHomeMarkdown", "/about.md": "getAboutMarkdown", "/insights.md": "getInsightsMarkdown",
		"/insights/the-case-for-a-boring-data-platform.md": "getInsightMarkdown",
		"/sitemap.xml": "getSitemapXml", "/sitemap-discovery.xml": "getSitemap", "/contact.md": "getContactMarkdown",
	} {
		rt, _ := s.route(path)
		if rt == nil || rt.OperationID != want || !s.Owns(path) {
			t.Errorf("%s: route %v, want %s", path, rt, want)
		}
	}
	for _, path := range []string{"/insights/no-such-insight.md", "/", "/about", "/insights/x", "/contact"} {
		if s.Owns(path) {
			t.Errorf("the module owns %s", path)
		}
	}
	// A page the site structure lists but the content does not name as one
	// of its pages (home, about, insights, an insight, the contact form)
	// is not a site page; /developers is in the registry only as the
	// module's portal, with its twin by the same rule, and the site check
	// never asks the site for it.
	if p := s.cat.Pages["/developers"]; p == nil || !p.Module || p.Twin != "/developers.md" || p.Route != "/developers.md" {
		t.Errorf("/developers in the registry: %+v, want the module's page with its twin /developers.md", p)
	}
	if slices.Contains(s.SitePages(), "/developers") {
		t.Errorf("the site pages %q include the module's portal", s.SitePages())
	}

	// A contact form on another site is not a page of this one.
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	site.Profile.Contact.Form = "https://forms.example.org/rosalind"
	cfg := agentConfig(Config{BaseURL: "https://example.com", Site: site, TokenSecret: []byte(strings.Repeat("s", 32))})
	elsewhere, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if elsewhere.Owns("/contact.md") || len(elsewhere.cat.Pages) != len(s.cat.Pages)-1 {
		t.Errorf("contact form elsewhere: owns /contact.md %v, %d pages (want %d)", elsewhere.Owns("/contact.md"), len(elsewhere.cat.Pages), len(s.cat.Pages)-1)
	}

	// Off: none of it.
	s = newTestService(t, Config{BaseURL: "https://example.com", Robots: true})
	for _, path := range []string{"/index.md", "/about.md", "/insights/the-case-for-a-boring-data-platform.md", "/sitemap.xml"} {
		if s.Owns(path) {
			t.Errorf("off: the module owns %s", path)
		}
	}
}

// TestTwinsNeverShadow: a page whose twin would take a path the module
// already serves, or a page the module serves itself, gets none.
func TestTwinsNeverShadow(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	clone := *site
	clone.Pages = content.Pages{Home: "/", About: "/auth", Insights: "/developers", Insight: "/{slug}"}
	clone.Insights = append([]content.Insight(nil), site.Insights...)
	clone.Insights[0].Slug = "index" // its twin would be the home page's
	clone.Insights[1].Slug = "llms-full"
	for i := range clone.Insights {
		clone.Insights[i].Page = "" // from the pattern
	}
	s, err := New(agentConfig(Config{Site: &clone, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))}))
	if err != nil {
		t.Fatal(err)
	}
	if rt, _ := s.route("/auth.md"); rt == nil || rt.Path != view.PathAuth {
		t.Errorf("/auth.md is %v, want the auth notes", rt)
	}
	if p := s.cat.Pages["/developers"]; p == nil || !p.Module {
		t.Errorf("/developers, the module's portal, was taken for a site page: %+v", p)
	}
	if rt, slug := s.route("/index.md"); rt == nil || rt.OperationID != "getHomeMarkdown" || slug != "" {
		t.Errorf("/index.md is %v %q, want the home page's twin", rt, slug)
	}
	if p := s.cat.Pages["/index"]; p == nil || p.Twin != "" {
		t.Errorf("the insight at /index: %+v, want a page without twin", p)
	}
	if rt, slug := s.route("/" + site.Insights[2].Slug + ".md"); rt == nil || slug != site.Insights[2].Slug {
		t.Errorf("another insight's twin: %v %q", rt, slug)
	}
	body := string(s.document(s.fixed, s.byPath[view.PathLLMs], "", view.PathLLMs).body)
	if !strings.Contains(body, "](https://example.com/index)") || strings.Contains(body, "/about.md") {
		t.Errorf("llms.txt links a twin that does not exist, or not the page that has none:\n%s", body)
	}
}

func TestNegotiatedMarkdown(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	slug := s.cat.Site.Insights[0].Slug
	for _, tt := range []struct{ page, twin string }{
		{"/", "/index.md"}, {"/about", "/about.md"}, {"/insights", "/insights.md"},
		{"/insights/" + slug, "/insights/" + slug + ".md"},
	} {
		get := func(path, accept string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("Accept", accept)
			if s.Match(req).Answer != AnswerOwned {
				return nil
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			return rec
		}
		if get(tt.page, "text/html, */*") != nil {
			t.Errorf("%s for HTML: the module answered", tt.page)
		}
		negotiated, twin := get(tt.page, "text/markdown"), get(tt.twin, "*/*")
		if negotiated == nil || twin == nil {
			t.Fatalf("%s: negotiated %v, twin %v", tt.page, negotiated, twin)
		}
		if negotiated.Body.String() != twin.Body.String() || negotiated.Code != 200 ||
			negotiated.Header().Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("%s: %d %q, not the twin's body", tt.page, negotiated.Code, negotiated.Header().Get("Content-Type"))
		}
		if v := negotiated.Header().Get("Vary"); !strings.HasPrefix(v, "Accept") {
			t.Errorf("%s: Vary %q", tt.page, v)
		}
		if v := twin.Header().Get("Vary"); strings.Contains(v, "Accept,") || v == "Accept" {
			t.Errorf("%s: Vary %q on the twin, which does not negotiate", tt.twin, v)
		}
		link := twin.Header().Get("Link")
		if !strings.HasPrefix(link, "<https://example.com"+tt.page+`>; rel="canonical", `) || !strings.Contains(link, `rel="api-catalog"`) {
			t.Errorf("%s: Link %q", tt.twin, link)
		}
		if got := twin.Header().Get("Content-Signal"); got != "ai-train=yes, search=yes, ai-input=yes" {
			t.Errorf("%s: Content-Signal %q", tt.twin, got)
		}
		tokens, err := strconv.Atoi(twin.Header().Get("X-Markdown-Tokens"))
		if n := utf8.RuneCount(twin.Body.Bytes()); err != nil || tokens < n/5 || tokens > n/3 {
			t.Errorf("%s: X-Markdown-Tokens %q for %d characters", tt.twin, twin.Header().Get("X-Markdown-Tokens"), n)
		}
		front, body, ok := strings.Cut(strings.TrimPrefix(twin.Body.String(), "---\n"), "\n---\n\n")
		if !ok || !strings.HasPrefix(twin.Body.String(), "---\n") {
			t.Errorf("%s does not start with front matter:\n%.400s", tt.twin, twin.Body.String())
			continue
		}
		for _, field := range []string{"title: \"", "description: \"", "canonical_url: \"https://example.com" + tt.page + "\"", "last_updated: \"20"} {
			if !strings.Contains(front, "\n"+field) && !strings.HasPrefix(front, field) {
				t.Errorf("%s: the front matter lacks %s:\n%s", tt.twin, field, front)
			}
		}
		if !strings.HasPrefix(body, "# ") || !strings.Contains(body[:min(len(body), 400)], "(https://example.com/llms.txt)") {
			t.Errorf("%s does not open with its title and a pointer at llms.txt after the front matter:\n%.400s", tt.twin, body)
		}
	}
}

func TestSitemapDocument(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	body := s.document(s.fixed, s.byPath[view.PathSitemapOwn], "", view.PathSitemapOwn).body
	var set struct {
		XMLName xml.Name
		URLs    []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(body, &set); err != nil {
		t.Fatal(err)
	}
	if set.XMLName.Space != "http://www.sitemaps.org/schemas/sitemap/0.9" || set.XMLName.Local != "urlset" {
		t.Errorf("root %v", set.XMLName)
	}
	lastmod := map[string]string{}
	for _, u := range set.URLs {
		if _, dup := lastmod[u.Loc]; dup {
			t.Errorf("%s listed twice", u.Loc)
		}
		lastmod[u.Loc] = u.LastMod
	}
	for _, in := range s.cat.Site.Insights {
		if got := lastmod["https://example.com/insights/"+in.Slug]; got != in.DateModifiedISO {
			t.Errorf("%s: lastmod %q, want %s", in.Slug, got, in.DateModifiedISO)
		}
	}
	for _, page := range []string{"/", "/about", "/insights", "/contact", "/developers"} {
		if _, ok := lastmod["https://example.com"+page]; !ok {
			t.Errorf("%s is not listed", page)
		}
	}
	for loc := range lastmod {
		if !strings.HasPrefix(loc, "https://example.com/") {
			t.Errorf("another site's address %s", loc)
		}
	}
}

// TestLLMsTxtStaysSmall: however many insights, /llms.txt stays under the
// size agents read whole, and links the index of them all.
func TestLLMsTxtStaysSmall(t *testing.T) {
	site, err := content.Load(scaleContent(t, 2000))
	if err != nil {
		t.Fatal(err)
	}
	for _, markdown := range []bool{true, false} {
		cfg := agentConfig(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))})
		cfg.Markdown = markdown
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		body := string(s.document(s.fixed, s.byPath[view.PathLLMs], "", view.PathLLMs).body)
		if n := utf8.RuneCountInString(body); n >= docs.MaxLLMsTxt || n < docs.MaxLLMsTxt*9/10 {
			t.Errorf("markdown %v: %d characters, want just under %d", markdown, n, docs.MaxLLMsTxt)
		}
		index := "https://example.com/api/v1/insights"
		if markdown {
			index = "https://example.com/insights.md"
		}
		if !strings.Contains(body, "- [All 2000 insights]("+index+"): every insight, newest first; the newest ") {
			t.Errorf("markdown %v: no link to the index of every insight", markdown)
		}
		if !strings.HasSuffix(body, "## Optional\n\n"+body[strings.Index(body, "## Optional\n\n")+len("## Optional\n\n"):]) {
			t.Error("no Optional section at the end")
		}
	}
}

// BenchmarkPageLinks is what the module adds to the site's answer for one
// of its pages: the writer and the Link and Vary values, with and without
// Link fields of the site's own to keep.
func BenchmarkPageLinks(b *testing.B) {
	s := newTestService(b, agentConfig(Config{BaseURL: "https://example.com"}))
	req := httptest.NewRequest(http.MethodGet, "/about", nil)
	w := &discardWriter{h: make(http.Header)}
	for _, own := range []int{0, 2} {
		b.Run(strconv.Itoa(own)+" site links", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				for range own {
					w.h["Link"] = append(w.h["Link"], `</style.css>; rel=preload; as=style`)
				}
				s.PageWriter(w, req).WriteHeader(http.StatusOK)
			}
		})
	}
}

// BenchmarkNegotiatedMarkdown serves a page's Markdown for Accept:
// text/markdown, and, for comparison, its .md twin.
func BenchmarkNegotiatedMarkdown(b *testing.B) {
	s := newTestService(b, agentConfig(Config{BaseURL: "https://example.com", MarkdownByUserAgent: true}))
	w := &discardWriter{h: make(http.Header)}
	for name, target := range map[string]string{"negotiated": "/about", "twin": "/about.md", "user-agent": "/about"} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		if name == "user-agent" {
			req.Header.Set("User-Agent", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)")
			req.Header.Set("Accept", "*/*")
		} else {
			req.Header.Set("Accept", "text/markdown, text/html;q=0.9, */*;q=0.8")
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, req)
			}
		})
	}
}

// TestInsightPagesOfTheirOwn: an insight whose page has an address of its
// own (a Jekyll date permalink, capitals, a non-ASCII slug) is published
// at that address everywhere, its twin follows that address, and its API
// address percent-encodes the slug.
func TestInsightPagesOfTheirOwn(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	clone := *site
	clone.Insights = append([]content.Insight(nil), site.Insights...)
	clone.Insights[0].Slug, clone.Insights[0].Page = "Big-News", "/2024/05/01/Big-News/"
	clone.Insights[1].Slug, clone.Insights[1].Page = "café", "/blog/caf%C3%A9.html"
	s, err := New(agentConfig(Config{Site: &clone, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, twin, slug string }{
		{"/2024/05/01/Big-News/", "/2024/05/01/Big-News/index.md", "Big-News"},
		{"/blog/café.html", "/blog/café.md", "café"},
	} {
		if p := s.cat.Pages[tt.path]; p == nil || p.Twin != tt.twin || p.Slug != tt.slug {
			t.Errorf("page %s: %+v", tt.path, p)
		}
		rec := serve(t, s, (&url.URL{Path: tt.twin}).EscapedPath())
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/markdown") {
			t.Errorf("twin %s: %d %s", tt.twin, rec.Code, rec.Header().Get("Content-Type"))
		}
		if want := `<https://example.com` + (&url.URL{Path: tt.path}).EscapedPath() + `>; rel="canonical"`; !strings.Contains(rec.Header().Get("Link"), want) {
			t.Errorf("twin %s: Link %s, want %s", tt.twin, rec.Header().Get("Link"), want)
		}
	}
	rec := serve(t, s, "/api/v1/insights/caf%C3%A9")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"url":"https://example.com/blog/caf%C3%A9.html"`) {
		t.Errorf("API: %d %s", rec.Code, rec.Body)
	}
	llms := serve(t, s, "/llms.txt").Body.String()
	for _, want := range []string{"(https://example.com/2024/05/01/Big-News/index.md)", "(https://example.com/blog/caf%C3%A9.md)"} {
		if !strings.Contains(llms, want) {
			t.Errorf("llms.txt lacks %s", want)
		}
	}
	sitemap := serve(t, s, "/sitemap-discovery.xml").Body.String()
	if !strings.Contains(sitemap, "<loc>https://example.com/2024/05/01/Big-News/</loc>") {
		t.Errorf("sitemap:\n%s", sitemap)
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/insights/Big-news", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("a slug in another case: %d, want 404 (slugs are as the site writes them)", rec.Code)
	}
}
