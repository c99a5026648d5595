package fetch

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a settable time for cache tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// server is an httptest TLS server that counts the requests for each path.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{hits: make(map[string]int)}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *server) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.Certificate())
	return p
}

// newTestFetcher returns a Fetcher that trusts s and reaches loopback, on a
// settable clock.
func newTestFetcher(t *testing.T, s *server, opts Options) (*Fetcher, *clock) {
	t.Helper()
	opts.AllowPrivate = true
	opts.RootCAs = s.pool()
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f.now = c.Now
	t.Cleanup(f.Close)
	return f, c
}

func jsonHandler(cacheControl string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	}
}

func TestNewRejectsContradictoryOptions(t *testing.T) {
	for _, o := range []Options{
		{AllowHTTP: true},
		{MinTTL: time.Hour, MaxTTL: time.Minute},
		{Timeout: -time.Second},
		{MaxBytes: -1},
		{MaxRedirects: -2},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
	f, err := New(Options{AllowHTTP: true, AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestRefusesLoopbackWithoutAllowPrivate(t *testing.T) {
	s := newServer(t, jsonHandler(""))
	f, err := New(Options{RootCAs: s.pool()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	port := s.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	for _, u := range []string{
		s.URL + "/doc",
		fmt.Sprintf("https://localhost:%d/doc", port), // a name that resolves to loopback
		fmt.Sprintf("https://[::1]:%d/doc", port),
	} {
		_, err := f.Get(context.Background(), u)
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("Get(%s) = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if n := s.Hits("/doc"); n != 0 {
		t.Errorf("server was reached %d times", n)
	}
}

func TestRefusesURLs(t *testing.T) {
	f, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, u := range []string{
		"http://example.com/",
		"ftp://example.com/",
		"https:///path",
		"https://user:pass@example.com/",
		"example.com/path",
		"https://example.com/" + strings.Repeat("a", maxURLLen),
	} {
		if _, err := f.Get(context.Background(), u); !errors.Is(err, ErrURL) {
			t.Errorf("Get(%q) = %v, want ErrURL", u, err)
		}
	}
}

func TestRedirects(t *testing.T) {
	var s *server
	s = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			port := s.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
			http.Redirect(w, r, fmt.Sprintf("https://127.0.0.2:%d/doc", port), http.StatusFound)
		case "/to-http":
			http.Redirect(w, r, "http://"+r.Host+"/doc", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/once":
			http.Redirect(w, r, "/doc", http.StatusMovedPermanently)
		default:
			jsonHandler("")(w, r)
		}
	})
	f, _ := newTestFetcher(t, s, Options{})
	// Play a public network: the server's own address counts as public,
	// every other address is judged as in production.
	f.allowAddr = func(a netip.Addr) error {
		if a == netip.MustParseAddr("127.0.0.1") {
			return nil
		}
		return checkAddr(a, false)
	}
	ctx := context.Background()

	doc, err := f.Get(ctx, s.URL+"/once")
	if err != nil {
		t.Fatal(err)
	}
	if doc.URL != s.URL+"/doc" {
		t.Errorf("Document.URL = %s, want the redirect's target", doc.URL)
	}
	if _, err := f.Get(ctx, s.URL+"/to-private"); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("redirect to a private address: %v, want ErrForbiddenAddress", err)
	}
	if _, err := f.Get(ctx, s.URL+"/to-http"); !errors.Is(err, ErrRedirect) {
		t.Errorf("redirect to http: %v, want ErrRedirect", err)
	}
	if _, err := f.Get(ctx, s.URL+"/loop"); !errors.Is(err, ErrRedirect) {
		t.Errorf("redirect loop: %v, want ErrRedirect", err)
	}
	if n := s.Hits("/loop"); n != DefaultMaxRedirects+1 {
		t.Errorf("redirect loop reached the server %d times, want %d", n, DefaultMaxRedirects+1)
	}

	none, _ := newTestFetcher(t, s, Options{MaxRedirects: NoRedirects})
	if _, err := none.Get(ctx, s.URL+"/once"); !errors.Is(err, ErrRedirect) {
		t.Errorf("NoRedirects: %v, want ErrRedirect", err)
	}
}

func TestOnlyStatusOK(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/204":
			w.WriteHeader(http.StatusNoContent)
		case "/404":
			http.NotFound(w, r)
		default:
			jsonHandler("")(w, r)
		}
	})
	f, _ := newTestFetcher(t, s, Options{})
	for _, p := range []string{"/204", "/404"} {
		if _, err := f.Get(context.Background(), s.URL+p); !errors.Is(err, ErrStatus) {
			t.Errorf("%s: %v, want ErrStatus", p, err)
		}
	}
	doc, err := f.Get(context.Background(), s.URL+"/ok")
	if err != nil {
		t.Fatal(err)
	}
	if doc.ContentType != "application/json" || string(doc.Body) != `{"path":"/ok"}` {
		t.Errorf("got %q %q", doc.ContentType, doc.Body)
	}
}

func TestSizeCap(t *testing.T) {
	const limit = 1000
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := strings.Repeat("x", limit+1)
		if r.URL.Path == "/exact" {
			body = body[:limit]
		}
		if r.URL.Path == "/chunked" {
			// No Content-Length: the cap must hold while reading.
			w.Write([]byte(body[:10]))
			w.(http.Flusher).Flush()
			body = body[10:]
		}
		w.Write([]byte(body))
	})
	f, _ := newTestFetcher(t, s, Options{MaxBytes: limit})
	for _, p := range []string{"/declared", "/chunked"} {
		if _, err := f.Get(context.Background(), s.URL+p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", p, err)
		}
	}
	if doc, err := f.Get(context.Background(), s.URL+"/exact"); err != nil || len(doc.Body) != limit {
		t.Errorf("a body of exactly the limit: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			w.Write([]byte("{"))
			w.(http.Flusher).Flush()
		}
		// Returning when the client leaves ends a chunked body cleanly: the
		// fetcher must still report the deadline.
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(10 * time.Second):
		}
	})
	defer close(release)
	f, _ := newTestFetcher(t, s, Options{Timeout: 200 * time.Millisecond})
	for _, p := range []string{"/slow-headers", "/slow-body"} {
		start := time.Now()
		_, err := f.Get(context.Background(), s.URL+p)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want a deadline error", p, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", p, d)
		}
	}

	// The caller's context bounds its wait too.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := f.Get(ctx, s.URL+"/caller"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline: %v", err)
	}
}

func TestCacheLifetime(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cc := map[string]string{
			"/max-age":   "public, max-age=600",
			"/no-store":  "no-store",
			"/no-cache":  "no-cache",
			"/huge":      "max-age=31536000",
			"/none":      "",
			"/aged":      "max-age=900",
			"/malformed": "max-age=soon",
		}[r.URL.Path]
		if r.URL.Path == "/aged" {
			w.Header().Set("Age", "600")
		}
		jsonHandler(cc)(w, r)
	})
	tests := []struct {
		path string
		ttl  time.Duration
	}{
		{"/max-age", 10 * time.Minute},
		{"/no-store", DefaultMinTTL},
		{"/no-cache", DefaultMinTTL},
		{"/huge", DefaultMaxTTL},
		{"/none", DefaultTTL},
		{"/aged", DefaultMinTTL}, // 900 s less an Age of 600, clamped up
		{"/malformed", DefaultMinTTL},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			f, c := newTestFetcher(t, s, Options{})
			ctx := context.Background()
			u := s.URL + tt.path
			before := s.Hits(tt.path)
			if _, err := f.Get(ctx, u); err != nil {
				t.Fatal(err)
			}
			c.Advance(tt.ttl - time.Second)
			if _, err := f.Get(ctx, u); err != nil {
				t.Fatal(err)
			}
			if _, ok := f.Cached(u); !ok {
				t.Error("Cached missed a fresh document")
			}
			if n := s.Hits(tt.path) - before; n != 1 {
				t.Fatalf("fetched %d times within the lifetime, want 1", n)
			}
			c.Advance(2 * time.Second)
			if _, err := f.Get(ctx, u); err != nil {
				t.Fatal(err)
			}
			if n := s.Hits(tt.path) - before; n != 2 {
				t.Errorf("fetched %d times after the lifetime, want 2", n)
			}
		})
	}
}

func TestLifetimeFromExpires(t *testing.T) {
	f := &Fetcher{opts: Options{}}
	if err := f.opts.setDefaults(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Date", now.Format(http.TimeFormat))
	h.Set("Expires", now.Add(2*time.Hour).Format(http.TimeFormat))
	if got := f.lifetime(h, now); got != 2*time.Hour {
		t.Errorf("Expires two hours after Date: %s", got)
	}
	h.Set("Expires", "0")
	if got := f.lifetime(h, now); got != DefaultMinTTL {
		t.Errorf("invalid Expires: %s", got)
	}
	h.Set("Cache-Control", "max-age=7200")
	h.Set("Expires", now.Add(-time.Hour).Format(http.TimeFormat))
	if got := f.lifetime(h, now); got != 2*time.Hour {
		t.Errorf("max-age must win over Expires: %s", got)
	}
}

func TestSingleFlight(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		jsonHandler("max-age=600")(w, r)
	})
	f, _ := newTestFetcher(t, s, Options{})
	const n = 20
	var wg sync.WaitGroup
	var failures atomic.Int32
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if doc, err := f.Get(context.Background(), s.URL+"/doc"); err != nil || string(doc.Body) != `{"path":"/doc"}` {
				failures.Add(1)
			}
		}()
	}
	// Prefetch joins the fetch under way rather than starting another.
	f.Prefetch(s.URL + "/doc")
	wg.Wait()
	if failures.Load() != 0 {
		t.Errorf("%d of %d callers failed", failures.Load(), n)
	}
	if hits := s.Hits("/doc"); hits != 1 {
		t.Errorf("%d concurrent Gets made %d requests, want 1", n, hits)
	}
}

func TestConcurrencyBound(t *testing.T) {
	var inFlight, peak atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
		jsonHandler("")(w, r)
	})
	f, _ := newTestFetcher(t, s, Options{MaxConcurrent: 2})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Get(context.Background(), fmt.Sprintf("%s/doc%d", s.URL, i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Errorf("%d fetches at once, want at most 2", p)
	}
}

func TestLRUBound(t *testing.T) {
	s := newServer(t, jsonHandler("max-age=3600"))
	f, _ := newTestFetcher(t, s, Options{MaxEntries: 3})
	ctx := context.Background()
	for i := range 5 {
		if _, err := f.Get(ctx, fmt.Sprintf("%s/doc%d", s.URL, i)); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			// Touch doc0, so doc1 becomes the least recently used.
			if _, ok := f.Cached(s.URL + "/doc0"); !ok {
				t.Fatal("doc0 not cached")
			}
		}
	}
	if n := f.entries.Len(); n != 3 {
		t.Errorf("%d entries, want 3", n)
	}
	for i, want := range []bool{true, false, false, true, true} {
		if _, ok := f.Cached(fmt.Sprintf("%s/doc%d", s.URL, i)); ok != want {
			t.Errorf("doc%d cached = %v, want %v", i, ok, want)
		}
	}
	if _, err := f.Get(ctx, s.URL+"/doc1"); err != nil {
		t.Fatal(err)
	}
	if n := s.Hits("/doc1"); n != 2 {
		t.Errorf("an evicted URL was fetched %d times, want 2", n)
	}
}

func TestFailureCaching(t *testing.T) {
	var failing atomic.Bool
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		jsonHandler("max-age=600")(w, r)
	})
	f, c := newTestFetcher(t, s, Options{})
	ctx := context.Background()
	u := s.URL + "/doc"

	failing.Store(true)
	for range 3 {
		if _, err := f.Get(ctx, u); !errors.Is(err, ErrStatus) {
			t.Fatalf("Get = %v, want ErrStatus", err)
		}
		f.Prefetch(u)
	}
	if n := s.Hits("/doc"); n != 1 {
		t.Errorf("a failing origin was asked %d times within FailureTTL, want 1", n)
	}
	if _, ok := f.Cached(u); ok {
		t.Error("Cached returned a document for a failed URL")
	}

	failing.Store(false)
	c.Advance(DefaultFailureTTL + time.Second)
	if _, err := f.Get(ctx, u); err != nil {
		t.Fatalf("after FailureTTL: %v", err)
	}

	// Once the document is stale and the origin fails, the last good
	// document is still served, up to MaxStale.
	failing.Store(true)
	c.Advance(10*time.Minute + time.Second)
	doc, err := f.Get(ctx, u)
	if err != nil || string(doc.Body) != `{"path":"/doc"}` {
		t.Fatalf("stale document during an outage: %v", err)
	}
	if _, ok := f.Cached(u); !ok {
		t.Error("Cached dropped the stale document during an outage")
	}
	c.Advance(DefaultMaxStale)
	if _, ok := f.Cached(u); ok {
		t.Error("Cached served a document past MaxStale")
	}
}

func TestPrefetch(t *testing.T) {
	s := newServer(t, jsonHandler("max-age=600"))
	f, c := newTestFetcher(t, s, Options{})
	u := s.URL + "/doc"
	if _, ok := f.Cached(u); ok {
		t.Fatal("cached before any fetch")
	}
	f.Prefetch(u)
	doc := waitCached(t, f, u)
	if doc.URL != u {
		t.Errorf("Document.URL = %s", doc.URL)
	}
	f.Prefetch(u) // fresh: nothing to do
	if n := s.Hits("/doc"); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}

	// A stale document is still returned by Cached, which refreshes it in
	// the background.
	c.Advance(11 * time.Minute)
	if _, ok := f.Cached(u); !ok {
		t.Fatal("stale document not returned")
	}
	for i := 0; s.Hits("/doc") < 2; i++ {
		if i == 200 {
			t.Fatal("stale document was not refreshed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCloseStopsFetching(t *testing.T) {
	s := newServer(t, jsonHandler(""))
	f, _ := newTestFetcher(t, s, Options{})
	f.Close()
	if _, err := f.Get(context.Background(), s.URL+"/doc"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
	f.Prefetch(s.URL + "/doc")
	if n := s.Hits("/doc"); n != 0 {
		t.Errorf("%d requests after Close", n)
	}
}

func waitCached(t *testing.T, f *Fetcher, u string) *Document {
	t.Helper()
	for range 500 {
		if doc, ok := f.Cached(u); ok {
			return doc
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never cached", u)
	return nil
}

// TestNone: a fetcher for callers that wait, set to None, keeps nothing the
// server did not allow: a no-store document is fetched again at every ask, a
// failure is not remembered, and a stale document is never served.
func TestNone(t *testing.T) {
	var failing atomic.Bool
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		jsonHandler(strings.TrimPrefix(r.URL.Path, "/"))(w, r)
	})
	f, c := newTestFetcher(t, s, Options{MinTTL: None, FailureTTL: None, MaxStale: None})
	ctx := context.Background()
	for range 3 {
		if _, err := f.Get(ctx, s.URL+"/no-store"); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Hits("/no-store"); n != 3 {
		t.Errorf("a no-store document was fetched %d times for 3 asks, want 3", n)
	}
	if _, err := f.Get(ctx, s.URL+"/max-age=60"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get(ctx, s.URL+"/max-age=60"); err != nil || s.Hits("/max-age=60") != 1 {
		t.Errorf("a fresh document was fetched again: %v, %d fetches", err, s.Hits("/max-age=60"))
	}

	failing.Store(true)
	for range 2 {
		if _, err := f.Get(ctx, s.URL+"/failing"); !errors.Is(err, ErrStatus) {
			t.Fatalf("Get = %v, want ErrStatus", err)
		}
	}
	if n := s.Hits("/failing"); n != 2 {
		t.Errorf("with FailureTTL None a failing origin was asked %d times for 2 asks, want 2", n)
	}
	c.Advance(time.Minute + time.Second)
	if _, err := f.Get(ctx, s.URL+"/max-age=60"); !errors.Is(err, ErrStatus) {
		t.Errorf("with MaxStale None a stale document was served during an outage: %v", err)
	}
	if _, ok := f.Cached(s.URL + "/max-age=60"); ok {
		t.Error("Cached served a stale document with MaxStale None")
	}
	if _, err := New(Options{Timeout: None}); err == nil {
		t.Error("Timeout None was accepted")
	}
}

// TestForget: a document the caller found unusable is fetched again.
func TestForget(t *testing.T) {
	s := newServer(t, jsonHandler("max-age=600"))
	f, _ := newTestFetcher(t, s, Options{})
	ctx := context.Background()
	u := s.URL + "/doc"
	for range 2 {
		if _, err := f.Get(ctx, u); err != nil {
			t.Fatal(err)
		}
		f.Forget(u)
	}
	if n := s.Hits("/doc"); n != 2 {
		t.Errorf("a forgotten document was fetched %d times for 2 asks, want 2", n)
	}
	if _, ok := f.Cached(u); ok {
		t.Error("Cached served a forgotten document")
	}
	f.Forget("http://not-fetchable/") // no panic, nothing to drop
}
