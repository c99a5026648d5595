package discovery

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	caddyrl "github.com/mholt/caddy-ratelimit"

	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
)

// RateLimitPolicy is the public rate-limit policy: at most Events requests
// per client in any sliding Window.
type RateLimitPolicy struct {
	// Events is the quota, at least 1. Default (absent): 120. A pointer, so
	// that JSON "events": 0 is refused rather than taken for the default.
	Events *int `json:"events,omitempty"`
	// Window is the length of the sliding window. Default: 1m. It is
	// published in whole seconds, rounded up.
	Window caddy.Duration `json:"window,omitempty"`
	// Off disables rate limiting and the RateLimit headers.
	Off bool `json:"off,omitempty"`
}

// Defaults of the public policy, from the specification.
const (
	defaultEvents       = 120
	defaultWindow       = time.Minute
	defaultRateLimitKey = "{http.vars.client_ip}"
	// windowSweepInterval is how often the mirror forgets idle clients.
	windowSweepInterval = time.Minute
)

// windows holds the rate-limit mirrors by zone, so that a config reload keeps
// the counts, exactly as caddy-ratelimit keeps its own zones in a UsagePool.
var windows = caddy.NewUsagePool()

// pooledWindow is a mirror with the goroutine that sweeps it.
type pooledWindow struct {
	*handlers.Window
	stop chan struct{}
}

func newPooledWindow(limit handlers.RateLimit) *pooledWindow {
	pw := &pooledWindow{Window: handlers.NewWindow(limit), stop: make(chan struct{})}
	go func() {
		ticker := time.NewTicker(windowSweepInterval)
		defer ticker.Stop()
		for {
			select {
			case now := <-ticker.C:
				pw.Sweep(now)
			case <-pw.stop:
				return
			}
		}
	}()
	return pw
}

// Destruct stops the sweeper when the last config using the zone is gone.
func (pw *pooledWindow) Destruct() error {
	close(pw.stop)
	return nil
}

// rateLimiter is the provisioned limiter of one handler: caddy-ratelimit
// decides, and the mirror reports what is left.
type rateLimiter struct {
	limit   handlers.RateLimit
	key     string
	zone    string
	decider *caddyrl.Handler
	window  *pooledWindow
	headers handlers.RateLimitHeaders
}

// policy returns the configured policy with its defaults.
func (h *Handler) policy() (handlers.RateLimit, bool) {
	p := RateLimitPolicy{}
	if h.RateLimit != nil {
		p = *h.RateLimit
	}
	if p.Off {
		return handlers.RateLimit{}, false
	}
	limit := handlers.RateLimit{Events: defaultEvents, Window: time.Duration(p.Window)}
	if p.Events != nil {
		limit.Events = *p.Events
	}
	if limit.Window == 0 {
		limit.Window = defaultWindow
	}
	return limit, true
}

// provisionRateLimit sets up caddy-ratelimit with one zone for the policy,
// and the mirror of that zone.
func (h *Handler) provisionRateLimit(ctx caddy.Context, limit handlers.RateLimit) error {
	key := h.RateLimitKey
	if key == "" {
		key = defaultRateLimitKey
	}
	// The zone name must be unique among all rate_limit zones of the
	// server; the prefix keeps it apart from a user's own zones, and the
	// policy in the name makes a changed policy start a fresh zone.
	zone := fmt.Sprintf("discovery %d/%s %s %s", limit.Events, limit.Window, key, h.BaseURL)
	decider := &caddyrl.Handler{
		RateLimits: map[string]*caddyrl.RateLimit{
			zone: {Key: key, MaxEvents: limit.Events, Window: caddy.Duration(limit.Window)},
		},
		Distributed: h.Distributed,
	}
	if h.Distributed != nil {
		if err := seedDistributedState(ctx); err != nil {
			return fmt.Errorf("distributed: %w", err)
		}
	}
	if err := decider.Provision(ctx); err != nil {
		return fmt.Errorf("rate_limit: %w", err)
	}
	w, _, err := windows.LoadOrNew(zone, func() (caddy.Destructor, error) {
		return newPooledWindow(limit), nil
	})
	if err != nil {
		return fmt.Errorf("rate_limit: %w", err)
	}
	h.limiter = &rateLimiter{
		limit:   limit,
		key:     key,
		zone:    zone,
		decider: decider,
		window:  w.(*pooledWindow),
		headers: handlers.NewRateLimitHeaders(limit),
	}
	return nil
}

// distributedStatePrefix is where caddy-ratelimit keeps each instance's state
// in Caddy's storage, one "<instance ID>.rlstate" file per instance.
const distributedStatePrefix = "rate_limit/instances"

// seedDistributedState makes sure the storage holds this instance's state
// file before caddy-ratelimit's first sync. Its reader lists the folder, and
// on the first start of a cluster the folder does not exist until the first
// write: if the first read comes first (the default intervals are equal), it
// logs an ERROR for a state that is merely empty. The seed is an empty state
// in caddy-ratelimit's own gob shape (a timestamp and no zones, which every
// instance reads as "nothing counted"); this instance's first write
// replaces it. An existing folder is left alone.
func seedDistributedState(ctx caddy.Context) error {
	storage := ctx.Storage()
	if _, err := storage.List(ctx, distributedStatePrefix, false); err == nil {
		return nil
	}
	id, err := caddy.InstanceID()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	state := struct{ Timestamp time.Time }{Timestamp: time.Now()}
	if err := gob.NewEncoder(&buf).Encode(state); err != nil {
		return err
	}
	return storage.Store(ctx, path.Join(distributedStatePrefix, id.String()+".rlstate"), buf.Bytes())
}

func (rl *rateLimiter) cleanup() error {
	err := rl.decider.Cleanup()
	if _, derr := windows.Delete(rl.zone); derr != nil {
		err = errors.Join(err, derr)
	}
	return err
}

// serve passes an owned request through caddy-ratelimit. An allowed request
// is recorded in the mirror and served with its RateLimit headers; a
// refused one gets the 429 problem.
func (h *Handler) serveLimited(w http.ResponseWriter, r *http.Request, service *handlers.Service, next caddyhttp.Handler) error {
	rl := h.limiter
	err := rl.decider.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		remaining, reset := rl.window.Record(rl.clientKey(r), time.Now())
		rl.headers.Set(w.Header(), remaining, reset)
		return h.serveOwned(w, r, service, next)
	}))
	if err == nil {
		return nil
	}
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != http.StatusTooManyRequests {
		return err
	}
	// caddy-ratelimit has set Retry-After in whole seconds, rounded up.
	retryAfter, perr := strconv.Atoi(w.Header().Get("Retry-After"))
	if perr != nil || retryAfter < 1 {
		retryAfter = 1
	}
	service.RateLimited(w, r, rl.headers, retryAfter)
	return nil
}

// clientKey is the key of r's client, in the mirror as in caddy-ratelimit.
func (rl *rateLimiter) clientKey(r *http.Request) string {
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		return repl.ReplaceAll(rl.key, "")
	}
	return rl.key
}

// chargeExtra counts n more events for the client of r, an allowed request
// (the further messages of a JSON-RPC batch). caddy-ratelimit has no call
// to count several events at once, so it decides each one as it decides a
// request: its count (the cluster's, in distributed mode) stays the one
// that decides, and each event it allows is recorded in the mirror too.
// The mirror is asked first, so that a batch larger than what is left is
// refused without using any of it; only a race with the client's other
// requests, or another instance's count in distributed mode, can refuse
// part-way, and the events allowed by then stay counted.
func (h *Handler) chargeExtra(header http.Header, r *http.Request, n int) handlers.Extra {
	rl := h.limiter
	key := rl.clientKey(r)
	now := time.Now()
	remaining, reset, wait := rl.window.Room(key, now, n+1)
	allowed := remaining >= n
	if allowed {
		for range n {
			refusal := discardWriter{header: make(http.Header)}
			if err := rl.decider.ServeHTTP(&refusal, r, caddyhttp.HandlerFunc(nopHandler)); err != nil {
				allowed = false
				remaining, reset, wait = rl.window.Room(key, time.Now(), n+1)
				// caddy-ratelimit's Retry-After counts the cluster.
				if s, err := strconv.Atoi(refusal.header.Get("Retry-After")); err == nil {
					wait = max(wait, time.Duration(s)*time.Second)
				}
				break
			}
			remaining, reset = rl.window.Record(key, time.Now())
		}
	}
	rl.headers.Set(header, remaining, reset)
	if allowed {
		return handlers.Extra{Allowed: true, Remaining: remaining}
	}
	return handlers.Extra{Remaining: remaining, RetryAfter: max(int((wait+time.Second-1)/time.Second), 1)}
}

func nopHandler(http.ResponseWriter, *http.Request) error { return nil }

// discardWriter takes what caddy-ratelimit writes when it refuses an
// extra event, which is only headers, off the real response.
type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
