package handlers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// TestWebMCPScriptEscapesContent: the tools' descriptions carry content
// (list_insights names the topics); none of it can end the script.
func TestWebMCPScriptEscapesContent(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	site.Insights[0].Topic = `</script><script>alert(1)</script>`
	s, err := New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32)), Agents: AgentDocs{WebMCP: true}})
	if err != nil {
		t.Fatal(err)
	}
	script := serve(t, s, "/mcp/webmcp.js").Body.String()
	if strings.Contains(script, "__DISCOVERY_WEBMCP_TOOLS__") || !strings.Contains(script, `const tools = [{"name":`) {
		t.Errorf("the tools were not written into the script:\n%.400s", script)
	}
	if strings.Contains(strings.ToLower(script), "</script") || !strings.Contains(script, `\u003c/script\u003e`) {
		t.Error("content reaches the script unescaped")
	}
}

// TestPortalCSP: the portal allows the WebMCP script and the API it reads,
// by their URLs, and nothing of the kind when WebMCP is off.
func TestPortalCSP(t *testing.T) {
	for _, tc := range []struct {
		name     string
		webMCP   bool
		host     string
		contains []string
	}{
		{"on", true, "example.com", []string{"script-src http://example.com/mcp/webmcp.js;", "connect-src http://example.com/api/v1/ http://example.com/llms.txt;"}},
		// A host-source cannot name an IPv6 address.
		{"IPv6 host", true, "[::1]:8080", []string{"script-src 'self';", "connect-src 'self';"}},
		{"off", false, "example.com", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestService(t, Config{Agents: AgentDocs{WebMCP: tc.webMCP}})
			req := httptest.NewRequest(http.MethodGet, "/developers", nil)
			req.Host = tc.host
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			csp := rec.Header().Get("Content-Security-Policy")
			if rec.Code != http.StatusOK || !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") {
				t.Fatalf("%d, CSP %q", rec.Code, csp)
			}
			for _, want := range tc.contains {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if !tc.webMCP && (strings.Contains(csp, "script-src") || strings.Contains(rec.Body.String(), "<script")) {
				t.Errorf("WebMCP off, yet the portal has a script: CSP %q", csp)
			}
		})
	}
}
