package discovery

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	caddyrl "github.com/mholt/caddy-ratelimit"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
)

// RateLimitPolicy is the public rate-limit policy: at most Events requests
// per client in any sliding Window.
type RateLimitPolicy struct {
	// Events is the quota, from 1 to 1500. Default (absent): 120. A pointer,
	// so that JSON "events": 0 is refused rather than taken for the default.
	// Each tracked client costs about 32 bytes per event (caddy-ratelimit
	// reserves its whole ring at the client's first request), so the cap
	// keeps a client under 64 KiB.
	Events *int `json:"events,omitempty"`
	// Window is the length of the sliding window. Default: 1m. It is
	// published in whole seconds, rounded up.
	Window caddy.Duration `json:"window,omitempty"`
	// Off disables rate limiting and the RateLimit headers.
	Off bool `json:"off,omitempty"`
}

// Defaults of the public policy, from the specification.
const (
	defaultEvents = 120
	// maxEvents bounds the quota, and so what one client can cost:
	// caddy-ratelimit's ring (24 bytes an event, reserved whole) and the
	// mirror's times (8 bytes an event in the window).
	maxEvents         = 1500
	defaultWindow     = time.Minute
	defaultIPv6Prefix = 64
	// clientVar holds the client's address with an IPv6 address cut to
	// its prefix, set for the keys that use it.
	clientVar = "discovery_client"
	// verifiedAgentVar holds the identity of a verified agent that has a
	// quota of its own (verified_agent_quota).
	verifiedAgentVar    = "discovery_verified_agent"
	defaultRateLimitKey = "{http.vars." + clientVar + "}"
	// minRotateInterval is the shortest time between two rotations of a
	// mirror, which rotates once a window: an idle client is forgotten one
	// to three intervals after its last request.
	minRotateInterval = time.Minute
)

// windows holds the rate-limit mirrors by zone, so that a config reload keeps
// the counts, exactly as caddy-ratelimit keeps its own zones in a UsagePool.
var windows = caddy.NewUsagePool()

// pooledWindow is a mirror and when it last forgot its idle clients.
type pooledWindow struct {
	*ratelimit.Window
	interval time.Duration
	mu       sync.Mutex
	rotated  time.Time
}

// Destruct lets the mirror go with the last config using its zone.
func (pw *pooledWindow) Destruct() error { return nil }

// rotate forgets the idle clients if the last rotation is at least one
// interval old. Every handler of the zone calls it from its own ticker (so a
// reload keeps rotating, without a goroutine of the pool to stop), and this
// keeps the rotations an interval apart, as Window.Rotate requires.
func (pw *pooledWindow) rotate(now time.Time) (forgotten []ratelimit.Unreported, done bool) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if now.Sub(pw.rotated) < pw.interval {
		return nil, false
	}
	pw.rotated = now
	return pw.Rotate(), true
}

// rateLimiter is the provisioned limiter of one handler: caddy-ratelimit
// decides, the mirror reports what is left and answers the clients it knows
// to have nothing left, and in distributed mode keeps each client to its
// share of the quota between syncs.
type rateLimiter struct {
	limit   ratelimit.Policy
	key     string
	zone    string
	decider *caddyrl.Handler
	window  *pooledWindow
	headers ratelimit.Headers
	// ipv6Prefix is the length of the client prefix; setsClient is whether
	// the key uses clientVar, which then needs setting on each request.
	ipv6Prefix int
	setsClient bool
	// distributed holds each refusal caddy-ratelimit decides for its
	// Retry-After (see serveLimited), and cluster keeps each client to its
	// share of the quota between syncs (see ratelimit.Window.Admit).
	distributed bool
	cluster     *clusterReader
	logger      *zap.Logger
	stop        chan struct{}
}

// policy returns the configured policy with its defaults.
func (h *Handler) policy() (ratelimit.Policy, bool) {
	p := RateLimitPolicy{}
	if h.RateLimit != nil {
		p = *h.RateLimit
	}
	if p.Off {
		return ratelimit.Policy{}, false
	}
	limit := ratelimit.Policy{Events: defaultEvents, Window: time.Duration(p.Window)}
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
func (h *Handler) provisionRateLimit(ctx caddy.Context, limit ratelimit.Policy) error {
	key := h.RateLimitKey
	if key == "" {
		key = defaultRateLimitKey
	}
	ipv6Prefix := defaultIPv6Prefix
	if h.IPv6Prefix != nil {
		ipv6Prefix = *h.IPv6Prefix
	}
	setsClient := strings.Contains(key, defaultRateLimitKey)
	// The zone name must be unique among all rate_limit zones of the
	// server; the prefix keeps it apart from a user's own zones, and the
	// policy in the name makes a changed policy start a fresh zone.
	zone := fmt.Sprintf("discovery %d/%s %s", limit.Events, limit.Window, key)
	if setsClient {
		zone += fmt.Sprintf(" ipv6/%d", ipv6Prefix)
	}
	// Each site its own zone: its base URL, else the site it is in, so
	// that two sites of one server count their clients apart.
	if h.BaseURL != "" {
		zone += " " + h.BaseURL
	} else {
		zone += " site " + h.siteLabel(ctx)
	}
	decider := &caddyrl.Handler{
		RateLimits: map[string]*caddyrl.RateLimit{
			zone: {Key: key, MaxEvents: limit.Events, Window: caddy.Duration(limit.Window)},
		},
		Distributed: h.Distributed,
	}
	var instanceID string
	if h.Distributed != nil {
		id, err := caddy.InstanceID()
		if err != nil {
			return fmt.Errorf("distributed: %w", err)
		}
		instanceID = id.String()
		if err := seedDistributedState(ctx, ctx.Storage(), instanceID); err != nil {
			return fmt.Errorf("distributed: %w", err)
		}
	}
	if err := decider.Provision(ctx); err != nil {
		return fmt.Errorf("rate_limit: %w", err)
	}
	w, _, err := windows.LoadOrNew(zone, func() (caddy.Destructor, error) {
		return &pooledWindow{
			Window:   ratelimit.NewWindow(limit),
			interval: max(limit.Window, minRotateInterval),
			rotated:  time.Now(),
		}, nil
	})
	if err != nil {
		return fmt.Errorf("rate_limit: %w", err)
	}
	var cluster *clusterReader
	if d := h.Distributed; d != nil {
		// caddy-ratelimit has set its default intervals.
		cluster = newClusterReader(ctx, instanceID, zone, limit.Window, time.Duration(d.ReadInterval), time.Duration(d.WriteInterval), h.logger)
	}
	h.limiter = &rateLimiter{
		limit:       limit,
		key:         key,
		zone:        zone,
		decider:     decider,
		window:      w.(*pooledWindow),
		headers:     ratelimit.NewHeaders(limit),
		ipv6Prefix:  ipv6Prefix,
		setsClient:  setsClient,
		distributed: h.Distributed != nil,
		cluster:     cluster,
		logger:      h.logger,
		stop:        make(chan struct{}),
	}
	go h.limiter.rotate()
	if cluster != nil {
		go cluster.run(ctx, h.limiter.stop)
	}
	return nil
}

// rotate asks the mirror to forget its idle clients twice per interval, so
// that it does at most an interval and a half after it is due, and logs
// the refusals of the forgotten clients that no line reported yet.
func (rl *rateLimiter) rotate() {
	ticker := time.NewTicker(rl.window.interval / 2)
	defer ticker.Stop()
	for {
		select {
		case now := <-ticker.C:
			start := time.Now()
			forgotten, done := rl.window.rotate(now)
			if !done {
				continue
			}
			for _, f := range forgotten {
				rl.logger.Info("rate limit refusals not logged one by one",
					append(rl.keyFields(f.Key), zap.String("zone", rl.zone), zap.Int("refused", f.Refusals))...)
			}
			rl.logger.Debug("rate limit clients rotated", zap.String("zone", rl.zone),
				zap.Int("clients", rl.window.Clients()), zap.Duration("took", time.Since(start)))
		case <-rl.stop:
			return
		}
	}
}

func (rl *rateLimiter) cleanup() error {
	close(rl.stop)
	err := rl.decider.Cleanup()
	if _, derr := windows.Delete(rl.zone); derr != nil {
		err = errors.Join(err, derr)
	}
	return err
}

// serveLimited passes an owned request through caddy-ratelimit. An allowed
// request is recorded in the mirror and served with its RateLimit headers;
// a refused one gets the 429 problem.
//
// A client the mirror knows to have nothing left is refused without asking
// caddy-ratelimit, which would refuse it too (see ratelimit.Window) but log
// each refusal at INFO: one client could write megabytes a minute. The
// module logs the first refusal of a client in a window at INFO, with the
// count of those since its previous line, and the others at DEBUG.
//
// In distributed mode a request must also fit in the client's share on
// this instance (see admit), which may make it wait for the next read of
// the other instances' states, before caddy-ratelimit decides it.
func (h *Handler) serveLimited(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler) error {
	rl := h.limiter
	// Read before caddy-ratelimit reads its own, for every recorded time
	// to be at or before the one it keeps.
	now := time.Now()
	key := rl.clientKey(r)
	refusal, refused := rl.window.Refuse(key, now)
	admitted := false
	if !refused && rl.cluster != nil {
		admitted, refusal, refused = rl.admit(r, key, now.Add(rl.cluster.maxWait))
		now = time.Now() // after any wait, and still before caddy-ratelimit's
	}
	if refused {
		rl.logRefusal(r, key, refusal)
		service.RateLimited(w, r, m, rl.headers, max(ratelimit.CeilSeconds(refusal.Wait), 1))
		return nil
	}
	err := rl.decider.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		remaining, reset := rl.window.Record(key, now)
		if admitted {
			rl.window.Settle(key)
			admitted = false
		}
		rl.headers.Set(w.Header(), remaining, reset)
		return h.serveOwned(w, r, service, m, next)
	}))
	if admitted {
		rl.window.Settle(key)
	}
	if err == nil || !rl.refused(r, err) {
		return err
	}
	// caddy-ratelimit has set Retry-After in whole seconds, rounded up.
	retryAfter, perr := strconv.Atoi(w.Header().Get("Retry-After"))
	if perr != nil || retryAfter < 1 {
		retryAfter = 1
	}
	// caddy-ratelimit has logged this refusal. Locally it refuses beyond
	// the mirror only in a race at the quota, and the mirror's own count
	// answers the next request. In distributed mode the other instances'
	// counts refuse too, which the mirror cannot see: it holds the refusal
	// for the Retry-After the client was given, so that a client retrying
	// sooner is not logged at INFO once a request. caddy-ratelimit works
	// from the others' counts as of their last sync, so the hold (at most a
	// second past the exact wait) is within its own precision.
	var hold time.Duration
	if rl.distributed {
		hold = time.Duration(retryAfter) * time.Second
	}
	rl.window.Refused(key, now, hold)
	service.RateLimited(w, r, m, rl.headers, retryAfter)
	return nil
}

// maxWaiting bounds the requests of one zone that wait for their share at
// once, whatever their clients: each holds its connection for up to
// maxWait.
const maxWaiting = 256

// admit asks the client's share on this instance for a request of key (in
// distributed mode), waiting while the share is spent for the next read of
// the other instances' states to refill it, until deadline. admitted says
// that the request is counted in the share (Settle must follow); refused,
// that the cluster has used the client's quota, or that the share did not
// refill in time (the client may retry after the next read). When the
// storage cannot be read the share steps aside.
func (rl *rateLimiter) admit(r *http.Request, key string, deadline time.Time) (admitted bool, refusal ratelimit.Refusal, refused bool) {
	c := rl.cluster
	now := time.Now()
	var timeout <-chan time.Time
	for {
		view := c.view(now)
		if view == nil {
			return false, ratelimit.Refusal{}, false
		}
		switch a, refusal := rl.window.Admit(key, now, view); a {
		case ratelimit.Admitted:
			return true, ratelimit.Refusal{}, false
		case ratelimit.Refused:
			return false, refusal, true
		}
		if !now.Before(deadline) {
			return false, rl.window.Postpone(key, now, c.read), true
		}
		if timeout == nil {
			// Each waiting request holds its connection: past maxWaiting
			// at once, a request past its share is refused at once.
			if c.waiting.Add(1) > maxWaiting {
				c.waiting.Add(-1)
				return false, rl.window.Postpone(key, now, c.read), true
			}
			defer c.waiting.Add(-1)
			t := time.NewTimer(deadline.Sub(now))
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-view.Next():
		case <-timeout:
		case <-r.Context().Done():
			return false, rl.window.Postpone(key, now, c.read), true
		}
		now = time.Now()
	}
}

// refused reports whether err is caddy-ratelimit refusing r in this zone,
// rather than an error of the handlers behind the module (the site's
// robots.txt is asked for through them).
func (rl *rateLimiter) refused(r *http.Request, err error) bool {
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != http.StatusTooManyRequests {
		return false
	}
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl == nil {
		return true
	}
	zone, _ := repl.GetString("http.rate_limit.exceeded.name")
	return zone == rl.zone
}

// clientKey returns the rate-limit key of r, the string caddy-ratelimit
// makes of the same placeholders. For a key that uses the client address,
// it sets that first.
func (rl *rateLimiter) clientKey(r *http.Request) string {
	if rl.setsClient {
		client := clientAddress(caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey), rl.ipv6Prefix)
		if identity := caddyhttp.GetVar(r.Context(), verifiedAgentVar); identity != nil {
			client = identity // a verified agent's own quota (verified_agent_quota)
		}
		caddyhttp.SetVar(r.Context(), clientVar, client)
		if rl.key == defaultRateLimitKey {
			s, _ := client.(string)
			return s
		}
	}
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl == nil {
		return rl.key
	}
	return repl.ReplaceAll(rl.key, "")
}

// clientAddress returns the client address that keys the limit: an IPv4
// address whole (also when written as IPv4-mapped IPv6), an IPv6 address
// as its prefix of the given length, such as 2001:db8:1:2::/64. clientIP is
// Caddy's client_ip variable, which honours trusted_proxies; it is
// returned as it is, without allocating, when there is nothing to cut (an
// IPv4 address, a full-length prefix, or no address, as on a Unix socket).
func clientAddress(clientIP any, prefix int) any {
	s, ok := clientIP.(string)
	if !ok {
		return ""
	}
	if strings.IndexByte(s, ':') < 0 {
		return clientIP
	}
	addr, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return clientIP
	case addr.Is4In6():
		return addr.Unmap().String()
	case prefix >= 128:
		return clientIP
	}
	p, _ := addr.Prefix(prefix) // prefix is within 1..128, checked by Validate
	var buf [len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128")]byte
	return string(p.AppendTo(buf[:0]))
}

// logRefusal logs a refusal the mirror answered: at INFO for the client's
// first in a window, at DEBUG for the others.
func (rl *rateLimiter) logRefusal(r *http.Request, key string, refusal ratelimit.Refusal) {
	const msg = "rate limit exceeded"
	if !refusal.Report {
		if ce := rl.logger.Check(zapcore.DebugLevel, msg); ce != nil {
			ce.Write(rl.refusalFields(r, key, refusal.Wait)...)
		}
		return
	}
	// suppressed: the client's refusals logged at DEBUG since its last line.
	rl.logger.Info(msg, append(rl.refusalFields(r, key, refusal.Wait), zap.Int("suppressed", refusal.Unreported))...)
}

// refusalFields are caddy-ratelimit's fields of a refusal (zone, wait,
// remote_ip), the client, and the agent its User-Agent names (a label of
// agents.Labels, as the metrics count it).
func (rl *rateLimiter) refusalFields(r *http.Request, key string, wait time.Duration) []zap.Field {
	remoteIP, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		remoteIP = r.RemoteAddr
	}
	clientIP, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	return append(rl.keyFields(key),
		zap.String("zone", rl.zone), zap.Duration("wait", wait),
		zap.String("remote_ip", remoteIP), zap.String("client_ip", clientIP),
		zap.String("agent", agents.Classify(r.Header.Get("User-Agent"))))
}

// keyFields logs the key when it is the default, the client's address or
// prefix. A key of the user's own may hold anything, a token for one, and
// is not logged, as caddy-ratelimit does not log keys unless asked.
func (rl *rateLimiter) keyFields(key string) []zap.Field {
	if rl.key != defaultRateLimitKey {
		return nil
	}
	return []zap.Field{zap.String("key", key)}
}

// chargeExtra counts n more events for the client of r, an allowed request
// (the further messages of a JSON-RPC batch). caddy-ratelimit has no call
// to count several events at once, so it decides each one as it decides a
// request: its count (the cluster's, in distributed mode) stays the one
// that decides, and each event it allows is recorded in the mirror too.
// The mirror is asked first, so that a batch larger than what is left is
// refused without using any of it; only a race with the client's other
// requests, or another instance's count in distributed mode, can refuse
// part-way, and the events allowed by then stay counted. In distributed
// mode each event must also fit in the client's share, as a request must.
func (h *Handler) chargeExtra(header http.Header, r *http.Request, n int) ratelimit.Extra {
	rl := h.limiter
	key := rl.clientKey(r)
	now := time.Now()
	remaining, reset, wait := rl.window.Room(key, now, n+1)
	allowed := remaining >= n
	if allowed {
		// The messages wait for their shares within one maxWait in all,
		// not one each.
		var deadline time.Time
		if rl.cluster != nil {
			deadline = now.Add(rl.cluster.maxWait)
		}
		for range n {
			admitted := false
			if rl.cluster != nil {
				var refusal ratelimit.Refusal
				var refused bool
				if admitted, refusal, refused = rl.admit(r, key, deadline); refused {
					rl.logRefusal(r, key, refusal)
					allowed = false
					remaining, reset, wait = rl.window.Room(key, time.Now(), n+1)
					wait = max(wait, refusal.Wait)
					break
				}
			}
			// Read before caddy-ratelimit reads its own, as serveLimited
			// does, so the mirror never holds a time later than it.
			at := time.Now()
			refusal := refusalWriter{header: make(http.Header)}
			err := rl.decider.ServeHTTP(&refusal, r, caddyhttp.HandlerFunc(nopHandler))
			if err == nil {
				remaining, reset = rl.window.Record(key, at)
			}
			if admitted {
				rl.window.Settle(key)
			}
			if err != nil {
				allowed = false
				remaining, reset, wait = rl.window.Room(key, time.Now(), n+1)
				// caddy-ratelimit's Retry-After counts the cluster.
				if s, err := strconv.Atoi(refusal.header.Get("Retry-After")); err == nil {
					wait = max(wait, time.Duration(s)*time.Second)
				}
				break
			}
		}
	}
	rl.headers.Set(header, remaining, reset)
	if allowed {
		return ratelimit.Extra{Allowed: true, Remaining: remaining}
	}
	return ratelimit.Extra{Remaining: remaining, RetryAfter: max(ratelimit.CeilSeconds(wait), 1)}
}

func nopHandler(http.ResponseWriter, *http.Request) error { return nil }

// refusalWriter takes what caddy-ratelimit writes when it refuses an
// extra event, which is only headers, off the real response. It wraps no
// response: Caddy's response recorder would, and would share that
// response's header map, which is what caddy-ratelimit's Retry-After
// must stay out of.
type refusalWriter struct{ header http.Header }

func (d *refusalWriter) Header() http.Header         { return d.header }
func (d *refusalWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *refusalWriter) WriteHeader(int)             {}
