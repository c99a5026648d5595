// Package fetch owns every request the module makes to somebody else's
// server: the key directories of Web Bot Auth agents and the OAuth Client
// ID Metadata Documents of clients. The URLs come from requests, so
// the attacker picks them; a Fetcher therefore only speaks https to public
// addresses (checked on the address actually dialled, so DNS rebinding does
// not get through), reads a bounded body in bounded time, and caches what it
// got, failures included, so that no origin is fetched more often than its
// cache lifetime allows.
//
// Request handling must never wait on the network: it asks Cached, and on a
// miss calls Prefetch, which starts a bounded background fetch and returns at
// once. Get is the blocking form, for callers that may wait.
//
// Imports from the module: internal/cache.
package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/cache"
)

// The defaults of Options, one per field.
const (
	DefaultMaxBytes      = 64 << 10
	DefaultTimeout       = 3 * time.Second
	DefaultMaxRedirects  = 3
	DefaultMinTTL        = 5 * time.Minute
	DefaultMaxTTL        = 24 * time.Hour
	DefaultTTL           = time.Hour
	DefaultFailureTTL    = time.Minute
	DefaultMaxStale      = 24 * time.Hour
	DefaultMaxEntries    = 1000
	DefaultMaxConcurrent = 8
	DefaultAccept        = "application/json, */*;q=0.5"
	DefaultUserAgent     = "caddy-discovery"
)

// NoRedirects, as Options.MaxRedirects, makes every redirect a failure.
const NoRedirects = -1

// None, as Options.MinTTL, FailureTTL or MaxStale, means no time at all
// (zero means the default): a response that forbids reuse is fetched again
// at the next ask, a failure is not remembered, a stale document is never
// served.
const None time.Duration = -1

// maxURLLen bounds the URLs the fetcher accepts; longer ones are refused
// before any work is done.
const maxURLLen = 2048

// Errors a fetch can fail with, for errors.Is. Network and TLS errors are
// returned as they come, wrapped with the URL.
var (
	// ErrURL means the URL is not one the fetcher may fetch: not absolute,
	// not https, with user information, or too long.
	ErrURL = errors.New("fetch: URL not allowed")
	// ErrStatus means the server answered with a status other than 200.
	ErrStatus = errors.New("fetch: status not 200 OK")
	// ErrTooLarge means the body was longer than Options.MaxBytes.
	ErrTooLarge = errors.New("fetch: body too large")
	// ErrRedirect means a redirect was refused: too many of them, or to a
	// URL the fetcher may not fetch.
	ErrRedirect = errors.New("fetch: redirect refused")
	// ErrClosed means the Fetcher was closed.
	ErrClosed = errors.New("fetch: fetcher closed")
)

// Options configures a Fetcher. The zero value is the safe configuration;
// each zero field takes the default named in its comment.
type Options struct {
	// AllowPrivate lets fetches reach loopback (127.0.0.0/8, ::1), private
	// (RFC 1918, fc00::/7 unique local) and shared (100.64.0.0/10, CGNAT)
	// addresses. It exists for tests and for operators whose agents publish
	// their directories on the operator's own network.
	//
	// Security: with it, anyone who can send a request can make the server
	// fetch from the machine itself and from the internal network, and read
	// the timing and status of those services (server-side request
	// forgery). Link-local addresses (169.254.0.0/16 and fe80::/10, where
	// cloud metadata services live), multicast and unspecified addresses
	// stay refused.
	AllowPrivate bool
	// AllowHTTP lets fetches use plain http. It is only accepted together
	// with AllowPrivate, for tests against loopback servers; anything
	// fetched over http can be altered on the way.
	AllowHTTP bool
	// RootCAs are the certificate authorities trusted for https. Nil means
	// the system's.
	RootCAs *x509.CertPool

	// MaxBytes is the largest body accepted, in bytes, after any content
	// decoding. Default 64 KiB (DefaultMaxBytes), plenty for a JSON
	// document of keys or client metadata.
	MaxBytes int64
	// Timeout bounds one fetch, from dialling to the last byte of the body,
	// redirects included. Default 3 s.
	Timeout time.Duration
	// MaxRedirects is how many redirects a fetch follows; each one is
	// checked like the first URL (https, public address). Default 3;
	// NoRedirects (-1) follows none.
	MaxRedirects int

	// MinTTL and MaxTTL clamp how long a fetched document is used before
	// it is fetched again. The server's Cache-Control max-age (or Expires)
	// sets the lifetime within them; no-store, no-cache and max-age=0 give
	// MinTTL, since a document must be held to be used at all. Defaults
	// 5 min and 24 h. MinTTL None honours them to the letter, for callers
	// that wait on Get: such a document is fetched again at every ask.
	MinTTL time.Duration
	MaxTTL time.Duration
	// DefaultTTL is the lifetime of a document whose response says nothing
	// about caching. Default 1 h.
	DefaultTTL time.Duration
	// FailureTTL is how long a failed fetch is remembered: the URL is not
	// fetched again before it ends, so a failing origin is not hammered.
	// Default 1 min; None remembers no failure.
	FailureTTL time.Duration
	// MaxStale is how long past its lifetime a document is still served
	// while fetching it again fails: an origin's outage then does not
	// withdraw its keys at once. A successful fetch always replaces the
	// document. Default 24 h; None serves no stale document.
	MaxStale time.Duration

	// MaxEntries bounds the cache, in URLs; the least recently used is
	// dropped first. Default 1000. With MaxBytes, it bounds the cache's
	// memory: at most MaxEntries × MaxBytes.
	MaxEntries int
	// MaxConcurrent bounds the fetches under way at once, all URLs
	// together. Prefetch drops a fetch when none is free; Get waits for one
	// up to Timeout. Default 8.
	MaxConcurrent int

	// Accept is the Accept header sent. Default "application/json,
	// */*;q=0.5".
	Accept string
	// UserAgent is the User-Agent header sent. Default "caddy-discovery".
	UserAgent string
}

// Document is a fetched response body with what a caller needs to judge it.
// A Document is shared between callers: treat it as read-only.
type Document struct {
	// URL is where the body came from, after any redirects.
	URL string
	// ContentType is the response's media type, lowercased and without
	// parameters; empty when the header is absent or malformed. Checking it
	// is the caller's job.
	ContentType string
	// Body is the response body, at most Options.MaxBytes long.
	Body []byte
	// Fetched is when the response arrived.
	Fetched time.Time
}

// Fetcher fetches and caches documents under the limits of its Options. It
// is safe for concurrent use; Close releases it.
type Fetcher struct {
	opts   Options
	client *http.Client
	now    func() time.Time
	// allowAddr decides on each address dialled; tests replace it to play
	// a public network on loopback.
	allowAddr func(netip.Addr) error

	ctx    context.Context // ends at Close, and with it every fetch
	cancel context.CancelFunc
	slots  chan struct{} // one token per fetch under way
	wg     sync.WaitGroup

	// mu guards the entries' fields and calls; entries is safe for
	// concurrent use in itself.
	mu      sync.Mutex
	entries *cache.Cache[string, *entry] // at most MaxEntries URLs
	calls   map[string]*call
}

// call is one fetch under way, shared by everyone who asked for its URL.
type call struct {
	done chan struct{}
	doc  *Document
	err  error
}

// New returns a Fetcher with the given options, or an error when they
// contradict each other.
func New(opts Options) (*Fetcher, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	f := &Fetcher{opts: opts, now: time.Now}
	f.allowAddr = func(a netip.Addr) error { return checkAddr(a, opts.AllowPrivate) }
	dialer := &net.Dialer{
		Timeout: opts.Timeout,
		Control: dialControl(func(a netip.Addr) error { return f.allowAddr(a) }),
	}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would be the address dialled, and escape the check
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    opts.Timeout,
		ResponseHeaderTimeout:  opts.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           opts.MaxConcurrent,
		MaxIdleConnsPerHost:    1,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	f.slots = make(chan struct{}, opts.MaxConcurrent)
	f.entries = cache.New[string, *entry](opts.MaxEntries, 0)
	f.calls = make(map[string]*call)
	f.client = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	return f, nil
}

func (o *Options) setDefaults() error {
	if o.AllowHTTP && !o.AllowPrivate {
		return errors.New("fetch: AllowHTTP requires AllowPrivate")
	}
	for _, d := range []struct {
		name   string
		v      *time.Duration
		def    time.Duration
		noneOK bool
	}{
		{"Timeout", &o.Timeout, DefaultTimeout, false},
		{"MinTTL", &o.MinTTL, DefaultMinTTL, true},
		{"MaxTTL", &o.MaxTTL, DefaultMaxTTL, false},
		{"DefaultTTL", &o.DefaultTTL, DefaultTTL, false},
		{"FailureTTL", &o.FailureTTL, DefaultFailureTTL, true},
		{"MaxStale", &o.MaxStale, DefaultMaxStale, true},
	} {
		switch {
		case *d.v == None && d.noneOK:
			*d.v = 0
		case *d.v < 0:
			return fmt.Errorf("fetch: %s must not be negative", d.name)
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if o.MinTTL > o.MaxTTL {
		return fmt.Errorf("fetch: MinTTL %s exceeds MaxTTL %s", o.MinTTL, o.MaxTTL)
	}
	if o.MaxBytes < 0 || o.MaxEntries < 0 || o.MaxConcurrent < 0 || o.MaxRedirects < NoRedirects {
		return errors.New("fetch: limits must not be negative")
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEntries == 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxConcurrent == 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.Accept == "" {
		o.Accept = DefaultAccept
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	return nil
}

// Get returns the document at rawURL, from the cache when it is fresh and
// otherwise by fetching it, waiting at most until ctx ends. Concurrent
// callers for one URL share one fetch. A recent failure is returned from
// the cache without fetching again; when a fetch fails but an earlier
// document is still within MaxStale, that document is returned instead.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (*Document, error) {
	key, err := f.normalize(rawURL)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	now := f.now()
	e, _ := f.entries.Get(key)
	if e != nil {
		if e.fresh(now) {
			f.mu.Unlock()
			return e.doc, nil
		}
		if e.failedRecently(now) {
			doc, err := e.staleOr(now, f.opts.MaxStale)
			f.mu.Unlock()
			return doc, err
		}
	}
	c := f.calls[key]
	if c == nil {
		if f.ctx.Err() != nil {
			f.mu.Unlock()
			return nil, ErrClosed
		}
		c = f.startLocked(key, false)
	}
	f.mu.Unlock()

	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.err == nil {
		return c.doc, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.entries.Peek(key); ok {
		return e.staleOr(f.now(), f.opts.MaxStale)
	}
	return nil, c.err
}

// Cached returns the document held for rawURL without touching the network:
// a fresh one, or a stale one within MaxStale, in which case a background
// fetch to replace it starts (as Prefetch). It reports false when nothing
// usable is held: the URL was never fetched, every fetch failed, or its
// document is past MaxStale.
func (f *Fetcher) Cached(rawURL string) (*Document, bool) {
	key, err := f.normalize(rawURL)
	if err != nil {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	e, _ := f.entries.Get(key)
	if e == nil || e.doc == nil {
		return nil, false
	}
	now := f.now()
	if e.fresh(now) {
		return e.doc, true
	}
	if now.After(e.freshUntil.Add(f.opts.MaxStale)) {
		return nil, false
	}
	f.prefetchLocked(key, e, now)
	return e.doc, true
}

// Prefetch starts fetching rawURL in the background and returns at once.
// It does nothing when the URL is not fetchable, its document is fresh, it
// failed within FailureTTL, a fetch of it is already under way, or every
// fetch slot is taken (a later call tries again).
func (f *Fetcher) Prefetch(rawURL string) {
	key, err := f.normalize(rawURL)
	if err != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	e, _ := f.entries.Peek(key)
	f.prefetchLocked(key, e, f.now())
}

func (f *Fetcher) prefetchLocked(key string, e *entry, now time.Time) {
	if f.ctx.Err() != nil || f.calls[key] != nil {
		return
	}
	if e != nil && (e.fresh(now) || e.failedRecently(now)) {
		return
	}
	select {
	case f.slots <- struct{}{}:
	default:
		return
	}
	f.startLocked(key, true)
}

// Forget drops what the cache holds for rawURL, so that the next ask
// fetches it again: for a caller that found the document unusable, which
// must not be served from the cache as if it were good.
func (f *Fetcher) Forget(rawURL string) {
	key, err := f.normalize(rawURL)
	if err != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries.Remove(key)
}

// Close stops the fetches under way, waits for them to end, and makes
// every later Get fail with ErrClosed and every Prefetch do nothing. What
// is cached stays readable through Cached.
func (f *Fetcher) Close() {
	// Under the lock, so that no fetch starts after the cancellation.
	f.mu.Lock()
	f.cancel()
	f.mu.Unlock()
	f.wg.Wait()
	f.client.CloseIdleConnections()
}

// startLocked starts the fetch of key in the background and registers it,
// so that later callers join it. haveSlot says the caller already took a
// fetch slot for it; otherwise the fetch waits for one.
func (f *Fetcher) startLocked(key string, haveSlot bool) *call {
	c := &call{done: make(chan struct{})}
	f.calls[key] = c
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		doc, ttl, err := f.fetchWithSlot(key, haveSlot)
		f.mu.Lock()
		f.store(key, doc, ttl, err)
		delete(f.calls, key)
		c.doc, c.err = doc, err
		f.mu.Unlock()
		close(c.done)
	}()
	return c
}

func (f *Fetcher) fetchWithSlot(key string, haveSlot bool) (*Document, time.Duration, error) {
	if !haveSlot {
		wait, cancel := context.WithTimeout(f.ctx, f.opts.Timeout)
		select {
		case f.slots <- struct{}{}:
			cancel()
		case <-wait.Done():
			cancel()
			if f.ctx.Err() != nil {
				return nil, 0, ErrClosed
			}
			return nil, 0, fmt.Errorf("fetching %s: no fetch slot free within %s", key, f.opts.Timeout)
		}
	}
	defer func() { <-f.slots }()
	ctx, cancel := context.WithTimeout(f.ctx, f.opts.Timeout)
	defer cancel()
	return f.fetch(ctx, key)
}

// fetch makes the request itself: one GET, its redirects, the status, and
// the body up to MaxBytes. It returns the document with its cache lifetime.
func (f *Fetcher) fetch(ctx context.Context, rawURL string) (*Document, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrURL, err)
	}
	req.Header.Set("Accept", f.opts.Accept)
	req.Header.Set("User-Agent", f.opts.UserAgent)
	resp, err := f.client.Do(req)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		if f.ctx.Err() != nil {
			err = ErrClosed
		}
		return nil, 0, fmt.Errorf("fetching %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("fetching %s: %w: %s", rawURL, ErrStatus, resp.Status)
	}
	if resp.ContentLength > f.opts.MaxBytes {
		return nil, 0, fmt.Errorf("fetching %s: %w: %d bytes declared", rawURL, ErrTooLarge, resp.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err == nil {
		// A server may end its body when the client gives up; past the
		// deadline nothing counts.
		err = ctx.Err()
	}
	if err != nil {
		return nil, 0, fmt.Errorf("fetching %s: reading body: %w", rawURL, err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, 0, fmt.Errorf("fetching %s: %w: over %d bytes", rawURL, ErrTooLarge, f.opts.MaxBytes)
	}
	mediaType, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		mediaType = ""
	}
	now := f.now()
	return &Document{
		URL:         resp.Request.URL.String(),
		ContentType: strings.ToLower(mediaType),
		Body:        body,
		Fetched:     now,
	}, f.lifetime(resp.Header, now), nil
}

// checkRedirect holds each redirect to the rules of the first URL; the
// dialler checks the address it leads to.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if f.opts.MaxRedirects == NoRedirects {
		return fmt.Errorf("%w: redirects are not followed", ErrRedirect)
	}
	if len(via) > f.opts.MaxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrRedirect, f.opts.MaxRedirects)
	}
	if _, err := f.normalize(req.URL.String()); err != nil {
		return fmt.Errorf("%w: to %s", ErrRedirect, err)
	}
	return nil
}

// normalize checks that rawURL may be fetched and returns the cache key
// for it: the URL without fragment, with a lowercase scheme and host.
func (f *Fetcher) normalize(rawURL string) (string, error) {
	if len(rawURL) > maxURLLen {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrURL, maxURLLen)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrURL, err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && f.opts.AllowHTTP:
	default:
		return "", fmt.Errorf("%w: scheme of %q is not https", ErrURL, rawURL)
	}
	if u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("%w: %q has no host", ErrURL, rawURL)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: %q has user information", ErrURL, rawURL)
	}
	u.Fragment, u.RawFragment = "", ""
	u.Host = strings.ToLower(u.Host)
	return u.String(), nil
}
