package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

func newTestService(t testing.TB, cfg Config) *Service {
	t.Helper()
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Site = site
	if cfg.TokenSecret == nil {
		cfg.TokenSecret = []byte(strings.Repeat("s", 32))
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPanicBecomesInternalErrorProblem(t *testing.T) {
	var reported any
	s := newTestService(t, Config{
		BaseURL: "https://example.com",
		Now:     func() time.Time { panic("clock exploded") },
		OnPanic: func(_ *http.Request, v any) { reported = v },
	})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/health", nil))
	if rec.Code != http.StatusInternalServerError || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var p problem.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.Code != "internal_error" || p.Type != "https://example.com/developers#error-internal-error" || p.Status != 500 {
		t.Errorf("problem %+v", p)
	}
	if strings.Contains(rec.Body.String(), "clock exploded") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("the problem leaks the panic: %s", rec.Body)
	}
	if reported != "clock exploded" {
		t.Errorf("OnPanic got %v", reported)
	}

	// The service keeps serving after a panic.
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/profile", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("after a panic: status %d", rec.Code)
	}
}

func TestAbortHandlerPanicPropagates(t *testing.T) {
	s := newTestService(t, Config{Now: func() time.Time { panic(http.ErrAbortHandler) }})
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/health", nil))
}

func TestOwns(t *testing.T) {
	s := newTestService(t, Config{})
	for path, want := range map[string]bool{
		"/api/v1": true, "/api/v1/profile": true, "/api/v1/nope": true, "/api/v1/": true, "/openapi.json": true,
		"/api/anything": false, "/api/v2/profile": false, "/api/users.json": false, "/api/v10": false,
		"/": false, "/api": false, "/apiv1": false, "/about": false, "/openapi.yaml": false,
	} {
		if got := s.Owns(path); got != want {
			t.Errorf("Owns(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestRenditionCacheIsBounded(t *testing.T) {
	s := newTestService(t, Config{})
	for i := range maxRenditions * 3 {
		r := httptest.NewRequest(http.MethodGet, "/api/v1", nil)
		r.Host = "host" + strings.Repeat("x", i) + ".example"
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), r.Host) {
			t.Fatalf("host %s: %d", r.Host, rec.Code)
		}
	}
	if n := s.hosted.byBase.Len(); n > maxRenditions {
		t.Errorf("%d renditions cached, limit %d", n, maxRenditions)
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Example.com":      "https://example.com",
		"https://example.com/":     "https://example.com",
		"http://localhost:8080":    "http://localhost:8080",
		"https://example.com/path": "",
		"ftp://example.com":        "",
		"example.com":              "",
		"https://example.com?q=1":  "",
		"https://user@example.com": "",
	} {
		got, err := origin.NormalizeBaseURL(raw)
		if want == "" && err == nil || want != "" && got != want {
			t.Errorf("origin.NormalizeBaseURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"abc":                    `"abc"`,
		"a\x00b":                 `"a\x00b"`,
		"\xff":                   "\"\uFFFD\"",
		strings.Repeat("é", 40):  `"` + strings.Repeat("é", 32) + `"…`,
		strings.Repeat("a", 100): `"` + strings.Repeat("a", 64) + `"…`,
		"<script>":               `"<script>"`,
	} {
		if got := problem.Quote(in); got != want {
			t.Errorf("problem.Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func BenchmarkServeProfile(b *testing.B) {
	s := newTestService(b, Config{BaseURL: "https://example.com"})
	r := httptest.NewRequest(http.MethodGet, "/api/v1/profile", nil)
	w := &discardWriter{h: make(http.Header)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		s.ServeHTTP(w, r)
	}
}

// discardWriter is a ResponseWriter that keeps nothing, so benchmarks
// measure the service rather than a recorder.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// A base URL is taken only from a Host a DNS name and port can be: every
// published address repeats it, so a 20 KB Host would make every document
// 20 KB per link.
func TestRequestBaseHostLength(t *testing.T) {
	s := newTestService(t, Config{})
	longest := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61) + ":65535"
	for host, want := range map[string]int{
		longest:                    http.StatusOK,
		longest + "5":              http.StatusBadRequest,
		strings.Repeat("h", 20000): http.StatusBadRequest,
		"example.com:8080":         http.StatusOK,
		"[2001:db8::1]:443":        http.StatusOK,
		strings.Repeat("x", 300):   http.StatusBadRequest,
		"localhost":                http.StatusOK,
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1", nil)
		r.Host = host
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Host of %d characters: %d, want %d", len(host), w.Code, want)
		}
	}
}
