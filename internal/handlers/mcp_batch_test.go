package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestBatchCap(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	batch := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(ping+",", n), ",") + "]" }
	for _, c := range []struct {
		name   string
		limit  RateLimit
		body   string
		status int
		want   string
	}{
		{"32 without a rate limit", RateLimit{}, batch(32), http.StatusOK, `"id":"p"`},
		{"33 without a rate limit", RateLimit{}, batch(33), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch may hold at most 32 messages; this one holds 33.`},
		{"the quota when smaller", RateLimit{Events: 5, Window: time.Minute}, batch(6), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch may hold at most 5 messages; this one holds 6.`},
		{"not messages", RateLimit{}, `[1, 2]`, http.StatusBadRequest, `"code":-32600`},
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
