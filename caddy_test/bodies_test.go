package caddytest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bodyTimeout is the body_timeout of these tests: short, so that a test
// waits a second where the default would make it wait ten.
const bodyTimeout = time.Second

// h2cGlobals serve HTTP/2 without TLS (h2c, prior knowledge) besides
// HTTP/1.1, so that the test can speak both on the plain-HTTP port.
var h2cGlobals = strings.Replace(globalOptions, "skip_install_trust", "skip_install_trust\n\tservers {\n\t\tprotocols h1 h2c\n\t}", 1)

const slowBodySite = `
http://localhost:9080 {
	discovery {
		content sample
		body_timeout 1s
		rate_limit 1500 60s
	}
	respond "next handler" 200
}
`

// mcpInitialize is a whole, valid body for POST /mcp.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}`

// trickle is a request body that sends one byte every interval, as the
// attack does, until it is done or stop is closed.
type trickle struct {
	data     []byte
	interval time.Duration
	stop     <-chan struct{}
}

func (tr *trickle) Read(p []byte) (int, error) {
	if len(tr.data) == 0 {
		return 0, io.EOF
	}
	select {
	case <-tr.stop:
		return 0, errors.New("trickle stopped")
	case <-time.After(tr.interval):
	}
	n := copy(p[:1], tr.data)
	tr.data = tr.data[n:]
	return n, nil
}

func h2cClient() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}}
}

// trickleHTTP1 sends a POST to path over a connection of its own, with the
// given Content-Length and extra header lines, and trickles the body one
// byte every 300 ms while it waits for the answer: the slow-body attack.
// The answer must come within three body timeouts. closed reports whether
// the server then closed the connection at once rather than wait for the
// rest of the body.
func trickleHTTP1(t *testing.T, path string, contentLength int, headers string) (r *response, elapsed time.Duration, closed bool) {
	t.Helper()
	start := time.Now()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:9080", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(start.Add(3 * bodyTimeout))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: localhost:9080\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n", path, headers, contentLength)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		_, _ = io.Copy(conn, &trickle{data: []byte(strings.Repeat(" ", contentLength)), interval: 300 * time.Millisecond, stop: stop})
	}()

	req, _ := http.NewRequest(http.MethodPost, base+path, nil)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatalf("POST %s: no answer within %s of the request: %v", path, 3*bodyTimeout, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("POST %s: reading the answer: %v", path, err)
	}
	elapsed = time.Since(start)
	// The next read ends at once, with no more data, when the server has
	// closed its end.
	_ = conn.SetReadDeadline(time.Now().Add(3 * bodyTimeout))
	_, err = br.ReadByte()
	ne, timedOut := err.(net.Error)
	closed = err != nil && !(timedOut && ne.Timeout())
	return &response{Response: resp, body: body}, elapsed, closed
}

// TestSlowBodyOverHTTP1 reproduces the slow-body attack on POST /mcp byte
// for byte: one byte every 300 ms of a Content-Length of 1 000 would hold
// the connection for five minutes. The module answers with the 408 problem
// at body_timeout, well before three times it, and closes the connection.
// A body the module does not read at all (over the 64 KiB limit, on a GET
// endpoint, with a bad token) is answered at once, and its connection
// closed too: kept open, it would be drained of the body at the client's
// pace, under no deadline but the server's (a minute by default).
func TestSlowBodyOverHTTP1(t *testing.T) {
	s := startCaddy(t, slowBodySite)
	for _, tc := range []struct {
		name, path    string
		contentLength int
		headers       string
		status        int
		code          string
	}{
		{"a body within the limit", "/mcp", 1000, "", http.StatusRequestTimeout, "request_timeout"},
		{"a token request", "/oauth/token", 1000, "", http.StatusRequestTimeout, "request_timeout"},
		{"a body over the limit", "/mcp", 100_000, "", http.StatusRequestEntityTooLarge, "payload_too_large"},
		{"a body to a GET endpoint", "/api/v1/profile", 1000, "", http.StatusMethodNotAllowed, "method_not_allowed"},
		{"a body with a bad token", "/mcp", 1000, "Authorization: Bearer not-a-token\r\n", http.StatusUnauthorized, "invalid_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, elapsed, closed := trickleHTTP1(t, tc.path, tc.contentLength, tc.headers)
			if tc.status == http.StatusRequestTimeout && elapsed < bodyTimeout {
				t.Errorf("answered after %s, before the body timeout of %s", elapsed, bodyTimeout)
			}
			if tc.status == http.StatusRequestTimeout || tc.status == http.StatusRequestEntityTooLarge {
				s.validate(r) // a 401 on /mcp is the token's, not the route's, so not every status is listed
			}
			s.validateProblem(r, tc.status, tc.code)
			if !r.Close { // Go's reader turns Connection: close into Close
				t.Error("the answer does not announce that the connection closes (Connection: close)")
			}
			if !closed {
				t.Errorf("the server kept the connection open after the %d, reading the rest of the body", tc.status)
			}
		})
	}
}

// TestSlowBodyRefusedByTheRateLimiter: a request over the quota is refused
// without its body being read; a trickled body must not hold its
// connection either, or the quota would not bound the attack at all.
func TestSlowBodyRefusedByTheRateLimiter(t *testing.T) {
	// A quota of 3: the validator's two fetches of /openapi.json, counted
	// under a key of their own, fit in it.
	s := startCaddy(t, limitedSite("slow-body", "rate_limit 3 60s"))
	for range 3 {
		if r := s.get("/api/v1/health"); r.StatusCode != http.StatusOK {
			t.Fatalf("a request within the quota: %d", r.StatusCode)
		}
	}
	r, _, closed := trickleHTTP1(t, "/mcp", 1000, "")
	s.validateProblem(r, http.StatusTooManyRequests, "rate_limited")
	s.validate(r)
	if !r.Close || !closed {
		t.Errorf("Connection: close announced %v, connection closed %v; want both", r.Close, closed)
	}
}

// TestSlowBodyOverHTTP2 trickles the body of POST /mcp over HTTP/2, where
// the deadline is the stream's: the 408 problem arrives at body_timeout.
func TestSlowBodyOverHTTP2(t *testing.T) {
	s := startCaddyWith(t, h2cGlobals, slowBodySite)
	client := h2cClient()
	client.Timeout = 3 * bodyTimeout
	stop := make(chan struct{})
	defer close(stop)
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", &trickle{data: []byte(mcpInitialize), interval: 300 * time.Millisecond, stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("no answer within %s: %v", client.Timeout, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	if resp.ProtoMajor != 2 {
		t.Fatalf("the exchange used %s, not HTTP/2", resp.Proto)
	}
	if elapsed := time.Since(start); elapsed < bodyTimeout {
		t.Errorf("answered after %s, before the body timeout of %s", elapsed, bodyTimeout)
	}
	r := &response{Response: resp, body: body}
	s.validateProblem(r, http.StatusRequestTimeout, "request_timeout")
	s.validate(r)
}

// TestPromptBodiesWithinTheBodyTimeout: with a body timeout of one second,
// POSTs whose bodies arrive in time (at once, or in two parts) are answered
// as usual, over HTTP/1.1 and HTTP/2.
func TestPromptBodiesWithinTheBodyTimeout(t *testing.T) {
	s := startCaddyWith(t, h2cGlobals, slowBodySite)
	clients := map[string]*http.Client{"HTTP/1.1": s.Client, "HTTP/2": h2cClient()}
	for proto, client := range clients {
		for _, tc := range []struct {
			name, path, contentType string
			body                    func() io.Reader
		}{
			{"MCP initialize", "/mcp", "application/json", func() io.Reader { return strings.NewReader(mcpInitialize) }},
			{"token", "/oauth/token", "application/x-www-form-urlencoded", func() io.Reader { return strings.NewReader("grant_type=client_credentials") }},
			{"registration without a body", "/agent/register", "", func() io.Reader { return nil }},
			{"MCP initialize in two parts", "/mcp", "application/json", func() io.Reader {
				half := len(mcpInitialize) / 2
				return io.MultiReader(strings.NewReader(mcpInitialize[:half]),
					&trickle{data: []byte(mcpInitialize[half : half+1]), interval: 300 * time.Millisecond},
					strings.NewReader(mcpInitialize[half+1:]))
			}},
		} {
			t.Run(proto+" "+tc.name, func(t *testing.T) {
				req, err := http.NewRequest(http.MethodPost, base+tc.path, tc.body())
				if err != nil {
					t.Fatal(err)
				}
				if tc.contentType != "" {
					req.Header.Set("Content-Type", tc.contentType)
				}
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK || fmt.Sprint(resp.ProtoMajor) != proto[5:6] {
					t.Fatalf("%s: status %d over %s\n%s", tc.path, resp.StatusCode, resp.Proto, body)
				}
				s.validate(&response{Response: resp, body: body})
			})
		}
	}
}

// refusedBodySize is the body of the refused-body tests: the 2 MiB the
// issue's clients sent, over the 64 KiB limit and over the 256 KiB Go's
// server reads of a body its handler left unread.
const refusedBodySize = 2 << 20

// refusedBodySite keys the quota on X-Client, so that each request of the
// refused-body tests has a quota of its own but the ones meant for a 429.
// Five requests: the validator fetches /openapi.json once for each status
// it checks, under a key of its own.
var refusedBodySite = limitedSite("refused-body", "rate_limit 5 60s")

// refusedBody is a request the module answers without reading its body,
// and the problem it answers with.
type refusedBody struct {
	name, path string
	headers    []string
	status     int
	code       string
}

var refusedBodies = []refusedBody{
	{"registration", "/agent/register", []string{"Content-Type", "application/json"}, http.StatusRequestEntityTooLarge, "payload_too_large"},
	{"identity", "/agent/identity", []string{"Content-Type", "application/json"}, http.StatusRequestEntityTooLarge, "payload_too_large"},
	{"token", "/oauth/token", []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusRequestEntityTooLarge, "payload_too_large"},
	{"MCP", "/mcp", []string{"Content-Type", "application/json"}, http.StatusRequestEntityTooLarge, "payload_too_large"},
	{"bad token", "/mcp", []string{"Content-Type", "application/json", "Authorization", "Bearer not-a-token"}, http.StatusUnauthorized, "invalid_token"},
	{"GET endpoint", "/api/v1/profile", []string{"Content-Type", "application/json"}, http.StatusMethodNotAllowed, "method_not_allowed"},
	{"over the quota", "/mcp", []string{"Content-Type", "application/json", "X-Client", "spent"}, http.StatusTooManyRequests, "rate_limited"},
}

// postRefused sends tc's request with body over client, as the client
// named key for the quota.
func postRefused(client *http.Client, tc refusedBody, body []byte, key string) (*response, error) {
	req, err := http.NewRequest(http.MethodPost, base+tc.path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Client", key)
	for i := 0; i+1 < len(tc.headers); i += 2 {
		req.Header.Set(tc.headers[i], tc.headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	return &response{Response: resp, body: got}, nil
}

// TestRefusedBodiesGetTheirAnswer POSTs a 2 MiB body at full speed, 30
// times, for every kind of request the module answers without reading the
// body: each must get its problem, not a connection reset. Over HTTP/1.1
// the server closes such a connection after the answer while the body is
// still arriving, and closing a socket with unread data resets it, which
// can destroy the answer in flight. HTTP/2 resets only the stream.
func TestRefusedBodiesGetTheirAnswer(t *testing.T) {
	const tries = 30
	s := startCaddyWith(t, h2cGlobals, refusedBodySite)
	for range 5 {
		if r := s.get("/api/v1/health", "X-Client", "spent"); r.StatusCode != http.StatusOK {
			t.Fatalf("a request within the quota: %d", r.StatusCode)
		}
	}
	validated := map[int]bool{}
	body := bytes.Repeat([]byte(" "), refusedBodySize)
	clients := map[string]*http.Client{"HTTP/1.1": {Transport: &http.Transport{}}, "HTTP/2": h2cClient()}
	for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
		client := clients[proto]
		client.Timeout = 10 * time.Second
		for _, tc := range refusedBodies {
			t.Run(proto+" "+tc.name, func(t *testing.T) {
				s := &server{Tester: s.Tester, t: t}
				var answered, resets int
				var failures []string
				for i := range tries {
					r, err := postRefused(client, tc, body, fmt.Sprintf("%s %s %d", proto, tc.name, i))
					switch {
					case errors.Is(err, syscall.ECONNRESET):
						resets++
						continue
					case err != nil:
						failures = append(failures, err.Error())
						continue
					case r.Proto[:6] != proto[:6]:
						t.Fatalf("the exchange used %s, not %s", r.Proto, proto)
					}
					if r.StatusCode == tc.status && !validated[tc.status] {
						validated[tc.status] = true
						s.validateProblem(r, tc.status, tc.code)
					}
					var p struct{ Code string }
					_ = json.Unmarshal(r.body, &p)
					if r.StatusCode != tc.status || r.Header.Get("Content-Type") != "application/problem+json" || p.Code != tc.code {
						failures = append(failures, fmt.Sprintf("%d %s %q", r.StatusCode, r.Header.Get("Content-Type"), p.Code))
						continue
					}
					answered++
				}
				t.Logf("POST %s: %d of %d answered, %d connection resets", tc.path, answered, tries, resets)
				if answered != tries {
					t.Errorf("POST %s with %d bytes: %d of %d answered with the %d problem; %d connection resets; other failures: %q",
						tc.path, len(body), answered, tries, tc.status, resets, failures)
				}
			})
		}
	}
}

// TestRefusedBodiesWithNodeFetch sends the refused bodies of
// TestRefusedBodiesGetTheirAnswer with Node's built-in fetch, the client
// of the TypeScript MCP SDK, which reported them as ECONNRESET.
func TestRefusedBodiesWithNodeFetch(t *testing.T) {
	startCaddy(t, refusedBodySite)
	runNode(t, nodeCommand(t, "node", "--test", "caddy_test/refused_bodies.test.mjs"))
}
