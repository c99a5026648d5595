package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// convertPageText converts page as the page at https://example.com/docs/guide.
func convertPageText(t *testing.T, page string) string {
	t.Helper()
	md, err := pages.ConvertPage(context.Background(), []byte(page), "text/html; charset=utf-8", "https://example.com/docs/guide", "")
	if err != nil {
		t.Fatalf("convertPage: %v\n%s", err, page)
	}
	return string(md)
}

func TestConvertPage(t *testing.T) {
	const chrome = `<header><a href="/">Site name</a></header><nav><a href="/a">Menu</a></nav>`
	for _, tt := range []struct {
		name, page   string
		want, absent []string
	}{{
		name: "main, not what is around it",
		page: `<title>T</title><body>` + chrome + `<aside>Sidebar</aside><main><h1>Guide</h1><p>Body text.</p></main><footer>Copyright</footer>`,
		want: []string{"# Guide", "Body text."}, absent: []string{"Site name", "Menu", "Sidebar", "Copyright"},
	}, {
		name: "the first main",
		page: `<body><main><p>First main.</p></main><main hidden><p>Second main.</p></main>`,
		want: []string{"First main."}, absent: []string{"Second main."},
	}, {
		name: "one article, with its own header and footer",
		page: `<body>` + chrome + `<article><header><h1>Post</h1></header><p>Post text.</p><footer>Filed under go</footer></article><footer>Copyright</footer>`,
		want: []string{"# Post", "Post text.", "Filed under go"}, absent: []string{"Site name", "Menu", "Copyright"},
	}, {
		name: "several articles: the body",
		page: `<body>` + chrome + `<div><article><p>One.</p></article><article><p>Two.</p></article><header>Inner header</header></div><footer>Copyright</footer>`,
		want: []string{"One.", "Two.", "Inner header"}, absent: []string{"Site name", "Menu", "Copyright"},
	}, {
		name: "what is dropped",
		page: `<body><main><p>Kept.</p><script>var secret = 1</script><style>p{color:red}</style><noscript>Enable JS</noscript>` +
			`<template><p>Template</p></template><nav><a href="/x">Breadcrumb</a></nav><form><label>Search</label><input name="q"><button>Go</button></form>` +
			`<a href="/feed"><svg viewBox="0 0 8 8"><title>RSS icon</title><path d="M0 0"/></svg>Feed</a></main>`,
		want: []string{"Kept.", "[Feed](https://example.com/feed)"}, absent: []string{"secret", "color", "Enable JS", "Template", "Breadcrumb", "Search", "Go", "RSS icon"},
	}, {
		name: "links and images made absolute",
		page: `<main><p><a href="other">sibling</a> <a href="/root">root</a> <a href="../up">up</a> <a href="#part">part</a> ` +
			`<a href="https://example.org/x">elsewhere</a> <a href="mailto:a@example.com">mail</a> <img src="img/a.png" alt="A"> <img src="/b.png" alt="B"></p></main>`,
		want: []string{"[sibling](https://example.com/docs/other)", "[root](https://example.com/root)", "[up](https://example.com/up)",
			"[part](https://example.com/docs/guide#part)", "[elsewhere](https://example.org/x)", "[mail](mailto:a@example.com)",
			"![A](https://example.com/docs/img/a.png)", "![B](https://example.com/b.png)"},
	}, {
		name: "base href",
		page: `<head><base href="/static/"></head><main><a href="page">p</a></main>`,
		want: []string{"[p](https://example.com/static/page)"},
	}, {
		name: "tables",
		page: `<main><table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table></main>`,
		want: []string{"| Name | Value |", "| a    | 1     |"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			md := convertPageText(t, tt.page)
			for _, want := range tt.want {
				if !strings.Contains(md, want) {
					t.Errorf("no %q in\n%s", want, md)
				}
			}
			for _, absent := range tt.absent {
				if strings.Contains(md, absent) {
					t.Errorf("%q is in\n%s", absent, md)
				}
			}
		})
	}
}

func TestConvertPageFrontMatter(t *testing.T) {
	for _, tt := range []struct {
		name, page, updated, want string
	}{{
		name:    "title, description, address, update",
		page:    `<head><title> The  guide </title><meta name="Description" content="All of it, &quot;quoted&quot;."></head><main><h1>Other</h1><p>x</p></main>`,
		updated: "2025-01-02",
		want: "---\ntitle: \"The guide\"\ndescription: \"All of it, \\\"quoted\\\".\"\ncanonical_url: \"https://example.com/docs/guide\"\n" +
			"last_updated: \"2025-01-02\"\n---\n\n# Other\n\nx\n",
	}, {
		name: "the first h1 without a title",
		page: `<main><h1>Heading <em>one</em></h1><h1>Two</h1></main>`,
		want: "---\ntitle: \"Heading one\"\ncanonical_url: \"https://example.com/docs/guide\"\n---\n\n# Heading *one*\n\n# Two\n",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			md, err := pages.ConvertPage(context.Background(), []byte(tt.page), "text/html", "https://example.com/docs/guide", tt.updated)
			if err != nil {
				t.Fatal(err)
			}
			if string(md) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", md, tt.want)
			}
		})
	}
}

func TestConvertPageEncodingsAndFailures(t *testing.T) {
	latin1 := []byte("<main><p>Caf\xe9</p></main>")
	for _, contentType := range []string{"text/html; charset=iso-8859-1", "text/html"} {
		md, err := pages.ConvertPage(context.Background(), latin1, contentType, "https://example.com/", "")
		if err != nil || !strings.Contains(string(md), "Café") {
			t.Errorf("%s: %v\n%s", contentType, err, md)
		}
	}
	for name, page := range map[string]string{
		"empty":             "",
		"an app's shell":    `<html><body><div id="app"></div><script src="/app.js"></script></body></html>`,
		"nested too deeply": strings.Repeat("<div>", 600) + "text",
	} {
		if md, err := pages.ConvertPage(context.Background(), []byte(page), "text/html", "https://example.com/", ""); err == nil {
			t.Errorf("%s: converted to\n%s", name, md)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pages.ConvertPage(ctx, []byte("<main><p>text</p></main>"), "text/html", "https://example.com/", ""); !errors.Is(err, convert.ErrTimeout) {
		t.Errorf("past its deadline: %v, want %v", err, convert.ErrTimeout)
	}
}

// testSite stands in for the handlers behind the module: it serves pages
// as file_server does, with an ETag and Last-Modified, 304 for a matching
// If-None-Match, and an error for a path it has no page at. It counts the
// requests and keeps the last one.
type testSite struct {
	mu    sync.Mutex
	pages map[string]*testPage
	asked int
	last  *http.Request
}

type testPage struct {
	body, contentType, etag string
	headers                 map[string]string
	// stream writes the body without a Content-Length, in pieces.
	stream bool
	// per, when set, is the body and ETag for each request: a page that
	// answers per client.
	per func(r *http.Request) (body, etag string)
	// gzipped is the body gzipped, sent to a request that takes gzip.
	gzipped []byte
}

var errTestNotFound = errors.New("not found")

var testModified = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func (ts *testSite) serve(w http.ResponseWriter, r *http.Request) error {
	ts.mu.Lock()
	p := ts.pages[pages.CanonicalPath(r.URL.Path)] // as file_server finds its files
	ts.asked++
	ts.last = r
	ts.mu.Unlock()
	if p == nil {
		return errTestNotFound
	}
	h := w.Header()
	for k, v := range p.headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", p.contentType)
	body, etag := p.body, p.etag
	if p.per != nil {
		body, etag = p.per(r)
	}
	if etag != "" {
		h.Set("Etag", etag)
	}
	if p.gzipped != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(p.gzipped)))
		_, _ = w.Write(p.gzipped)
		return nil
	}
	if p.stream {
		w.WriteHeader(http.StatusOK)
		for chunk := range slicesChunk([]byte(body), 64<<10) {
			_, _ = w.Write(chunk)
		}
		return nil
	}
	http.ServeContent(w, r, "", testModified, strings.NewReader(body))
	return nil
}

func slicesChunk(b []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			m := min(n, len(b))
			if !yield(b[:m]) {
				return
			}
			b = b[m:]
		}
	}
}

func (ts *testSite) set(path string, p *testPage) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.pages == nil {
		ts.pages = map[string]*testPage{}
	}
	ts.pages[path] = p
}

// converting serves r as the module does: converted when ConvertsPage
// says so, else by the site.
func converting(s *Service, site *testSite, r *http.Request) (*httptest.ResponseRecorder, error) {
	w := httptest.NewRecorder()
	if !s.ConvertsPage(r) {
		return w, site.serve(w, r)
	}
	_, err := s.ServeConverted(w, r, site.serve)
	return w, err
}

func markdownRequest(method, path string, headers ...string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("Accept", "text/markdown")
	r.Header.Set("Accept-Encoding", "gzip")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

const guideHTML = `<!doctype html><html><head><title>Guide</title><meta name="description" content="How to."></head>` +
	`<body><nav><a href="/">Home</a></nav><main><h1>Guide</h1><p>Read <a href="more">more</a>.</p></main></body></html>`

func TestConvertsPage(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com", MarkdownByUserAgent: true}))
	off := newTestService(t, Config{BaseURL: "https://example.com"})
	gptBot := httptest.NewRequest(http.MethodGet, "/docs/guide", nil)
	gptBot.Header.Set("User-Agent", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)")
	for _, tt := range []struct {
		name string
		s    *Service
		r    *http.Request
		want bool
	}{
		{"Accept: text/markdown", s, markdownRequest(http.MethodGet, "/docs/guide"), true},
		{"HEAD", s, markdownRequest(http.MethodHead, "/docs/guide"), true},
		{"an AI crawler", s, gptBot, true},
		{"a browser", s, httptest.NewRequest(http.MethodGet, "/docs/guide", nil), false},
		{"POST", s, markdownRequest(http.MethodPost, "/docs/guide"), false},
		{"a page the content names", s, markdownRequest(http.MethodGet, "/about"), false},
		{"a path of the module's", s, markdownRequest(http.MethodGet, "/llms.txt"), false},
		{"the API", s, markdownRequest(http.MethodGet, "/api/v1/nothing"), false},
		{"a WebSocket", s, markdownRequest(http.MethodGet, "/socket", "Upgrade", "websocket"), false},
		{"markdown off", off, markdownRequest(http.MethodGet, "/docs/guide"), false},
	} {
		if got := tt.s.ConvertsPage(tt.r); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestServeConverted(t *testing.T) {
	var failures []string
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com", MarkdownByUserAgent: true,
		OnConvertFailure: func(page string, err error) { failures = append(failures, page) }}))
	site := &testSite{}
	site.set("/docs/guide", &testPage{body: guideHTML, contentType: "text/html; charset=utf-8", etag: `"v1"`,
		headers: map[string]string{"Vary": "Accept-Encoding", "Cache-Control": "max-age=60", "Link": `</style.css>; rel="preload"`}})

	w, err := converting(s, site, markdownRequest(http.MethodGet, "/docs/guide", "If-None-Match", `"v1"`, "Range", "bytes=0-10"))
	if err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d, %v", w.Code, err)
	}
	asked := site.last.Header
	if asked.Get("Accept") != pages.SiteAccept || asked.Get("Accept-Encoding") != "gzip" || asked.Get("Range") != "" || asked.Get("If-None-Match") != "" {
		t.Errorf("the site was asked with %v", asked)
	}
	h := w.Header()
	for name, want := range map[string]string{
		"Content-Type":      "text/markdown; charset=utf-8",
		"Cache-Control":     "max-age=60",
		"Last-Modified":     testModified.Format(http.TimeFormat),
		"Content-Length":    strconv.Itoa(w.Body.Len()),
		"X-Markdown-Tokens": strconv.Itoa(pages.MarkdownTokens(w.Body.Bytes())),
		"Accept-Ranges":     "",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := h.Values("Vary"); strings.Join(got, ", ") != "Accept-Encoding, Accept, User-Agent" {
		t.Errorf("Vary %q, want the site's with Accept and User-Agent added", got)
	}
	if got := h.Values("Link"); len(got) != 2 || got[1] != `<https://example.com/docs/guide>; rel="canonical"` {
		t.Errorf("Link %q", got)
	}
	etag := h.Get("Etag")
	if etag == "" || etag == `"v1"` || strings.HasPrefix(etag, "W/") {
		t.Errorf("ETag %q, want the Markdown's own", etag)
	}
	want := "---\ntitle: \"Guide\"\ndescription: \"How to.\"\ncanonical_url: \"https://example.com/docs/guide\"\nlast_updated: \"2025-03-04\"\n---\n\n" +
		"# Guide\n\nRead [more](https://example.com/docs/more).\n"
	if w.Body.String() != want {
		t.Errorf("body\n%s\nwant\n%s", w.Body, want)
	}
	kept := s.converter.Kept.Get("https://example.com/docs/guide")
	if kept == nil {
		t.Fatal("the Markdown was not kept")
	}

	// The page again: the site is asked on its validator, and answers 304.
	w, err = converting(s, site, markdownRequest(http.MethodGet, "/docs/guide"))
	if err != nil || w.Code != http.StatusOK || w.Body.String() != want || w.Header().Get("Etag") != etag {
		t.Fatalf("repeat: %d %v %q\n%s", w.Code, err, w.Header().Get("Etag"), w.Body)
	}
	if site.last.Header.Get("If-None-Match") != `"v1"` {
		t.Errorf("repeat: the site was asked with If-None-Match %q, want its ETag", site.last.Header.Get("If-None-Match"))
	}
	if s.converter.Kept.Get("https://example.com/docs/guide") != kept {
		t.Error("repeat: converted again")
	}
	if got := w.Header().Get("Last-Modified"); got != testModified.Format(http.TimeFormat) {
		t.Errorf("repeat: Last-Modified %q, want the kept one", got)
	}
	// A query the site ignores finds the page kept, under its address.
	w, _ = converting(s, site, markdownRequest(http.MethodGet, "/docs/guide?utm_source=x"))
	if w.Body.String() != want || s.converter.Kept.Get("https://example.com/docs/guide") != kept {
		t.Errorf("with a query: converted again, or\n%s", w.Body)
	}

	// The client's own validators name the Markdown.
	for _, cond := range [][2]string{{"If-None-Match", etag}, {"If-None-Match", "W/" + etag}, {"If-Modified-Since", testModified.Format(http.TimeFormat)}} {
		w, _ = converting(s, site, markdownRequest(http.MethodGet, "/docs/guide", cond[0], cond[1]))
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("Etag") != etag {
			t.Errorf("%s %s: %d %q, want 304", cond[0], cond[1], w.Code, w.Body)
		}
	}
	w, _ = converting(s, site, markdownRequest(http.MethodGet, "/docs/guide", "If-None-Match", `"v1"`))
	if w.Code != http.StatusOK {
		t.Errorf("If-None-Match of the HTML: %d, want 200", w.Code)
	}

	// HEAD: the same headers, no body.
	w, _ = converting(s, site, markdownRequest(http.MethodHead, "/docs/guide"))
	if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("Content-Length") != strconv.Itoa(len(want)) {
		t.Errorf("HEAD: %d, Content-Length %q, body %q", w.Code, w.Header().Get("Content-Length"), w.Body)
	}

	// The page changes: its new HTML is converted.
	site.set("/docs/guide", &testPage{body: strings.Replace(guideHTML, "Read", "Now read", 1), contentType: "text/html", etag: `"v2"`})
	w, _ = converting(s, site, markdownRequest(http.MethodGet, "/docs/guide"))
	if !strings.Contains(w.Body.String(), "Now read") || w.Header().Get("Etag") == etag {
		t.Errorf("changed page: %q\n%s", w.Header().Get("Etag"), w.Body)
	}
	if len(failures) != 0 {
		t.Errorf("failures logged: %q", failures)
	}
}

func TestServeConvertedValidators(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	for _, tt := range []struct {
		name string
		etag string
		// stream: without Last-Modified either
		stream bool
	}{
		{"ETag", `"e1"`, false},
		{"Last-Modified", "", false},
		{"the HTML itself", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := "/" + strings.ReplaceAll(tt.name, " ", "-")
			site := &testSite{}
			page := &testPage{body: guideHTML, contentType: "text/html", etag: tt.etag, stream: tt.stream}
			site.set(path, page)
			first, _ := converting(s, site, markdownRequest(http.MethodGet, path))
			kept := s.converter.Kept.Get("https://example.com" + path)
			if first.Code != http.StatusOK || kept == nil {
				t.Fatalf("%d, kept %v", first.Code, kept != nil)
			}
			again, _ := converting(s, site, markdownRequest(http.MethodGet, path))
			if again.Body.String() != first.Body.String() || s.converter.Kept.Get("https://example.com"+path) != kept {
				t.Errorf("repeat: converted again or changed\n%s", again.Body)
			}
			page.body = strings.Replace(guideHTML, "Read", "Then read", 1)
			if tt.etag != "" {
				page.etag = `"e2"`
			}
			if tt.name == "Last-Modified" {
				testModifiedShift(t)
			}
			changed, _ := converting(s, site, markdownRequest(http.MethodGet, path))
			if !strings.Contains(changed.Body.String(), "Then read") {
				t.Errorf("after a change: the old Markdown\n%s", changed.Body)
			}
		})
	}
}

// testModifiedShift moves the test site's modification time on a second
// for the rest of the test.
func testModifiedShift(t *testing.T) {
	old := testModified
	testModified = testModified.Add(time.Second)
	t.Cleanup(func() { testModified = old })
}

func TestServeConvertedPassesOn(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	big := "<main><p>" + strings.Repeat("word ", convert.MaxHTML/5) + "</p></main>"
	site := &testSite{}
	for path, p := range map[string]*testPage{
		"/big.html":     {body: big, contentType: "text/html"},
		"/big-stream":   {body: big, contentType: "text/html", stream: true},
		"/image.png":    {body: "\x89PNG\r\n\x1a\nnot really", contentType: "image/png"},
		"/data.json":    {body: `{"a":1}`, contentType: "application/json"},
		"/gzipped.html": {body: "\x1f\x8b compressed", contentType: "text/html", headers: map[string]string{"Content-Encoding": "gzip"}},
		"/shell":        {body: `<html><body><div id="app"></div><script src="/app.js"></script></body></html>`, contentType: "text/html"},
	} {
		site.set(path, p)
	}
	for path, p := range site.pages {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			w, err := converting(s, site, markdownRequest(method, path))
			wantBody := p.body
			if method == http.MethodHead {
				wantBody = ""
			}
			if err != nil || w.Code != http.StatusOK || w.Body.String() != wantBody || w.Header().Get("Content-Type") != p.contentType {
				t.Errorf("%s %s: %d %v %q, %d bytes, want the site's answer", method, path, w.Code, err, w.Header().Get("Content-Type"), w.Body.Len())
			}
			if len(w.Header().Values("Vary")) != 0 {
				t.Errorf("%s %s: Vary %q added", method, path, w.Header().Values("Vary"))
			}
		}
	}
	// A missing page is the site's error, nothing written.
	w, err := converting(s, site, markdownRequest(http.MethodGet, "/missing"))
	if !errors.Is(err, errTestNotFound) || w.Body.Len() != 0 || w.Code != http.StatusOK || len(w.Header()) != 0 {
		t.Errorf("missing: %v, %d %q", err, w.Code, w.Body)
	}
	// A redirect reaches the client.
	redirect := func(w http.ResponseWriter, r *http.Request) error {
		http.Redirect(w, r, "/docs/", http.StatusMovedPermanently)
		return nil
	}
	w = httptest.NewRecorder()
	if _, err := s.ServeConverted(w, markdownRequest(http.MethodGet, "/docs"), redirect); err != nil || w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/docs/" {
		t.Errorf("redirect: %d %v %v", w.Code, err, w.Header())
	}
}

func TestServeConvertedSiteFailsAfterAnswering(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	broken := errors.New("upstream reset")
	failing := func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<main><p>half a pa"))
		return broken
	}
	w := httptest.NewRecorder()
	dropped, err := s.ServeConverted(w, markdownRequest(http.MethodGet, "/half"), failing)
	if !dropped || !errors.Is(err, broken) || w.Body.Len() != 0 {
		t.Errorf("dropped %v, %v, %q; want the error, nothing written", dropped, err, w.Body)
	}
}

func TestServeConvertedFailureLoggedOnce(t *testing.T) {
	var failures []string
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com", Now: func() time.Time { return now },
		OnConvertFailure: func(page string, err error) { failures = append(failures, page+": "+err.Error()) }}))
	site := &testSite{}
	deep := strings.Repeat("<div>", 600) + "deep"
	site.set("/deep", &testPage{body: deep, contentType: "text/html", etag: `"d"`})
	for range 3 {
		w, _ := converting(s, site, markdownRequest(http.MethodGet, "/deep"))
		if w.Code != http.StatusOK || w.Body.String() != deep {
			t.Fatalf("%d, want the HTML unchanged", w.Code)
		}
	}
	if len(failures) != 1 || !strings.HasPrefix(failures[0], "https://example.com/deep: ") {
		t.Errorf("failures logged: %q, want one", failures)
	}
	now = now.Add(convert.Retry)
	converting(s, site, markdownRequest(http.MethodGet, "/deep"))
	if len(failures) != 2 {
		t.Errorf("after %s: %d failures logged, want it tried again", convert.Retry, len(failures))
	}
}

func TestServeConvertedBusy(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	for range cap(s.converter.Slots) {
		s.converter.Slots <- struct{}{}
	}
	site := &testSite{}
	site.set("/docs/guide", &testPage{body: guideHTML, contentType: "text/html"})
	start := time.Now()
	w, _ := converting(s, site, markdownRequest(http.MethodGet, "/docs/guide"))
	if elapsed := time.Since(start); w.Body.String() != guideHTML || elapsed < convert.Timeout || elapsed > 3*convert.Timeout {
		t.Errorf("after %s: %q, want the HTML after %s", elapsed, w.Body, convert.Timeout)
	}
	if s.converter.Kept.Get("https://example.com/docs/guide") != nil {
		t.Error("a page that waited for a slot was kept as failed")
	}
}

func TestServeConvertedKeepsOnlyShared(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	site := &testSite{}
	for path, headers := range map[string]map[string]string{
		"/cookie":  {"Set-Cookie": "session=1"},
		"/private": {"Cache-Control": "private, max-age=60"},
		"/nostore": {"Cache-Control": "No-Store"},
	} {
		site.set(path, &testPage{body: guideHTML, contentType: "text/html", etag: `"x"`, headers: headers})
	}
	site.set("/public", &testPage{body: guideHTML, contentType: "text/html", etag: `"x"`})
	for path := range site.pages {
		w, _ := converting(s, site, markdownRequest(http.MethodGet, path))
		kept := s.converter.Kept.Get("https://example.com"+path) != nil
		if w.Header().Get("Content-Type") != respond.MediaMarkdown || kept != (path == "/public") {
			t.Errorf("%s: %q, kept %v", path, w.Header().Get("Content-Type"), kept)
		}
	}
	site.set("/other", &testPage{body: guideHTML, contentType: "text/html", etag: `"x"`})
	for _, credentials := range [][2]string{{"Authorization", "Bearer x"}, {"Cookie", "a=b"}} {
		w, _ := converting(s, site, markdownRequest(http.MethodGet, "/other", credentials[0], credentials[1]))
		if w.Header().Get("Content-Type") != respond.MediaMarkdown || s.converter.Kept.Get("https://example.com/other") != nil {
			t.Errorf("with %s: %q, or kept", credentials[0], w.Header().Get("Content-Type"))
		}
	}
}

// benchPage is an HTML page of about size bytes: a documentation page with
// a header, navigation, headings, paragraphs with links, lists, code,
// images and tables, and a footer.
func benchPage(size int) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A long guide</title>` +
		`<meta name="description" content="Everything about it."><link rel="stylesheet" href="/s.css"><style>body{margin:0}</style>` +
		`<script src="/app.js"></script></head><body><header><a href="/">Site</a><nav><ul><li><a href="/a">A</a></li>` +
		`<li><a href="/b">B</a></li></ul></nav></header><main><h1>A long guide</h1>`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<h2 id="s%d">Section %d</h2><p>This is paragraph %d with <a href="/docs/page-%d">a relative link</a>, `+
			`some <em>emphasis</em>, <strong>strong text</strong> and <code>inline code</code>. Lorem ipsum dolor sit amet, `+
			`consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>`+
			`<ul><li>First item</li><li>Second <a href="https://example.org/x">item</a></li></ul>`+
			`<pre><code class="language-go">func main() { fmt.Println("hi %d") }</code></pre><p><img src="img/fig-%d.png" alt="Figure %d"></p>`,
			i, i, i, i, i, i, i)
		if i%5 == 0 {
			b.WriteString(`<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr>` +
				`<tr><td>b</td><td>2</td></tr></tbody></table>`)
		}
	}
	b.WriteString(`</main><footer><p>(c) Site</p></footer><script>window.x=1</script></body></html>`)
	return []byte(b.String())
}

// BenchmarkConvertPage is the first conversion of a page of 100 KB.
func BenchmarkConvertPage(b *testing.B) {
	page := benchPage(100 << 10)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pages.ConvertPage(context.Background(), page, "text/html; charset=utf-8", "https://example.com/docs/guide", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvertedRepeat answers the same 100 KB page as Markdown again:
// the site is asked on its ETag and answers 304, and the kept Markdown is
// served.
func BenchmarkConvertedRepeat(b *testing.B) {
	s := newTestService(b, agentConfig(Config{BaseURL: "https://example.com"}))
	site := &testSite{}
	site.set("/docs/guide", &testPage{body: string(benchPage(100 << 10)), contentType: "text/html; charset=utf-8", etag: `"v1"`})
	r := markdownRequest(http.MethodGet, "/docs/guide")
	w := &discardWriter{h: make(http.Header)}
	if _, err := s.ServeConverted(w, r, site.serve); err != nil || s.converter.Kept.Get("https://example.com/docs/guide") == nil {
		b.Fatal("not converted", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		if _, err := s.ServeConverted(w, r, site.serve); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzConvertPage: any page converts to Markdown or to an error, never a
// panic or a page with no front matter.
func FuzzConvertPage(f *testing.F) {
	for _, seed := range []string{guideHTML, "<main>", "<table><tr><td>a<td>b<tr><th>c", "<ol start=99999999999><li>x", "<pre><code>`</code></pre>",
		"<a href=\"\">x</a><img>", "<svg><title>t</title></svg><h1>h</h1>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, page string) {
		md, err := pages.ConvertPage(context.Background(), []byte(page), "text/html", "https://example.com/a/b", "")
		if err == nil && !bytes.HasPrefix(md, []byte("---\n")) {
			t.Errorf("%q: no front matter in %q", page, md)
		}
	})
}

// TestNoMarkdownOfGuardedPages: the module makes no Markdown of a page
// the site keeps out of indexes (a robots meta tag or X-Robots-Tag with
// noindex), nor of the page of a post the owner guards, wherever the site
// serves it: the HTML passes through as the site gave it.
func TestNoMarkdownOfGuardedPages(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	clone := *site
	clone.Skipped = append(slices.Clone(site.Skipped),
		content.Skip{Path: "insights/secret.md", Reason: "kept private (private: true)", Slug: "Secret-Plans", Page: "/insights/Secret-Plans"},
		content.Skip{Path: "insights/dots.md", Reason: "excluded (dots.md)", Slug: "..."})
	var failures []error
	s, err := New(agentConfig(Config{Site: &clone, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32)),
		OnConvertFailure: func(_ string, err error) { failures = append(failures, err) }}))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/insights/Secret-Plans": false, "/2024/05/01/secret-plans/": false, "/posts/secret_plans.html": false,
		"/docs/guide": true, "/": false, "/docs/": true,
	} {
		if got := s.ConvertsPage(markdownRequest(http.MethodGet, path)); got != want {
			t.Errorf("%s: converted %v, want %v", path, got, want)
		}
	}
	ts := &testSite{}
	ts.set("/meta", &testPage{body: `<html><head><title>M</title><meta name="robots" content="noindex, follow"></head><body><main><p>Text.</p></main></body></html>`, contentType: "text/html"})
	ts.set("/header", &testPage{body: guideHTML, contentType: "text/html", headers: map[string]string{"X-Robots-Tag": "otherbot: noindex"}})
	ts.set("/indexed", &testPage{body: guideHTML, contentType: "text/html", headers: map[string]string{"X-Robots-Tag": "noarchive"}})
	for path, markdown := range map[string]bool{"/meta": false, "/header": false, "/indexed": true} {
		w, err := converting(s, ts, markdownRequest(http.MethodGet, path))
		if got := strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown"); err != nil || got != markdown {
			t.Errorf("%s: Markdown %v (%s, %v), want %v", path, got, w.Header().Get("Content-Type"), err, markdown)
		}
	}
	if len(failures) != 2 || !errors.Is(failures[0], ErrNoIndex) || !errors.Is(failures[1], ErrNoIndex) {
		t.Errorf("failures %v, want two noindex", failures)
	}
}
