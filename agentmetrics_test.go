package discovery

import (
	"net/http"
	"testing"
)

// BenchmarkMetrics serves the API's profile, as a browser and as a
// crawler, with metrics on (the default) and off: what counting costs a
// request, side by side.
func BenchmarkMetrics(b *testing.B) {
	for _, tt := range []struct {
		name string
		on   bool
	}{{"on", true}, {"off", false}} {
		for _, ua := range []string{
			"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
			"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot",
		} {
			on := tt.on
			h := &Handler{BaseURL: "https://bench.example", RateLimit: &RateLimitPolicy{Off: true}, Metrics: &on, SiteCheck: new(bool)}
			provision(b, h)
			w := &discardWriter{h: make(http.Header)}
			r := prepare(w, "/api/v1/profile", "192.0.2.1")
			r.Header.Set("User-Agent", ua)
			b.Run(tt.name+"/"+ua[len(ua)-20:], func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					serveRequest(b, h, w, r)
				}
			})
		}
	}
}
