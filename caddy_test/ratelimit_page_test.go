package caddytest

import (
	"encoding/json"
	"html"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// TestRateLimitedPeopleGetAPage: a refused browser gets a page it can read
// (how long to wait, the limit, where it is explained); programs still get
// the problem, whatever else they accept; both carry the same headers.
func TestRateLimitedPeopleGetAPage(t *testing.T) {
	s := startCaddy(t, limitedSite("page", "rate_limit 2 600s"))
	for range 2 {
		if r := s.get("/api/v1"); r.StatusCode != http.StatusOK {
			t.Fatalf("status %d", r.StatusCode)
		}
	}
	page := s.get("/api/v1/profile", "Accept", browserAccept)
	if page.StatusCode != http.StatusTooManyRequests || page.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("a browser got %d %q", page.StatusCode, page.Header.Get("Content-Type"))
	}
	retryAfter, err := strconv.Atoi(page.Header.Get("Retry-After"))
	if err != nil || retryAfter < 590 || retryAfter > 600 {
		t.Fatalf("Retry-After %q", page.Header.Get("Retry-After"))
	}
	body := html.UnescapeString(string(page.body))
	for _, want := range []string{
		"<strong>" + strconv.Itoa(retryAfter) + " seconds</strong> (about 10 minutes)",
		"the 2 requests per 600 seconds",
		`<a href="` + base + `/developers#rate-limits">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") || strings.Contains(csp, "unsafe") ||
		strings.Contains(body, "<script") || strings.Contains(body, "src=") || strings.Contains(body, `rel="stylesheet"`) {
		t.Errorf("not self-contained under a strict CSP: %q", csp)
	}

	// The description is fetched under a key of its own, within the quota
	// of 2: once.
	s.validateProblem(s.get("/api/v1/profile"), http.StatusTooManyRequests, "rate_limited")
	for _, accept := range []string{"", "*/*", "application/json", "application/problem+json", "application/json, text/html", "text/html;q=0.5, */*"} {
		r := s.get("/api/v1/profile", "Accept", accept)
		if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Content-Type") != "application/problem+json" || r.json(t)["code"] != "rate_limited" {
			t.Errorf("Accept %q: %d %q\n%s", accept, r.StatusCode, r.Header.Get("Content-Type"), r.body)
		}
		for _, h := range []string{"Retry-After", "RateLimit", "RateLimit-Policy"} {
			if r.Header.Get(h) == "" || r.Header.Get(h) != page.Header.Get(h) && h != "Retry-After" && h != "RateLimit" {
				t.Errorf("Accept %q: %s %q, the page's %q", accept, h, r.Header.Get(h), page.Header.Get(h))
			}
		}
	}
	for _, r := range []*response{page, s.get("/api/v1/profile")} {
		if r.Header.Get("Vary") != "Accept" || r.Header.Get("RateLimit") == "" || r.Header.Get("RateLimit-Policy") != `"public";q=2;w=600` {
			t.Errorf("Accept %q: Vary %q, RateLimit %q, RateLimit-Policy %q", r.Request.Header.Get("Accept"),
				r.Header.Get("Vary"), r.Header.Get("RateLimit"), r.Header.Get("RateLimit-Policy"))
		}
	}
	// /mcp keeps its Vary: Origin beside Accept.
	if r := s.do(http.MethodPost, base+"/mcp", strings.NewReader(`{}`), "Content-Type", "application/json"); r.StatusCode != http.StatusTooManyRequests ||
		r.Header.Get("Vary") != "Origin, Accept" {
		t.Errorf("/mcp: %d, Vary %q", r.StatusCode, r.Header.Get("Vary"))
	}
	if r := s.do(http.MethodHead, base+"/api/v1", nil, "Accept", browserAccept); r.StatusCode != http.StatusTooManyRequests ||
		r.Header.Get("Content-Type") != "text/html; charset=utf-8" || len(r.body) != 0 {
		t.Errorf("HEAD: %d %q, %d bytes", r.StatusCode, r.Header.Get("Content-Type"), len(r.body))
	}

	// The page's link works while the client is refused: the portal is
	// not counted, and says so.
	for _, path := range []string{"/developers", "/developers.md"} {
		r := s.get(path, "Accept", browserAccept)
		if r.StatusCode != http.StatusOK || r.Header.Get("RateLimit") != "" {
			t.Errorf("%s while refused: %d, RateLimit %q", path, r.StatusCode, r.Header.Get("RateLimit"))
		}
	}
	portal := string(s.get("/developers").body)
	if !strings.Contains(portal, `<section id="rate-limits">`) || !strings.Contains(portal, "do not count against the quota") {
		t.Error("the portal has no rate-limits section saying it is not counted")
	}
}

// TestDeveloperPortalIsNotCounted: reading the portal uses none of the
// quota, and the portal's 429 example is what a refused client gets.
func TestDeveloperPortalIsNotCounted(t *testing.T) {
	s := startCaddy(t, limitedSite("portal", "rate_limit 3 60s"))
	for range 5 {
		if r := s.get("/developers"); r.StatusCode != http.StatusOK {
			t.Fatalf("/developers: %d", r.StatusCode)
		}
		s.get("/developers.md")
		s.get("/developers", "Accept", "text/markdown")
	}
	if remaining, _ := rateLimit(t, s.get("/api/v1")); remaining != 2 {
		t.Errorf("after reading the portal, the first API request leaves r=%d, want 2", remaining)
	}
	s.get("/api/v1")
	s.get("/api/v1")
	real := s.get("/api/v1/profile")
	if real.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d", real.StatusCode)
	}
	examples := map[string]string{}
	for _, m := range portalExample.FindAllStringSubmatch(string(s.get("/developers").body), -1) {
		examples[m[1]] = html.UnescapeString(m[2])
	}
	status, h, body := httpExample(t, examples["429"])
	if status != http.StatusTooManyRequests {
		t.Fatalf("the 429 example: status %d", status)
	}
	for k := range h {
		if real.Header.Get(k) == "" {
			t.Errorf("the 429 example has %s, a real 429 has none", k)
		}
	}
	for _, k := range []string{"Content-Type", "RateLimit-Policy", "Vary"} {
		if h.Get(k) != real.Header.Get(k) {
			t.Errorf("the 429 example: %s %q, a real 429 %q", k, h.Get(k), real.Header.Get(k))
		}
	}
	if h.Get("RateLimit") != `"public";r=0;t=`+h.Get("Retry-After") {
		t.Errorf("the 429 example: RateLimit %q with Retry-After %q", h.Get("RateLimit"), h.Get("Retry-After"))
	}
	if got, want := memberOrder(t, body), memberOrder(t, real.body); !slices.Equal(got, want) {
		t.Errorf("the 429 example's members %q, a real 429's %q", got, want)
	}
	var shown, sent map[string]any
	_ = json.Unmarshal(body, &shown)
	_ = json.Unmarshal(real.body, &sent)
	if shown["detail"] != sent["detail"] || shown["type"] != sent["type"] {
		t.Errorf("the 429 example says %v, a real 429 %v", shown["detail"], sent["detail"])
	}
}

// TestDeveloperPortalProblemsMatchTheDescription: the portal is not
// counted, so its problems carry no RateLimit fields, and /openapi.json
// must not promise them there (it does on every counted route).
func TestDeveloperPortalProblemsMatchTheDescription(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, path := range []string{"/developers", "/developers.md"} {
		r := s.do(http.MethodPost, base+path, nil)
		s.validateProblem(r, http.StatusMethodNotAllowed, "method_not_allowed")
		if r.Header.Get("RateLimit") != "" || r.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("POST %s: RateLimit %q, RateLimit-Policy %q on a route that is not counted",
				path, r.Header.Get("RateLimit"), r.Header.Get("RateLimit-Policy"))
		}
		s.validateMethodNotAllowed(r)
	}
	// A counted route's 405 keeps them, as described.
	r := s.do(http.MethodPost, base+"/llms.txt", nil)
	if r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("RateLimit-Policy") == "" {
		t.Errorf("POST /llms.txt: %d, RateLimit-Policy %q", r.StatusCode, r.Header.Get("RateLimit-Policy"))
	}
	s.validateMethodNotAllowed(r)
}

// validateMethodNotAllowed checks a 405 against the description of the
// operation the path does have: the description names no operation for
// the method refused, so its 405 is described on the path's GET (which is
// where a tester such as Schemathesis reads it).
func (s *server) validateMethodNotAllowed(r *response) {
	s.t.Helper()
	described := *r
	described.Request = r.Request.Clone(r.Request.Context())
	described.Request.Method = http.MethodGet
	s.validate(&described)
}
