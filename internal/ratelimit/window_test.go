package ratelimit

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestWindowCountsDownAndReopens(t *testing.T) {
	limit := Policy{Events: 3, Window: 10 * time.Second}
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
	w := NewWindow(Policy{Events: 5, Window: 10 * time.Second})
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
	w := NewWindow(Policy{Events: 5, Window: time.Minute})
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

func TestWindowRotateForgetsIdleClients(t *testing.T) {
	w := NewWindow(Policy{Events: 10, Window: time.Second})
	t0 := time.Unix(0, 0)
	for i := range 1000 {
		w.Record(strconv.Itoa(i), t0)
	}
	w.Rotate()
	// Active since the rotation: kept through the next.
	w.Record("7", t0.Add(1500*time.Millisecond))
	w.Record("late", t0.Add(1500*time.Millisecond))
	if n := w.Clients(); n != 1001 {
		t.Fatalf("%d clients after one rotation, want 1001", n)
	}
	w.Rotate()
	if n := w.Clients(); n != 2 {
		t.Errorf("%d clients after two rotations, want 2", n)
	}
	if r, _ := w.Record("7", t0.Add(1600*time.Millisecond)); r != 8 {
		t.Errorf("a client kept by the rotation lost its count: r=%d, want 8", r)
	}
}

func TestWindowRecordsInTimeOrder(t *testing.T) {
	w := NewWindow(Policy{Events: 5, Window: 10 * time.Second})
	t0 := time.Unix(100, 0)
	// Recorded after a later request, as concurrent requests can be.
	for _, at := range []time.Duration{2, 1, 3} {
		w.Record("k", t0.Add(at*time.Second))
	}
	_, reset := w.Record("k", t0.Add(4*time.Second))
	if reset != 7*time.Second {
		t.Errorf("reset %v, want 7s: the oldest request (at 1s) leaves first", reset)
	}
}

func TestWindowRefuse(t *testing.T) {
	w := NewWindow(Policy{Events: 3, Window: 10 * time.Second})
	t0 := time.Unix(1000, 0)
	if _, refused := w.Refuse("k", t0); refused {
		t.Fatal("an unknown client is refused")
	}
	for i := range 3 {
		if _, refused := w.Refuse("k", t0.Add(time.Duration(i)*time.Second)); refused {
			t.Fatalf("refused with %d of 3 requests used", i)
		}
		w.Record("k", t0.Add(time.Duration(i)*time.Second))
	}
	if w.Clients() != 1 {
		t.Fatalf("%d clients: Refuse created one", w.Clients())
	}
	type want struct {
		at         time.Duration
		refused    bool
		wait       time.Duration
		report     bool
		unreported int
	}
	for i, want := range []want{
		{3 * time.Second, true, 7 * time.Second, true, 0},
		{4 * time.Second, true, 6 * time.Second, false, 0},
		{5 * time.Second, true, 5 * time.Second, false, 0},
		{9*time.Second + 500*time.Millisecond, true, 500 * time.Millisecond, false, 0},
		// The request at 0s leaves the window at 10s.
		{10 * time.Second, false, 0, false, 0},
	} {
		r, refused := w.Refuse("k", t0.Add(want.at))
		if refused != want.refused || r.Wait != want.wait || r.Report != want.report || r.Unreported != want.unreported {
			t.Errorf("step %d at %v: refused=%v %+v, want %+v", i, want.at, refused, r, want)
		}
	}
	// Exhausted again, less than a window after the reported refusal at 3s.
	for _, at := range []time.Duration{10 * time.Second, 12 * time.Second, 12*time.Second + 500*time.Millisecond} {
		w.Record("k", t0.Add(at))
	}
	if r, refused := w.Refuse("k", t0.Add(12*time.Second+600*time.Millisecond)); !refused || r.Report {
		t.Errorf("reported twice in a window: refused=%v %+v", refused, r)
	}
	if r, _ := w.Refuse("k", t0.Add(13*time.Second)); !r.Report || r.Unreported != 4 {
		t.Errorf("the first refusal a window after the reported one: %+v, want reported with the 4 since", r)
	}
}

func TestWindowRefusedByTheLimiter(t *testing.T) {
	w := NewWindow(Policy{Events: 5, Window: time.Minute})
	t0 := time.Unix(1000, 0)
	w.Record("k", t0)
	// A refusal the mirror could not see (another instance's count).
	w.Refused("k", t0.Add(time.Second), 0)
	if _, refused := w.Refuse("k", t0.Add(2*time.Second)); refused {
		t.Error("refused without a hold and with 4 requests left")
	}
	w.Refused("k", t0.Add(3*time.Second), 5*time.Second)
	r, refused := w.Refuse("k", t0.Add(4*time.Second))
	if !refused || r.Wait != 4*time.Second || r.Report {
		t.Errorf("held: refused=%v %+v, want refused for 4s more and not reported (the limiter logged it)", refused, r)
	}
	if _, refused := w.Refuse("k", t0.Add(8*time.Second)); refused {
		t.Error("refused after the hold")
	}
	// A client the limiter refuses before the mirror has seen it allowed.
	w.Refused("new", t0, 2*time.Second)
	if _, refused := w.Refuse("new", t0.Add(time.Second)); !refused {
		t.Error("a held client unknown to the mirror is not refused")
	}
}

func TestWindowRotateReturnsUnreportedRefusals(t *testing.T) {
	w := NewWindow(Policy{Events: 1, Window: time.Second})
	t0 := time.Unix(1000, 0)
	w.Record("a", t0)
	w.Record("b", t0)
	for i := range 5 {
		w.Refuse("a", t0.Add(time.Duration(i)*time.Millisecond))
	}
	w.Refuse("b", t0)
	w.Rotate()
	if left := w.Rotate(); len(left) != 1 || left[0] != (Unreported{Key: "a", Refusals: 4}) {
		t.Errorf("forgotten with refusals unreported: %+v, want a with 4", left)
	}
}

func TestWindowConcurrent(t *testing.T) {
	w := NewWindow(Policy{Events: 120, Window: time.Minute})
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

func BenchmarkWindowRecord(b *testing.B) {
	w := NewWindow(Policy{Events: 120, Window: time.Minute})
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

// BenchmarkWindowMemory reports the heap the mirror holds for 100 000 and
// 1 000 000 distinct clients with one request each (a crowd of addresses)
// and with the whole default quota each (100 000 only), and what is left
// after the two rotations that forget them.
func BenchmarkWindowMemory(b *testing.B) {
	for _, bc := range []struct {
		name              string
		clients, requests int
	}{
		{"clients=100k/requests=1", 100_000, 1},
		{"clients=1M/requests=1", 1_000_000, 1},
		{"clients=100k/requests=120", 100_000, 120},
	} {
		b.Run(bc.name, func(b *testing.B) {
			keys := clientKeys(bc.clients)
			for b.Loop() {
				w := NewWindow(Policy{Events: 120, Window: time.Minute})
				before := heapInUse()
				t0 := time.Now()
				for r := range bc.requests {
					for _, key := range keys {
						w.Record(key, t0.Add(time.Duration(r)*time.Millisecond))
					}
				}
				during := heapInUse()
				w.Rotate()
				w.Rotate()
				after := heapInUse()
				b.ReportMetric(float64(during-before)/float64(bc.clients), "B/client")
				b.ReportMetric(float64(during-before)/(1<<20), "MiB")
				b.ReportMetric(float64(max(after-before, 0))/(1<<20), "MiB-forgotten")
				runtime.KeepAlive(w)
			}
		})
	}
}

// BenchmarkWindowRotate measures forgetting 100 000 and 1 000 000 idle
// clients: the whole rotation (mostly reading the forgotten clients, with
// no lock held), and the longest a shard's lock was held, which is the
// longest a request can wait on it.
func BenchmarkWindowRotate(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run("clients="+strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			keys := clientKeys(n)
			for b.Loop() {
				w := NewWindow(Policy{Events: 120, Window: time.Minute})
				t0 := time.Now()
				for _, key := range keys {
					w.Record(key, t0)
				}
				w.Rotate()
				// Rotate, shard by shard, timing each lock.
				var longest time.Duration
				unreported := 0
				start := time.Now()
				for i := range w.shards {
					lock := time.Now()
					forgotten := w.shards[i].rotate()
					longest = max(longest, time.Since(lock))
					for _, cw := range forgotten {
						unreported += cw.unreported
					}
				}
				took := time.Since(start)
				if unreported != 0 || w.Clients() != 0 {
					b.Fatalf("%d clients left, %d refusals", w.Clients(), unreported)
				}
				b.ReportMetric(float64(took.Microseconds()), "µs-rotate")
				b.ReportMetric(float64(longest.Nanoseconds()), "ns-longest-lock")
			}
		})
	}
}

// clientKeys returns n distinct client addresses.
func clientKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "10." + strconv.Itoa(i>>16) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
	}
	return keys
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
