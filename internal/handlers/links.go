package handlers

import (
	"path"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
)

// links resolves the addresses a rendition publishes against one base URL.
// Its methods, all in this file, are those addresses; each document is a
// function of one links value, in the file of its concept (llms.txt in
// documents.go, the portal in portal.go, ...).
type links struct {
	base string
	cfg  *Config
	// cat is the catalog: the content and its indexes.
	cat    *siteCatalog
	routes []Route
	// onPanic reports a panic recovered outside the request goroutine.
	onPanic func(any)
}

// abs makes a content link absolute: a path beginning with "/" is taken
// relative to the base URL.
func (l links) abs(link string) string {
	if strings.HasPrefix(link, "/") {
		return l.base + link
	}
	return link
}

func (l links) developers() string { return l.base + pathDevelopers }

func (l links) openAPI() string { return l.base + pathOpenAPI }

// cliURL is the address of the command-line client.
func (l links) cliURL() string {
	return l.base + strings.Replace(pathCLI, "{cli}", l.cfg.CLIName, 1)
}

// insight is the address of the page of the insight with the given slug.
func (l links) insight(slug string) string { return l.abs(l.insightLink(slug)) }

// insightLink is the content's link of an insight's page, before it is
// made absolute.
func (l links) insightLink(slug string) string {
	if i, ok := l.cat.BySlug[slug]; ok {
		return l.cat.Site.Insights[i].Page
	}
	return content.FillPage(l.cat.Site.Pages.Insight, slug, "")
}

// postURL is the address of the insight a Jekyll tag names by its file
// ("2024-05-01-name", "_posts/2024-05-01-name.md", "/drafts/name"): the
// insight whose slug is the name without its folders, extension and
// date.
func (l links) postURL(name string) (string, bool) {
	name = path.Base(name)
	name, _ = content.NameSlug(strings.TrimSuffix(name, path.Ext(name)))
	if _, ok := l.cat.BySlug[name]; !ok {
		return "", false
	}
	return l.insight(name), true
}

// published returns the published insight with the given slug.
func (l links) published(slug string) (content.Insight, bool) {
	i, ok := l.cat.BySlug[slug]
	if !ok {
		return content.Insight{}, false
	}
	return l.cat.Site.Insights[i], true
}

// twinURL is the address of the Markdown twin of the content link (a page),
// and whether it has one.
func (l links) twinURL(link string) (string, bool) {
	path, ok := l.cfg.onSite(link)
	if !ok || link == "" { // no page, not the home page
		return "", false
	}
	p := l.cat.Pages[path]
	if p == nil || p.Twin == "" {
		return "", false
	}
	return l.base + p.TwinURL, true
}

// pageLink is the address agents should read a site page at: its
// Markdown twin when it has one, else the page.
func (l links) pageLink(link string) string {
	if twin, ok := l.twinURL(link); ok {
		return twin
	}
	return l.abs(link)
}

// routeAt is the route of path, if the configuration serves it.
func (l links) routeAt(path string) *Route {
	for i := range l.routes {
		if l.routes[i].Path == path {
			return &l.routes[i]
		}
	}
	return nil
}

// skillPath is the address of the SKILL.md.
func (l links) skillPath() string {
	return strings.Replace(pathSkill, "{skill}", skillName(l.cfg.CLIName), 1)
}

// webMCPScriptURL is the script's address, or "" when it is off.
func (l links) webMCPScriptURL() string {
	if !l.cfg.servesWebMCP() {
		return ""
	}
	return l.base + pathWebMCP
}

// webMCPSource is the CSP source that allows the script on the portal and
// no other: its own URL. A host-source cannot name an IPv6 address, so a
// base URL with one falls back to the portal's own origin.
func (l links) webMCPSource(path string) string {
	if strings.Contains(origin.HostOnly(origin.HostOf(l.base)), ":") {
		return "'self'"
	}
	return l.base + path
}
