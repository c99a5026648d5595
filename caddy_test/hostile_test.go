package caddytest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawExchange writes raw bytes to the server, closes the writing side (so a
// body shorter than its Content-Length ends), and reads the response.
func rawExchange(t *testing.T, raw string) (*http.Response, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:9080", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatalf("writing: %v", err)
	}
	_ = conn.(*net.TCPConn).CloseWrite()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestHostileInput sends a corpus of hostile requests, byte for byte, to a
// real Caddy: every answer is a 4xx (a problem, or the protocol's own error
// where a standard or the HTTP server prescribes one), never a 5xx, never
// input reflected raw, never a file from outside the content.
func TestHostileInput(t *testing.T) {
	startCaddy(t, sampleSite)
	long := strings.Repeat("a", 8192)
	huge := strings.Repeat("x", 200_000)
	get := func(target string, headers ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: localhost:9080\r\n" + strings.Join(headers, "") + "Connection: close\r\n\r\n"
	}
	post := func(path, contentType, body string, extra ...string) string {
		ct := ""
		if contentType != "" {
			ct = "Content-Type: " + contentType + "\r\n"
		}
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: localhost:9080\r\n%s%sContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			path, ct, strings.Join(extra, ""), len(body), body)
	}
	truncated := func(path, contentType string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: localhost:9080\r\nContent-Type: " + contentType +
			"\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{\"type\":"
	}
	cases := map[string]string{
		"encoded traversal":              get("/api/v1/insights/..%2f..%2f..%2f..%2fetc%2fpasswd"),
		"double-encoded traversal":       get("/api/v1/insights/%252e%252e%252fetc%252fpasswd"),
		"dot segments":                   get("/api/v1/../../../../etc/passwd"),
		"dot segments in the slug":       get("/api/v1/insights/.."),
		"backslash traversal":            get("/api/v1/insights/..\\..\\etc\\passwd"),
		"NUL encoded":                    get("/api/v1/insights/a%00b"),
		"invalid UTF-8":                  get("/api/v1/insights/%c3%28%ff"),
		"overlong UTF-8 slash":           get("/api/v1/insights/%c0%af"),
		"8 KiB slug":                     get("/api/v1/insights/" + long),
		"8 KiB unknown path":             get("/api/v1/" + long),
		"long query string":              get("/api/v1/nope?" + strings.Repeat("q=1&", 4000)),
		"long query on a document":       get("/api/v1/profile?" + strings.Repeat("q=1&", 4000)),
		"markup in the path":             get("/api/v1/%3Cscript%3Ealert(1)%3C/script%3E"),
		"markup in the slug":             get("/api/v1/insights/%3Csvg%20onload=alert(1)%3E"),
		"absolute-form target":           get("http://localhost:9080/api/v1/nope"),
		"odd method":                     "BREW /api/v1 HTTP/1.1\r\nHost: localhost:9080\r\nConnection: close\r\n\r\n",
		"TRACE":                          "TRACE /api/v1/profile HTTP/1.1\r\nHost: localhost:9080\r\nConnection: close\r\n\r\n",
		"lowercase method":               "get /api/v1 HTTP/1.1\r\nHost: localhost:9080\r\nConnection: close\r\n\r\n",
		"PATCH the MCP endpoint":         "PATCH /mcp HTTP/1.1\r\nHost: localhost:9080\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"two Authorization headers":      get("/api/v1/profile", "Authorization: Bearer a\r\n", "Authorization: Bearer b\r\n"),
		"control bytes in Authorization": get("/api/v1/profile", "Authorization: Bearer \x01\x02\r\n"),
		"Authorization with markup":      get("/api/v1/profile", "Authorization: Bearer <script>\r\n"),
		"empty Authorization":            get("/api/v1/profile", "Authorization: \r\n"),
		"oversized header":               get("/api/v1/profile", "X-Big: "+strings.Repeat("b", 2<<20)+"\r\n"),
		"two Host headers":               "GET /api/v1 HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
		"duplicate Content-Type":         post("/agent/identity", "application/json", `{"type":"anonymous"}`, "Content-Type: text/plain\r\n"),
		"huge register body":             post("/agent/register", "", huge),
		"huge identity body":             post("/agent/identity", "application/json", huge),
		"huge claim body":                post("/agent/identity/claim", "application/json", huge),
		"huge token body":                post("/oauth/token", "application/x-www-form-urlencoded", huge),
		"huge MCP body":                  post("/mcp", "application/json", huge),
		"absurd Content-Length":          "POST /oauth/token HTTP/1.1\r\nHost: localhost:9080\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 999999999999\r\nConnection: close\r\n\r\ngrant_type=x",
		"truncated identity body":        truncated("/agent/identity", "application/json"),
		"truncated token body":           truncated("/oauth/token", "application/x-www-form-urlencoded"),
		"truncated MCP body":             truncated("/mcp", "application/json"),
		"truncated register body":        truncated("/agent/register", "application/json"),
		"identity as XML":                post("/agent/identity", "application/xml", "<type>anonymous</type>"),
		"identity with a broken type":    post("/agent/identity", "application/json;;;=", `{"type":"anonymous"}`),
		"identity JSON array":            post("/agent/identity", "application/json", `[1,2,3]`),
		"identity deep JSON":             post("/agent/identity", "application/json", strings.Repeat("[", 10000)+strings.Repeat("]", 10000)),
		"token with NUL":                 post("/oauth/token", "application/x-www-form-urlencoded", "grant_type=client_credentials%00"),
		"MCP not JSON":                   post("/mcp", "application/json", "\xff\xfe not json"),
		"MCP deep JSON":                  post("/mcp", "application/json", strings.Repeat("[", 10000)+strings.Repeat("]", 10000)),
		"MCP wrong JSON-RPC":             post("/mcp", "application/json", `{"jsonrpc":"1.0","method":42}`, "Accept: application/json, text/event-stream\r\n"),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			resp, body := rawExchange(t, raw)
			if name == "long query on a document" { // no endpoint takes a query: it is ignored
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d", resp.StatusCode)
				}
				return
			}
			if resp.StatusCode < 400 || resp.StatusCode >= 500 {
				t.Errorf("status %d, want a 4xx\n%.300s", resp.StatusCode, body)
			}
			for _, raw := range []string{"<script", "<svg", "<img", "\x00", "\x01", "root:x:0:0"} {
				if strings.Contains(body, raw) {
					t.Errorf("the body contains %q: %.300s", raw, body)
				}
			}
			ct := resp.Header.Get("Content-Type")
			switch {
			case ct == "application/problem+json":
			case ct == "application/json" && (strings.Contains(body, `"error"`)): // RFC 6749 or JSON-RPC errors
			case strings.HasPrefix(ct, "text/plain") && resp.Header.Get("Server") == "" && resp.Header.Get("API-Version") == "":
				// an error of the HTTP server itself, before any handler ran
			default:
				t.Errorf("Content-Type %q for a %d: %.300s", ct, resp.StatusCode, body)
			}
		})
	}
}
