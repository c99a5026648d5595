package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
)

func TestBatchCap(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	batch := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(ping+",", n), ",") + "]" }
	for _, c := range []struct {
		name   string
		limit  ratelimit.Policy
		body   string
		status int
		want   string
	}{
		{"32 without a rate limit", ratelimit.Policy{}, batch(32), http.StatusOK, `"id":"p"`},
		{"33 without a rate limit", ratelimit.Policy{}, batch(33), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch may hold at most 32 messages; this one holds 33.`},
		{"the quota when smaller", ratelimit.Policy{Events: 5, Window: time.Minute}, batch(6), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch may hold at most 5 messages; this one holds 6.`},
		{"not messages", ratelimit.Policy{}, `[1, 2]`, http.StatusBadRequest, `"code":-32600`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestService(t, Config{BaseURL: "http://localhost", RateLimit: c.limit})
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) || !json.Valid(rec.Body.Bytes()) {
				t.Errorf("%d %s\nwant %d with %s", rec.Code, rec.Body, c.status, c.want)
			}
		})
	}
}

// A batch is charged its further messages before it runs; refused, it
// gets an error under each request's id.
func TestBatchAdmission(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	note := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	batch := func(msgs ...string) string { return "[" + strings.Join(msgs, ",") + "]" }
	for _, c := range []struct {
		name    string
		body    string
		allowed bool
		charged int // -1: ChargeExtra not called
		status  int
		want    string // in the body
	}{
		{"one message", ping, false, -1, http.StatusOK, `"id":"p"`},
		{"a batch of one", batch(ping), false, -1, http.StatusOK, `"id":"p"`},
		{"a batch that fits", batch(ping, note, ping), true, 2, http.StatusOK, `"result"`},
		{"a batch over the quota", batch(`{"jsonrpc":"2.0","id":7,"method":"ping"}`, note, ping), false, 2, http.StatusTooManyRequests,
			`[{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"Rate limit exceeded: this batch of 3 messages counts as 3 requests, and the client has 1 left of the 5 the \"public\" policy allows in 60 seconds. Nothing in it was run. Retry the batch after 9 seconds (the Retry-After header), or send fewer messages.","data":{"retryAfter":9,"violatedPolicies":["public"]}}},{"jsonrpc":"2.0","id":"p","error":`},
		{"notifications over the quota", batch(note, note), false, 1, http.StatusTooManyRequests, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,`},
		{"over the cap: not charged", batch(ping, ping, ping, ping, ping, ping), true, -1, http.StatusBadRequest, `"code":-32600`},
		{"not messages: charged, then refused by the SDK", `[1, 2]`, true, 1, http.StatusBadRequest, `"code":-32600`},
	} {
		t.Run(c.name, func(t *testing.T) {
			charged := -1
			s := newTestService(t, Config{BaseURL: "http://localhost", RateLimit: ratelimit.Policy{Events: 5, Window: time.Minute},
				ChargeExtra: func(h http.Header, r *http.Request, n int) ratelimit.Extra {
					charged = n
					return ratelimit.Extra{Allowed: c.allowed, Remaining: 1, RetryAfter: 9}
				}})
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			if charged != c.charged || rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) || !json.Valid(rec.Body.Bytes()) {
				t.Errorf("charged %d, want %d; %d %s\nwant %d with %s", charged, c.charged, rec.Code, rec.Body, c.status, c.want)
			}
			if c.status == http.StatusTooManyRequests && rec.Header().Get("Retry-After") != "9" {
				t.Errorf("Retry-After %q", rec.Header().Get("Retry-After"))
			}
		})
	}
}
