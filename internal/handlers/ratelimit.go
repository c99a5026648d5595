package handlers

import (
	"hash/maphash"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Window mirrors the sliding windows of the rate limiter that decides
// (caddy-ratelimit), to report what is left of each client's quota. The
// limiter keeps its state private, so every request it allows is recorded
// here too, under the same key and with the same window; both count the
// same events, so the remaining count agrees.
//
// Keys are spread over shards, each with its own lock, so that clients do
// not wait on each other. A client costs one timestamp per request in its
// window (8 bytes) plus about 100 bytes of bookkeeping: 1 KiB at the default
// 120 requests.
type Window struct {
	limit  RateLimit
	seed   maphash.Seed
	shards [windowShards]windowShard
}

const windowShards = 64

type windowShard struct {
	mu      sync.Mutex
	clients map[string]*clientWindow
}

// clientWindow holds the times (Unix nanoseconds) of one client's recent
// allowed requests in order; times[head:] are in the window.
type clientWindow struct {
	times []int64
	head  int
}

// NewWindow returns an empty mirror for limit.
func NewWindow(limit RateLimit) *Window {
	w := &Window{limit: limit, seed: maphash.MakeSeed()}
	for i := range w.shards {
		w.shards[i].clients = make(map[string]*clientWindow)
	}
	return w
}

func (w *Window) shard(key string) *windowShard {
	return &w.shards[maphash.String(w.seed, key)%windowShards]
}

// Record counts an allowed request by key at now and returns how many
// requests the key has left in the window and how long until the oldest
// counted request leaves it.
func (w *Window) Record(key string, now time.Time) (remaining int, reset time.Duration) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.clients[key]
	if cw == nil {
		cw = &clientWindow{}
		sh.clients[key] = cw
	}
	cw.expire(t - int64(w.limit.Window))
	if cw.live() >= w.limit.Events {
		// More requests than the limiter allows can only come from a race
		// between the two; the newest replaces the oldest.
		cw.head++
	}
	cw.push(t, w.limit.Events)
	return max(w.limit.Events-cw.live(), 0), time.Duration(cw.times[cw.head] + int64(w.limit.Window) - t)
}

// Room reports how many more requests key may make at now, how long until
// the oldest counted request leaves the window, and how long until key may
// make n requests at once (0 if it may now; n is at most the quota).
func (w *Window) Room(key string, now time.Time, n int) (remaining int, reset, wait time.Duration) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.clients[key]
	if cw == nil {
		return w.limit.Events, 0, 0
	}
	cw.expire(t - int64(w.limit.Window))
	live := cw.live()
	remaining = max(w.limit.Events-live, 0)
	if live > 0 {
		reset = time.Duration(cw.times[cw.head] + int64(w.limit.Window) - t)
	}
	if leave := min(n, w.limit.Events) - remaining; leave > 0 {
		// The leave oldest requests must leave the window first.
		wait = time.Duration(cw.times[cw.head+leave-1] + int64(w.limit.Window) - t)
	}
	return remaining, reset, wait
}

func (cw *clientWindow) live() int { return len(cw.times) - cw.head }

// expire drops the times at or before horizon.
func (cw *clientWindow) expire(horizon int64) {
	for cw.head < len(cw.times) && cw.times[cw.head] <= horizon {
		cw.head++
	}
	if cw.head == len(cw.times) {
		cw.times, cw.head = cw.times[:0], 0
	}
}

// push appends t, compacting before the slice would grow and never growing
// it past limit, so a client costs at most limit timestamps.
func (cw *clientWindow) push(t int64, limit int) {
	if len(cw.times) == cap(cw.times) {
		if cw.head > 0 {
			n := copy(cw.times, cw.times[cw.head:])
			cw.times, cw.head = cw.times[:n], 0
		} else {
			grown := make([]int64, len(cw.times), min(max(2*cap(cw.times), 8), limit))
			copy(grown, cw.times)
			cw.times = grown
		}
	}
	cw.times = append(cw.times, t)
}

// Sweep forgets the clients with no request in the window ending at now.
// A map never shrinks by deleting, so a shard that lost most of its clients
// is copied into a new one and the memory returns to the runtime.
func (w *Window) Sweep(now time.Time) {
	horizon := now.UnixNano() - int64(w.limit.Window)
	for i := range w.shards {
		sh := &w.shards[i]
		sh.mu.Lock()
		before := len(sh.clients)
		for key, cw := range sh.clients {
			if cw.expire(horizon); cw.live() == 0 {
				delete(sh.clients, key)
			}
		}
		if len(sh.clients) < before/4 {
			shrunk := make(map[string]*clientWindow, len(sh.clients))
			maps.Copy(shrunk, sh.clients)
			sh.clients = shrunk
		}
		sh.mu.Unlock()
	}
}

// Clients returns how many clients the mirror holds.
func (w *Window) Clients() int {
	n := 0
	for i := range w.shards {
		sh := &w.shards[i]
		sh.mu.Lock()
		n += len(sh.clients)
		sh.mu.Unlock()
	}
	return n
}

// RateLimitHeaders formats the draft-ietf-httpapi-ratelimit-headers fields
// for the public policy.
type RateLimitHeaders struct {
	policy string
}

// NewRateLimitHeaders precomputes the RateLimit-Policy field of limit.
func NewRateLimitHeaders(limit RateLimit) RateLimitHeaders {
	return RateLimitHeaders{policy: `"` + policyName + `";q=` + strconv.Itoa(limit.Events) + `;w=` + strconv.Itoa(limit.windowSeconds())}
}

// Set writes RateLimit-Policy and RateLimit with remaining requests and reset
// rounded up to whole seconds.
func (rh RateLimitHeaders) Set(h http.Header, remaining int, reset time.Duration) {
	h[headerRateLimitPol] = []string{rh.policy}
	h[headerRateLimit] = []string{`"` + policyName + `";r=` + strconv.Itoa(remaining) + `;t=` + strconv.Itoa(ceilSeconds(reset))}
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}
