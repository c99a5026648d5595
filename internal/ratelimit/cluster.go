package ratelimit

import (
	"sort"
	"sync/atomic"
	"time"
)

// In distributed mode every instance decides from the other instances'
// counts as of their last write to the shared storage, so between two syncs
// each one knows only its own: a burst spread over N instances gets up to N
// quotas through before anyone sees it. The share bounds that. Each instance
// lets a client spend only a share of what is left of its quota between two
// syncs, the rest being left to the other instances, and refills the share
// when a read of the storage shows what they spent:
//
//   - what is left is the quota, less this instance's count (with the
//     requests it let through that the limiter has not decided yet), less
//     the others' counts as last written, less an estimate of what each of
//     the others that serve the client spent since its write (as much as
//     this instance did over the same time: a balancer spreads a client
//     evenly);
//   - the share is that divided among this instance and the others that may
//     serve the client: at the first request of a client (or its first after
//     a pause) every other live instance, as nothing is known yet; after
//     that, the others that counted the client in their last write;
//   - the share is refilled only from a read in which every live instance
//     has written since the last refill, so a refill never reuses what an
//     earlier one already knew;
//   - a request past the share waits for the next read rather than being
//     refused: a client that a sticky balancer keeps on one instance has its
//     whole quota there after one refill, as the others then show nothing
//     for it.
//
// When the requests counted (this instance's, and the others' as last
// written) reach the quota, the client is refused until the oldest of them
// leaves the window, as the limiter would refuse it once it has read the
// same states. Otherwise the share holds requests back until the cluster
// is known, and refuses only one that waited for a refill in vain.

// ClusterView is what this instance knows of the other instances of a
// distributed limiter: their counts per client as of their last write,
// read from the shared storage. It is immutable once published.
type ClusterView struct {
	// At is when the states were read.
	At time.Time
	// Live is the number of other instances writing their state on time.
	Live int
	// Synced is the oldest of the live instances' last writes: the view
	// shows each of them as of this time or later.
	Synced time.Time
	// Settle is how long after a refill a live instance's write must be
	// for the next refill to count it, so that the others' writes made
	// just as a client's burst began, before it reached them, are not
	// taken for idleness.
	Settle time.Duration
	// Pause is how long without a request makes a client's next request
	// the first of a new burst, whose share is divided among all the live
	// instances again.
	Pause time.Duration

	clients map[string]PeerCount
	gen     uint64
	next    chan struct{}
}

// PeerCount is one client's count on the other instances, kept small (the
// view holds one for every client the cluster counts).
type PeerCount struct {
	// Count is the client's requests in the window, summed over the other
	// instances as each last wrote them.
	Count int32
	// Serving is how many other instances counted the client.
	Serving int32
	// Oldest is the oldest of those requests, and Written the oldest write
	// among those instances, in Unix nanoseconds.
	Oldest, Written int64
}

// NewClusterView returns a view of the other instances with clients, the
// counts of every client they counted.
func NewClusterView(view ClusterView, clients map[string]PeerCount) *ClusterView {
	view.clients = clients
	view.next = make(chan struct{})
	return &view
}

// Next is closed when a newer view replaces this one.
func (v *ClusterView) Next() <-chan struct{} { return v.next }

// Client returns the count of key on the other instances.
func (v *ClusterView) Client(key string) PeerCount { return v.clients[key] }

// viewGen orders the views of every reader, so that the reader of a
// reloaded configuration continues where the old one stopped: a share
// computed from a view is refilled only from a later one.
var viewGen atomic.Uint64

// ClusterViews publishes the views of one reader.
type ClusterViews struct {
	latest atomic.Pointer[ClusterView]
}

// Load returns the latest view, nil before the first.
func (cv *ClusterViews) Load() *ClusterView { return cv.latest.Load() }

// Publish makes v the latest view and wakes the requests waiting for it.
func (cv *ClusterViews) Publish(v *ClusterView) {
	v.gen = viewGen.Add(1)
	if old := cv.latest.Swap(v); old != nil {
		close(old.next)
	}
}

// Admission is the share's answer to a request.
type Admission int

const (
	// Admitted: the request is counted in the share; the limiter decides
	// it, and Settle must follow.
	Admitted Admission = iota
	// Wait: the share is spent; ask again once the view is replaced.
	Wait
	// Refused: the client's count and the others' reach the quota.
	Refused
)

// clientShare is a client's share on this instance.
type clientShare struct {
	// gen is the view the share was computed from, at refilled (Unix
	// nanoseconds); asked is when the client last asked.
	gen      uint64
	refilled int64
	asked    int64
	share    int
	spent    int
	// pending counts the admitted requests the limiter has not decided.
	pending int
}

// Admit asks the client's share on this instance for a request of key at
// now, given what v knows of the other instances. On Refused, the refusal
// is counted like the mirror's own (see Refuse) and held until a request
// can be allowed.
func (w *Window) Admit(key string, now time.Time, v *ClusterView) (Admission, Refusal) {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cw := sh.client(key, true)
	window := int64(w.limit.Window)
	if until := cw.refusedUntil(t, w.limit); until > t {
		// Refused while it waited, by its own count or for the others'.
		return Refused, cw.refusal(t, until, window)
	}
	s := cw.share
	if s == nil {
		s = &clientShare{}
		cw.share = s
	}
	newBurst := s.gen == 0 || t-s.asked > int64(v.Pause)
	s.asked = t
	if newBurst || v.gen > s.gen && (v.Live == 0 || v.Synced.UnixNano() >= s.refilled+int64(v.Settle)) {
		peers := v.Client(key)
		s.gen, s.refilled, s.spent, s.share = v.gen, t, 0, 0
		// Refused by what was counted; the requests still pending, and
		// the estimate of what the others allowed since they wrote, only
		// make it wait.
		left := w.limit.Events - cw.live() - int(peers.Count)
		if left <= 0 {
			// Until the oldest counted request in the window leaves it,
			// as caddy-ratelimit reckons its Retry-After.
			oldest := t
			if cw.live() > 0 {
				oldest = min(oldest, cw.times[cw.head])
			}
			if peers.Count > 0 && peers.Oldest+window > t {
				oldest = min(oldest, peers.Oldest)
			}
			cw.held = max(cw.held, oldest+window)
			return Refused, cw.refusal(t, cw.held, window)
		}
		serving := int(peers.Serving)
		left -= s.pending + serving*cw.since(peers.Written)
		if newBurst {
			serving = max(serving, v.Live)
		}
		if left > 0 {
			s.share = (left + serving) / (serving + 1) // rounded up
		}
	}
	if s.spent < s.share {
		s.spent++
		s.pending++
		return Admitted, Refusal{}
	}
	return Wait, Refusal{}
}

// Settle ends an admitted request of key: the limiter has decided it, and
// allowed it already recorded.
func (w *Window) Settle(key string) {
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if cw := sh.client(key, false); cw != nil && cw.share != nil && cw.share.pending > 0 {
		cw.share.pending--
	}
}

// Postpone counts a refusal of key at now by the caller, which waited in
// vain for the share to refill and gives the client wait as its
// Retry-After.
func (w *Window) Postpone(key string, now time.Time, wait time.Duration) Refusal {
	t := now.UnixNano()
	sh := w.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.client(key, true).refusal(t, t+int64(wait), int64(w.limit.Window))
}

// since returns how many of the recorded requests are later than t.
func (cw *clientWindow) since(t int64) int {
	live := cw.times[cw.head:]
	return len(live) - sort.Search(len(live), func(i int) bool { return live[i] > t })
}
