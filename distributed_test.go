package discovery

import (
	"bytes"
	"context"
	"encoding/gob"
	"net/http"
	"net/http/httptest"
	"path"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
)

// TestClusterReaderReadsTheOthersStates writes states as caddy-ratelimit
// does and checks what the share is told of them.
func TestClusterReaderReadsTheOthersStates(t *testing.T) {
	ctx := context.Background()
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	now := time.Now()
	store := func(name string, state instanceState) {
		t.Helper()
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(state); err != nil {
			t.Fatal(err)
		}
		if err := storage.Store(ctx, path.Join(distributedStatePrefix, name), buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	const zone = "discovery zone"
	at := func(d time.Duration) time.Time { return now.Add(d) }
	counts := func(c map[string]instanceCount) map[string]map[string]instanceCount {
		return map[string]map[string]instanceCount{zone: c, "another zone": {"c": {Count: 50, OldestEvent: at(-time.Second)}}}
	}
	store("me"+stateSuffix, instanceState{Timestamp: at(-100 * time.Millisecond), Zones: counts(map[string]instanceCount{"c": {Count: 9, OldestEvent: at(-time.Minute)}})})
	store("b"+stateSuffix, instanceState{Timestamp: at(-300 * time.Millisecond), Zones: counts(map[string]instanceCount{
		"c": {Count: 3, OldestEvent: at(-10 * time.Second)},
		"d": {Count: 1, OldestEvent: at(-2 * time.Second)},
		"e": {Count: 0},
	})})
	// Late: five seconds since its last write, with writes every second.
	store("late"+stateSuffix, instanceState{Timestamp: at(-5 * time.Second), Zones: counts(map[string]instanceCount{"c": {Count: 2, OldestEvent: at(-20 * time.Second)}})})
	// Older than the window: not counted, as caddy-ratelimit does not.
	store("gone"+stateSuffix, instanceState{Timestamp: at(-2 * time.Minute), Zones: counts(map[string]instanceCount{"c": {Count: 7}})})
	// A write in progress (the file system storage renames it when done),
	// and a state that does not decode.
	store("4242", instanceState{Timestamp: at(-100 * time.Millisecond), Zones: counts(map[string]instanceCount{"c": {Count: 3}})})
	if err := storage.Store(ctx, path.Join(distributedStatePrefix, "bad"+stateSuffix), []byte("not gob")); err != nil {
		t.Fatal(err)
	}
	// A seed: a timestamp and no zones.
	store("seed"+stateSuffix, instanceState{Timestamp: at(-200 * time.Millisecond)})

	cr := &clusterReader{storage: storage, instanceID: "me", zone: zone, window: time.Minute, read: time.Second,
		lagging: 2100 * time.Millisecond, settle: 100 * time.Millisecond, pause: 2 * time.Second, logger: zap.NewNop()}
	v, err := cr.readStates(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	// Live: b and the seed; late is counted but not waited for.
	if v.Live != 2 || !v.Synced.Equal(at(-300*time.Millisecond)) || v.Settle != cr.settle || v.Pause != cr.pause {
		t.Errorf("view: live %d, synced %v before now; want 2, 300ms", v.Live, now.Sub(v.Synced))
	}
	for key, want := range map[string]ratelimit.PeerCount{
		"c": {Count: 5, Serving: 2, Oldest: at(-20 * time.Second).UnixNano(), Written: at(-5 * time.Second).UnixNano()},
		"d": {Count: 1, Serving: 1, Oldest: at(-2 * time.Second).UnixNano(), Written: at(-300 * time.Millisecond).UnixNano()},
		"e": {},
		"f": {},
	} {
		if got := v.Client(key); got != want {
			t.Errorf("client %s: %+v, want %+v", key, got, want)
		}
	}
}

// TestClusterReaderViewGrowsStale: a view older than the stale limit is not
// used, so the share steps aside when the storage cannot be read.
func TestClusterReaderViewGrowsStale(t *testing.T) {
	cr := &clusterReader{stale: 3 * time.Second}
	now := time.Now()
	if cr.view(now) != nil {
		t.Error("a view before the first read")
	}
	cr.views.Publish(ratelimit.NewClusterView(ratelimit.ClusterView{At: now}, nil))
	if cr.view(now.Add(3*time.Second)) == nil {
		t.Error("a view as old as the limit is not used")
	}
	if cr.view(now.Add(3*time.Second+time.Millisecond)) != nil {
		t.Error("a stale view is used")
	}
}

// TestSeedDistributedState: an instance's state file exists from its start,
// empty, and an existing one (this instance's counts, after a reload) is
// left alone.
func TestSeedDistributedState(t *testing.T) {
	ctx := context.Background()
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	key := path.Join(distributedStatePrefix, "me"+stateSuffix)
	if err := seedDistributedState(ctx, storage, "me"); err != nil {
		t.Fatal(err)
	}
	data, err := storage.Load(ctx, key)
	var state instanceState
	if err != nil || gob.NewDecoder(bytes.NewReader(data)).Decode(&state) != nil || time.Since(state.Timestamp) > time.Minute || len(state.Zones) != 0 {
		t.Fatalf("seed: %v %+v", err, state)
	}
	if err := storage.Store(ctx, key, []byte("counts")); err != nil {
		t.Fatal(err)
	}
	if err := seedDistributedState(ctx, storage, "me"); err != nil {
		t.Fatal(err)
	}
	if data, _ := storage.Load(ctx, key); string(data) != "counts" {
		t.Errorf("an existing state was replaced: %q", data)
	}
}

// TestAdmitWaitsForTheNextView: a request past its share waits for the next
// view and is decided by it; without one it is refused after maxWait, and a
// stale view lets caddy-ratelimit decide alone.
func TestAdmitWaitsForTheNextView(t *testing.T) {
	limit := ratelimit.Policy{Events: 12, Window: time.Minute}
	cr := &clusterReader{stale: time.Minute, maxWait: 5 * time.Second, read: time.Second}
	rl := &rateLimiter{window: &pooledWindow{Window: ratelimit.NewWindow(limit)}, cluster: cr}
	view := func(synced time.Time) *ratelimit.ClusterView {
		return ratelimit.NewClusterView(ratelimit.ClusterView{At: time.Now(), Live: 2, Synced: synced,
			Settle: time.Millisecond, Pause: 10 * time.Second}, nil)
	}
	cr.views.Publish(view(time.Now().Add(-time.Second)))
	r := httptest.NewRequest(http.MethodGet, "/api/v1", nil)
	for i := range 4 { // a third of the quota
		if admitted, _, refused := rl.admit(r, "c", time.Now().Add(cr.maxWait)); !admitted || refused {
			t.Fatalf("request %d: admitted %v, refused %v", i+1, admitted, refused)
		}
		rl.window.Record("c", time.Now())
		rl.window.Settle("c")
	}

	// The next view shows both others written since, with nothing for the
	// client: the waiting request goes ahead.
	go func() {
		time.Sleep(50 * time.Millisecond)
		cr.views.Publish(view(time.Now()))
	}()
	start := time.Now()
	admitted, _, refused := rl.admit(r, "c", time.Now().Add(cr.maxWait))
	if waited := time.Since(start); !admitted || refused || waited < 50*time.Millisecond || waited >= cr.maxWait {
		t.Fatalf("after the next view: admitted %v, refused %v, after %v", admitted, refused, waited)
	}
	rl.window.Record("c", time.Now())
	rl.window.Settle("c")

	// Another client, its share spent, and no view comes: refused after
	// maxWait with a Retry-After of one read interval.
	cr.maxWait = 100 * time.Millisecond
	for range 4 {
		rl.admit(r, "d", time.Now().Add(cr.maxWait))
	}
	start = time.Now()
	admitted, refusal, refused := rl.admit(r, "d", time.Now().Add(cr.maxWait))
	if waited := time.Since(start); admitted || !refused || refusal.Wait != time.Second || !refusal.Report || waited < cr.maxWait {
		t.Fatalf("no view: admitted %v, refused %v %+v, after %v", admitted, refused, refusal, waited)
	}

	// However many requests are past their share, at most maxWaiting wait
	// at once; the next is refused at once.
	cr.maxWait = 5 * time.Second
	cr.waiting.Store(maxWaiting)
	start = time.Now()
	admitted, refusal, refused = rl.admit(r, "d", time.Now().Add(cr.maxWait))
	if waited := time.Since(start); admitted || !refused || refusal.Wait != time.Second || waited > time.Second {
		t.Fatalf("with %d waiting: admitted %v, refused %v %+v, after %v", maxWaiting, admitted, refused, refusal, waited)
	}
	if n := cr.waiting.Load(); n != maxWaiting {
		t.Errorf("%d waiting after a refusal, want %d", n, maxWaiting)
	}
	cr.waiting.Store(0)

	// A client that goes away stops waiting.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, refused := rl.admit(r.WithContext(ctx), "d", time.Now().Add(cr.maxWait)); !refused {
		t.Error("a cancelled request waits on")
	}

	// The storage cannot be read: the share steps aside.
	cr.stale = 0
	time.Sleep(time.Millisecond)
	if admitted, _, refused := rl.admit(r, "d", time.Now().Add(cr.maxWait)); admitted || refused {
		t.Errorf("stale view: admitted %v, refused %v; want neither", admitted, refused)
	}
}
