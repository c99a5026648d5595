package caddytest

import (
	"io"
	"net/http"
	"testing"
)

// The benchmarks here measure whole requests through a real Caddy over
// loopback HTTP, client included: what a caller of the module sees.

func benchmarkGet(b *testing.B, s *server, path string, want int, client string) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-Client", client)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := s.Client.Do(req)
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
	s := startCaddy(b, limitedSite("bench-allowed", "rate_limit 1000000 60s"))
	benchmarkGet(b, s, "/api/v1/profile", http.StatusOK, "allowed")
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
	benchmarkGet(b, s, "/api/v1/profile", http.StatusOK, "off")
}
