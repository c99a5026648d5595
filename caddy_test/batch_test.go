package caddytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// batchOf is a JSON-RPC batch of n search_insights calls with ids 1 to n.
func batchOf(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts","limit":1}}}`, i+1)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// rpcAnswer is one JSON-RPC response object.
type rpcAnswer struct {
	ID     any            `json:"id"`
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// Every message of a batch counts against the quota: the batch consumes
// its share, one larger than what is left is refused whole, and one over
// the cap is an invalid request. MCP-Protocol-Version is absent, which
// means 2025-03-26, the version that has batches.
func TestMCPBatchCountsEveryMessage(t *testing.T) {
	s := startCaddy(t, limitedSite("batch", "rate_limit 40 60s"))
	if remaining, _ := rateLimit(t, s.get("/api/v1")); remaining != 39 {
		t.Fatalf("first request: r=%d, want 39", remaining)
	}

	r := s.mcpPost(batchOf(10))
	var answers []rpcAnswer
	if err := json.Unmarshal(r.body, &answers); err != nil || r.StatusCode != http.StatusOK || len(answers) != 10 {
		t.Fatalf("batch of 10: %d %s", r.StatusCode, r.body)
	}
	for _, a := range answers {
		if a.Error != nil || a.Result == nil {
			t.Errorf("batch of 10, id %v: %+v", a.ID, a)
		}
	}
	s.validate(r)
	if remaining, _ := rateLimit(t, r); remaining != 29 {
		t.Errorf("the batch's own RateLimit: r=%d, want 29 (39 less 10 messages)", remaining)
	}
	if remaining, _ := rateLimit(t, s.get("/api/v1")); remaining != 28 {
		t.Errorf("the request after the batch: r=%d, want 28", remaining)
	}

	// 28 left; the batch itself takes one, so 27 are left for its 29 other
	// messages: refused whole, nothing run, nothing more counted.
	r = s.mcpPost(batchOf(30))
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("batch of 30 with 28 left: %d %q %s", r.StatusCode, r.Header.Get("Content-Type"), r.body)
	}
	s.validate(r)
	retryAfter, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retryAfter < 1 || retryAfter > 60 {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if remaining, _ := rateLimit(t, r); remaining != 27 {
		t.Errorf("refused batch: r=%d, want 27", remaining)
	}
	answers = nil
	if err := json.Unmarshal(r.body, &answers); err != nil || len(answers) != 30 {
		t.Fatalf("refused batch: want an error for each of its 30 requests: %s", r.body)
	}
	for i, a := range answers {
		if a.ID != float64(i+1) || a.Result != nil || a.Error == nil || a.Error.Code != -32000 ||
			a.Error.Data["retryAfter"] != float64(retryAfter) || !strings.Contains(a.Error.Message, "27 left") {
			t.Errorf("refused batch, answer %d: %+v", i, a)
		}
	}
	if remaining, _ := rateLimit(t, s.get("/api/v1")); remaining != 26 {
		t.Errorf("the request after the refused batch: r=%d, want 26 (the refused batch counted once)", remaining)
	}

	r = s.mcpPost(batchOf(33))
	var invalid rpcAnswer
	if err := json.Unmarshal(r.body, &invalid); err != nil || r.StatusCode != http.StatusBadRequest || invalid.ID != nil ||
		invalid.Error == nil || invalid.Error.Code != -32600 || !strings.Contains(invalid.Error.Message, "at most 32 messages") {
		t.Errorf("batch of 33: %d %s", r.StatusCode, r.body)
	}
	s.validate(r)

	// A batch that fits, and a single call, still work.
	r = s.mcpPost(batchOf(2))
	if r.StatusCode != http.StatusOK {
		t.Errorf("batch of 2: %d %s", r.StatusCode, r.body)
	}
	if remaining, _ := rateLimit(t, r); remaining != 23 {
		t.Errorf("batch of 2: r=%d, want 23 (25 after the batch over the cap, less 2)", remaining)
	}
	r = s.mcpPost(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts"}}}`,
		"MCP-Protocol-Version", "2025-06-18")
	var single rpcAnswer
	if err := json.Unmarshal(r.body, &single); err != nil || r.StatusCode != http.StatusOK || single.Result == nil || single.ID != float64(7) {
		t.Errorf("single call: %d %s", r.StatusCode, r.body)
	}
	s.validate(r)
	if remaining, _ := rateLimit(t, r); remaining != 22 {
		t.Errorf("single call: r=%d, want 22", remaining)
	}
}

// A quota smaller than the cap caps batches at the quota, since a larger
// batch could never be served; a refused batch can be sent again after
// Retry-After; a batch of notifications alone gets one error.
func TestMCPBatchRetryAfterAndSmallQuota(t *testing.T) {
	s := startCaddy(t, limitedSite("batch-small", "rate_limit 4 3s"))
	r := s.mcpPost(batchOf(5))
	var invalid rpcAnswer
	if err := json.Unmarshal(r.body, &invalid); err != nil || r.StatusCode != http.StatusBadRequest ||
		invalid.Error == nil || invalid.Error.Code != -32600 || !strings.Contains(invalid.Error.Message, "at most 4 messages") {
		t.Fatalf("batch of 5 with a quota of 4: %d %s", r.StatusCode, r.body)
	}
	for range 2 {
		s.get("/api/v1")
	}
	// 1 left after the two requests above and the 400: the batch itself
	// takes it.
	notifications := `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`
	r = s.mcpPost(notifications)
	if err := json.Unmarshal(r.body, &invalid); err != nil || r.StatusCode != http.StatusTooManyRequests || invalid.ID != nil ||
		invalid.Error == nil || invalid.Error.Code != -32000 {
		t.Fatalf("batch of notifications with none left: %d %s", r.StatusCode, r.body)
	}
	s.validate(r)
	retryAfter, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retryAfter < 1 || retryAfter > 3 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	time.Sleep(time.Duration(retryAfter) * time.Second)
	if r = s.mcpPost(batchOf(4)); r.StatusCode != http.StatusOK {
		t.Errorf("batch of 4 after Retry-After: %d %s", r.StatusCode, r.body)
	}
	if remaining, _ := rateLimit(t, r); remaining != 0 {
		t.Errorf("batch of 4 with a quota of 4: r=%d, want 0", remaining)
	}
}

// Without a rate limit only the cap applies.
func TestMCPBatchWithoutRateLimit(t *testing.T) {
	s := startCaddy(t, limitedSite("batch-off", "rate_limit off"))
	r := s.mcpPost(batchOf(32))
	var answers []rpcAnswer
	if err := json.Unmarshal(r.body, &answers); err != nil || r.StatusCode != http.StatusOK || len(answers) != 32 {
		t.Errorf("batch of 32: %d %s", r.StatusCode, r.body)
	}
	if r.Header.Get("RateLimit") != "" {
		t.Errorf("RateLimit %q with rate_limit off", r.Header.Get("RateLimit"))
	}
	s.validate(r)
	r = s.mcpPost(batchOf(33))
	var invalid rpcAnswer
	if err := json.Unmarshal(r.body, &invalid); err != nil || r.StatusCode != http.StatusBadRequest ||
		invalid.Error == nil || invalid.Error.Code != -32600 || !strings.Contains(invalid.Error.Message, "at most 32 messages") {
		t.Errorf("batch of 33: %d %s", r.StatusCode, r.body)
	}
	s.validate(r)
}

// In distributed mode a batch's messages are counted cluster-wide: a batch
// that uses a client's whole quota on instance A leaves nothing for it on
// instance B once the state has synced.
func TestMCPBatchCountsAcrossTheCluster(t *testing.T) {
	storage := t.TempDir()
	const discovery = `rate_limit 20 60s
		rate_limit_key "{http.vars.client_ip} {http.request.header.X-Client}"
		distributed 100ms 100ms`
	a := startProcess(t, "instance A", "http://localhost:9211", processCaddyfile(9211, storage, discovery))
	b := startProcess(t, "instance B", "http://localhost:9212", processCaddyfile(9212, storage, discovery))

	req, _ := http.NewRequest(http.MethodPost, a.url+"/mcp", strings.NewReader(batchOf(20)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Client", "batch")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("RateLimit"), `"public";r=0;`) {
		t.Fatalf("batch of 20 on A: %d, RateLimit %q", resp.StatusCode, resp.Header.Get("RateLimit"))
	}
	time.Sleep(time.Second) // well over a write plus a read interval
	if status := b.get(t, "/api/v1", "batch"); status != http.StatusTooManyRequests {
		t.Errorf("B after the batch on A has synced: %d, want 429", status)
	}
	if status := b.get(t, "/api/v1", "another client"); status != http.StatusOK {
		t.Errorf("B, another client: %d", status)
	}
}

// BenchmarkMCPBatch posts batches of 32 messages through Caddy: search
// calls over 2 000 insights (what one request can cost), and pings with
// and without the rate limit (what counting each message costs).
func BenchmarkMCPBatch(b *testing.B) {
	post := func(b *testing.B, s *server, body string) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
			// Every message counts: spread them over clients, each
			// within the capped quota.
			req.Header.Set("X-Client", strconv.Itoa(i%64))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := s.Client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	}
	pings := make([]string, 32)
	for i := range pings {
		pings[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
	}
	pingBatch := "[" + strings.Join(pings, ",") + "]"
	b.Run("search-2000-insights", func(b *testing.B) {
		dir := insightsFolder(b, 2000)
		s := startCaddy(b, fmt.Sprintf(`
http://localhost:9080 {
	discovery {
		content %q
		rate_limit 1500 1s
		rate_limit_key "{http.vars.client_ip} {http.request.header.X-Client}"
	}
}
`, dir))
		post(b, s, batchOf(32))
	})
	b.Run("ping-counted", func(b *testing.B) {
		post(b, startCaddy(b, limitedSite("bench-batch", "rate_limit 1500 1s")), pingBatch)
	})
	b.Run("ping-rate-limit-off", func(b *testing.B) {
		post(b, startCaddy(b, limitedSite("bench-batch-off", "rate_limit off")), pingBatch)
	})
}
