package handlers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// TestRateLimitedNegotiates drives RateLimited directly: the page for a
// browser, the problem otherwise, the same headers and Vary either way.
func TestRateLimitedNegotiates(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	limit := ratelimit.Policy{Events: 120, Window: time.Minute}
	s, err := New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32)), RateLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	rh := ratelimit.NewHeaders(limit)
	for _, tt := range []struct {
		method, accept, contentType string
	}{
		{http.MethodGet, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", respond.MediaHTML},
		{http.MethodHead, "text/html", respond.MediaHTML},
		{http.MethodGet, "*/*", respond.MediaProblem},
		{http.MethodGet, "", respond.MediaProblem},
		{http.MethodGet, "application/json", respond.MediaProblem},
	} {
		r := httptest.NewRequest(tt.method, "/api/v1/profile", nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		w := httptest.NewRecorder()
		s.RateLimited(w, r, s.Match(r), rh, 150)
		h := w.Result().Header
		if w.Code != http.StatusTooManyRequests || h.Get("Content-Type") != tt.contentType {
			t.Errorf("%s Accept %q: %d %q, want 429 %q", tt.method, tt.accept, w.Code, h.Get("Content-Type"), tt.contentType)
		}
		if h.Get("Retry-After") != "150" || h.Get("RateLimit") != `"public";r=0;t=150` ||
			h.Get("RateLimit-Policy") != `"public";q=120;w=60` || h.Get("Vary") != "Accept" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s Accept %q: headers %v", tt.method, tt.accept, h)
		}
		body := w.Body.String()
		if tt.method == http.MethodHead {
			if body != "" || h.Get("Content-Length") == "0" {
				t.Errorf("HEAD: body %q, Content-Length %q", body, h.Get("Content-Length"))
			}
			continue
		}
		if tt.contentType != respond.MediaHTML {
			continue
		}
		for _, want := range []string{
			"<strong>150 seconds</strong> (about 3 minutes)",
			"the 120 requests per 60 seconds",
			`href="https://example.com/developers#rate-limits"`,
			"<title>Too many requests",
			`<html lang="en">`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the page lacks %q:\n%s", want, body)
			}
		}
		if csp := h.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") || strings.Contains(body, "<script") {
			t.Errorf("CSP %q, or a script in the page", csp)
		}
	}
}
