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

func (c *Config) tokenTTLSeconds() int {
	if c.TokenTTL <= 0 {
		return int(DefaultTokenTTL / time.Second)
	}
	return int(math.Ceil(c.TokenTTL.Seconds()))
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
	// byPath finds the routes with fixed paths.
	byPath map[string]*Route
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
	if cfg.BaseURL != "" {
		base, err := NormalizeBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		s.cfg.BaseURL = base
		if s.fixed, err = s.render(base); err != nil {
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
// scheme and host.
func (s *Service) Base(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(r.Host)
}

// renditionFor returns the documents rendered for r's base URL, rendering
// and caching them on first use.
func (s *Service) renditionFor(r *http.Request) (*rendition, error) {
	if s.fixed != nil {
		return s.fixed, nil
	}
	base := s.Base(r)
	s.mu.RLock()
	rd := s.byBase[base]
	s.mu.RUnlock()
	if rd != nil {
		return rd, nil
	}
	rd, err := s.render(base)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.byBase) >= maxRenditions {
		for k := range s.byBase { // evict an arbitrary entry
			delete(s.byBase, k)
			break
		}
	}
	s.byBase[base] = rd
	s.mu.Unlock()
	return rd, nil
}

// document is one precomputed response body with its headers.
type document struct {
	route        *Route
	body         []byte
	contentType  []string
	etag         []string
	cacheControl []string
	headers      http.Header // extra headers, such as the portal's CSP
	// encodings are the compressed forms, preferred first, made on first
	// use; the response varies on Accept-Encoding when there are any.
	encodings     []encoding
	contentLength []string
}

func newDocument(rt *Route, body []byte) *document {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	return &document{
		route:         rt,
		body:          body,
		contentType:   []string{rt.MediaType},
		etag:          []string{etag},
		cacheControl:  []string{rt.CacheControl},
		headers:       documentHeaders[rt.MediaType],
		encodings:     newEncodings(body),
		contentLength: []string{strconv.Itoa(len(body))},
	}
}

// rendition is every document rendered for one base URL.
type rendition struct {
	links
	docs map[string]*document
	// link is the Link header every response carries (RFC 9727 and
	// RFC 8631 relations); apiLink adds the deprecation relations for the
	// versioned responses when v1 is deprecated.
	link, apiLink []string
	// deprecation and sunset are the RFC 9745 and RFC 8594 fields, if set.
	deprecation, sunset []string
	// tokens issues and verifies tokens; assertions name this base URL.
	tokens *token.Issuer
	// origin is the base URL's origin, the one browser origin /mcp accepts.
	origin      string
	valueOrigin []string
	// mcp is the stateless MCP handler, built once per rendition.
	mcp http.Handler
}

func (s *Service) render(base string) (*rendition, error) {
	l := links{base: base, cfg: &s.cfg, routes: s.routes, onPanic: func(v any) {
		if s.cfg.OnPanic != nil {
			s.cfg.OnPanic(nil, v)
		}
	}}
	rd := &rendition{
		links: l,
		docs:  make(map[string]*document),
		link: []string{fmt.Sprintf(`<%s>; rel="api-catalog", <%s>; rel="service-desc"; type="%s", <%s>; rel="service-doc"; type="text/html"`,
			base+pathCatalog, l.openAPI(), mediaJSON, l.developers())},
	}
	var err error
	rd.tokens, err = token.NewIssuer(token.Config{Secret: s.cfg.TokenSecret, TTL: s.cfg.TokenTTL, Issuer: base, Now: s.cfg.Now})
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	rd.origin = originOf(base)
	rd.valueOrigin = []string{rd.origin}
	server := l.mcpServer()
	rd.mcp = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// hostAllowed does this check, knowing the configured base URL.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodySize,
	})
	rd.apiLink = rd.link
	if d := s.cfg.Deprecation; !d.IsZero() {
		rd.deprecation = []string{"@" + strconv.FormatInt(d.Unix(), 10)}
		apiLink := rd.link[0] + fmt.Sprintf(`, <%s#versioning>; rel="deprecation"; type="text/html"`, l.developers())
		if s.cfg.Successor != "" {
			apiLink += fmt.Sprintf(`, <%s>; rel="successor-version"`, s.cfg.Successor)
		}
		rd.apiLink = []string{apiLink}
	}
	if t := s.cfg.Sunset; !t.IsZero() {
		rd.sunset = []string{t.UTC().Format(http.TimeFormat)}
	}
	for i := range s.routes {
		rt := &s.routes[i]
		body, ok, err := l.renderDocument(rt)
		if err != nil {
			return nil, fmt.Errorf("rendering %s: %w", rt.Path, err)
		}
		if ok {
			rd.docs[rt.Path] = newDocument(rt, body)
		}
	}
	insightRoute := s.byPath[pathInsight]
	for _, in := range s.cfg.Site.Insights {
		body, err := json.Marshal(l.insightDocument(in))
		if err != nil {
			return nil, err
		}
		rd.docs[InsightPath(in.Slug)] = newDocument(insightRoute, body)
	}
	return rd, nil
}

// Headers every owned response carries. Header names are set as map keys so
// that they keep the specification's spelling (Go would canonicalise
// API-Version to Api-Version).
var (
	valueNoSniff      = []string{"nosniff"}
	valueAnyOrigin    = []string{"*"}
	valueExposed      = []string{"API-Version, RateLimit, RateLimit-Policy, Retry-After, ETag, Link, Location, WWW-Authenticate, Deprecation, Sunset"}
	valueAPIVersion   = []string{APIVersion}
	valuePreflightMx  = []string{"86400"}
	valueAllowedHdrs  = []string{"Accept, Authorization, Content-Type, If-None-Match, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID"}
	valueVaryOrigin   = []string{"Origin"}
	valueVaryEncoding = []string{"Accept-Encoding"}
)

// setCommonHeaders sets the headers every owned response carries.
func (rd *rendition) setCommonHeaders(h http.Header, r *http.Request) {
	h["X-Content-Type-Options"] = valueNoSniff
	if r.URL.Path == pathMCP {
		// Browsers may call the MCP endpoint only from the site itself.
		h["Access-Control-Allow-Origin"] = rd.valueOrigin
		h["Vary"] = valueVaryOrigin
	} else {
		h["Access-Control-Allow-Origin"] = valueAnyOrigin
	}
	h["Access-Control-Expose-Headers"] = valueExposed
	if isAPIPath(r.URL.Path) {
		h["API-Version"] = valueAPIVersion
		h["Link"] = rd.apiLink
		if rd.deprecation != nil {
			h["Deprecation"] = rd.deprecation
		}
		if rd.sunset != nil {
			h["Sunset"] = rd.sunset
		}
	} else {
		h["Link"] = rd.link
	}
}

// RateLimited answers a request the rate limiter refused: a 429 problem with
// Retry-After and the RateLimit headers at zero remaining.
func (s *Service) RateLimited(w http.ResponseWriter, r *http.Request, rh RateLimitHeaders, retryAfter int) {
	defer s.recoverPanic(w, r)
	rd, err := s.renditionFor(r)
	if err != nil {
		panic(err)
	}
	h := w.Header()
	rd.setCommonHeaders(h, r)
	wait := time.Duration(retryAfter) * time.Second
	rh.Set(h, 0, wait)
	h["Retry-After"] = []string{strconv.Itoa(retryAfter)}
	p := NewProblem(rd.base, CodeRateLimited, r, fmt.Sprintf(
		"This client has used all %d requests the %q policy allows in %d seconds.",
		s.cfg.RateLimit.Events, PolicyName, s.cfg.RateLimit.windowSeconds()))
	p.Hint = fmt.Sprintf("Retry after %d seconds (the Retry-After header); the RateLimit header shows the quota left on every response.", retryAfter)
	p.ViolatedPolicies = []string{PolicyName}
	WriteProblem(w, r, p)
}

// ServeHTTP answers a request for a path the service owns.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w, r)
	rd, err := s.renditionFor(r)
	if err != nil {
		panic(err) // content was validated at load, so rendering cannot fail
	}
	h := w.Header()
	rd.setCommonHeaders(h, r)
	path := r.URL.Path
	doc := rd.docs[path]
	var rt *Route
	switch {
	case doc != nil:
		rt = doc.route
	case s.byPath[path] != nil && s.byPath[path].Method == http.MethodPost:
		rt = s.byPath[path]
	case path == pathHealth:
		rt = s.byPath[pathHealth]
	case strings.HasPrefix(path, insightPrefix) && !strings.Contains(path[len(insightPrefix):], "/"):
		rt = s.byPath[pathInsight]
	default:
		WriteProblem(w, r, NewProblem(rd.base, CodeNotFound, r,
			"The requested API endpoint does not exist."))
		return
	}

	switch r.Method {
	case http.MethodOptions:
		preflight(w, rt)
		return
	case rt.Method:
	case http.MethodHead:
		if rt.Method != http.MethodGet {
			s.methodNotAllowed(w, r, rd, rt)
			return
		}
	default:
		s.methodNotAllowed(w, r, rd, rt)
		return
	}

	if rt.Method == http.MethodPost {
		// The token endpoints take no bearer: a client's own credentials
		// there are ignored, as no client authentication is used. /mcp is a
		// public endpoint like the API and checks it.
		switch rt.Path {
		case pathMCP:
			if s.checkAuthorization(w, r, rd) {
				s.serveMCP(w, r, rd)
			}
		case pathRegister:
			s.serveRegister(w, r, rd)
		case pathIdentity:
			s.serveIdentity(w, r, rd)
		case pathIdentityClaim:
			s.serveClaim(w, r, rd)
		case pathToken:
			s.serveToken(w, r, rd)
		}
		return
	}
	if !s.checkAuthorization(w, r, rd) {
		return
	}
	switch {
	case doc != nil:
		serveDocument(w, r, doc)
	case rt.Path == pathHealth:
		body, _ := json.Marshal(rd.health(s.cfg.Now()))
		h["Content-Type"] = []string{mediaJSON}
		h["Cache-Control"] = []string{cacheNever}
		writeBody(w, r, http.StatusOK, body)
	default: // an insight that is not published
		slug := path[len(insightPrefix):]
		if !content.ValidSlug(slug) {
			p := NewProblem(rd.base, CodeBadRequest, r,
				"The slug "+quote(slug)+" is not valid: a slug is "+content.SlugGrammar+".")
			p.Hint = "Take slugs from the items of " + rd.base + pathInsights + "."
			WriteProblem(w, r, p)
			return
		}
		p := NewProblem(rd.base, CodeNotFound, r, "No published insight has the slug "+quote(slug)+".")
		p.Hint = "List the published insights and their slugs at " + rd.base + pathInsights + "; the machine-readable description is at " + rd.openAPI() + "."
		WriteProblem(w, r, p)
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
	base := s.cfg.BaseURL
	if base == "" {
		base = s.Base(r)
	}
	WriteProblem(w, r, NewProblem(base, CodeInternalError, r, "The service failed to answer this request."))
}

func (s *Service) methodNotAllowed(w http.ResponseWriter, r *http.Request, rd *rendition, rt *Route) {
	w.Header()["Allow"] = []string{rt.allow()}
	WriteProblem(w, r, NewProblem(rd.base, CodeMethodNotAllowed, r,
		"The method "+quote(r.Method)+" is not allowed on "+rt.Path+"; it accepts "+rt.allow()+"."))
}

// preflight answers a CORS preflight request for rt.
func preflight(w http.ResponseWriter, rt *Route) {
	h := w.Header()
	h["Allow"] = []string{rt.allow()}
	h["Access-Control-Allow-Methods"] = []string{rt.allow()}
	h["Access-Control-Allow-Headers"] = valueAllowedHdrs
	h["Access-Control-Max-Age"] = valuePreflightMx
	w.WriteHeader(http.StatusNoContent)
}

// serveDocument writes a precomputed document, or 304 when the client's
// If-None-Match names its ETag.
// A precompressed form is chosen when the client accepts it; its ETag
// differs from the identity form's, as RFC 9110 asks of representations.
func serveDocument(w http.ResponseWriter, r *http.Request, doc *document) {
	h := w.Header()
	h["Content-Type"] = doc.contentType
	h["Cache-Control"] = doc.cacheControl
	for k, v := range doc.headers {
		h[k] = v
	}
	body, etag, length := doc.body, doc.etag, doc.contentLength
	if len(doc.encodings) > 0 {
		h["Vary"] = valueVaryEncoding
		if ae := r.Header.Get("Accept-Encoding"); ae != "" {
			for i := range doc.encodings {
				if !acceptsEncoding(ae, doc.encodings[i].name) {
					continue
				}
				if e := doc.encodings[i].get(i, doc.body, doc.etag[0]); e != nil {
					body, etag, length = e.body, e.etag, e.contentLength
					h["Content-Encoding"] = e.contentCoding
					break
				}
			}
		}
	}
	h["ETag"] = etag
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = length
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
