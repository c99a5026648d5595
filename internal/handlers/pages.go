package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/negotiate"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The site's own pages that the content names (home, about, the list of
// insights, each insight's page) stay the site's: the module never answers
// them in HTML. What it adds is for agents: RFC 8288 Link values on the
// site's answer, pointing at the API and at the page's Markdown twin, and
// that twin itself, at an address that follows the page's own and, for
// Accept: text/markdown, at the page's address.

// pageOf gives the address of one of the site's pages named in Pages.
func pageOf(page func(content.Pages) string) func(links, string) string {
	return func(l links, _ string) string { return l.Abs(page(l.Cat.Site.Pages)) }
}

// onSite returns the path of a content link that names a page of this
// site: a path, or an absolute URL of the configured base URL's origin.
// Without a configured base URL only paths do, since any Host may then be
// the site's. A link with a query or a fragment names no page of its own.
func (c *Config) onSite(link string) (string, bool) {
	u, err := url.Parse(link)
	if err != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return "", false
	}
	if u.Scheme != "" && (c.BaseURL == "" || origin.Of(link) != origin.Of(c.BaseURL)) {
		return "", false
	}
	if u.Path == "" {
		return "/", true
	}
	return u.Path, true
}

// placeAgentRoutes settles the routes of the agent pages and indexes the
// site's pages. A page of the site gets a Markdown twin, when its twin
// route is enabled (Markdown is on), unless the
// twin's path is already the module's (another route, or an earlier page's
// twin): it is left out rather than shadow it; the twin routes take their
// paths here, and one whose page got no twin is dropped. A page whose own
// path the module serves is not the site's. Runs once, when the service is
// built, on every other route and before byPath; it returns the routes
// with the twin routes placed.
func placeAgentRoutes(cfg *Config, cat *catalog.Catalog, routes []route) []route {
	// taken are the module's paths; twinRoutes the placeholders of the
	// twin routes this configuration serves (none with Markdown off).
	taken := make(map[string]bool, len(routes))
	twinRoutes := make(map[string]bool)
	for _, rt := range routes {
		if rt.placeholder() {
			twinRoutes[rt.Path] = true
		} else {
			taken[rt.Path] = true
		}
	}
	owned := func(path string) bool {
		return taken[path] || view.IsAPIPath(path) || strings.HasPrefix(path, view.MCPPrefix) || cat.SiteFiles[path]
	}

	// The pages, in order of precedence, with the placeholder of their
	// twin's route; an insight's twin follows its page, /insights/x
	// giving /insights/x.md and /2024/05/01/x/ /2024/05/01/x/index.md.
	// The insight twins' route takes the path of the pattern's twin,
	// /insights/{slug}.md, which describes them in openapi.json.
	type candidate struct {
		path, twin, placeholder, slug string
	}
	var candidates []candidate
	pages := cat.Site.Pages
	for _, page := range []struct{ placeholder, link string }{
		{view.PathHomeTwin, pages.Home}, {view.PathAboutTwin, pages.About}, {view.PathInsightsTwin, pages.Insights},
		{view.PathContactTwin, cat.Site.Profile.Contact.Form},
	} {
		if page.link == "" {
			continue
		}
		if path, ok := cfg.onSite(page.link); ok {
			candidates = append(candidates, candidate{path, view.TwinPath(path), page.placeholder, ""})
		}
	}
	twinPattern := "/{slug}.md"
	if pattern, ok := cfg.onSite(pages.Insight); ok {
		twinPattern = view.TwinPath(pattern)
	}
	for _, in := range cat.Site.Insights {
		if path, ok := cfg.onSite(in.Page); ok {
			candidates = append(candidates, candidate{path, view.TwinPath(path), view.PathInsightTwin, in.Slug})
		}
	}
	cat.Pages = make(map[string]*catalog.Page, len(candidates))
	cat.Twins = make(map[string]*catalog.Page, len(candidates))
	cat.TwinOfSlug = make(map[string]string, len(cat.Site.Insights))
	placed := map[string]string{} // placeholder -> path of the twin route
	type twinned struct {
		page        *catalog.Page
		placeholder string
	}
	var withTwins []twinned
	for _, c := range candidates {
		if owned(c.path) || cat.Pages[c.path] != nil {
			continue
		}
		p := &catalog.Page{Path: c.path, Slug: c.slug}
		cat.Pages[c.path] = p
		if c.slug == "" && twinRoutes[c.placeholder] {
			cat.PageTwins = append(cat.PageTwins, c.twin)
		}
		if !twinRoutes[c.placeholder] || owned(c.twin) || cat.Twins[c.twin] != nil {
			continue
		}
		p.Twin, p.TwinURL = c.twin, (&url.URL{Path: c.twin}).EscapedPath()
		cat.Twins[c.twin] = p
		withTwins = append(withTwins, twinned{p, c.placeholder})
		placed[c.placeholder] = c.twin
		if c.slug != "" {
			placed[c.placeholder] = twinPattern
			cat.TwinOfSlug[c.slug] = c.twin
		}
	}

	kept := routes[:0]
	for _, rt := range routes {
		if rt.placeholder() {
			if placed[rt.Path] == "" {
				continue
			}
			rt.Path = placed[rt.Path]
		}
		kept = append(kept, rt)
	}
	routes = kept
	routeOf := make(map[string]*route)
	for i := range routes {
		if rt := &routes[i]; rt.twinOf != nil {
			routeOf[rt.Path] = rt
		}
	}
	for _, t := range withTwins {
		if rt := routeOf[placed[t.placeholder]]; rt != nil {
			t.page.Route = rt.Path
		}
	}
	// The module's own HTML pages whose twin, at the same rule's address,
	// is one of its routes: the developer portal and /developers.md.
	for i := range routes {
		rt := &routes[i]
		if rt.MediaType != respond.MediaHTML || rt.Method != http.MethodGet {
			continue
		}
		twin := view.TwinPath(rt.Path)
		if route := routeOf[twin]; route != nil && !route.placeholder() && cat.Twins[twin] == nil {
			p := &catalog.Page{Path: rt.Path, Twin: twin, TwinURL: (&url.URL{Path: twin}).EscapedPath(), Route: route.Path, Module: true}
			cat.Pages[rt.Path], cat.Twins[twin] = p, p
			rt.page = p
		}
	}
	return routes
}

// wantsMarkdown reports whether r, a request for a page with a twin, is
// answered with the twin: its Accept prefers text/markdown to HTML, or,
// with MarkdownByUserAgent, it comes from a known AI agent (by
// User-Agent) and its Accept names no HTML type. A browser, or an agent
// that asks for HTML by name, gets the site's HTML.
func (c *Config) wantsMarkdown(r *http.Request) bool {
	return negotiate.WantsMarkdown(r, c.MarkdownByUserAgent)
}

// pageVary is the Vary value of every answer at a page with a twin: the
// fields that choose between its HTML and its Markdown.
func (c *Config) pageVary() string {
	if c.MarkdownByUserAgent {
		return pages.VaryAcceptUserAgent
	}
	return pages.VaryAccept
}

// newPageLinks are the links every page of the site gets on base.
func newPageLinks(base string) *pages.Links {
	return pages.NewLinks(base, view.PathCatalog, view.PathOpenAPI, view.PathDevelopers, view.PathLLMs)
}
