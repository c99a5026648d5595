package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// FuzzRouter sends arbitrary methods, paths and Authorization headers to the
// service: it never panics (a recovered panic would be a 500), never answers
// 5xx, and every error is a problem document.
func FuzzRouter(f *testing.F) {
	s := newTestService(f, agentConfig(Config{BaseURL: "https://example.com"}))
	for _, seed := range []struct{ method, path, auth string }{
		{"GET", "/index.md", ""},
		{"GET", "/insights/the-case-for-a-boring-data-platform.md", ""},
		{"GET", "/insights/{slug}.md", ""},
		{"HEAD", "/sitemap-discovery.xml", ""},
		{"GET", "/api/v1", ""},
		{"GET", "/api/v1/insights/the-case-for-a-boring-data-platform", ""},
		{"HEAD", "/api/v1/profile", ""},
		{"OPTIONS", "/mcp", ""},
		{"POST", "/api/v1", ""},
		{"GET", "/api/v1/insights/../profile", ""},
		{"GET", "/api/v1/insights/%00", ""},
		{"GET", "/api/v1/insights/A-B", "Bearer x"},
		{"GET", "/api/v1/profile", "Basic YTpi"},
		{"DELETE", "/mcp", ""},
		{"GET", "/mcp/nope", ""},
		{"BREW", "/llms.txt", ""},
	} {
		f.Add(seed.method, seed.path, seed.auth)
	}
	f.Fuzz(func(t *testing.T, method, path, auth string) {
		if method == "" || strings.ContainsAny(method, " \t\r\n") || !s.Owns(path) {
			return
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Method = method
		r.URL = &url.URL{Path: path}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", method, path, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && rec.Header().Get("Content-Type") != respond.MediaProblem {
			t.Fatalf("%s %q: %d with Content-Type %q", method, path, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}

// FuzzPageNegotiation sends arbitrary Accept headers for the site's pages:
// the module answers only GET and HEAD that prefer Markdown, always with
// the page's Markdown.
func FuzzPageNegotiation(f *testing.F) {
	s := newTestService(f, agentConfig(Config{BaseURL: "https://example.com"}))
	for _, seed := range []struct{ method, path, accept string }{
		{"GET", "/", "text/markdown"},
		{"HEAD", "/about", "text/markdown;q=0.5, text/html;q=0.4"},
		{"GET", "/insights", "*/*"},
		{"POST", "/", "text/markdown"},
		{"GET", "/insights/the-case-for-a-boring-data-platform", "text/markdown;q=1.0000001"},
		{"GET", "/contact", "text/markdown"},
	} {
		f.Add(seed.method, seed.path, seed.accept)
	}
	f.Fuzz(func(t *testing.T, method, path, accept string) {
		if method == "" || strings.ContainsAny(method, " \t\r\n") {
			return
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Method = method
		r.URL = &url.URL{Path: path}
		r.Header.Set("Accept", accept)
		if !s.Match(r).negotiated {
			return
		}
		if s.Owns(path) || method != http.MethodGet && method != http.MethodHead {
			t.Fatalf("%s %q: negotiated on a path the module owns, or for another method", method, path)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != respond.MediaMarkdown || !strings.Contains(rec.Header().Get("Vary"), "Accept") {
			t.Fatalf("%s %q Accept %q: %d %q", method, path, accept, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}

// FuzzMCPPreCheck posts arbitrary bodies to /mcp: the answer is never a
// 5xx, and a body that is not JSON gets the JSON-RPC parse error.
func FuzzMCPPreCheck(f *testing.F) {
	s := newTestService(f, Config{BaseURL: "http://localhost"})
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_insight","arguments":{"slug":"x"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		"[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 40) + "1]",
		`{"jsonrpc":"2.0","id":1,"method":`,
		"",
		"null",
		"\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
		if !json.Valid(body) {
			var rpc struct {
				Error struct{ Code int } `json:"error"`
			}
			if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &rpc) != nil || rpc.Error.Code != -32700 {
				t.Fatalf("%q: %d %s, want the -32700 parse error", body, rec.Code, rec.Body)
			}
		}
	})
}
