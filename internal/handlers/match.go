package handlers

import (
	"net/http"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// Who answers a request, as Match finds it.
const (
	// AnswerSite: the site alone; the module adds nothing.
	AnswerSite = iota
	// AnswerPage: a page of the site the content names, answered by the
	// site with the module's Link and Vary values added (see PageWriter).
	AnswerPage
	// AnswerConverted: a page of the site the content does not name,
	// asked for as Markdown: the site's HTML, converted (see
	// ServeConverted).
	AnswerConverted
	// AnswerOwned: the module, from its route table (see Serve).
	AnswerOwned
)

// Match is what the service makes of one request: who answers it and,
// when the module does, by which route. It is resolved once per request,
// by Match, and every later question about the request (its metrics
// surface, whether it is metered, whether the site is asked first) is
// answered from it without looking the path up again.
type Match struct {
	// Answer is one of the Answer constants.
	Answer int
	// route answers an owned request; nil for an unknown address under
	// the API's prefix, which gets a 404 problem.
	route *route
	// slug is the insight's, for the routes of one insight.
	slug string
	// page is the site page of the path the content names, if any.
	page *catalog.Page
	// listed: route is the one at the path itself in the route table (not
	// a twin, nor an insight found by its slug).
	listed bool
	// negotiated: a page of the site asked for as Markdown, answered with
	// its twin, varying on what chose it.
	negotiated bool
	// unmetered leaves the request out of the rate limit.
	unmetered bool
}

// Match finds who answers r: the module (a path it owns, or a page the
// content names asked for as Markdown), the site with the module's
// headers added (a page the content names), the site converted (another
// page asked for as Markdown), or the site alone.
func (s *Service) Match(r *http.Request) Match {
	path := r.URL.Path
	if rt, slug := s.route(path); rt != nil {
		listed := s.byPath[path] == rt
		m := Match{Answer: AnswerOwned, route: rt, slug: slug, listed: listed}
		m.unmetered = rt.Unmetered || !listed && s.cat.Pages[path] != nil
		return m
	}
	if view.IsAPIPath(path) || strings.HasPrefix(path, view.MCPPrefix) {
		return Match{Answer: AnswerOwned}
	}
	p := s.cat.Pages[path]
	if p == nil {
		if s.converter.Converts(r) { // the path is neither the module's nor a named page
			return Match{Answer: AnswerConverted}
		}
		return Match{}
	}
	if p.Route != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && s.cfg.wantsMarkdown(r) {
		return Match{Answer: AnswerOwned, route: s.twinRoute(p), slug: p.Slug, page: p, negotiated: true, unmetered: true}
	}
	return Match{Answer: AnswerPage, page: p, unmetered: true}
}

// ModulePath reports whether the request's address is one the module
// owns, rather than a page of the site (even one it answers as Markdown).
func (m Match) ModulePath() bool { return m.Answer == AnswerOwned && !m.negotiated }

// Insight returns the insight whose page the request is for, when the
// site answers it (AnswerPage).
func (s *Service) Insight(m Match) (content.Insight, bool) {
	if m.Answer != AnswerPage || m.page.Slug == "" {
		return content.Insight{}, false
	}
	return view.Links{Cat: s.cat}.Published(m.page.Slug)
}

// Surface is the metrics surface of the request (see metrics.Surfaces);
// "" for a request the site alone answers, which is not counted.
func (m Match) Surface() string {
	switch {
	case m.Answer == AnswerSite:
		return ""
	case m.Answer == AnswerPage:
		return "pages"
	case m.Answer == AnswerConverted || m.negotiated:
		return "markdown"
	case m.route == nil:
		return "api"
	}
	return m.route.surface
}

// Unmetered reports whether the request is left out of the rate limit:
// the developer portal and its Markdown twin, so that a client told to
// wait can still read why and for how long; the MCP Registry's proof of
// the domain, which the registry reads from addresses it shares with
// others and must always find; and the site's pages the
// content names, asked for as Markdown at their own address, so that a
// crawler reading the site gets every page as it would without the
// module rather than a 429. They are precomputed documents, as cheap to
// serve as the site's own static pages, which are not counted either.
func (m Match) Unmetered() bool { return m.unmetered }

// ForEveryAgent reports whether the request's address is served to every
// agent, whatever the owner's per-agent policy: the MCP Registry's proof
// of the domain.
func (m Match) ForEveryAgent() bool { return m.listed && m.route.AnyAgent }

// Merges reports whether the module merges its lines into the
// site's robots.txt at the request's address.
func (m Match) Merges() bool { return m.listed && m.route.merge != nil }

// MaxSiteFile is the largest file of the site's that is merged at an
// address where Merges; a larger one is served as the site sent it.
const MaxSiteFile = docs.MaxSiteFile

// SiteFirst reports whether the request's address is one where the
// module answers only when the site has no file of its own
// (/sitemap.xml, /sitemap.md, /.well-known/security.txt): the caller asks
// the site first.
func (m Match) SiteFirst() bool { return m.listed && m.route.siteFirst }
