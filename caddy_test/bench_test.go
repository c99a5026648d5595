package caddytest

import (
	"io"
	"net/http"
	"strconv"
	"testing"
)

// The benchmarks here measure whole requests through a real Caddy over
// loopback HTTP, client included: what a caller of the module sees.

// benchmarkGet sends GET path in a loop, as each of clients in turn (the
// X-Client header that limitedSite keys on): a quota is capped, so an
// allowed path that runs for long spreads its requests over clients.
func benchmarkGet(b *testing.B, s *server, path string, want int, clients ...string) {
	reqs := make([]*http.Request, len(clients))
	for i, client := range clients {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-Client", client)
		reqs[i] = req
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		resp, err := s.Client.Do(reqs[i%len(reqs)])
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			b.Fatalf("status %d, want %d", resp.StatusCode, want)
		}
	}
}

// BenchmarkRateLimitAllowed is the allowed path: caddy-ratelimit admits the
// request, the mirror records it, the document is served.
func BenchmarkRateLimitAllowed(b *testing.B) {
	s := startCaddy(b, limitedSite("bench-allowed", "rate_limit 1500 1s"))
	benchmarkGet(b, s, "/api/v1/profile", http.StatusOK, manyClients("allowed")...)
}

// BenchmarkRateLimitRefused is the refused path: caddy-ratelimit refuses and
// the module writes the 429 problem.
func BenchmarkRateLimitRefused(b *testing.B) {
	s := startCaddy(b, limitedSite("bench-refused", "rate_limit 1 60s"))
	s.get("/api/v1/profile", "X-Client", "refused")
	benchmarkGet(b, s, "/api/v1/profile", http.StatusTooManyRequests, "refused")
}

// BenchmarkNoRateLimit is the same document with rate limiting off.
func BenchmarkNoRateLimit(b *testing.B) {
	s := startCaddy(b, limitedSite("bench-off", "rate_limit off"))
	benchmarkGet(b, s, "/api/v1/profile", http.StatusOK, manyClients("off")...)
}

// manyClients names 64 clients, enough that a loop through Caddy on two
// cores stays within 1 500 requests a second for each.
func manyClients(prefix string) []string {
	names := make([]string, 64)
	for i := range names {
		names[i] = prefix + "-" + strconv.Itoa(i)
	}
	return names
}
