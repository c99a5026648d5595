package discovery

// The request path: ServeHTTP and what it calls, from the agent's
// identification and counting to the module's answer, the site's, or both
// (a site file the module merges or stands in for, a page converted to
// Markdown). Rate limiting is in ratelimit_caddy.go.

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
	"github.com/caddy-discovery/caddy-discovery/internal/site"
)

// ServeHTTP answers the paths the module owns and hands every other request
// to next. A page of the site that the content names is answered by the
// module only when the request asks for Markdown; otherwise the site's
// answer gets the module's Link and Vary values added. Any other page asked
// for as Markdown is the site's own, converted.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if site.Reading(r) {
		return next.ServeHTTP(w, r) // the module's own reader: the site's answer, as it is
	}
	service := h.service.Load()
	m := service.Match(r)
	if !h.site.ready() {
		// The first catalog is being read: the module's own answers wait
		// for it (at most firstReadWait); the site's pages do not.
		h.site.start(r)
		if m.Answer != handlers.AnswerSite && h.site.await(r) {
			service = h.service.Load()
			m = service.Match(r)
		}
	}
	counting := on(h.Metrics)
	if !counting && h.refused == nil && !h.VerifiedAgentQuota {
		return h.serve(w, r, service, m, next)
	}
	if m.Answer == handlers.AnswerSite {
		return next.ServeHTTP(w, r) // the site's alone: not counted
	}
	who := h.identify(r)
	if !counting {
		return h.serveAgent(w, r, service, m, next, who)
	}
	return h.observe(w, r, service, m, next, who)
}

// serveAgent serves r from the agent who, as the owner's policy says: a
// refused agent gets a 403 problem from the module and the site's page
// from the site, but the addresses every agent is served (the MCP
// Registry's proof); a verified agent may have a quota of its own.
func (h *Handler) serveAgent(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler, who agent) error {
	refused := h.refused != nil && h.refused[who.agent] && !m.ForEveryAgent()
	switch {
	case refused && m.ModulePath():
		service.RefuseAgent(w, r, who.agent.Label())
		return nil
	case refused:
		return next.ServeHTTP(w, r) // the site's page, as without the module
	}
	if who.verified && h.VerifiedAgentQuota {
		caddyhttp.SetVar(r.Context(), verifiedAgentVar, "agent:"+who.origin)
	}
	return h.serve(w, r, service, m, next)
}

// serve answers r, matched by m: the module's own paths and the site's
// pages asked for as Markdown by the module, every other request by next,
// with the module's Link and Vary values added to the pages the content
// names.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler) error {
	switch m.Answer {
	case handlers.AnswerSite:
		return next.ServeHTTP(w, r)
	case handlers.AnswerPage:
		if in, ok := service.Insight(m); ok {
			// What the site's templates may show of the insight without
			// computing it again (see docs/caddyfile.md).
			caddyhttp.SetVar(r.Context(), "discovery.insight.slug", in.Slug)
			caddyhttp.SetVar(r.Context(), "discovery.insight.read_time", in.ReadTime)
		}
		return next.ServeHTTP(service.PageWriter(w, r), r)
	case handlers.AnswerConverted:
		return h.serveConverted(w, r, service, next)
	}
	if h.limiter != nil && !m.Unmetered() {
		return h.serveLimited(w, r, service, m, next)
	}
	return h.serveOwned(w, r, service, m, next)
}

// serveOwned answers a path the module owns; /robots.txt and the addresses
// where a site's own file wins ask next for the site's own file first.
func (h *Handler) serveOwned(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler) error {
	if m.Merges() && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return h.serveMerged(w, r, service, m, next)
	}
	if m.SiteFirst() && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return h.serveUnlessSiteHasOne(w, r, service, m, next)
	}
	service.Serve(w, r, m)
	return nil
}

// serveMerged asks the site for its own file at a merged address
// (robots.txt, llms.txt) and serves it with the module's lines merged in;
// the module's own file only when the site has none (404 or 410). Any
// other answer of the site (a redirect, an error, a file too large to
// merge) is passed on as the site gave it, so the module never loosens the
// site's rules nor hides its words.
func (h *Handler) serveMerged(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler) error {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	get.Header.Del("If-None-Match")
	get.Header.Del("If-Modified-Since")
	get.Header.Del("Range")
	get.Header.Del("Accept-Encoding") // merged as text, compressed by the module
	before := w.Header().Clone()
	var buf bytes.Buffer
	rec := caddyhttp.NewResponseRecorder(w, &buf, func(status int, header http.Header) bool {
		if status == http.StatusNotFound || status == http.StatusGone {
			return true // replaced by the module's own file
		}
		n, err := strconv.Atoi(header.Get("Content-Length"))
		return status == http.StatusOK && (err != nil || n <= handlers.MaxSiteFile)
	})
	err := next.ServeHTTP(rec, get)
	status := rec.Status()
	var he caddyhttp.HandlerError
	switch {
	case errors.As(err, &he) && (he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusGone):
		status = he.StatusCode // file_server's answer for a missing file
	case err != nil:
		return err
	case !rec.Buffered():
		return nil // streamed to the client as the site sent it
	case status == 0:
		status = http.StatusNotFound // no handler behind the module answered
	}
	// A single-page app's try_files answers every path with its HTML page:
	// that is no robots.txt (crawlers would find no rules in it).
	mediaType, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	mergeable := status == http.StatusOK && buf.Len() <= handlers.MaxSiteFile &&
		rec.Header().Get("Content-Encoding") == "" && (mediaType == "" || mediaType == "text/plain" || mediaType == "text/markdown")
	if !mergeable && status != http.StatusNotFound && status != http.StatusGone && (status != http.StatusOK || mediaType != "text/html") {
		return rec.WriteResponse()
	}
	restoreHeader(w.Header(), before)
	var site []byte
	if mergeable {
		site = buf.Bytes()
	}
	if site != nil {
		h.site.noteMerged(r.URL.Path)
	}
	service.ServeMerged(w, r, m, site)
	return nil
}

// restoreHeader sets h back to before: the site's headers described its
// own answer, which the module replaces.
func restoreHeader(h, before http.Header) {
	for key := range h {
		if v, ok := before[key]; ok {
			h[key] = v
		} else {
			delete(h, key)
		}
	}
}

// observe serves r with serve and counts it under its surface: who asked
// (the agent, and whether it proved it), the outcome by the status
// answered, and the Markdown served.
func (h *Handler) observe(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler, who agent) error {
	o := observedPool.Get().(*observed)
	o.ResponseWriterWrapper.ResponseWriter, o.status, o.size = w, 0, 0
	defer func() {
		o.ResponseWriterWrapper.ResponseWriter = nil
		observedPool.Put(o)
	}()
	err := h.serveAgent(o, r, service, m, next, who)
	status := o.status
	switch {
	case err != nil:
		status = http.StatusInternalServerError
		if he := (caddyhttp.HandlerError{}); errors.As(err, &he) {
			status = he.StatusCode
		}
	case status == 0:
		status = http.StatusOK // what Caddy answers when nothing was written
	}
	h.metrics.Request(m.Surface(), who.agent, who.verified, status)
	if status == http.StatusOK && strings.HasPrefix(first(w.Header(), "Content-Type"), "text/markdown") {
		tokens, _ := strconv.Atoi(first(w.Header(), "X-Markdown-Tokens"))
		h.metrics.Markdown(who.agent, o.size, tokens)
	}
	return err
}

// observed is a ResponseWriter that notes the status and the size of an
// answer as it passes through, on Caddy's ResponseWriterWrapper; one is
// reused for many requests, as every request would otherwise leave one
// behind. Caddy's response recorder notes the same, but is made anew for
// each request: on every counted request, that is two allocations more
// (BenchmarkMetrics: 3 allocs/op instead of 1).
type observed struct {
	caddyhttp.ResponseWriterWrapper
	status, size int
}

var observedPool = sync.Pool{New: func() any { return new(observed) }}

func (o *observed) WriteHeader(status int) {
	if o.status == 0 && status >= 200 {
		o.status = status
	}
	o.ResponseWriterWrapper.WriteHeader(status)
}

func (o *observed) Write(b []byte) (int, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	n, err := o.ResponseWriterWrapper.Write(b)
	o.size += n
	return n, err
}

func (o *observed) ReadFrom(src io.Reader) (int64, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	n, err := o.ResponseWriterWrapper.ReadFrom(src)
	o.size += int(n)
	return n, err
}

// agent is who sent a request, as far as the module can tell.
type agent struct {
	// agent is one of agents.Labels.
	agent agents.ID
	// verified reports a valid Web Bot Auth signature, made by the agent
	// named; origin is then the signer's (its Signature-Agent host).
	verified bool
	origin   string
}

// identify names the agent of r. Its User-Agent names a family (see
// agents.Classify), which anyone can claim. A valid Web Bot Auth signature
// proves the signer's origin: when that origin is the one a family signs
// as, the request is that family's, verified; a verified signer the list
// does not know is "other", verified. A User-Agent that claims a family
// without its signature is counted as claimed: that family, unverified.
func (h *Handler) identify(r *http.Request) agent {
	claimed := agents.Identify(first(r.Header, "User-Agent"))
	if h.verifier == nil || first(r.Header, "Signature-Input") == "" {
		return agent{agent: claimed}
	}
	res := h.verifier.Verify(r)
	if !res.Verified {
		return agent{agent: claimed}
	}
	host, _, _ := strings.Cut(res.Agent, ":")
	signer, _ := agents.IDOf(agents.OfDomain(host)) // Other for a signer the list does not know
	return agent{agent: signer, verified: true, origin: res.Agent}
}

// first is the first value of the header key, which must be in canonical
// form: Header.Get without canonicalizing a key that already is, which
// costs every counted request a scan of the key.
func first(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// serveUnlessSiteHasOne leaves an address where the site's own file wins
// (/sitemap.xml, /sitemap.md, /.well-known/security.txt) to the site when
// it has that file: the request goes to the next handler, and its answer
// reaches the client unchanged, streamed, unless it says the site has no
// such file (a 404 or 410, no answer at all, or a single-page app's HTML
// page), in which case the module's is served. The module's sitemap is
// always at /sitemap-discovery.xml as well, which robots.txt names.
func (h *Handler) serveUnlessSiteHasOne(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler) error {
	before := w.Header().Clone()
	probe := &siteFileProbe{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
	// A copy, as rewrites behind the module (a single-page app's
	// try_files) change the request they are given.
	err := next.ServeHTTP(probe, r.Clone(r.Context()))
	var he caddyhttp.HandlerError
	switch {
	case errors.As(err, &he) && (he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusGone):
		// file_server's answer for a missing file
	case err != nil:
		return err
	case probe.written && !probe.none:
		return nil // the site's own file, passed on
	}
	restoreHeader(w.Header(), before)
	service.Serve(w, r, m)
	return nil
}

// siteFileProbe passes the site's answer through, unless its status line
// says the site has no such file: then it writes nothing and drops the body
// (an app's HTML page, of any size, is never held in memory).
type siteFileProbe struct {
	*caddyhttp.ResponseWriterWrapper
	written, none bool
}

// WriteHeader decides on the final status; informational answers are
// dropped, as the final one may yet be the module's.
func (p *siteFileProbe) WriteHeader(status int) {
	if p.written || status < http.StatusOK {
		return
	}
	p.written = true
	mediaType, _, _ := mime.ParseMediaType(p.Header().Get("Content-Type"))
	p.none = status == http.StatusNotFound || status == http.StatusGone ||
		status == http.StatusOK && mediaType == "text/html"
	if !p.none {
		p.ResponseWriterWrapper.WriteHeader(status)
	}
}

func (p *siteFileProbe) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	if p.none {
		return len(b), nil
	}
	return p.ResponseWriterWrapper.Write(b)
}

func (p *siteFileProbe) ReadFrom(src io.Reader) (int64, error) {
	p.WriteHeader(http.StatusOK)
	if p.none {
		return io.Copy(io.Discard, src)
	}
	return p.ResponseWriterWrapper.ReadFrom(src)
}

// FlushError flushes only an answer that is passed on.
func (p *siteFileProbe) FlushError() error {
	if p.WriteHeader(http.StatusOK); p.none {
		return nil
	}
	return http.NewResponseController(p.ResponseWriterWrapper).Flush()
}

// serveConverted answers a request that asks for Markdown of a page the
// content does not name: next is asked for the page and its HTML is
// converted (see handlers.Service.ServeConverted). When next fails after it
// answered, its answer was held, not written, so its headers are taken
// back: Caddy's error answer, written next, must not carry them.
func (h *Handler) serveConverted(w http.ResponseWriter, r *http.Request, service *handlers.Service, next caddyhttp.Handler) error {
	before := w.Header().Clone()
	dropped, err := service.ServeConverted(w, r, next.ServeHTTP)
	if dropped {
		restoreHeader(w.Header(), before)
	}
	return err
}

// logConvertFailure logs a page served as HTML to a client that asked for
// Markdown, within the bounds of failureLog: at DEBUG for a page with no
// text to convert or one the site keeps out of indexes, else at WARN.
func (h *Handler) logConvertFailure(page string, err error) {
	suppressed, ok := h.convertLog.admit(page, time.Now())
	if !ok {
		return
	}
	fields := []zap.Field{zap.String("page", clip(page)), zap.Int("suppressed", suppressed)}
	switch {
	case errors.Is(err, handlers.ErrNothingToConvert):
		h.logger.Debug("page served as HTML: it has no text to convert to Markdown", fields...)
	case errors.Is(err, handlers.ErrNoIndex):
		h.logger.Debug("page served as HTML: the site keeps it out of indexes (noindex), so the module makes no Markdown of it", fields...)
	default:
		h.logger.Warn("page served as HTML: it could not be converted to Markdown", append(fields, zap.String("error", clip(err.Error())))...)
	}
}

// The bounds of the log of pages served as HTML for want of Markdown: a
// page at most once a minute, however its path is spelled (pages are
// named by their canonical address) and however often it changes; at most
// failureLines lines a minute for all pages, the others counted in the
// next line's suppressed; a logged page or error at most maxLogged bytes.
const (
	failureLines = 10
	failurePages = 1024
	maxLogged    = 256
)

// failureLog decides which failures are logged.
type failureLog struct {
	mu     sync.Mutex
	logged map[string]time.Time // page: when it was last logged
	// lines is how many lines were logged since start, suppressed how
	// many failures were not since the last line.
	start             time.Time
	lines, suppressed int
}

// admit reports whether the failure of page, at now, is logged, and how
// many failures were not since the previous line.
func (l *failureLog) admit(page string, now time.Time) (suppressed int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= time.Minute {
		l.start, l.lines = now, 0
	}
	if last, seen := l.logged[page]; seen && now.Sub(last) < time.Minute || l.lines >= failureLines {
		l.suppressed++
		return 0, false
	}
	if l.logged == nil || len(l.logged) >= failurePages {
		// Pages logged more than a minute ago are due again anyway; a map
		// full of recent ones is dropped whole, the line limit still holding.
		l.logged = make(map[string]time.Time)
	}
	l.logged[page] = now
	l.lines++
	suppressed, l.suppressed = l.suppressed, 0
	return suppressed, true
}

// clip cuts s to maxLogged bytes, at a character's start.
func clip(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	end := maxLogged
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}
