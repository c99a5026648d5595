package ratelimit

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// shareTest is a mirror with a quota of 12 a minute in a cluster of three
// (this instance and two others), and the views of its reader.
type shareTest struct {
	t     *testing.T
	w     *Window
	views ClusterViews
	t0    time.Time
}

const (
	shareSettle = 100 * time.Millisecond
	sharePause  = 2 * time.Second
)

func newShareTest(t *testing.T) *shareTest {
	return &shareTest{t: t, w: NewWindow(Policy{Events: 12, Window: time.Minute}), t0: time.Unix(1000, 0)}
}

// publish publishes a view read at the offset at, in which the live others
// last wrote at synced, counting clients.
func (st *shareTest) publish(at, synced time.Duration, live int, clients map[string]PeerCount) *ClusterView {
	v := NewClusterView(ClusterView{At: st.t0.Add(at), Live: live, Synced: st.t0.Add(synced), Settle: shareSettle, Pause: sharePause}, clients)
	st.views.Publish(v)
	return v
}

// admit asks for n requests of key at the offset at, recording and settling
// each one admitted as the limiter would allow it, and returns how many
// were admitted and the answer to the last one.
func (st *shareTest) admit(key string, at time.Duration, n int) (admitted int, last Admission, refusal Refusal) {
	st.t.Helper()
	now := st.t0.Add(at)
	for range n {
		last, refusal = st.w.Admit(key, now, st.views.Load())
		if last != Admitted {
			continue
		}
		admitted++
		st.w.Record(key, now)
		st.w.Settle(key)
	}
	return admitted, last, refusal
}

func TestShareFirstBurstIsDividedAmongTheLiveInstances(t *testing.T) {
	st := newShareTest(t)
	st.publish(0, 0, 2, nil)
	// Nothing is known of the client: a third of the quota, then wait.
	if n, last, _ := st.admit("c", time.Second, 6); n != 4 || last != Wait {
		t.Fatalf("first burst: %d admitted, then %v; want 4, then Wait", n, last)
	}
	// A later view in which the others have not written since gives
	// nothing more: the refill would know no more than the last one.
	st.publish(1500*time.Millisecond, 900*time.Millisecond, 2, nil)
	if n, last, _ := st.admit("c", 1600*time.Millisecond, 1); n != 0 || last != Wait {
		t.Fatalf("a view without news: %d admitted, %v", n, last)
	}
	// Both wrote just after the burst began: not yet counted (Settle).
	st.publish(2*time.Second, time.Second+50*time.Millisecond, 2, nil)
	if n, _, _ := st.admit("c", 2100*time.Millisecond, 1); n != 0 {
		t.Fatalf("writes within Settle of the refill: %d admitted", n)
	}
}

func TestShareStickyClientGetsTheWholeQuota(t *testing.T) {
	st := newShareTest(t)
	st.publish(0, 0, 2, nil)
	st.admit("c", time.Second, 4)
	// Both others wrote after the burst began and count nothing for the
	// client: it is this instance's alone, and so is all that is left.
	st.publish(2500*time.Millisecond, 2*time.Second, 2, nil)
	n, last, refusal := st.admit("c", 2600*time.Millisecond, 9)
	// The ninth finds the quota used, by this instance's own count: refused
	// until the first request leaves the window.
	if n != 8 || last != Refused || refusal.Wait != time.Minute-1600*time.Millisecond || !refusal.Report {
		t.Fatalf("after a refill: %d admitted, then %v %+v; want the 8 left, then Refused for 58.4s", n, last, refusal)
	}
}

func TestShareRoundRobinClient(t *testing.T) {
	st := newShareTest(t)
	st.publish(0, 0, 2, nil)
	st.admit("c", time.Second, 2)
	st.admit("c", 1400*time.Millisecond, 2)
	// The others wrote at 1.2s, counting 2 in all. Since then this
	// instance allowed 2, and so, it reckons, did each of them: 12-4-2-2×2
	// leaves nothing to share, but nothing to refuse either.
	peers := func(count int, oldest, written time.Duration) map[string]PeerCount {
		return map[string]PeerCount{"c": {Count: int32(count), Serving: 2, Oldest: st.t0.Add(oldest).UnixNano(), Written: st.t0.Add(written).UnixNano()}}
	}
	st.publish(2*time.Second, 1200*time.Millisecond, 2, peers(4, time.Second, 1200*time.Millisecond))
	if n, last, _ := st.admit("c", 2100*time.Millisecond, 1); n != 0 || last != Wait {
		t.Fatalf("spent by the estimate: %d admitted, %v; want Wait", n, last)
	}
	// Their next writes count 3 each: 12-4-6 = 2 left for three
	// instances, one here (rounded up).
	st.publish(3*time.Second, 2500*time.Millisecond, 2, peers(6, time.Second, 2500*time.Millisecond))
	if n, last, _ := st.admit("c", 3100*time.Millisecond, 2); n != 1 || last != Wait {
		t.Fatalf("after the others' writes: %d admitted, then %v; want 1, then Wait", n, last)
	}
	// With 7 counted by the others the quota is used: refused until the
	// oldest of them (at 0.9s) leaves the window.
	st.publish(4*time.Second, 3500*time.Millisecond, 2, peers(7, 900*time.Millisecond, 3500*time.Millisecond))
	n, last, refusal := st.admit("c", 4100*time.Millisecond, 1)
	if n != 0 || last != Refused || refusal.Wait != time.Minute-3200*time.Millisecond || !refusal.Report {
		t.Fatalf("the cluster's count at the quota: %d admitted, %v %+v; want Refused for 56.8s, reported", n, last, refusal)
	}
	// Held: the next request is refused as it is, and not reported.
	if n, last, refusal := st.admit("c", 4200*time.Millisecond, 1); n != 0 || last != Refused || refusal.Report {
		t.Fatalf("held: %d admitted, %v %+v", n, last, refusal)
	}
	if _, refused := st.w.Refuse("c", st.t0.Add(4300*time.Millisecond)); !refused {
		t.Error("the mirror does not refuse a client the share refused")
	}
}

func TestShareNewBurstAfterAPause(t *testing.T) {
	st := newShareTest(t)
	st.publish(0, 0, 2, nil)
	st.admit("c", time.Second, 2)
	// Long after, with the others showing nothing for the client: they
	// may be about to get its requests too, so a third of what is left.
	st.publish(9*time.Second, 8500*time.Millisecond, 2, nil)
	if n, last, _ := st.admit("c", 9100*time.Millisecond, 5); n != 4 || last != Wait {
		t.Fatalf("a burst after a pause: %d admitted, then %v; want 10/3 rounded up, then Wait", n, last)
	}
}

func TestShareAloneInstance(t *testing.T) {
	st := newShareTest(t)
	st.publish(0, 0, 0, nil)
	if n, last, _ := st.admit("c", time.Second, 13); n != 12 || last != Refused {
		t.Fatalf("no other instance: %d admitted, then %v; want the quota, then Refused", n, last)
	}
}

func TestSharePendingRequestsCount(t *testing.T) {
	st := newShareTest(t)
	st.publish(0, 0, 0, nil)
	now := st.t0.Add(time.Second)
	for range 12 {
		if a, _ := st.w.Admit("c", now, st.views.Load()); a != Admitted {
			t.Fatal("not admitted")
		}
	}
	// None decided yet: a refill counts them, and makes the next wait (the
	// limiter may yet refuse some).
	st.publish(2*time.Second, 0, 0, nil)
	if a, _ := st.w.Admit("c", st.t0.Add(2*time.Second), st.views.Load()); a != Wait {
		t.Fatalf("12 pending: %v, want Wait", a)
	}
	// Allowed and recorded, they refuse it.
	for range 12 {
		st.w.Record("c", now)
		st.w.Settle("c")
	}
	if a, r := st.w.Admit("c", st.t0.Add(2*time.Second), st.views.Load()); a != Refused || r.Wait != 59*time.Second {
		t.Fatalf("12 allowed: %v %+v, want Refused for 59s", a, r)
	}
}

func TestSharePostpone(t *testing.T) {
	st := newShareTest(t)
	r := st.w.Postpone("c", st.t0, time.Second)
	if r.Wait != time.Second || !r.Report {
		t.Errorf("first: %+v", r)
	}
	if r := st.w.Postpone("c", st.t0.Add(time.Second), time.Second); r.Report {
		t.Errorf("second within the window is reported: %+v", r)
	}
}

func TestClusterViewsWakeWaiters(t *testing.T) {
	var views ClusterViews
	first := NewClusterView(ClusterView{}, nil)
	views.Publish(first)
	select {
	case <-first.Next():
		t.Fatal("Next closed before a newer view")
	default:
	}
	second := NewClusterView(ClusterView{}, nil)
	views.Publish(second)
	<-first.Next()
	if views.Load() != second || second.gen <= first.gen {
		t.Error("the newer view is not the latest")
	}
}

// TestShareConcurrent admits from many goroutines: never more than the
// share, and every pending request settled.
func TestShareConcurrent(t *testing.T) {
	st := newShareTest(t)
	st.w = NewWindow(Policy{Events: 300, Window: time.Minute})
	st.publish(0, 0, 2, nil)
	now := st.t0.Add(time.Second)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if a, _ := st.w.Admit("c", now, st.views.Load()); a == Admitted {
					admitted.Add(1)
					st.w.Record("c", now)
					st.w.Settle("c")
				}
			}
		})
	}
	wg.Wait()
	if admitted.Load() != 100 {
		t.Errorf("%d admitted, want a third of 300", admitted.Load())
	}
	cw := st.w.shard("c").clients["c"]
	if cw.share.pending != 0 || cw.live() != 100 {
		t.Errorf("pending %d, live %d", cw.share.pending, cw.live())
	}
}
