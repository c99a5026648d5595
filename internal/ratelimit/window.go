// Package ratelimit holds what the module adds to caddy-ratelimit, which
// decides: the policy (a number of events per sliding window), a mirror of
// each client's window that reports what is left of its quota in the
// RateLimit headers and refuses a client with none left without asking the
// limiter again, and, across instances, each one's share of a client's
// quota; and the 429 problem of a refused request (problem.go).
//
// Imports from the module: internal/problem.
package ratelimit

import (
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// PolicyName is the name of the public rate-limit policy, in the
// RateLimit and RateLimit-Policy headers and in problems.
const PolicyName = "public"

// Policy is a number of events allowed per sliding window.
type Policy struct {
	Events int
	Window time.Duration
}

// WindowSeconds is the window in whole seconds, rounded up.
func (p Policy) WindowSeconds() int {
	return int(math.Ceil(p.Window.Seconds()))
}

// Window mirrors the sliding windows of the rate limiter that decides
// (caddy-ratelimit), to report what is left of each client's quota and to
// answer a client that has none left without asking the limiter again. The
// limiter keeps its state private, so every request it allows is recorded
// here too, under the same key and with the same window.
//
// The mirror refuses only what the limiter would refuse. Record is given the
// time read before the limiter decided, so each recorded time is at or
// before the time the limiter stored for the same request: when Events of
// the recorded times are in the window, at least Events of the limiter's
// are, and it refuses. The converse does not hold (races at the quota, and
// in distributed mode the other instances' counts): the limiter refuses some
// requests the mirror would pass, and Refused records those.
//
// Keys are spread over shards, each with its own lock, so that clients do
// not wait on each other. Each shard keeps two generations of clients, and
// Rotate drops the older one whole: forgetting idle clients holds a lock for
// a swap of two maps, whatever their number, instead of a scan.
type Window struct {
	limit  Policy
	seed   maphash.Seed
	shards [windowShards]windowShard
}

const windowShards = 64

type windowShard struct {
	mu sync.Mutex
	// clients have made a request since the last rotation; idle ones made
	// their last in the rotation before. A request moves a client back.
	clients, idle map[string]*clientWindow
}

// clientWindow holds the times (Unix nanoseconds) of one client's recent
// allowed requests in order, times[head:] being in the window, and the
// state of its refusals.
type clientWindow struct {
	times []int64
	head  int
	// unreported counts the refusals since the last reported one, at
	// reported (Unix nanoseconds, 0 for none).
	unreported int
	reported   int64
	// held is when a refusal the limiter decided stops applying.
	held int64
	// share is the client's share in distributed mode (see Admit).
	share *clientShare
}

// NewWindow returns an empty mirror for limit.
func NewWindow(limit Policy) *Window {
	w := &Window{limit: limit, seed: maphash.MakeSeed()}
	for i := range w.shards {
		w.shards[i].clients = make(map[string]*clientWindow)
		w.shards[i].idle = make(map[string]*clientWindow)
	}
	return w
}

func (w *Window) shard(key string) *windowShard {
	return &w.shards[maphash.String(w.seed, key)%windowShards]
}

// client returns the window of key, moved to the current generation, or
// creates it; nil when key is unknown and create is false.
func (sh *windowShard) client(key string, create bool) *clientWindow {
	if cw := sh.clients[key]; cw != nil {
		return cw
	}
	cw := sh.idle[key]
	switch {
	case cw != nil:
		delete(sh.idle, key)
	case !create:
		return nil
	default:
		cw = &clientWindow{}
	}
	sh.clients[key] = cw
	return cw
}

// Record counts a request of key that the limiter allowed, at now (read
// before the limiter decided), and returns how many requests the key has
// left in the window and how long until the oldest counted request leaves
// it.
func (w *Window) Record(key string, now time.Time) (remaining int, reset time.Duration) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.client(key, true)
	cw.expire(t - int64(w.limit.Window))
	if cw.live() >= w.limit.Events {
		// More requests than the limiter allows can only come from a race
		// between the two; the newest replaces the oldest.
		cw.head++
	}
	cw.insert(t, w.limit.Events)
	return max(w.limit.Events-cw.live(), 0), time.Duration(cw.times[cw.head] + int64(w.limit.Window) - t)
}

// Refusal is the mirror's answer to a request of a client with nothing left.
type Refusal struct {
	// Wait is how long until a request of the client can be allowed.
	Wait time.Duration
	// Report is true for the first refusal of the client in a window (the
	// one to log); the others are counted until the next reported one.
	Report bool
	// Unreported is, on a reported refusal, the count of the client's
	// refusals since its previous reported one.
	Unreported int
}

// Refuse answers whether key has no request left at now, by the requests
// recorded and the refusals held, and if so counts the refusal. It records
// nothing for a key that has requests left.
func (w *Window) Refuse(key string, now time.Time) (Refusal, bool) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.client(key, false)
	if cw == nil {
		return Refusal{}, false
	}
	until := cw.refusedUntil(t, w.limit)
	if until <= t {
		return Refusal{}, false
	}
	return cw.refusal(t, until, int64(w.limit.Window)), true
}

// refusedUntil returns when the client stops being refused, by the requests
// recorded and the refusals held: at or before t if it is not.
func (cw *clientWindow) refusedUntil(t int64, limit Policy) int64 {
	window := int64(limit.Window)
	until := cw.held
	if cw.expire(t - window); cw.live() >= limit.Events {
		until = max(until, cw.times[cw.head]+window)
	}
	return until
}

// refusal counts a refusal at t of a client refused until until, and says
// whether to report it: the first in a window is, with the count of those
// not reported since the previous one.
func (cw *clientWindow) refusal(t, until, window int64) Refusal {
	r := Refusal{Wait: time.Duration(until - t)}
	if cw.reported == 0 || t-cw.reported >= window {
		r.Report, r.Unreported = true, cw.unreported
		cw.reported, cw.unreported = t, 0
	} else {
		cw.unreported++
	}
	return r
}

// Refused records a refusal that the limiter decided, and reported itself,
// at now. With hold, the mirror refuses key until now+hold.
func (w *Window) Refused(key string, now time.Time, hold time.Duration) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.client(key, true)
	cw.reported = t
	if hold > 0 {
		cw.held = max(cw.held, t+int64(hold))
	}
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

// insert adds t in order (concurrent requests may be recorded in another
// order than their times), compacting before the slice would grow and
// never growing it past limit, so a client costs at most limit timestamps.
// It starts small: most clients of a crowd make few requests.
func (cw *clientWindow) insert(t int64, limit int) {
	if len(cw.times) == cap(cw.times) {
		if cw.head > 0 {
			n := copy(cw.times, cw.times[cw.head:])
			cw.times, cw.head = cw.times[:n], 0
		} else {
			grown := make([]int64, len(cw.times), min(max(2*cap(cw.times), 2), limit))
			copy(grown, cw.times)
			cw.times = grown
		}
	}
	cw.times = append(cw.times, t)
	for i := len(cw.times) - 1; i > cw.head && cw.times[i-1] > t; i-- {
		cw.times[i-1], cw.times[i] = t, cw.times[i-1]
	}
}

// Unreported is what is left of a forgotten client: the refusals it was
// given after its last reported one.
type Unreported struct {
	Key      string
	Refusals int
}

// Rotate forgets the clients that made no request since the previous call
// and returns those among them with unreported refusals. Calls must be at
// least one window apart, so that nothing of a forgotten client is still in
// the window; the maps are swapped under each shard's lock and read after.
func (w *Window) Rotate() []Unreported {
	var left []Unreported
	for i := range w.shards {
		for key, cw := range w.shards[i].rotate() {
			if cw.unreported > 0 {
				left = append(left, Unreported{Key: key, Refusals: cw.unreported})
			}
		}
	}
	return left
}

// rotate starts a generation and returns the clients it forgets.
func (sh *windowShard) rotate() (forgotten map[string]*clientWindow) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	forgotten = sh.idle
	sh.idle, sh.clients = sh.clients, make(map[string]*clientWindow)
	return forgotten
}

// Clients returns how many clients the mirror holds.
func (w *Window) Clients() int {
	n := 0
	for i := range w.shards {
		sh := &w.shards[i]
		sh.mu.Lock()
		n += len(sh.clients) + len(sh.idle)
		sh.mu.Unlock()
	}
	return n
}

// CeilSeconds rounds d up to whole seconds, as RateLimit's t and
// Retry-After are given; 0 for a d that is not positive.
func CeilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// Room reports how many more requests key may make at now, how long until
// the oldest counted request leaves the window, and how long until key may
// make n requests at once (0 if it may now; n is at most the quota).
func (w *Window) Room(key string, now time.Time, n int) (remaining int, reset, wait time.Duration) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.client(key, false)
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

// Extra is what charging n more events for one request did (a JSON-RPC
// batch counts once per message): whether every event was allowed, what
// is then left of the quota, and, when refused, how many seconds until the
// whole request could be sent again.
type Extra struct {
	Allowed    bool
	Remaining  int
	RetryAfter int
}
