package discovery

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"io/fs"
	"math"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
)

// caddy-ratelimit keeps each instance's state in Caddy's storage under
// distributedStatePrefix, one "<instance ID>.rlstate" file per instance.
const (
	distributedStatePrefix = "rate_limit/instances"
	stateSuffix            = ".rlstate"
)

// instanceState is caddy-ratelimit's state file in its gob shape (gob
// matches fields by name): when it was written, and by zone and key each
// client's count in the window and the oldest of those requests.
type instanceState struct {
	Timestamp time.Time
	Zones     map[string]map[string]instanceCount
}

type instanceCount struct {
	Count       int
	OldestEvent time.Time
}

// seedDistributedState makes sure the storage holds this instance's state
// file before caddy-ratelimit's first sync, for two readers. caddy-ratelimit
// lists the folder, and on the first start of a cluster the folder does not
// exist until the first write: if the first read comes first (the default
// intervals are equal), it logs an ERROR for a state that is merely empty.
// And the share counts the instances by their files: an instance that has
// not written yet (for a write interval after it starts) would not be
// counted, and its clients' shares elsewhere would be too large. The seed
// is an empty state in caddy-ratelimit's own gob shape (a timestamp and no
// zones, which every instance reads as "nothing counted"); this instance's
// first write replaces it. An existing file is left alone: after a reload
// it holds this instance's counts.
func seedDistributedState(ctx context.Context, storage certmagic.Storage, instanceID string) error {
	key := path.Join(distributedStatePrefix, instanceID+stateSuffix)
	if storage.Exists(ctx, key) {
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(instanceState{Timestamp: time.Now()}); err != nil {
		return err
	}
	return storage.Store(ctx, key, buf.Bytes())
}

// clusterReader reads the other instances' states once per read interval,
// the files caddy-ratelimit itself reads (which it keeps private), and
// publishes what they count in this zone for the share (see
// ratelimit.Window.Admit). Requests never wait for storage: they read the
// latest view, and at most wait for the next one.
type clusterReader struct {
	storage    certmagic.Storage
	instanceID string
	zone       string
	window     time.Duration
	// read is the read interval; lagging is how old an instance's last
	// write may be before it counts as not writing (two write intervals
	// and some I/O); stale is how old the latest view may be before the
	// share steps aside and caddy-ratelimit decides alone.
	read, lagging, stale time.Duration
	// maxWait bounds how long a request waits for its share to refill;
	// waiting counts the requests doing so, at most maxWaiting at once.
	maxWait time.Duration
	waiting atomic.Int64
	// settle and pause are ClusterView's.
	settle, pause time.Duration
	views         ratelimit.ClusterViews
	logger        *zap.Logger
	failing       bool
}

// newClusterReader sets up the reader of zone for this instance, with
// caddy-ratelimit's provisioned intervals, and reads once, as
// caddy-ratelimit does at start.
func newClusterReader(ctx caddy.Context, instanceID, zone string, window, read, write time.Duration, logger *zap.Logger) *clusterReader {
	settle := min(write/4, 100*time.Millisecond)
	cr := &clusterReader{
		storage:    ctx.Storage(),
		instanceID: instanceID,
		zone:       zone,
		window:     window,
		read:       read,
		lagging:    2*write + 100*time.Millisecond,
		stale:      3 * read,
		maxWait:    settle + 2*(write+read),
		settle:     settle,
		pause:      write + read,
		logger:     logger,
	}
	cr.update(ctx)
	return cr
}

// run reads once per read interval until stop is closed.
func (cr *clusterReader) run(ctx context.Context, stop <-chan struct{}) {
	ticker := time.NewTicker(cr.read)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			cr.update(ctx)
		case <-stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// view returns the latest view, or nil when it is too old to go by (the
// storage could not be read): the share then steps aside.
func (cr *clusterReader) view(now time.Time) *ratelimit.ClusterView {
	v := cr.views.Load()
	if v == nil || now.Sub(v.At) > cr.stale {
		return nil
	}
	return v
}

// update reads the states and publishes them. On failure it keeps the last
// view, which grows stale; once it is, the share steps aside, and that is
// logged once until a read succeeds. A single failure is not worth a line:
// listing a folder on the file system storage fails when a write's
// temporary file vanishes during the listing.
func (cr *clusterReader) update(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(cr.read, 5*time.Second))
	defer cancel()
	now := time.Now()
	v, err := cr.readStates(ctx, now)
	if err != nil {
		cr.logger.Debug("rate limit share: reading the other instances' states", zap.String("zone", cr.zone), zap.Error(err))
		if !cr.failing && cr.view(now.Add(cr.read)) == nil {
			cr.failing = true
			cr.logger.Warn("rate limit share: cannot read the other instances' states; caddy-ratelimit decides alone until it can",
				zap.String("zone", cr.zone), zap.Error(err))
		}
		return
	}
	if cr.failing {
		cr.failing = false
		cr.logger.Info("rate limit share: reading the other instances' states again", zap.String("zone", cr.zone))
	}
	cr.views.Publish(v)
}

// readStates reads every other instance's state and sums, per client of the
// zone, what they count. It skips what caddy-ratelimit skips: this
// instance's own file, files it cannot load or decode, and states older
// than the window.
func (cr *clusterReader) readStates(ctx context.Context, now time.Time) (*ratelimit.ClusterView, error) {
	files, err := cr.storage.List(ctx, distributedStatePrefix, false)
	if err != nil {
		return nil, err
	}
	view := ratelimit.ClusterView{At: now, Settle: cr.settle, Pause: cr.pause}
	clients := make(map[string]ratelimit.PeerCount)
	own := cr.instanceID + stateSuffix
	for _, file := range files {
		// The folder also holds, for a moment, the temporary files of
		// writes in progress (the file system storage writes a file and
		// renames it): they are not states, and a whole one would count
		// its instance twice.
		if path.Base(file) == own || !strings.HasSuffix(file, stateSuffix) {
			continue
		}
		data, err := cr.storage.Load(ctx, file)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				cr.logger.Debug("rate limit share: loading a state", zap.String("key", file), zap.Error(err))
			}
			continue
		}
		var state instanceState
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&state); err != nil {
			cr.logger.Debug("rate limit share: decoding a state", zap.String("key", file), zap.Error(err))
			continue
		}
		if state.Timestamp.Before(now.Add(-cr.window)) {
			continue
		}
		if now.Sub(state.Timestamp) <= cr.lagging {
			view.Live++
			if view.Synced.IsZero() || state.Timestamp.Before(view.Synced) {
				view.Synced = state.Timestamp
			}
		}
		written := state.Timestamp.UnixNano()
		for key, c := range state.Zones[cr.zone] {
			if c.Count <= 0 {
				continue
			}
			p := clients[key]
			oldest := c.OldestEvent.UnixNano()
			if p.Serving == 0 {
				p.Oldest, p.Written = oldest, written
			}
			p.Count += int32(min(c.Count, math.MaxInt32))
			p.Oldest, p.Written = min(p.Oldest, oldest), min(p.Written, written)
			p.Serving++
			clients[key] = p
		}
	}
	return ratelimit.NewClusterView(view, clients), nil
}
