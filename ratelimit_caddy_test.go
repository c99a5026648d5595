package discovery

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"
	caddyrl "github.com/mholt/caddy-ratelimit"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestClientAddress(t *testing.T) {
	for _, tt := range []struct {
		clientIP any
		prefix   int
		want     string
	}{
		{"203.0.113.7", 64, "203.0.113.7"},
		{"203.0.113.7", 128, "203.0.113.7"},
		{"2001:db8:1:2:3:4:5:6", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2::", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:3:4:5:6", 48, "2001:db8:1::/48"},
		{"2001:db8:1:2:3:4:5:6", 56, "2001:db8:1::/56"},
		{"2001:db8:1:2ff:3:4:5:6", 56, "2001:db8:1:200::/56"},
		{"2001:db8:1:2:3:4:5:6", 128, "2001:db8:1:2:3:4:5:6"},
		{"2001:db8:1:2:3:4:5:6", 1, "::/1"},
		{"::1", 64, "::/64"},
		{"::ffff:203.0.113.7", 64, "203.0.113.7"},
		{"@", 64, "@"},
		{"", 64, ""},
		{nil, 64, ""},
		{"not:an:address", 64, "not:an:address"},
	} {
		if got := clientAddress(tt.clientIP, tt.prefix); got != tt.want {
			t.Errorf("clientAddress(%v, %d) = %v, want %s", tt.clientIP, tt.prefix, got, tt.want)
		}
	}
}

func BenchmarkClientAddress(b *testing.B) {
	for _, ip := range []string{"203.0.113.7", "2001:db8:1:2:3:4:5:6"} {
		b.Run(ip, func(b *testing.B) {
			var v any = ip
			b.ReportAllocs()
			for b.Loop() {
				clientAddress(v, 64)
			}
		})
	}
}

// activeContext loads an empty Caddy config, with logs discarded and
// storage in a temporary folder, so that handlers can be provisioned and
// called without a network.
var activeContext = sync.OnceValues(func() (caddy.Context, error) {
	dir, err := os.MkdirTemp("", "discovery-test")
	if err != nil {
		return caddy.Context{}, err
	}
	config := fmt.Sprintf(`{
		"admin": {"disabled": true},
		"storage": {"module": "file_system", "root": %q},
		"logging": {"logs": {"default": {"writer": {"output": "discard"}}}}
	}`, dir)
	if err := caddy.Load([]byte(config), true); err != nil {
		return caddy.Context{}, err
	}
	return caddy.ActiveContext(), nil
})

// provision provisions h in the active context; its logs go to the
// returned observer, at every level.
func provision(tb testing.TB, h *Handler) *observer.ObservedLogs {
	tb.Helper()
	active, err := activeContext()
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(active)
	if h.TokenSecret == "" {
		h.TokenSecret = strings.Repeat("s", 32)
	}
	if err := h.Provision(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = h.Cleanup()
		cancel()
	})
	core, logs := observer.New(zapcore.DebugLevel)
	h.logger = zap.New(core)
	if h.limiter != nil {
		h.limiter.logger = h.logger
	}
	return logs
}

// serve sends GET path to h from clientIP (Caddy's client_ip variable)
// and returns the response.
func serve(tb testing.TB, h *Handler, path, clientIP string) *httptest.ResponseRecorder {
	tb.Helper()
	w := httptest.NewRecorder()
	serveTo(tb, h, w, path, clientIP)
	return w
}

func serveTo(tb testing.TB, h *Handler, w http.ResponseWriter, path, clientIP string) {
	serveRequest(tb, h, w, prepare(w, path, clientIP))
}

// prepare makes a request as Caddy's server would, from clientIP.
func prepare(w http.ResponseWriter, path, clientIP string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil)
	r.RemoteAddr = "192.0.2.1:1234"
	r = caddyhttp.PrepareRequest(r, caddy.NewReplacer(), w, nil)
	caddyhttp.SetVar(r.Context(), caddyhttp.ClientIPVarKey, clientIP)
	return r
}

var next = caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })

func serveRequest(tb testing.TB, h *Handler, w http.ResponseWriter, r *http.Request) {
	if err := h.ServeHTTP(w, r, next); err != nil {
		tb.Fatalf("GET %s: %v", r.URL.Path, err)
	}
}

// TestRefusalsAreLoggedOncePerWindow: a client that keeps asking past its
// quota gets one INFO line, naming the zone and the client, and DEBUG lines
// for the rest.
func TestRefusalsAreLoggedOncePerWindow(t *testing.T) {
	events := 3
	h := &Handler{RateLimit: &RateLimitPolicy{Events: &events, Window: caddy.Duration(time.Minute)}}
	logs := provision(t, h)
	const client = "2001:db8:aa:1::7"
	for i := range 3 {
		if w := serve(t, h, "/api/v1/health", client); w.Code != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, w.Code)
		}
	}
	for i := range 100 {
		w := serve(t, h, "/api/v1/health", client)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
			t.Fatalf("refusal %d: %d, Retry-After %q", i+1, w.Code, w.Header().Get("Retry-After"))
		}
	}
	refusals := logs.FilterMessage("rate limit exceeded")
	info := refusals.FilterLevelExact(zapcore.InfoLevel).All()
	if len(info) != 1 {
		t.Fatalf("%d INFO lines for 100 refusals, want 1", len(info))
	}
	fields := info[0].ContextMap()
	if fields["key"] != "2001:db8:aa:1::/64" || !strings.HasPrefix(fmt.Sprint(fields["zone"]), "discovery 3/1m0s") ||
		fields["client_ip"] != client || fields["remote_ip"] != "192.0.2.1" || fields["suppressed"] != int64(0) ||
		fields["agent"] != "none" {
		t.Errorf("INFO line %v", fields)
	}
	if n := refusals.FilterLevelExact(zapcore.DebugLevel).Len(); n != 99 {
		t.Errorf("%d DEBUG lines, want 99", n)
	}
}

// TestCustomKeyIsNotLogged: a key of the user's own may hold a secret.
func TestCustomKeyIsNotLogged(t *testing.T) {
	events := 1
	h := &Handler{
		RateLimit:    &RateLimitPolicy{Events: &events},
		RateLimitKey: "{http.request.header.Authorization}",
	}
	logs := provision(t, h)
	serve(t, h, "/api/v1", "203.0.113.9")
	serve(t, h, "/api/v1", "203.0.113.9")
	lines := logs.FilterMessage("rate limit exceeded").All()
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1", len(lines))
	}
	if fields := lines[0].ContextMap(); fields["key"] != nil || fields["client_ip"] != "203.0.113.9" {
		t.Errorf("line %v: want the client_ip and no key", fields)
	}
}

// BenchmarkServeLimited is an allowed request through the whole handler,
// caddy-ratelimit and the mirror included, from an IPv4 and an IPv6 client.
func BenchmarkServeLimited(b *testing.B) {
	for _, ip := range []string{"203.0.113.7", "2001:db8:1:2:3:4:5:6"} {
		b.Run(ip, func(b *testing.B) {
			// caddy-ratelimit holds 24 bytes per event of the quota for each client.
			events := 2_000_000
			h := &Handler{BaseURL: "https://example.com", RateLimit: &RateLimitPolicy{Events: &events}}
			provision(b, h)
			w := &discardWriter{h: make(http.Header)}
			r := prepare(w, "/api/v1/profile", ip)
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				serveRequest(b, h, w, r)
			}
		})
	}
}

// BenchmarkRateLimitClients measures what 100 000 and 1 000 000 distinct
// clients with one request each cost: the heap held by caddy-ratelimit's
// zone and by the mirror, and the longest wait of a request meanwhile,
// with caddy-ratelimit's sweep idle and while it sweeps clients that are
// still in the window (a scan) or have all left it (a deletion). The sweep
// runs every minute in production; here a second caddy-ratelimit handler
// sweeps every 250 ms. The garbage collector is off while requests are
// timed, so that the waits are the locks'. It needs about 6 GB of memory.
func BenchmarkRateLimitClients(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run("clients="+strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = "10." + strconv.Itoa(i>>16) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
			}
			for b.Loop() {
				for _, window := range []time.Duration{time.Minute, time.Second} {
					measureClients(b, keys, window)
				}
			}
		})
	}
}

func measureClients(b *testing.B, keys []string, window time.Duration) {
	events := 120
	h := &Handler{
		BaseURL:   "https://clients-" + strconv.Itoa(len(keys)) + "-" + window.String() + ".example",
		RateLimit: &RateLimitPolicy{Events: &events, Window: caddy.Duration(window)},
	}
	provision(b, h)
	w := &discardWriter{h: make(http.Header)}
	r := prepare(w, "/api/v1/health", "")
	before := heapInUse()
	for _, key := range keys {
		clear(w.h)
		caddyhttp.SetVar(r.Context(), caddyhttp.ClientIPVarKey, key)
		serveRequest(b, h, w, r)
	}
	held := heapInUse()
	probe := func(d time.Duration) time.Duration {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		var longest time.Duration
		w := &discardWriter{h: make(http.Header)}
		r := prepare(w, "/api/v1/health", "192.0.2.200")
		for end := time.Now().Add(d); time.Now().Before(end); {
			clear(w.h)
			start := time.Now()
			serveRequest(b, h, w, r)
			longest = max(longest, time.Since(start))
		}
		return longest
	}
	if window == time.Second {
		time.Sleep(window) // every client has left the window
	}
	idle := probe(time.Second)
	active, err := activeContext()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(active)
	sweeper := &caddyrl.Handler{SweepInterval: caddy.Duration(250 * time.Millisecond)}
	if err := sweeper.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	sweeping := probe(time.Second)
	cancel()
	name := "live"
	if window == time.Second {
		name = "expired"
	} else {
		mirror := heapInUse()
		h.limiter.window.Rotate()
		h.limiter.window.Rotate()
		mirror -= heapInUse()
		b.ReportMetric(float64(held-before)/float64(len(keys)), "B/client")
		b.ReportMetric(float64(mirror)/float64(len(keys)), "B/client-mirror")
		b.ReportMetric(float64(held-before)/(1<<20), "MiB")
	}
	b.ReportMetric(float64(idle.Microseconds()), "µs-longest-wait-idle-"+name)
	b.ReportMetric(float64(sweeping.Microseconds()), "µs-longest-wait-sweep-"+name)
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// discardWriter is a ResponseWriter that keeps nothing, so benchmarks
// measure the handler rather than a recorder.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// TestClientAtTheRateLimitCap measures what a client costs at the largest
// quota Validate accepts, having used all of it: caddy-ratelimit's ring,
// reserved whole at the first request, and the mirror's times. The
// Limits of docs/caddyfile.md promise at most 64 KiB.
func TestClientAtTheRateLimitCap(t *testing.T) {
	events := maxEvents
	h := &Handler{
		BaseURL:   "https://cap.example",
		RateLimit: &RateLimitPolicy{Events: &events, Window: caddy.Duration(time.Hour)},
	}
	provision(t, h)
	w := &discardWriter{h: make(http.Header)}
	const clients = 40
	// What the first client pays once for every later one (the site
	// check after the load, the first series of each metric) is not a
	// client's: one client goes first, unmeasured.
	var before int64
	for c := -1; c < clients; c++ {
		if c == 0 {
			before = heapInUse()
		}
		r := prepare(w, "/api/v1/health", "198.51.100."+strconv.Itoa(c+1))
		for range events {
			clear(w.h)
			serveRequest(t, h, w, r)
		}
		clear(w.h)
		serveRequest(t, h, w, r)
		if w.h.Get("Retry-After") == "" {
			t.Fatalf("client %d was not refused after %d requests", c, events)
		}
	}
	perClient := (heapInUse() - before) / clients
	t.Logf("a client that used the whole quota of %d events holds %d bytes", events, perClient)
	if perClient > 64<<10 {
		t.Errorf("a client at the cap holds %d bytes, over 64 KiB", perClient)
	}
	runtime.KeepAlive(h)
}
