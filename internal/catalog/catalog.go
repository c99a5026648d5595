// Package catalog is the read-only catalog a Service serves: the content
// and the indexes derived from it once, when the Service is built (the
// insights by slug, their topics, the bodies llms-full.txt prints, the
// search index, the registry of the site's pages and their Markdown twins,
// the MCP tools' names, the site's preferences as headers say them). It
// holds nothing the caller set: the configuration (base URL, switches,
// secrets, clocks, callbacks) stays in handlers.Config, and every index is
// made before the first request and only read after.
//
// Imports from the module: content, internal/convert, internal/search.
package catalog

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
)

// Catalog is the content a Service serves and the indexes derived from it.
type Catalog struct {
	// Site is the loaded content, every insight's page address set (see
	// withPages).
	Site *content.Site

	// BySlug indexes Site.Insights by slug; Topics are their distinct
	// topics, in the content's order.
	BySlug map[string]int
	Topics []string
	// FullBodies are the insights' bodies as llms-full.txt prints them
	// (trimmed), and BodiesSize their total length: they do not depend on
	// the base URL, so they are made once.
	FullBodies []string
	BodiesSize int
	// FullLinks are the FullBodies read for their links and headings, once,
	// on the first llms-full.txt: reading is most of the cost of writing
	// them with their links absolute and their headings demoted, which each
	// base URL does again.
	FullLinks func() []*convert.Body
	// SearchIndex is the search tool's index of Site.Insights.
	SearchIndex *search.Index
	// Pages are the site's pages the content names, by path, and Twins
	// the same pages by the path of their Markdown twin; TwinOfSlug is
	// the path of each insight's twin, by slug.
	Pages, Twins map[string]*Page
	TwinOfSlug   map[string]string
	// SlugOfPage is the slug of each insight by the link of its page
	// (Insight.Page), which is the URI of its MCP resource.
	SlugOfPage map[string]string
	// GuardedPages and GuardedNames are the pages of the posts the owner
	// keeps off every surface, by path and by folded slug (see Guarded).
	GuardedPages, GuardedNames map[string]bool
	// SiteFiles are the addresses of the module's documents the site has
	// files of its own at (Site.SiteFiles), which are left to it;
	// PageTwins the addresses of the twins of the pages the content names
	// but the insights', which the site may have files at.
	SiteFiles map[string]bool
	PageTwins []string
	// ToolNames are the MCP server's tools, the names calls are counted
	// under.
	ToolNames map[string]bool
	// Loaded is when the Service was built from the content, when it
	// serves security.txt.
	Loaded time.Time
	// Signal and Usage are the site's preferences (Site.Signals) in the
	// two vocabularies: Content-Signal's and Content-Usage's.
	Signal, Usage string
}

// Page is one page of the site that the content names, or one of the
// module's own HTML pages (the developer portal): the registry of pages
// and their Markdown twins holds both, under one path rule (twinPath).
type Page struct {
	// Path is the page's path, as requests name it.
	Path string
	// Twin is the path of its Markdown twin, TwinURL the same as it goes
	// in a URL (escaped), and Route the path of the twin's route in the
	// route table (an insight's twin is at the route of them all,
	// /{slug}.md or the like); all empty when the page has none.
	Twin, TwinURL, Route string
	// Slug is the insight of an insight's page.
	Slug string
	// Module marks a page of the module's own, which the module answers
	// in HTML too, choosing between the page and its twin by the request's
	// Accept (see Serve); the other pages are the site's.
	Module bool
}

// New makes the catalog of site: its indexes, but the page registry and
// the tools' names, which the Service fills from its route table before it
// serves. onSite returns the path of a content link that names a page of
// this site.
func New(site *content.Site, onSite func(link string) (string, bool)) *Catalog {
	cat := &Catalog{Site: withPages(site)}
	cat.BySlug = make(map[string]int, len(cat.Site.Insights))
	cat.SlugOfPage = make(map[string]string, len(cat.Site.Insights))
	cat.FullBodies = make([]string, len(cat.Site.Insights))
	for i, in := range cat.Site.Insights {
		cat.BySlug[in.Slug] = i
		cat.SlugOfPage[in.Page] = in.Slug
		cat.FullBodies[i] = strings.TrimSpace(in.Body)
		cat.BodiesSize += len(cat.FullBodies[i])
	}
	fullBodies := cat.FullBodies
	cat.FullLinks = sync.OnceValue(func() []*convert.Body {
		read := make([]*convert.Body, len(fullBodies))
		for i, body := range fullBodies {
			read[i] = convert.ReadBodyDemoted(body)
		}
		return read
	})
	cat.GuardedPages, cat.GuardedNames = make(map[string]bool), make(map[string]bool)
	for _, skip := range cat.Site.Skipped {
		if !skip.Guarded() {
			continue
		}
		if name := content.FoldSlug(skip.Slug); name != "" {
			cat.GuardedNames[name] = true
		}
		if path, ok := onSite(skip.Page); ok && skip.Page != "" {
			cat.GuardedPages[path] = true
		}
	}
	cat.ToolNames = make(map[string]bool)
	cat.SiteFiles = make(map[string]bool, len(cat.Site.SiteFiles))
	for _, p := range cat.Site.SiteFiles {
		cat.SiteFiles[p] = true
	}
	cat.Topics = cat.Site.Topics()
	cat.SearchIndex = search.New(cat.Site.Insights, cat.Site.Language)
	return cat
}

// withPages returns site with every insight's page address set: a Site
// made by a loader has them; one made in code may leave them to the
// pattern Pages.Insight. site itself is never modified.
func withPages(site *content.Site) *content.Site {
	for i := range site.Insights {
		if site.Insights[i].Page != "" {
			continue
		}
		copied := *site
		copied.Insights = slices.Clone(site.Insights)
		for j := range copied.Insights {
			if in := &copied.Insights[j]; in.Page == "" {
				in.Page = content.FillPage(site.Pages.Insight, in.Slug, in.DateISO)
			}
		}
		return &copied
	}
	return site
}

// TwinOfPage is the path of the Markdown twin of the page at path, the
// site's or the module's, or "" when it has none.
func (c *Catalog) TwinOfPage(path string) string {
	if p := c.Pages[path]; p != nil {
		return p.Twin
	}
	return ""
}

// Guarded reports whether path may be the page of a post the owner keeps
// off every surface (private, noindex, sitemap: false, excluded): its
// address as the content gives it, or any address whose last segment
// names the post, as the site's sitemap might place it. The module makes
// no Markdown of such a page.
func (c *Catalog) Guarded(path string) bool {
	if len(c.GuardedNames) == 0 {
		return false
	}
	return c.GuardedPages[path] || c.GuardedNames[content.FoldSlug(content.LastSegment(path))]
}
