// Package handlers serves the public discovery API and its documents with
// plain net/http: the Caddy module in the root package only adapts it. It
// owns the route table (routes.go), the single spine every surface is
// generated from, which binds each route to its renderer in internal/docs
// or to what serves it; matching a request to a route (match.go) and
// answering it (service.go); the documents of each base URL, rendered once
// and kept (rendition.go), from the view handed to the renderers and to
// the MCP server of internal/mcp, and to internal/portal with the example
// bodies of the routes' renderers (links.go); and the registry of the site's
// pages the content names, with their Markdown twins (pages.go). The
// routes that vary per request hand it to the packages that own them: the
// OAuth and identity endpoints to internal/oauth, /mcp to internal/mcp, the
// site's answers for its pages (their Link and Vary values, the other pages
// converted) to internal/pages.
//
// Imports from the module: content, internal/body, internal/cache, internal/catalog, internal/cimd, internal/convert, internal/docs, internal/mcp, internal/metrics, internal/negotiate, internal/oauth, internal/origin, internal/pages, internal/portal, internal/problem, internal/ratelimit, internal/respond, internal/token, internal/view, internal/wire.
package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/negotiate"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/portal"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// Service answers the paths the discovery module owns.
type Service struct {
	cfg Config
	// cat is the catalog of the content, its indexes made once.
	cat *catalog.Catalog
	// routes is the route table of this configuration: the CLI path holds
	// the CLI name, and /robots.txt is left out when it is off.
	routes []route
	// byPath finds the routes by path (the insight route by its pattern).
	byPath map[string]*route
	// insightRoute is the route of one insight by its slug.
	insightRoute *route
	// oauth answers the OAuth and identity endpoints, and checks bearer
	// tokens.
	oauth *oauth.Server
	// fixed is the one rendition when BaseURL is set.
	fixed *rendition
	// hosted caches the renditions of request-derived base URLs.
	hosted *renditionCache
	// pageLinks are the Link values of the site's pages on the configured
	// base URL.
	pageLinks *pages.Links
	// documents are the addresses Documents reports.
	documents []string
	// converter answers the site's other pages as Markdown; nil when
	// Markdown is off.
	converter *pages.Converter
}

// New builds a Service; with a fixed BaseURL every document is rendered now.
func New(cfg Config) (*Service, error) {
	if cfg.Site == nil {
		return nil, errors.New("no content")
	}
	cfg.withDefaults()
	var loaded time.Time
	if cfg.servesSecurityTxt() {
		loaded = cfg.Now() // security.txt's Expires counts from it
	}
	if !ValidCLIName(cfg.CLIName) {
		return nil, fmt.Errorf("CLI name %q: use letters, digits, hyphens and underscores", cfg.CLIName)
	}
	cat := catalog.New(cfg.Site, cfg.onSite)
	cat.Loaded = loaded
	cat.Signal, cat.Usage = docs.SignalValue(cat.Site.Signals), docs.UsageValue(cat.Site.Signals)
	s := &Service{cfg: cfg, cat: cat, hosted: newRenditionCache(renditionBudget), byPath: make(map[string]*route)}
	var documents []string
	for _, rt := range routes {
		if rt.enabled != nil && !rt.enabled(&cfg) {
			continue
		}
		switch {
		case rt.leftToTheSite():
			documents = append(documents, rt.Path)
			if cat.SiteFiles[rt.Path] {
				continue // the site's own file: never hidden
			}
		case rt.merge != nil && rt.Path != view.PathRobots:
			// llms.txt: merged with the site's own when the reader found
			// one (a site that answers every address with the same text
			// has none), else the module's.
			documents = append(documents, rt.Path)
			if !cat.SiteFiles[rt.Path] {
				rt.merge = nil
			}
		}
		rt.Path = strings.Replace(rt.Path, "{cli}", cfg.CLIName, 1)
		rt.Path = strings.Replace(rt.Path, "{skill}", view.SkillName(cfg.CLIName), 1)
		rt.Kept, rt.Twin = rt.render != nil, rt.twinOf != nil
		s.routes = append(s.routes, rt)
	}
	s.routes = placeAgentRoutes(&s.cfg, s.cat, s.routes)
	s.documents = slices.Concat(documents, s.cat.PageTwins)
	slices.Sort(s.documents)
	for i := range s.routes {
		s.routes[i].surface = surfaceOf(&s.routes[i])
	}
	for i := range s.routes {
		s.byPath[s.routes[i].Path] = &s.routes[i]
	}
	s.insightRoute = s.byPath[view.PathInsight]
	for _, t := range mcp.DeclaredTools(newLinks("", &s.cfg, s.cat, s.routes).mcpSite()) {
		s.cat.ToolNames[t.Name] = true
	}
	if cfg.servesMarkdown() {
		s.converter = pages.NewConverter(&pages.Config{
			MarkdownByUserAgent: s.cfg.MarkdownByUserAgent, Signal: s.cat.Signal, Usage: s.cat.Usage,
			Now: s.cfg.Now, Metrics: s.cfg.Metrics, OnConvertFailure: s.cfg.OnConvertFailure, Guarded: s.cat.Guarded,
		})
	}
	// The verifier names no base URL: it checks access tokens, and issues
	// and checks client ids and authorization codes.
	verifier, err := token.NewIssuer(token.Config{Secret: cfg.TokenSecret, TTL: cfg.TokenTTL, Issuer: "https://verifier.invalid", Now: cfg.Now})
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	s.oauth = oauth.New(oauth.Config{
		Verifier: verifier, Ledger: cfg.CodeLedger, ClientMetadata: cfg.ClientMetadata, Now: cfg.Now,
		BodyTimeout: cfg.BodyTimeout, Owns: s.Owns, Paths: docs.OAuthPaths,
		SiteName: s.cat.Site.Profile.Name, PageStyle: portal.LimitedCSS, PageCSP: portal.LimitedCSP, Metrics: cfg.Metrics,
	})
	if cfg.BaseURL != "" {
		base, err := origin.NormalizeBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		s.cfg.BaseURL = base
		s.pageLinks = newPageLinks(base)
		s.fixed = s.newRendition(base)
		if err := s.renderAll(s.fixed); err != nil {
			return nil, err
		}
		s.fixed.mcpHandler()
	}
	return s, nil
}

// Site is the content the service publishes.
func (s *Service) Site() *content.Site { return s.cat.Site }

// SitePages are the paths, percent-encoded, of the site's own pages whose
// addresses the service publishes (home, about, the insights list, the
// contact form and each insight's page), sorted.
func (s *Service) SitePages() []string {
	paths := make([]string, 0, len(s.cat.Pages))
	for path, p := range s.cat.Pages {
		if !p.Module {
			paths = append(paths, (&url.URL{Path: path}).EscapedPath())
		}
	}
	slices.Sort(paths)
	return paths
}

// Documents are the addresses of the module's documents a site may have
// files of its own at (an llms.txt is merged instead, robots.txt too),
// those left to the site among them: the reader asks the site for each,
// and those the site serves are left to it (see content.Site.SiteFiles).
func (s *Service) Documents() []string { return s.documents }

// Owns reports whether the service answers path; every other path belongs
// to the next handler.
func (s *Service) Owns(path string) bool {
	if view.IsAPIPath(path) || strings.HasPrefix(path, view.MCPPrefix) {
		return true
	}
	_, ok := s.byPath[path]
	return ok || s.cat.Twins[path] != nil
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

// base returns the base URL for r: the configured one, or the request's
// scheme and Host. ok is false when the Host is not a valid host[:port].
func (s *Service) base(r *http.Request) (base string, ok bool) {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL, true
	}
	return origin.RequestBase(r)
}

// twinRoute is the route of the page p's Markdown twin (the twins' paths
// are settled and unique when byPath is made); nil when it has none.
func (s *Service) twinRoute(p *catalog.Page) *route { return s.byPath[p.Route] }

// route finds the route of path and, for an insight, its slug.
func (s *Service) route(path string) (rt *route, slug string) {
	if rt := s.byPath[path]; rt != nil {
		return rt, ""
	}
	if p := s.cat.Twins[path]; p != nil {
		return s.twinRoute(p), p.Slug
	}
	slug, ok := strings.CutPrefix(path, view.InsightPrefix)
	if ok && slug != "" && !strings.Contains(slug, "/") && s.insightRoute != nil {
		return s.insightRoute, slug
	}
	return nil, ""
}

// ConvertsPage reports whether the service answers r with the site's own
// page converted to Markdown: the converter would (see
// pages.Converter.Converts), and the path is neither the module's nor one of
// the pages the content names, which keep their twins.
func (s *Service) ConvertsPage(r *http.Request) bool {
	return s.cat.Pages[r.URL.Path] == nil && !s.Owns(r.URL.Path) && s.converter.Converts(r)
}

// ServeConverted answers r, for which ConvertsPage holds, with the site's
// page as Markdown, asking site (the handlers behind the module) for its
// HTML: see pages.Converter.Serve, which says what dropped and err report.
func (s *Service) ServeConverted(w http.ResponseWriter, r *http.Request, site func(http.ResponseWriter, *http.Request) error) (dropped bool, err error) {
	base, ok := s.base(r)
	if !ok {
		return false, site(w, r)
	}
	return s.converter.Serve(w, r, base, site)
}

// PageWriter returns the writer the site should answer r with: w itself,
// unless r is a GET or HEAD of a page the content names, in which case the
// returned writer adds the module's Link values and Vary: Accept to the
// site's answer as it is written (see pages.Writer).
func (s *Service) PageWriter(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return w
	}
	p := s.cat.Pages[r.URL.Path]
	if p == nil || !s.cfg.PageLinks && p.Route == "" {
		return w
	}
	base, ok := s.base(r)
	if !ok {
		return w
	}
	pw := pages.NewWriter(w, pages.Page{Twin: p.Twin, TwinURL: p.TwinURL, Negotiated: p.Route != ""}, base, s.cfg.MarkdownByUserAgent)
	if s.cfg.PageLinks {
		if pw.Links = s.pageLinks; pw.Links == nil {
			pw.Links = newPageLinks(base) // a request-derived base URL
		}
	}
	return pw
}

// ServeMerged answers a route that merges the site's own file (robots.txt,
// llms.txt; see Match.Merges): site is the site's file when it has one,
// nil when it has none, in which case the module's own document is
// served.
func (s *Service) ServeMerged(w http.ResponseWriter, r *http.Request, m Match, site []byte) {
	if site == nil {
		s.Serve(w, r, m)
		return
	}
	defer s.recoverPanic(w, r)
	base, ok := s.base(r)
	if !ok {
		s.Serve(w, r, m) // the Host problem
		return
	}
	rt := m.route
	f := newFields(w.Header())
	s.headersFor(base).setCommon(f, r, rt)
	rd := s.renditionOf(r, base)
	serveDocument(f, w, r, newDocument(rt, rt.merge(rd.links.Links, site), rd.eager == nil))
}

// ServeHTTP answers r as Serve does, matching it first.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Serve(w, r, s.Match(r))
}

// Serve answers a request the module answers, matched by m, as its route
// declares. Everything that can be answered without the documents (a bad
// or refused Host, an unknown path, a method, a preflight, a bad bearer token, a
// malformed or unknown slug) is answered before the rendition for the
// request's base URL is looked up.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request, m Match) {
	w, linger := body.Guard(w, r)
	defer linger()
	defer s.recoverPanic(w, r)
	f := newFields(w.Header())
	base, ok := s.base(r)
	if !ok {
		p := problem.New("", problem.BadRequest, r, "The Host header "+problem.Quote(r.Host)+" is not a valid host name and port"+
			fmt.Sprintf(" (at most %d characters).", origin.MaxHostLen))
		p.Hint = "Send the site's host name in the Host header."
		respond.Problem(w, r, p)
		return
	}
	rt, slug := m.route, m.slug
	if m.negotiated {
		// A site page asked for as Markdown: its twin, varying on Accept.
		f.vary = s.cfg.pageVary()
	}
	if p := rt.modulePage(); p != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		// A module page with a Markdown twin: HTML unless the request
		// wants Markdown (as on the site's pages), either way varying on
		// what chose.
		f.vary = s.cfg.pageVary()
		if s.cfg.wantsMarkdown(r) {
			rt = s.twinRoute(p)
		}
	}
	// A Host /mcp does not answer to is refused whatever the method, and
	// the refusal names no address after it.
	refusedHost := rt != nil && rt.Path == view.PathMCP && !mcp.HostAllowed(r, s.cfg.MCPAnyHost, s.cfg.BaseURL)
	if refusedHost {
		base = mcp.TrustedBase(r, s.cfg.BaseURL)
	}
	bh := s.headersFor(base)
	bh.setCommon(f, r, rt)
	if rt == nil {
		respond.Problem(w, r, problem.New(base, problem.NotFound, r, "The requested API endpoint does not exist."))
		return
	}
	if refusedHost {
		mcp.RefuseHost(w, r, base)
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
	if rt.Bearer && !s.oauth.CheckBearer(w, r, base, rt.Path) {
		return
	}
	if _, ok := s.cat.BySlug[slug]; rt.HasSlug() && !ok {
		s.unknownSlug(w, r, base, slug)
		return
	}

	rd := s.renditionOf(r, base)
	if rt.serve != nil {
		rt.serve(s, w, r, rd)
		return
	}
	doc := s.document(rd, rt, slug, view.PathFor(s.cat, &rt.Route, slug))
	if doc == nil { // every rendered route has a document; this is a safeguard
		respond.Problem(w, r, problem.New(base, problem.NotFound, r, "The requested API endpoint does not exist."))
		return
	}
	serveDocument(f, w, r, doc)
}

// unknownSlug answers a slug that names no published insight: 400 when it
// is outside the slug grammar, else 404.
func (s *Service) unknownSlug(w http.ResponseWriter, r *http.Request, base, slug string) {
	if !content.ValidSlug(slug) {
		p := problem.New(base, problem.BadRequest, r, "The slug "+problem.Quote(slug)+" is not valid: a slug is "+content.SlugGrammar+".")
		p.Hint = "Take slugs from the items of " + base + view.PathInsights + "."
		respond.Problem(w, r, p)
		return
	}
	p := problem.New(base, problem.NotFound, r, "The requested API endpoint does not exist: no published insight has the slug "+problem.Quote(slug)+".")
	p.Hint = "List the published insights and their slugs at " + base + view.PathInsights + "; the machine-readable description is at " + base + view.PathOpenAPI + "."
	respond.Problem(w, r, p)
}

// serveHealth answers the health check, made per request for its time.
func (s *Service) serveHealth(w http.ResponseWriter, r *http.Request, rd *rendition) {
	respond.JSON(w, r, http.StatusOK, rd.links.Health(s.cfg.Now()))
}

// RateLimited answers a request the rate limiter refused: a 429 problem with
// Retry-After and the RateLimit headers at zero remaining. It renders
// nothing, so refusing stays cheap whatever the Host.
func (s *Service) RateLimited(w http.ResponseWriter, r *http.Request, m Match, rh ratelimit.Headers, retryAfter int) {
	w, linger := body.Guard(w, r)
	defer linger()
	defer s.recoverPanic(w, r)
	base, ok := s.base(r)
	f := newFields(w.Header())
	if ok {
		s.headersFor(base).setCommon(f, r, m.route)
	}
	rh.Set(w.Header(), 0, time.Duration(retryAfter)*time.Second)
	f.set(respond.HeaderRetryAfter, strconv.Itoa(retryAfter))
	// The answer depends on Accept: a page for people, a problem for
	// programs.
	if vary := w.Header().Get(respond.HeaderVary); vary != "" {
		f.set(respond.HeaderVary, vary+", Accept")
	} else {
		f.set(respond.HeaderVary, "Accept")
	}
	if ok && negotiate.PrefersHTML(r.Header.Values("Accept")) {
		writeLimitedPage(&s.cfg, s.cat, f, w, r, base, retryAfter)
		return
	}
	respond.Problem(w, r, ratelimit.Problem(s.cfg.RateLimit, base, r, retryAfter))
}

// setCommon sets the headers every owned response carries; rt is nil for
// an unknown path. Content-Usage states the site's preferences for the use
// of what the module answers (draft-ietf-aipref-attach: representation
// metadata, so it goes with every answer rather than with one resource).
func (bh *baseHeaders) setCommon(f *fields, r *http.Request, rt *route) {
	f.set(respond.HeaderNoSniff, respond.ValueNoSniff)
	f.set(pages.HeaderContentUsage, bh.usage)
	if rt != nil && rt.SiteOrigin {
		// Browsers may call the route only from the site itself.
		f.set(respond.HeaderAllowOrigin, bh.origin)
		f.set(respond.HeaderVary, "Origin")
	} else {
		f.set(respond.HeaderAllowOrigin, "*")
	}
	f.set(respond.HeaderExposeHeaders, valueExposed)
	if view.IsAPIPath(r.URL.Path) {
		f.set(respond.HeaderAPIVersion, view.APIVersion)
		f.set(respond.HeaderLink, bh.apiLink)
		if bh.deprecation != "" {
			f.set(respond.HeaderDeprecation, bh.deprecation)
		}
		if bh.sunset != "" {
			f.set(respond.HeaderSunset, bh.sunset)
		}
	} else {
		f.set(respond.HeaderLink, bh.link)
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
	base, _ := s.base(r)
	respond.Problem(w, r, problem.New(base, problem.InternalError, r, "The service failed to answer this request."))
}

func methodNotAllowed(f *fields, w http.ResponseWriter, r *http.Request, base string, rt *route) {
	f.set(respond.HeaderAllow, rt.allow())
	respond.Problem(w, r, problem.New(base, problem.MethodNotAllowed, r,
		"The method "+problem.Quote(r.Method)+" is not allowed on "+rt.Path+"; it accepts "+rt.allow()+"."))
}

// preflight answers a CORS preflight request for rt.
func preflight(f *fields, w http.ResponseWriter, rt *route) {
	f.set(respond.HeaderAllow, rt.allow())
	f.set(respond.HeaderAllowMethods, rt.allow())
	f.set(respond.HeaderAllowHeaders, valueAllowed)
	f.set(respond.HeaderMaxAge, valuePreflightMax)
	w.WriteHeader(http.StatusNoContent)
}

// surfaceOf is the metrics surface of a route (see metrics.Surfaces).
func surfaceOf(rt *route) string {
	switch p := rt.Path; {
	case p == view.PathDevelopers || p == view.PathDevelopersTwin:
		return "portal"
	case rt.twinOf != nil:
		return "markdown"
	case p == view.PathToken || p == view.PathRegister || strings.HasPrefix(p, view.PathIdentity):
		return "tokens"
	case strings.HasPrefix(p, "/oauth/") || p == view.PathPRM || p == view.PathASM || p == view.PathJWKS || p == view.PathPRMMCP:
		return "oauth"
	case view.IsAPIPath(p):
		return "api"
	case p == view.PathMCP:
		return "mcp"
	case p == view.PathLLMs || p == view.PathLLMsFull:
		return "llms"
	case p == view.PathSitemap || p == view.PathSitemapOwn || p == view.PathSitemapMD:
		return "sitemap"
	case p == view.PathRobots:
		return "robots"
	case strings.HasPrefix(p, "/cli/"):
		return "cli"
	}
	return "documents"
}

// RefuseAgent answers r, from an agent the site's owner refuses, with a
// 403 problem naming it.
func (s *Service) RefuseAgent(w http.ResponseWriter, r *http.Request, agent string) {
	base, ok := s.base(r)
	if !ok {
		base = mcp.TrustedBase(r, s.cfg.BaseURL)
	}
	p := problem.New(base, problem.Forbidden, r, "This site's owner does not serve "+agent+" here.")
	p.Hint = "The site's own pages and robots.txt say what " + agent + " may read."
	respond.Problem(w, r, p)
}
