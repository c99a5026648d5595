// Package view is what a renderer sees of a Service for one base URL: the
// addresses resolved against it (Links, whose catalog is the content and
// its indexes), the routes the configuration serves as data (Route, without
// what answers them) and the paths code refers to by name, and the API's
// JSON bodies built from them (api.go). It reads only the fields of the
// caller's configuration named in Caller, so that the renderers of
// internal/docs and the MCP server build what they answer without
// importing handlers; the route table that binds each route to its
// renderer stays with dispatch, in handlers.
//
// Imports from the module: content, internal/catalog, internal/origin, internal/ratelimit, internal/respond, internal/wire.
package view

import (
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
)

// Links resolves the addresses a rendition publishes against one base URL.
// Its methods, all in this file, are those addresses; each document is a
// function of one Links value, in the file of its concept (the API's JSON
// in api.go here, llms.txt in internal/docs' llms.go, ...).
type Links struct {
	Base string
	// Cat is the catalog: the content and its indexes, its page registry
	// naming the route of each Markdown twin by its path.
	Cat *catalog.Catalog
	// Routes are the routes the configuration serves, in the table's
	// order (the order documents list them), the twins' at their paths.
	Routes []*Route
	Caller
}

// Caller is what the view reads of the caller's configuration: the
// service's names, the switches that change an address or what a document
// says, and the policies the documents describe.
type Caller struct {
	// ServiceName and Version identify the service in health reports.
	ServiceName string
	Version     string
	// CLIName names the CLI script: /cli/<CLIName>.mjs.
	CLIName string
	// WebMCP says that the WebMCP script is served.
	WebMCP bool
	// OnSite returns the path of a content link that names a page of
	// this site.
	OnSite func(link string) (string, bool)

	// CLIScript is the CLI's source, with the placeholders
	// "__DISCOVERY_BASE_URL__" and "__DISCOVERY_VERSION__".
	CLIScript []byte
	// RobotsContentUsage adds the site's preferences to robots.txt as a
	// Content-Usage rule beside the Content-Signal one.
	RobotsContentUsage bool
	// Sitemap says that the module's sitemaps are served (and named in
	// robots.txt); SiteSitemaps are the site's own, named there too.
	Sitemap      bool
	SiteSitemaps []string
	// MCPDiscovery, Skills and AgentCard say that the server card's
	// well-known addresses and the AI catalog, the agent skill and its
	// indexes, and the A2A agent card are served.
	MCPDiscovery bool
	Skills       bool
	AgentCard    bool
	// MCPRegistryKey is the base64 Ed25519 public key of the MCP
	// Registry's proof of the domain, or "".
	MCPRegistryKey string
	// TokenSeconds is the lifetime of access tokens in whole seconds.
	TokenSeconds int
	// ClientMetadataDocuments says that client ids may be the URLs of
	// Client ID Metadata Documents.
	ClientMetadataDocuments bool
	// RateLimit is the public policy the deployment enforces (zero
	// Events: none); RefusesAgents that the owner refuses some agents a
	// 403 problem, which every operation then documents.
	RateLimit     ratelimit.Policy
	RefusesAgents bool
	// Robots says that robots.txt is served (merged into the site's own).
	Robots bool
	// Deprecation, Sunset and Successor, when set, announce the end of v1
	// (RFC 9745, RFC 8594).
	Deprecation, Sunset time.Time
	Successor           string
}

// RouteAt is the route of path, if the configuration serves it.
func (l Links) RouteAt(path string) *Route {
	for _, rt := range l.Routes {
		if rt.Path == path {
			return rt
		}
	}
	return nil
}

// PathFor is the path of the route's document for slug, as requests name
// it (not percent-encoded): an insight's twin is at its page's twin, an
// API address has the slug in place of {slug}.
func PathFor(cat *catalog.Catalog, rt *Route, slug string) string {
	switch {
	case slug == "":
		return rt.Path
	case rt.Twin:
		return cat.TwinOfSlug[slug]
	}
	return strings.ReplaceAll(rt.Path, "{slug}", slug)
}

// URLPathFor is PathFor as it goes in a URL, percent-encoded.
func URLPathFor(cat *catalog.Catalog, rt *Route, slug string) string {
	return (&url.URL{Path: PathFor(cat, rt, slug)}).EscapedPath()
}

// Abs makes a content link absolute: a path beginning with "/" is taken
// relative to the base URL.
func (l Links) Abs(link string) string {
	if strings.HasPrefix(link, "/") {
		return l.Base + link
	}
	return link
}

func (l Links) Developers() string { return l.Base + PathDevelopers }

func (l Links) OpenAPI() string { return l.Base + PathOpenAPI }

// CLIURL is the address of the command-line client.
func (l Links) CLIURL() string {
	return l.Base + strings.Replace(PathCLI, "{cli}", l.CLIName, 1)
}

// Insight is the address of the page of the insight with the given slug.
func (l Links) Insight(slug string) string { return l.Abs(l.InsightLink(slug)) }

// InsightLink is the content's link of an insight's page, before it is
// made absolute.
func (l Links) InsightLink(slug string) string {
	if i, ok := l.Cat.BySlug[slug]; ok {
		return l.Cat.Site.Insights[i].Page
	}
	return content.FillPage(l.Cat.Site.Pages.Insight, slug, "")
}

// PostURL is the address of the insight a Jekyll tag names by its file
// ("2024-05-01-name", "_posts/2024-05-01-name.md", "/drafts/name"): the
// Insight whose slug is the name without its folders, extension and
// date.
func (l Links) PostURL(name string) (string, bool) {
	name = path.Base(name)
	name, _ = content.NameSlug(strings.TrimSuffix(name, path.Ext(name)))
	if _, ok := l.Cat.BySlug[name]; !ok {
		return "", false
	}
	return l.Insight(name), true
}

// Published returns the published insight with the given slug.
func (l Links) Published(slug string) (content.Insight, bool) {
	i, ok := l.Cat.BySlug[slug]
	if !ok {
		return content.Insight{}, false
	}
	return l.Cat.Site.Insights[i], true
}

// TwinURL is the address of the Markdown twin of the content link (a page),
// and whether it has one.
func (l Links) TwinURL(link string) (string, bool) {
	path, ok := l.OnSite(link)
	if !ok || link == "" { // no page, not the home page
		return "", false
	}
	p := l.Cat.Pages[path]
	if p == nil || p.Twin == "" {
		return "", false
	}
	return l.Base + p.TwinURL, true
}

// PageLink is the address agents should read a site page at: its
// Markdown twin when it has one, else the page.
func (l Links) PageLink(link string) string {
	if twin, ok := l.TwinURL(link); ok {
		return twin
	}
	return l.Abs(link)
}

// SkillPath is the address of the SKILL.md.
func (l Links) SkillPath() string {
	return strings.Replace(PathSkill, "{skill}", SkillName(l.CLIName), 1)
}

// DefaultCLIName is the CLI name when the caller sets none.
const DefaultCLIName = "discovery"

// SkillName is the skill's name, from the CLI's name (the name the site
// already gives its tools): the skill grammar's lowercase letters, digits
// and single inner hyphens, at most 64 characters.
func SkillName(cliName string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(cliName) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-")
	}
	if name == "" {
		return DefaultCLIName
	}
	return name
}

// WebMCPScriptURL is the script's address, or "" when it is off.
func (l Links) WebMCPScriptURL() string {
	if !l.WebMCP {
		return ""
	}
	return l.Base + PathWebMCP
}

// WebMCPSource is the CSP source that allows the script on the portal and
// no other: its own URL. A host-source cannot name an IPv6 address, so a
// base URL with one falls back to the portal's own origin.
func (l Links) WebMCPSource(path string) string {
	if strings.Contains(origin.HostOnly(origin.HostOf(l.Base)), ":") {
		return "'self'"
	}
	return l.Base + path
}
