package handlers

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// Every spelling of a page's path finds the one page, as file_server
// finds one file: one conversion, one entry kept, and the cleaned path as
// the Markdown's address.
func TestServeConvertedCanonicalPath(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	site := &testSite{}
	site.set("/docs/guide", &testPage{body: guideHTML, contentType: "text/html", etag: `"g"`})
	site.set("/docs/", &testPage{body: guideHTML, contentType: "text/html", etag: `"d"`})
	var first *convert.Kept
	for _, spelling := range []string{"/docs/guide", "//docs/guide", "/docs/./guide", "/x/../docs/guide", "/%64ocs/guide", "/docs//guide", "/q/../docs/guide?x=1"} {
		w, err := converting(s, site, markdownRequest(http.MethodGet, spelling))
		if err != nil || w.Header().Get("Content-Type") != respond.MediaMarkdown {
			t.Fatalf("%s: %v %q", spelling, err, w.Header().Get("Content-Type"))
		}
		if !strings.Contains(w.Body.String(), "canonical_url: \"https://example.com/docs/guide\"\n") ||
			w.Header().Get("Link") != `<https://example.com/docs/guide>; rel="canonical"` {
			t.Errorf("%s: Link %q\n%s", spelling, w.Header().Get("Link"), w.Body)
		}
		kept := s.converter.Kept.Get("https://example.com/docs/guide")
		if first == nil {
			first = kept
		}
		if kept == nil || kept != first || s.converter.Kept.Len() != 1 {
			t.Errorf("%s: %d pages kept, converted again %v", spelling, s.converter.Kept.Len(), kept != first)
		}
	}
	w, _ := converting(s, site, markdownRequest(http.MethodGet, "/docs/./"))
	if !strings.Contains(w.Body.String(), "canonical_url: \"https://example.com/docs/\"\n") {
		t.Errorf("/docs/./: the trailing slash lost\n%s", w.Body)
	}
}

// A page the site answers per client is never another client's Markdown:
// not when the site says so with Vary, and not when it cannot (an
// intranet view for internal addresses), whatever validators it sends.
// Each variant the site declares with Vary is kept on its own; the site is
// never asked on a date, which the variants share.
func TestServeConvertedVariants(t *testing.T) {
	page := func(words string) string {
		return `<html><head><title>T</title></head><body><main><p>` + words + `</p></main></body></html>`
	}
	language := func(r *http.Request) string {
		if strings.HasPrefix(r.Header.Get("Accept-Language"), "fr") {
			return "fr"
		}
		return "en"
	}
	internal := func(r *http.Request) bool { return strings.HasPrefix(r.Header.Get("X-Forwarded-For"), "10.") }
	for _, tt := range []struct {
		name    string
		page    *testPage
		clients [][]string // a request's headers, name and value
		want    []string   // what each client's Markdown holds
		absent  []string   // what it must not
		kept    int
	}{{
		name: "Vary: Accept-Language, Last-Modified only",
		page: &testPage{contentType: "text/html", headers: map[string]string{"Vary": "Accept-Language"},
			per: func(r *http.Request) (string, string) { return page("language " + language(r)), "" }},
		clients: [][]string{{"Accept-Language", "en"}, {"Accept-Language", "fr"}, {"Accept-Language", "en"}, {"Accept-Language", "fr-CH"}},
		want:    []string{"language en", "language fr", "language en", "language fr"},
		absent:  []string{"language fr", "language en", "language fr", "language en"},
		kept:    3,
	}, {
		name: "Vary: Accept-Language, an ETag per language",
		page: &testPage{contentType: "text/html", headers: map[string]string{"Vary": "Accept-Language"},
			per: func(r *http.Request) (string, string) {
				return page("language " + language(r)), `"` + language(r) + `"`
			}},
		clients: [][]string{{"Accept-Language", "en"}, {"Accept-Language", "fr"}, {"Accept-Language", "fr"}, {"Accept-Language", "en"}},
		want:    []string{"language en", "language fr", "language fr", "language en"},
		absent:  []string{"language fr", "language en", "language en", "language fr"},
		kept:    2,
	}, {
		name: "an intranet view without Vary, Last-Modified only",
		page: &testPage{contentType: "text/html", per: func(r *http.Request) (string, string) {
			if internal(r) {
				return page("INTERNAL ONLY: the salaries"), ""
			}
			return page("Public page"), ""
		}},
		clients: [][]string{{"X-Forwarded-For", "10.0.0.5"}, {"X-Forwarded-For", "203.0.113.9"}, {"X-Forwarded-For", "10.0.0.5"}, {"X-Forwarded-For", "198.51.100.1"}},
		want:    []string{"INTERNAL ONLY", "Public page", "INTERNAL ONLY", "Public page"},
		absent:  []string{"Public page", "INTERNAL", "Public page", "INTERNAL"},
		kept:    1,
	}, {
		name: "Vary: *",
		page: &testPage{contentType: "text/html", headers: map[string]string{"Vary": "*"}, etag: `"same"`,
			per: func(r *http.Request) (string, string) {
				return page("language " + language(r)), `"` + language(r) + `"`
			}},
		clients: [][]string{{"Accept-Language", "en"}, {"Accept-Language", "fr"}},
		want:    []string{"language en", "language fr"},
		absent:  []string{"language fr", "language en"},
		kept:    0,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
			site := &testSite{}
			site.set("/page", tt.page)
			for i, client := range tt.clients {
				w, err := converting(s, site, markdownRequest(http.MethodGet, "/page", client...))
				body := w.Body.String()
				if err != nil || w.Header().Get("Content-Type") != respond.MediaMarkdown || !strings.Contains(body, tt.want[i]) || strings.Contains(body, tt.absent[i]) {
					t.Errorf("client %d (%s): %v %q, want %q without %q\n%s", i+1, client, err, w.Header().Get("Content-Type"), tt.want[i], tt.absent[i], body)
				}
				if ims := site.last.Header.Get("If-Modified-Since"); ims != "" {
					t.Errorf("client %d: the site was asked If-Modified-Since %s", i+1, ims)
				}
			}
			if n := s.converter.Kept.Len(); n != tt.kept {
				t.Errorf("%d pages kept, want %d", n, tt.kept)
			}
		})
	}
}

// gzipOf is b gzipped.
func gzipOf(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The site is asked for gzip when the client takes it: a gzipped page is
// unpacked and converted, and an answer that is not converted (one that
// unpacks to more than convert.MaxHTML, a gzip bomb) reaches the client as
// the site sent it, compressed.
func TestServeConvertedGzip(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	site := &testSite{}
	site.set("/guide", &testPage{body: guideHTML, contentType: "text/html", gzipped: gzipOf(t, []byte(guideHTML))})
	bomb := append([]byte("<html><body><main><p>"), bytes.Repeat([]byte("a"), 64<<20)...)
	bombed := gzipOf(t, bomb)
	site.set("/bomb", &testPage{body: "not this", contentType: "text/html", gzipped: bombed})

	w, err := converting(s, site, markdownRequest(http.MethodGet, "/guide"))
	if err != nil || w.Header().Get("Content-Type") != respond.MediaMarkdown || w.Header().Get("Content-Encoding") != "" || !strings.Contains(w.Body.String(), "# Guide") {
		t.Errorf("a gzipped page: %v %q %q\n%s", err, w.Header().Get("Content-Type"), w.Header().Get("Content-Encoding"), w.Body)
	}
	if site.last.Header.Get("Accept-Encoding") != "gzip" {
		t.Errorf("the site was asked with Accept-Encoding %q", site.last.Header.Get("Accept-Encoding"))
	}
	w, err = converting(s, site, markdownRequest(http.MethodGet, "/bomb"))
	if err != nil || w.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(w.Body.Bytes(), bombed) {
		t.Errorf("a gzip bomb: %v, Content-Encoding %q, %d bytes; want the %d bytes the site sent", err, w.Header().Get("Content-Encoding"), w.Body.Len(), len(bombed))
	}
	// A client that does not take gzip: the site is asked for the identity.
	r := markdownRequest(http.MethodGet, "/bomb", "Accept-Encoding", "br, gzip;q=0")
	if w, _ := converting(s, site, r); site.last.Header.Get("Accept-Encoding") != "identity" || !strings.HasSuffix(w.Body.String(), "\nnot this\n") {
		t.Errorf("Accept-Encoding %q, body %.40q", site.last.Header.Get("Accept-Encoding"), w.Body)
	}
	if held := convert.Held(); held != 0 {
		t.Errorf("%d bytes still held", held)
	}
}

// Past convert.HeldBudget a request holds nothing: the site's HTML
// reaches the client at once, as the site sent it.
func TestServeConvertedHeldBudget(t *testing.T) {
	s := newTestService(t, agentConfig(Config{BaseURL: "https://example.com"}))
	site := &testSite{}
	site.set("/guide", &testPage{body: guideHTML, contentType: "text/html"})
	site.set("/stream", &testPage{body: guideHTML, contentType: "text/html", stream: true})
	if !convert.Hold(convert.HeldBudget) {
		t.Fatalf("%d bytes held before the test", convert.Held())
	}
	for _, path := range []string{"/guide", "/stream"} {
		w, err := converting(s, site, markdownRequest(http.MethodGet, path))
		if err != nil || w.Body.String() != guideHTML || w.Header().Get("Content-Type") != "text/html" {
			t.Errorf("%s with the budget spent: %v %q\n%s", path, err, w.Header().Get("Content-Type"), w.Body)
		}
	}
	convert.Release(convert.HeldBudget)
	w, _ := converting(s, site, markdownRequest(http.MethodGet, "/guide"))
	if w.Header().Get("Content-Type") != respond.MediaMarkdown {
		t.Errorf("with the budget back: %q", w.Header().Get("Content-Type"))
	}
	if held := convert.Held(); held != 0 {
		t.Errorf("%d bytes still held", held)
	}
}
