package ratelimit

import (
	"net/http"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"
)

func TestRateLimitHeaders(t *testing.T) {
	h := http.Header{}
	NewHeaders(Policy{Events: 120, Window: 60 * time.Second}).Set(h, 7, 1500*time.Millisecond)
	if h.Get("RateLimit-Policy") != `"public";q=120;w=60` || h.Get("RateLimit") != `"public";r=7;t=2` || len(h.Values("RateLimit")) != 1 {
		t.Errorf("headers %v", h)
	}
}

// TestRateLimitValue holds the RateLimit field, whose parameters Value
// appends, to httpsfv's serialization of the same Item.
func TestRateLimitValue(t *testing.T) {
	for _, limit := range []Policy{{Events: 1, Window: time.Second}, {Events: 120, Window: time.Minute}, {Events: 100000, Window: 24 * time.Hour}} {
		rh := NewHeaders(limit)
		for _, v := range [][2]int{{0, 0}, {0, 1}, {119, 60}, {limit.Events, limit.WindowSeconds()}, {255, 256}, {99999, 86400}} {
			item := httpsfv.NewItem(PolicyName)
			item.Params.Add("r", int64(v[0]))
			item.Params.Add("t", int64(v[1]))
			want, err := httpsfv.Marshal(item)
			if err != nil {
				t.Fatal(err)
			}
			if got := rh.Value(v[0], v[1]); got != want {
				t.Errorf("Value(%d, %d) = %q, want %q", v[0], v[1], got, want)
			}
		}
		parsed, err := httpsfv.UnmarshalItem([]string{rh.Policy()})
		if err != nil {
			t.Fatalf("RateLimit-Policy %q: %v", rh.Policy(), err)
		}
		q, _ := parsed.Params.Get("q")
		w, _ := parsed.Params.Get("w")
		if parsed.Value != PolicyName || q != int64(limit.Events) || w != int64(limit.WindowSeconds()) {
			t.Errorf("RateLimit-Policy %q reads as %v;q=%v;w=%v", rh.Policy(), parsed.Value, q, w)
		}
	}
}
