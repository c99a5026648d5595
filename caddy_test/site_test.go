package caddytest

import (
	"net/http"
	"strings"
	"testing"
)

// The tests here put the module into sites as users write them.

// A single-page app sends every unknown path to its index page; the module
// still answers its own paths.
func TestSinglePageAppSite(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/index.html", "<!doctype html><title>app</title>")
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+dir+`
	discovery {
		content sample
		rate_limit 1500 60s
	}
	try_files {path} /index.html
	file_server
}
`)
	for _, path := range []string{"/api/v1", "/llms.txt", "/openapi.json"} {
		if r := s.get(path); r.StatusCode != http.StatusOK || strings.Contains(string(r.body), "<title>app</title>") {
			t.Errorf("%s: %d %.60s", path, r.StatusCode, r.body)
		}
	}
	if r := s.get("/some/app/route"); !strings.Contains(string(r.body), "<title>app</title>") {
		t.Errorf("the app's own routes: %.60s", r.body)
	}
}

// Caddy's header directive edits values in place; an edit must stay in its
// own response instead of growing on every request.
func TestHeaderDirectiveEditsStayInTheirResponse(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	header >X-Content-Type-Options nosniff "nosniff, edited"
	header >Access-Control-Allow-Origin "\*" "https://app.example"
	discovery {
		content sample
		rate_limit 1500 60s
	}
}
`)
	for range 3 {
		r := s.get("/api/v1/profile")
		if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff, edited" {
			t.Fatalf("X-Content-Type-Options %q", got)
		}
		if got := r.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
			t.Fatalf("Access-Control-Allow-Origin %q", got)
		}
	}
}

// With encode in front (as a route puts it), revalidating a compressed
// document still gives 304.
func TestEncodeInFront(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	route {
		encode zstd gzip
		discovery {
			content sample
			rate_limit 1500 60s
		}
	}
}
`)
	for _, enc := range []string{"gzip", "zstd"} {
		r := s.get("/llms-full.txt", "Accept-Encoding", enc)
		if r.Header.Get("Content-Encoding") != enc {
			t.Fatalf("%s: Content-Encoding %q", enc, r.Header.Get("Content-Encoding"))
		}
		again := s.get("/llms-full.txt", "Accept-Encoding", enc, "If-None-Match", r.Header.Get("ETag"))
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("%s: revalidation %d", enc, again.StatusCode)
		}
	}
}

// A request whose Host is not a host name gets a 400 problem, not a 500.
func TestInvalidHost(t *testing.T) {
	startCaddy(t, `
http://:9080 {
	discovery {
		content sample
	}
}
`)
	for name, raw := range map[string]string{
		"no Host (HTTP/1.0)": "GET /api/v1 HTTP/1.0\r\n\r\n",
		"unclosed IPv6":      "GET /api/v1 HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n",
		"percent in host":    "GET /api/v1 HTTP/1.1\r\nHost: a%zz\r\nConnection: close\r\n\r\n",
	} {
		resp, body := rawExchange(t, raw)
		// Go's server refuses some of these itself, with a plain-text 400.
		problem := resp.Header.Get("Content-Type") == "application/problem+json"
		if resp.StatusCode != http.StatusBadRequest || problem && !strings.Contains(body, `"bad_request"`) {
			t.Errorf("%s: %d %s", name, resp.StatusCode, body)
		}
	}
}

// A client whose token has expired can still read the metadata it needs to
// recover; the public endpoints refuse the token.
func TestBearerIgnoredOnMetadata(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for path, want := range map[string]int{
		"/.well-known/oauth-protected-resource":   http.StatusOK,
		"/.well-known/oauth-authorization-server": http.StatusOK,
		"/auth.md":      http.StatusOK,
		"/openapi.json": http.StatusOK,
		"/api/v1":       http.StatusUnauthorized,
		"/llms.txt":     http.StatusUnauthorized,
	} {
		r := s.get(path, "Authorization", "Bearer dsc_expired")
		if r.StatusCode != want {
			t.Errorf("%s with a bad token: %d, want %d", path, r.StatusCode, want)
		}
		s.validate(r)
	}
}
