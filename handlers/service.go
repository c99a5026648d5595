// Package handlers serves the public discovery API and its documents with
// plain net/http: the Caddy module in the root package only adapts it.
package handlers

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/handlers/token"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PolicyName is the name of the public rate-limit policy.
const PolicyName = "public"

// Config is what a Service serves and how.
type Config struct {
	// Site is the loaded content.
	Site *content.Site
	// BaseURL is the scheme, host and optional port that every published
	// address starts with, without a trailing slash. Empty means the scheme
	// and Host of each request.
	BaseURL string
	// CLIName names the CLI script: /cli/<CLIName>.mjs.
	CLIName string
	// CLIScript is the CLI's source, with the placeholders
	// "__DISCOVERY_BASE_URL__" and "__DISCOVERY_VERSION__".
	CLIScript []byte
	// Robots serves /robots.txt.
	Robots bool
	// Deprecation, Sunset and Successor, when set, announce the end of v1 on
	// every versioned response (RFC 9745, RFC 8594).
	Deprecation time.Time
	Sunset      time.Time
	Successor   string
	// TokenSecret authenticates access tokens and identity assertions; at
	// least token.MinSecretLen bytes.
	TokenSecret []byte
	// MCPAnyHost turns off the MCP endpoint's Host check on loopback
	// listeners (DNS rebinding protection).
	MCPAnyHost bool
	// TokenTTL is the lifetime of access tokens; 0 means 24 hours.
	TokenTTL time.Duration
	// ServiceName and Version identify the service in health reports.
	ServiceName string
	Version     string
	// RateLimit is the public policy the deployment enforces (zero Events:
	// none). The Service only describes it; enforcement is the caller's.
	RateLimit RateLimit
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnPanic, if set, is told of a recovered panic and of the request it
	// happened in (nil for one in an MCP tool, which runs apart from the
	// request); the client gets a 500 problem or a tool error either way.
	OnPanic func(r *http.Request, v any)
}

// DefaultTokenTTL is the lifetime of access tokens unless configured.
const DefaultTokenTTL = 24 * time.Hour

// tokenTTLSeconds is expires_in as the token package computes it: whole
// seconds, rounded down.
func (c *Config) tokenTTLSeconds() int {
	if c.TokenTTL <= 0 {
		return int(DefaultTokenTTL / time.Second)
	}
	return int(c.TokenTTL / time.Second)
}

// RateLimit is a number of events allowed per sliding window.
type RateLimit struct {
	Events int
	Window time.Duration
}

func (rl RateLimit) windowSeconds() int {
	return int(math.Ceil(rl.Window.Seconds()))
}

// Service answers the paths the discovery module owns.
type Service struct {
	cfg Config
	// routes is the route table of this configuration: the CLI path holds
	// the CLI name, and /robots.txt is left out when it is off.
	routes []Route
	// byPath finds the routes by path (the insight route by its pattern).
	byPath map[string]*Route
	// published are the slugs of the published insights.
	published map[string]bool
	// verifier checks access tokens, which name no base URL.
	verifier *token.Issuer
	// fixed is the one rendition when BaseURL is set.
	fixed *rendition
	// byBase caches renditions for request-derived base URLs.
	mu     sync.RWMutex
	byBase map[string]*rendition
}

// maxRenditions bounds how many request-derived base URLs are cached: the
// Host header is chosen by the client.
const maxRenditions = 32

// New builds a Service; with a fixed BaseURL every document is rendered now.
func New(cfg Config) (*Service, error) {
	if cfg.Site == nil {
		return nil, errors.New("no content")
	}
	if cfg.CLIName == "" {
		cfg.CLIName = "discovery"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if !ValidCLIName(cfg.CLIName) {
		return nil, fmt.Errorf("CLI name %q: use letters, digits, hyphens and underscores", cfg.CLIName)
	}
	s := &Service{cfg: cfg, byBase: make(map[string]*rendition), byPath: make(map[string]*Route)}
	for _, rt := range routes {
		if rt.Path == pathRobots && !cfg.Robots {
			continue
		}
		rt.Path = strings.Replace(rt.Path, "{cli}", cfg.CLIName, 1)
		s.routes = append(s.routes, rt)
	}
	for i := range s.routes {
		s.byPath[s.routes[i].Path] = &s.routes[i]
	}
	s.published = make(map[string]bool, len(cfg.Site.Insights))
	for _, in := range cfg.Site.Insights {
		s.published[in.Slug] = true
	}
	var err error
	if s.verifier, err = token.NewIssuer(token.Config{Secret: cfg.TokenSecret, TTL: cfg.TokenTTL, Issuer: "https://verifier.invalid", Now: cfg.Now}); err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	if cfg.BaseURL != "" {
		base, err := NormalizeBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		s.cfg.BaseURL = base
		s.fixed = &rendition{ready: make(chan struct{})}
		close(s.fixed.ready)
		if err := s.render(base, s.fixed); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// NormalizeBaseURL checks that raw is an absolute http(s) URL with a host
// and no path, query or fragment, and returns it without a trailing slash.
func NormalizeBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q: must be an absolute http or https URL", raw)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("base URL %q: must be scheme://host[:port] only, without path, query or credentials", raw)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// Owns reports whether the service answers path; every other path belongs
// to the next handler.
func (s *Service) Owns(path string) bool {
	if isAPIPath(path) || strings.HasPrefix(path, mcpPrefix) {
		return true
	}
	_, ok := s.byPath[path]
	return ok
}

// ValidCLIName reports whether name can name the CLI script: 1 to 64
// letters, digits, hyphens and underscores.
func ValidCLIName(name string) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return name != "" && len(name) <= 64
}

// Base returns the base URL for r: the configured one, or the request's
// scheme and Host. ok is false when the Host is not a valid host[:port].
func (s *Service) Base(r *http.Request) (base string, ok bool) {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL, true
	}
	host := strings.ToLower(r.Host)
	u, err := url.Parse("http://" + host)
	if err != nil || u.Host != host || u.Hostname() == "" || u.User != nil || u.Path != "" {
		return "", false
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host, true
}

// renditionFor returns the documents rendered for base, rendering and
// caching them on first use. Concurrent first requests for one base share
// one rendering.
func (s *Service) renditionFor(base string) *rendition {
	if s.fixed != nil {
		return s.fixed
	}
	s.mu.Lock()
	if rd := s.byBase[base]; rd != nil {
		s.mu.Unlock()
		<-rd.ready
		return rd
	}
	if len(s.byBase) >= maxRenditions {
		for k := range s.byBase { // evict an arbitrary entry
			delete(s.byBase, k)
			break
		}
	}
	rd := &rendition{ready: make(chan struct{})}
	s.byBase[base] = rd
	s.mu.Unlock()
	done := false
	defer func() {
		if !done { // never leave a half-rendered rendition behind
			s.mu.Lock()
			delete(s.byBase, base)
			s.mu.Unlock()
		}
		close(rd.ready)
	}()
	if err := s.render(base, rd); err != nil {
		panic(err) // content was validated at load, so rendering cannot fail
	}
	done = true
	return rd
}

// headersFor returns the per-base header values: a rendition's when one is
// at hand, else computed from base alone, so that a problem never costs a
// rendering.
func (s *Service) headersFor(base string) *baseHeaders {
	if s.fixed != nil {
		return &s.fixed.baseHeaders
	}
	s.mu.Lock()
	rd := s.byBase[base]
	s.mu.Unlock()
	if rd != nil {
		select {
		case <-rd.ready:
			return &rd.baseHeaders
		default:
		}
	}
	bh := s.newBaseHeaders(base)
	return &bh
}

// document is one precomputed response body with its headers.
type document struct {
	route        *Route
	body         []byte
	contentType  string
	etag         string
	cacheControl string
	headers      http.Header // extra headers, such as the portal's CSP
	// encodings are the compressed forms, preferred first, made on first
	// use; the response varies on Accept-Encoding when there are any.
	encodings     []encoding
	contentLength string
}

func newDocument(rt *Route, body []byte) *document {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	return &document{
		route:         rt,
		body:          body,
		contentType:   rt.MediaType,
		etag:          etag,
		cacheControl:  rt.CacheControl,
		headers:       documentHeaders[rt.MediaType],
		encodings:     newEncodings(body),
		contentLength: strconv.Itoa(len(body)),
	}
}

// baseHeaders are the header values that depend on the base URL only.
type baseHeaders struct {
	// origin is the base URL's origin, the one browser origin /mcp accepts.
	origin string
	// link is the Link header every response carries (RFC 9727 and
	// RFC 8631 relations); apiLink adds the deprecation relations for the
	// versioned responses when v1 is deprecated.
	link, apiLink string
	// deprecation and sunset are the RFC 9745 and RFC 8594 fields, if set.
	deprecation, sunset string
}

func (s *Service) newBaseHeaders(base string) baseHeaders {
	developers := base + pathDevelopers
	bh := baseHeaders{
		origin: originOf(base),
		link: fmt.Sprintf(`<%s>; rel="api-catalog", <%s>; rel="service-desc"; type="%s", <%s>; rel="service-doc"; type="text/html"`,
			base+pathCatalog, base+pathOpenAPI, mediaJSON, developers),
	}
	bh.apiLink = bh.link
	if d := s.cfg.Deprecation; !d.IsZero() {
		bh.deprecation = "@" + strconv.FormatInt(d.Unix(), 10)
		bh.apiLink += fmt.Sprintf(`, <%s#versioning>; rel="deprecation"; type="text/html"`, developers)
		if s.cfg.Successor != "" {
			bh.apiLink += fmt.Sprintf(`, <%s>; rel="successor-version"`, s.cfg.Successor)
		}
	}
	if t := s.cfg.Sunset; !t.IsZero() {
		bh.sunset = t.UTC().Format(http.TimeFormat)
	}
	return bh
}

// rendition is every document rendered for one base URL.
type rendition struct {
	links
	baseHeaders
	docs map[string]*document
	// tokens issues tokens and identity assertions naming this base URL.
	tokens *token.Issuer
	// mcp is the stateless MCP handler, built once per rendition.
	mcp http.Handler
	// ready is closed when the rendition is complete.
	ready chan struct{}
}

// render fills rd with every document rendered for base.
func (s *Service) render(base string, rd *rendition) error {
	l := links{base: base, cfg: &s.cfg, routes: s.routes, onPanic: func(v any) {
		if s.cfg.OnPanic != nil {
			s.cfg.OnPanic(nil, v)
		}
	}}
	rd.links = l
	rd.baseHeaders = s.newBaseHeaders(base)
	rd.docs = make(map[string]*document)
	var err error
	rd.tokens, err = token.NewIssuer(token.Config{Secret: s.cfg.TokenSecret, TTL: s.cfg.TokenTTL, Issuer: base, Now: s.cfg.Now})
	if err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	server := l.mcpServer()
	rd.mcp = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// hostAllowed does this check, knowing the configured base URL.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodySize,
	})
	for i := range s.routes {
		rt := &s.routes[i]
		body, ok, err := l.renderDocument(rt)
		if err != nil {
			return fmt.Errorf("rendering %s: %w", rt.Path, err)
		}
		if ok {
			rd.docs[rt.Path] = newDocument(rt, body)
		}
	}
	insightRoute := s.byPath[pathInsight]
	for _, in := range s.cfg.Site.Insights {
		body, err := json.Marshal(l.insightDocument(in))
		if err != nil {
			return err
		}
		rd.docs[InsightPath(in.Slug)] = newDocument(insightRoute, body)
	}
	return nil
}

// Header values every owned response carries. Names are set as map keys so
// that they keep the specification's spelling (Go would canonicalise
// API-Version to Api-Version).
const (
	valueNoSniff      = "nosniff"
	valueExposed      = "API-Version, RateLimit, RateLimit-Policy, Retry-After, ETag, Link, Location, WWW-Authenticate, Deprecation, Sunset"
	valuePreflightMax = "86400"
	valueAllowed      = "Accept, Authorization, Content-Type, If-None-Match, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID"
)

// fields sets precomputed header values on one response. It copies them
// into an array of the response's own, one allocation for all: middleware
// such as Caddy's header directive edits values in place, and a slice
// shared between responses would carry one response's edit into all.
type fields struct {
	h   http.Header
	buf []string
}

func newFields(h http.Header) *fields {
	return &fields{h: h, buf: make([]string, 0, 16)}
}

func (f *fields) set(key, value string) {
	f.buf = append(f.buf, value)
	n := len(f.buf)
	f.h[key] = f.buf[n-1 : n : n]
}

// RateLimited answers a request the rate limiter refused: a 429 problem with
// Retry-After and the RateLimit headers at zero remaining. It renders
// nothing, so refusing stays cheap whatever the Host.
func (s *Service) RateLimited(w http.ResponseWriter, r *http.Request, rh RateLimitHeaders, retryAfter int) {
	defer s.recoverPanic(w, r)
	base, ok := s.Base(r)
	f := newFields(w.Header())
	if ok {
		s.headersFor(base).setCommon(f, r)
	}
	rh.Set(w.Header(), 0, time.Duration(retryAfter)*time.Second)
	f.set("Retry-After", strconv.Itoa(retryAfter))
	p := NewProblem(base, CodeRateLimited, r, fmt.Sprintf(
		"This client has used all %d requests the %q policy allows in %d seconds.",
		s.cfg.RateLimit.Events, PolicyName, s.cfg.RateLimit.windowSeconds()))
	p.Hint = fmt.Sprintf("Retry after %d seconds (the Retry-After header); the RateLimit header shows the quota left on every response.", retryAfter)
	p.ViolatedPolicies = []string{PolicyName}
	WriteProblem(w, r, p)
}

// ServeHTTP answers a request for a path the service owns. Everything that
// can be answered without the documents (a bad Host, an unknown path, a
// method, a preflight, a malformed or unknown slug) is answered before the
// rendition for the request's base URL is looked up.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w, r)
	f := newFields(w.Header())
	base, ok := s.Base(r)
	if !ok {
		p := NewProblem("", CodeBadRequest, r, "The Host header "+quote(r.Host)+" is not a valid host name and port.")
		p.Hint = "Send the site's host name in the Host header."
		WriteProblem(w, r, p)
		return
	}
	bh := s.headersFor(base)
	bh.setCommon(f, r)
	path := r.URL.Path
	rt := s.byPath[path]
	slug, isInsight := strings.CutPrefix(path, insightPrefix)
	if rt == nil && isInsight && slug != "" && !strings.Contains(slug, "/") {
		rt = s.byPath[pathInsight]
	}
	if rt == nil {
		WriteProblem(w, r, NewProblem(base, CodeNotFound, r, "The requested API endpoint does not exist."))
		return
	}

	switch r.Method {
	case http.MethodOptions:
		preflight(f, w, rt)
		return
	case rt.Method:
	case http.MethodHead:
		if rt.Method != http.MethodGet {
			methodNotAllowed(f, w, r, base, rt)
			return
		}
	default:
		methodNotAllowed(f, w, r, base, rt)
		return
	}

	if rt.Path == pathInsight && !s.published[slug] {
		if !content.ValidSlug(slug) {
			p := NewProblem(base, CodeBadRequest, r, "The slug "+quote(slug)+" is not valid: a slug is "+content.SlugGrammar+".")
			p.Hint = "Take slugs from the items of " + base + pathInsights + "."
			WriteProblem(w, r, p)
			return
		}
		p := NewProblem(base, CodeNotFound, r, "The requested API endpoint does not exist: no published insight has the slug "+quote(slug)+".")
		p.Hint = "List the published insights and their slugs at " + base + pathInsights + "; the machine-readable description is at " + base + pathOpenAPI + "."
		WriteProblem(w, r, p)
		return
	}
	if rt.checksBearer() && !s.checkAuthorization(w, r, base) {
		return
	}

	rd := s.renditionFor(base)
	switch rt.Path {
	case pathMCP:
		s.serveMCP(w, r, rd)
	case pathRegister:
		s.serveRegister(w, r, rd)
	case pathIdentity:
		s.serveIdentity(w, r, rd)
	case pathIdentityClaim:
		s.serveClaim(w, r, rd)
	case pathToken:
		s.serveToken(w, r, rd)
	case pathHealth:
		body, _ := json.Marshal(rd.health(s.cfg.Now()))
		f.set("Content-Type", mediaJSON)
		f.set("Cache-Control", cacheNever)
		writeBody(w, r, http.StatusOK, body)
	default:
		doc := rd.docs[path]
		if doc == nil { // every GET route has a document; this is a safeguard
			WriteProblem(w, r, NewProblem(base, CodeNotFound, r, "The requested API endpoint does not exist."))
			return
		}
		serveDocument(f, w, r, doc)
	}
}

// setCommon sets the headers every owned response carries.
func (bh *baseHeaders) setCommon(f *fields, r *http.Request) {
	f.set("X-Content-Type-Options", valueNoSniff)
	if r.URL.Path == pathMCP {
		// Browsers may call the MCP endpoint only from the site itself.
		f.set("Access-Control-Allow-Origin", bh.origin)
		f.set("Vary", "Origin")
	} else {
		f.set("Access-Control-Allow-Origin", "*")
	}
	f.set("Access-Control-Expose-Headers", valueExposed)
	if isAPIPath(r.URL.Path) {
		f.set("API-Version", APIVersion)
		f.set("Link", bh.apiLink)
		if bh.deprecation != "" {
			f.set("Deprecation", bh.deprecation)
		}
		if bh.sunset != "" {
			f.set("Sunset", bh.sunset)
		}
	} else {
		f.set("Link", bh.link)
	}
}

// recoverPanic turns a panic while serving r into a 500 internal_error
// problem, so a fault in one request never takes the server down. It
// re-panics http.ErrAbortHandler, which net/http uses to abort a response.
func (s *Service) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	if s.cfg.OnPanic != nil {
		s.cfg.OnPanic(r, v)
	}
	base, _ := s.Base(r)
	WriteProblem(w, r, NewProblem(base, CodeInternalError, r, "The service failed to answer this request."))
}

func methodNotAllowed(f *fields, w http.ResponseWriter, r *http.Request, base string, rt *Route) {
	f.set("Allow", rt.allow())
	WriteProblem(w, r, NewProblem(base, CodeMethodNotAllowed, r,
		"The method "+quote(r.Method)+" is not allowed on "+rt.Path+"; it accepts "+rt.allow()+"."))
}

// preflight answers a CORS preflight request for rt.
func preflight(f *fields, w http.ResponseWriter, rt *Route) {
	f.set("Allow", rt.allow())
	f.set("Access-Control-Allow-Methods", rt.allow())
	f.set("Access-Control-Allow-Headers", valueAllowed)
	f.set("Access-Control-Max-Age", valuePreflightMax)
	w.WriteHeader(http.StatusNoContent)
}

// serveDocument writes a precomputed document, or 304 when the client's
// If-None-Match names its ETag. A compressed form is chosen when the client
// accepts it; its ETag differs from the identity form's, as RFC 9110 asks
// of representations.
func serveDocument(f *fields, w http.ResponseWriter, r *http.Request, doc *document) {
	f.set("Content-Type", doc.contentType)
	f.set("Cache-Control", doc.cacheControl)
	for k, v := range doc.headers {
		f.set(k, v[0])
	}
	body, etag, length := doc.body, doc.etag, doc.contentLength
	if len(doc.encodings) > 0 {
		f.set("Vary", "Accept-Encoding")
		if ae := r.Header.Get("Accept-Encoding"); ae != "" {
			for i := range doc.encodings {
				if !acceptsEncoding(ae, doc.encodings[i].name) {
					continue
				}
				if e := doc.encodings[i].get(i, doc.body, doc.etag); e != nil {
					body, etag, length = e.body, e.etag, e.contentLength
					f.set("Content-Encoding", e.name)
					break
				}
			}
		}
	}
	f.set("Etag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	f.set("Content-Length", length)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// "*" or any listed tag whose opaque part equals etag's.
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}
