package handlers

import (
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestWindowCountsDownAndReopens(t *testing.T) {
	limit := RateLimit{Events: 3, Window: 10 * time.Second}
	w := NewWindow(limit)
	t0 := time.Unix(1000, 0)
	for i, want := range []struct {
		at        time.Duration
		remaining int
		reset     time.Duration
	}{
		{0, 2, 10 * time.Second},
		{time.Second, 1, 9 * time.Second},
		{2 * time.Second, 0, 8 * time.Second},
		// The first request leaves the window at 10s.
		{10 * time.Second, 0, time.Second},
		{12*time.Second + 500*time.Millisecond, 1, 7*time.Second + 500*time.Millisecond},
		{30 * time.Second, 2, 10 * time.Second},
	} {
		remaining, reset := w.Record("client", t0.Add(want.at))
		if remaining != want.remaining || reset != want.reset {
			t.Errorf("step %d at %v: r=%d t=%v, want r=%d t=%v", i, want.at, remaining, reset, want.remaining, want.reset)
		}
	}
	if r, _ := w.Record("other", t0); r != 2 {
		t.Errorf("another key shares the count: r=%d", r)
	}
}

func TestWindowRoom(t *testing.T) {
	w := NewWindow(RateLimit{Events: 5, Window: 10 * time.Second})
	t0 := time.Unix(1000, 0)
	if r, reset, wait := w.Room("k", t0, 5); r != 5 || reset != 0 || wait != 0 {
		t.Errorf("unknown key: r=%d reset=%v wait=%v, want the whole quota now", r, reset, wait)
	}
	for i := range 4 { // at 0s, 1s, 2s, 3s
		w.Record("k", t0.Add(time.Duration(i)*time.Second))
	}
	now := t0.Add(4 * time.Second)
	for _, c := range []struct {
		n    int
		wait time.Duration
	}{
		{1, 0},
		{2, 6 * time.Second}, // the request at 0s leaves at 10s
		{4, 8 * time.Second}, // the one at 2s leaves at 12s
		{5, 9 * time.Second},
		{9, 9 * time.Second}, // never more than the quota
	} {
		r, reset, wait := w.Room("k", now, c.n)
		if r != 1 || reset != 6*time.Second || wait != c.wait {
			t.Errorf("n=%d: r=%d reset=%v wait=%v, want r=1 reset=6s wait=%v", c.n, r, reset, wait, c.wait)
		}
	}
}

func TestWindowNeverHoldsMoreThanTheQuota(t *testing.T) {
	w := NewWindow(RateLimit{Events: 5, Window: time.Minute})
	t0 := time.Unix(0, 0)
	for i := range 50 {
		if r, _ := w.Record("k", t0.Add(time.Duration(i)*time.Millisecond)); r != max(4-i, 0) {
			t.Fatalf("request %d: r=%d", i, r)
		}
	}
	cw := w.shard("k").clients["k"]
	if cap(cw.times) > 5 {
		t.Errorf("a client holds %d slots for a quota of 5", cap(cw.times))
	}
}

func TestWindowSweep(t *testing.T) {
	w := NewWindow(RateLimit{Events: 10, Window: time.Second})
	t0 := time.Unix(0, 0)
	for i := range 1000 {
		w.Record(strconv.Itoa(i), t0)
	}
	w.Record("late", t0.Add(900*time.Millisecond))
	w.Sweep(t0.Add(1500 * time.Millisecond))
	if n := w.Clients(); n != 1 {
		t.Errorf("%d clients after the sweep, want 1", n)
	}
}

func TestWindowConcurrent(t *testing.T) {
	w := NewWindow(RateLimit{Events: 120, Window: time.Minute})
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for range 200 {
				w.Record(strconv.Itoa(c), time.Now())
			}
		})
	}
	wg.Wait()
	for c := range 8 {
		if r, _ := w.Record(strconv.Itoa(c), time.Now()); r != 0 {
			t.Errorf("client %d: r=%d", c, r)
		}
	}
}

func TestRateLimitHeaders(t *testing.T) {
	h := http.Header{}
	NewRateLimitHeaders(RateLimit{Events: 120, Window: 60 * time.Second}).Set(h, 7, 1500*time.Millisecond)
	if h.Get("RateLimit-Policy") != `"public";q=120;w=60` || h.Get("RateLimit") != `"public";r=7;t=2` || len(h.Values("RateLimit")) != 1 {
		t.Errorf("headers %v", h)
	}
}

func BenchmarkWindowRecord(b *testing.B) {
	w := NewWindow(RateLimit{Events: 120, Window: time.Minute})
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "203.0.113." + strconv.Itoa(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.Record(keys[i%len(keys)], time.Now())
		i++
	}
}

// BenchmarkWindowMemory reports the heap held by 100 000 distinct clients
// with one request each, and what is left after the sweep.
func BenchmarkWindowMemory(b *testing.B) {
	const clients = 100_000
	for b.Loop() {
		w := NewWindow(RateLimit{Events: 120, Window: time.Minute})
		before := heapInUse()
		t0 := time.Now()
		for i := range clients {
			w.Record("198.51."+strconv.Itoa(i/256)+"."+strconv.Itoa(i%256), t0)
		}
		during := heapInUse()
		w.Sweep(t0.Add(2 * time.Minute))
		after := heapInUse()
		b.ReportMetric(float64(during-before)/clients, "B/client")
		b.ReportMetric(float64(during-before)/(1<<20), "MiB-100k")
		b.ReportMetric(float64(max(after-before, 0))/(1<<20), "MiB-swept")
		runtime.KeepAlive(w)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
