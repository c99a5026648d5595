package site

// Asking the site for one address: a GET made up by the reader, sent
// through the Transport, its answer kept within the bounds of what is
// asked for, decompressed within the same bounds, conditional on what an
// earlier answer said.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
)

// Transport asks the site for r and writes its answer to w, as the site
// answers any visitor. It returns when the answer is complete; it may
// panic with http.ErrAbortHandler when w refuses a write (reverse_proxy
// does), which the reader takes as the answer being too large.
type Transport func(w http.ResponseWriter, r *http.Request)

// anonymousAddr is the client address of the reader's requests: an address
// of the documentation range (RFC 5737), which no remote_ip or client_ip
// matcher of a real site trusts, so that the reader is let in only where
// any visitor is.
const anonymousAddr = "192.0.2.1:1"

// kind is what an address is asked for as, which sets what is accepted of
// its answer.
type kind int

const (
	kindPage kind = iota
	kindFeed
	kindSitemap
	kindRobots
)

// accept is the Accept of a request for an address of kind k.
func (k kind) accept() string {
	switch k {
	case kindFeed:
		return "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.1"
	case kindSitemap:
		return "application/xml, text/xml;q=0.9, */*;q=0.1"
	case kindRobots:
		return "text/plain, */*;q=0.1"
	}
	return "text/html, application/xhtml+xml;q=0.9, */*;q=0.1"
}

func (k kind) String() string {
	return [...]string{"page", "feed", "sitemap", "robots.txt"}[k]
}

// validators are what an earlier answer at an address said of itself,
// which a later request is made conditional on.
type validators struct {
	etag, lastModified string
	// sum is the answer's SHA-256, for a site that sends no validator or
	// ignores them: the same bytes are the same answer.
	sum [sha256.Size]byte
}

// answer is the site's answer to one request of the reader.
type answer struct {
	// url is the address answered, after redirects on the site.
	url *url.URL
	// status is the final status; 0 when the site gave no answer to use
	// (err says why).
	status int
	header http.Header
	body   []byte
	// same reports that the answer is the one validators described: a
	// 304, or the same bytes.
	same bool
	v    validators
	err  error
}

// ok reports whether the answer is a page of the site to read.
func (a *answer) ok() bool { return a.err == nil && (a.status == http.StatusOK || a.same) }

// gone reports whether the site says the address has no page (any more).
func (a *answer) gone() bool {
	return a.err == nil && (a.status == http.StatusNotFound || a.status == http.StatusGone)
}

// Errors of a request that gave nothing to read.
var (
	errTooLarge     = errors.New("the answer is larger than the reader reads")
	errTimeout      = errors.New("the site did not answer in time")
	errOffSite      = errors.New("the site redirects off the site")
	errRedirects    = errors.New("too many redirects")
	errEncoding     = errors.New("the answer has a content coding the reader does not read")
	errRobots       = errors.New("the site's robots.txt disallows it for the reader")
	errStuck        = errors.New("too many of the site's answers are still running past their time")
	errNoAnswer     = errors.New("the site failed without an answer")
	errWriteRefused = errors.New("write refused: the answer is larger than the reader reads")
)

// maxRedirects is how many redirects on the site one request follows.
const maxRedirects = 3

// client asks the site for addresses as the reader: anonymous, on the
// site's own origin, within its bounds.
type client struct {
	transport Transport
	// site is the site's scheme and host, the origin every address asked
	// for must have (http and https of one host are one site).
	site      *url.URL
	localAddr net.Addr
	userAgent string
	bounds    *Bounds
	// stuck counts the answers still being written after their time ran
	// out, which the client stops waiting for.
	stuck atomic.Int32
	// requests counts the requests sent, for the figures.
	requests atomic.Int64
	// allowed, when set, is asked before each request but robots.txt's.
	allowed func(path string) bool
	// aliases are the hosts the site names as its own (its feeds' and
	// its home page's canonical address, as its generator was told its
	// public name), lowercased: addresses there are the site's, read at
	// its origin. Set while nothing else reads them.
	aliases map[string]bool
}

// isAlias reports whether host is one the site names as its own.
func (c *client) isAlias(host string) bool { return c.aliases[strings.ToLower(host)] }

// alias adds the host of link to the names the site goes by.
func (c *client) alias(link string) {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return
	}
	if c.aliases == nil {
		c.aliases = make(map[string]bool)
	}
	c.aliases[strings.ToLower(u.Hostname())] = true
}

// anyHost returns the address of link's path and query on the site,
// whatever host link names: a sitemap lists the site's pages under the
// public name its generator was given, which need not be the one it is
// read at, and every address taken from it is asked of the site itself.
func (c *client) anyHost(base *url.URL, link string) (*url.URL, bool) {
	if len(link) > maxURLLen {
		return nil, false
	}
	u, err := base.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
		return nil, false
	}
	return c.onSite(c.site, (&url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}).String())
}

// onSite returns the address link names, resolved against base, when it
// is on the site: the same host (case and a default port aside), http or
// https. The fragment is dropped.
func (c *client) onSite(base *url.URL, link string) (*url.URL, bool) {
	if len(link) > maxURLLen {
		return nil, false
	}
	u, err := base.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
		return nil, false
	}
	if !sameHost(u, c.site) && !c.isAlias(u.Hostname()) {
		return nil, false
	}
	u.Fragment, u.RawFragment = "", ""
	u.Scheme, u.Host = c.site.Scheme, c.site.Host
	if u.Path == "" {
		u.Path = "/"
	}
	return u, true
}

// maxURLLen is the longest address read.
const maxURLLen = 2048

// sameHost reports whether u and site name one host, case and default
// ports aside.
func sameHost(u, site *url.URL) bool {
	return strings.EqualFold(u.Hostname(), site.Hostname()) && portOf(u) == portOf(site)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" && !(p == "80" && u.Scheme == "http") && !(p == "443" && u.Scheme == "https") {
		return p
	}
	return ""
}

// mayRead reports whether the site's robots.txt lets the reader ask for u.
func (c *client) mayRead(u *url.URL) bool {
	return c.allowed == nil || c.allowed(u.RequestURI())
}

// get asks the site for u, an address of the site, as an address of kind
// k, conditional on v when given. Same-origin redirects are followed;
// anything else that keeps the answer from being read is in its err.
func (c *client) get(ctx context.Context, u *url.URL, k kind, v *validators) answer {
	for hop := 0; ; hop++ {
		if k != kindRobots && !c.mayRead(u) {
			return answer{url: u, err: errRobots}
		}
		a := c.once(ctx, u, k, v)
		if a.err != nil || a.status < 300 || a.status >= 400 || a.status == http.StatusNotModified {
			return a
		}
		if hop == maxRedirects {
			return answer{url: u, err: errRedirects}
		}
		next, ok := c.onSite(u, a.header.Get("Location"))
		if !ok {
			return answer{url: u, status: a.status, header: a.header, err: errOffSite}
		}
		u, v = next, nil
	}
}

// once sends one request for u and reads its answer.
func (c *client) once(ctx context.Context, u *url.URL, k kind, v *validators) answer {
	if err := ctx.Err(); err != nil {
		return answer{url: u, err: err}
	}
	if c.stuck.Load() >= int32(c.bounds.Concurrency) {
		return answer{url: u, err: errStuck}
	}
	ctx, cancel := context.WithTimeout(ctx, c.bounds.AnswerTime)
	defer cancel()
	req := c.request(ctx, u, k, v)
	w := &sink{header: make(http.Header), limit: k.limit(c.bounds)}
	done := make(chan struct{})
	c.stuck.Add(1)
	c.requests.Add(1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				w.panicked = p
			}
			c.stuck.Add(-1)
			close(done)
		}()
		c.transport(w, req)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		// The answer is left to finish on its own: nothing of w is read.
		return answer{url: u, err: errTimeout}
	}
	return w.answer(u, v, k.limit(c.bounds))
}

// request is the reader's GET for u: nothing of any visitor in it.
func (c *client) request(ctx context.Context, u *url.URL, k kind, v *validators) *http.Request {
	if c.localAddr != nil {
		ctx = context.WithValue(ctx, http.LocalAddrContextKey, c.localAddr)
	}
	ctx = context.WithValue(ctx, readingKey{}, true)
	target := &url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	req := &http.Request{
		Method: http.MethodGet, URL: target, RequestURI: target.RequestURI(), Host: c.site.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, RemoteAddr: anonymousAddr, Body: http.NoBody,
		Header: http.Header{
			// No Accept-Encoding: compressing an answer only to
			// unpack it in the same process is work for nothing (a
			// site that compresses anyway is unpacked, within bounds).
			"Accept":     {k.accept()},
			"User-Agent": {c.userAgent},
		},
	}
	if c.site.Scheme == "https" {
		// The site is served over TLS: the request says so, with no
		// client certificate, as any browser's.
		req.TLS = &tls.ConnectionState{HandshakeComplete: true, ServerName: c.site.Hostname(), Version: tls.VersionTLS13}
	}
	if v != nil {
		switch {
		case v.etag != "":
			req.Header.Set("If-None-Match", v.etag)
		case v.lastModified != "":
			req.Header.Set("If-Modified-Since", v.lastModified)
		}
	}
	return req.WithContext(ctx)
}

// readingKey marks the context of the reader's requests.
type readingKey struct{}

// Reading reports whether r is a request of the reader: the module passes
// it to the site as it is, answering nothing of it itself. Only the
// reader can set the mark, which is in r's context and not in a header.
func Reading(r *http.Request) bool {
	v, _ := r.Context().Value(readingKey{}).(bool)
	return v
}

// limit is the most bytes read of an answer of kind k.
func (k kind) limit(b *Bounds) int {
	switch k {
	case kindFeed:
		return b.FeedBytes
	case kindSitemap:
		return b.SitemapBytes
	case kindRobots:
		return b.RobotsBytes
	}
	return b.PageBytes
}

// sink is the writer an answer is written to: it keeps the status line and
// up to limit bytes of the body, and refuses the rest.
type sink struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	limit    int
	over     bool
	panicked any
}

func (s *sink) Header() http.Header { return s.header }

func (s *sink) WriteHeader(status int) {
	if s.status == 0 && status >= 200 {
		s.status = status
	}
}

func (s *sink) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	if s.body.Len()+len(p) > s.limit {
		s.over = true
		return 0, errWriteRefused
	}
	s.sized()
	return s.body.Write(p)
}

// ReadFrom reads the body from r into the sink's own buffer, up to the
// limit: file_server copies a file to a writer that can read it (the
// connection, here the sink), and without it the copy would take a
// buffer of 32 KiB for each page, the most the reader allocates.
func (s *sink) ReadFrom(r io.Reader) (int64, error) {
	s.WriteHeader(http.StatusOK)
	s.sized()
	n, err := s.body.ReadFrom(io.LimitReader(r, int64(s.limit-s.body.Len())+1))
	if s.body.Len() > s.limit {
		s.body.Truncate(s.limit)
		s.over = true
		return n, errWriteRefused
	}
	return n, err
}

// sized makes room for the body at its first byte when the handler said
// its length, within the limit.
func (s *sink) sized() {
	if s.body.Cap() > 0 {
		return
	}
	if n, err := strconv.Atoi(s.header.Get("Content-Length")); err == nil && n > 0 && n <= s.limit {
		s.body.Grow(n + bytes.MinRead)
	}
}

// EnableFullDuplex is what a server's full-duplex setting asks of a
// writer; an answer written to memory needs nothing.
func (s *sink) EnableFullDuplex() error { return nil }

// answer reads what was written as an answer at u.
func (s *sink) answer(u *url.URL, v *validators, limit int) answer {
	a := answer{url: u, status: s.status, header: s.header}
	switch {
	case s.over:
		a.err = errTooLarge
		return a
	case s.panicked != nil && s.panicked != http.ErrAbortHandler:
		a.err = fmt.Errorf("the site's handler failed: %v", s.panicked)
		return a
	case s.panicked != nil:
		a.err = errNoAnswer // aborted half way
		return a
	case s.status == 0:
		a.status = http.StatusOK // what Caddy answers when no handler writes
	}
	if a.status == http.StatusNotModified {
		a.same = v != nil
		if v != nil {
			a.v = *v
		}
		return a
	}
	body := s.body.Bytes()
	switch enc := strings.ToLower(strings.TrimSpace(s.header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		plain, err := gunzip(body, limit)
		if err != nil {
			a.err = err
			return a
		}
		body = plain
		a.header.Del("Content-Encoding")
	default:
		a.err = errEncoding
		return a
	}
	a.body = body
	a.v = validators{etag: s.header.Get("ETag"), lastModified: s.header.Get("Last-Modified"), sum: sha256.Sum256(body)}
	a.same = a.status == http.StatusOK && v != nil && v.sum == a.v.sum
	return a
}

// gunzip decompresses a gzip body, refusing one that would be larger
// than limit: a small answer that unpacks to gigabytes is skipped.
func gunzip(body []byte, limit int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("the answer is not valid gzip: %w", err)
	}
	plain, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("the answer is not valid gzip: %w", err)
	}
	if len(plain) > limit {
		return nil, errTooLarge
	}
	return plain, nil
}
