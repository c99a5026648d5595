package view

import (
	"net/url"
	"reflect"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// Route is one address the service answers, declared once. The route table
// is the single source for dispatch (methods, 405 and Allow, preflight,
// HEAD), the per-route headers (cache, CORS, bearer policy), the API index,
// /openapi.json, /llms.txt, /auth.md, the developer portal and the MCP
// tools' descriptions. Adding an endpoint is one entry in the table
// (internal/handlers' routes, which binds the route to what answers it)
// plus its renderer or handler.
type Route struct {
	// Path is the address; "{slug}" marks the one path parameter (a
	// published insight's slug, checked before the route is served), and
	// "{cli}" stands for the configured CLI name.
	Path string
	// Method is the method served: GET (which implies HEAD) or POST.
	Method string
	// OperationID names the operation in the OpenAPI description.
	OperationID string
	// Summary is a few words; Description one or two sentences.
	Summary     string
	Description string
	// Tag groups the operation in the OpenAPI description.
	Tag string
	// MediaType is the success response's media type; Body is the Go type
	// of a JSON body, whose schema the OpenAPI description references.
	MediaType string
	Body      reflect.Type
	// Status is the success status when it is not 200: 201 for a created
	// registration, 302 for a redirect (with Location and no body).
	Status int
	// CacheControl is the success response's Cache-Control.
	CacheControl string
	// SiteOrigin restricts CORS to the site's own origin (browsers may call
	// the route only from the site's pages); otherwise any origin may read.
	SiteOrigin bool
	// Bearer makes the route refuse an invalid bearer token: the
	// specification's public endpoints. The other routes ignore
	// Authorization, so that a client whose token has expired can still
	// read the metadata and notes it needs to recover.
	Bearer bool
	// Problems are the statuses of the problem responses beyond the ones
	// every route can give (400, 404, 405, 429, 500).
	Problems []int
	// Listed is where /llms.txt lists the route: ListMain, ListOptional, or
	// not at all.
	Listed Listing
	// RequestMediaType and Request describe a POST body; the body is
	// optional when Request is nil.
	RequestMediaType string
	Request          reflect.Type
	// Query, when set, is a struct whose fields are the query parameters.
	Query reflect.Type
	// ErrorBody, when set, is the type of the 400 response instead of
	// Problem (the OAuth token endpoint answers RFC 6749 errors).
	ErrorBody reflect.Type
	// JSONRPC marks a JSON-RPC endpoint: the body may also be a batch (an
	// array of messages) answered by an array, and a malformed message, a
	// batch over the cap or a batch over the quota is answered with
	// JSON-RPC errors, which is what its clients read.
	JSONRPC bool
	// ExampleArgs are the curl arguments of the portal's example request
	// beyond the method and the address.
	ExampleArgs string
	// Unmetered leaves the route out of the rate limit: the developer
	// portal, which a refused client needs to read; the pages' Markdown
	// twins, which llms.txt links for agents to follow and which cost what
	// the pages they stand for cost (kept bytes, no work per request), so
	// they are limited as the pages are, by the site's own limits if any,
	// not by the API's quota; and the MCP Registry's proof of the domain.
	Unmetered bool
	// AnyAgent serves the route to every agent, whatever the owner's
	// per-agent policy (refuse_agents): the MCP Registry's proof of the
	// domain, which the registry's own fetcher must read.
	AnyAgent bool

	// Kept says that the route's document is rendered once per base URL
	// (once per slug) and kept, so that it has an ETag; Twin that it is
	// the Markdown twin of a page. Both are settled when the table binds
	// the route to what answers it.
	Kept bool
	Twin bool
}

// ReadsAsText reports whether the route's document is one an agent reads
// as text (Markdown or plain text), to be linked from llms.txt.
func (rt *Route) ReadsAsText() bool {
	return rt.MediaType == respond.MediaMarkdown || rt.MediaType == respond.MediaText
}

// HasSlug reports whether the route's path has the {slug} parameter.
func (rt *Route) HasSlug() bool { return strings.Contains(rt.Path, "{slug}") }

// Versioned reports whether the route is part of the versioned JSON API.
func (rt *Route) Versioned() bool { return IsAPIPath(rt.Path) }

// APIPrefix is the prefix of every address under the JSON API's root. The
// service owns /api/v1 and all below it, so an unknown path there is a 404
// problem; the rest of /api/ is the site's.
const APIPrefix = PathIndex + "/"

// MCPPrefix is owned too: an unknown address under /mcp is a 404 problem.
const MCPPrefix = "/mcp/"

// IsAPIPath reports whether p is the JSON API's root or under it.
func IsAPIPath(p string) bool {
	return p == PathIndex || strings.HasPrefix(p, APIPrefix)
}

// The tags that group the operations in the OpenAPI description.
const (
	TagAPI       = "API"
	TagDiscovery = "Discovery"
	TagAuth      = "Authentication"
	TagMCP       = "MCP"
)

// Listing is where /llms.txt lists a route.
type Listing int

const (
	ListNone Listing = iota
	ListMain
	ListOptional
)

// Paths of the routes that code refers to by name.
const (
	PathIndex               = "/api/v1"
	PathHealth              = "/api/v1/health"
	PathProfile             = "/api/v1/profile"
	PathInsights            = "/api/v1/insights"
	PathInsight             = "/api/v1/insights/{slug}"
	PathOpenAPI             = "/openapi.json"
	PathLLMs                = "/llms.txt"
	PathLLMsFull            = "/llms-full.txt"
	PathRobots              = "/robots.txt"
	PathAuth                = "/auth.md"
	PathDevelopers          = "/developers"
	PathCatalog             = "/.well-known/api-catalog"
	PathPRM                 = "/.well-known/oauth-protected-resource"
	PathASM                 = "/.well-known/oauth-authorization-server"
	PathJWKS                = "/.well-known/jwks.json"
	PathServerCard          = "/mcp/server-card"
	PathWellKnownServerCard = "/.well-known/mcp/server-card.json"
	PathCLI                 = "/cli/{cli}.mjs"
	PathMCP                 = "/mcp"
	PathRegister            = "/agent/register"
	PathIdentity            = "/agent/identity"
	PathIdentityClaim       = "/agent/identity/claim"
	PathToken               = "/oauth/token"
	PathAuthorize           = "/oauth/authorize"
	PathClientRegistration  = "/oauth/register"
	PathPRMMCP              = "/.well-known/oauth-protected-resource/mcp"
)

// The addresses agents and scanners probe for the MCP server and the
// site's agent artifacts.
const (
	PathServerCards = "/.well-known/mcp/server-cards.json"
	PathMCPJSON     = "/.well-known/mcp.json"
	PathAICatalog   = "/.well-known/ai-catalog.json"
	PathAgentSkills = "/.well-known/agent-skills/index.json"
	PathSkills      = "/.well-known/skills/index.json"
	// PathSkill is the SKILL.md; "{skill}" stands for the skill's name.
	PathSkill  = "/.well-known/agent-skills/{skill}/SKILL.md"
	PathWebMCP = "/mcp/webmcp.js"
	// The A2A agent card, at the address A2A 1.0 names and at the one of
	// its earlier drafts that scanners still probe.
	PathAgentCard = "/.well-known/agent-card.json"
	PathAgentJSON = "/.well-known/agent.json"
	// The OpenAPI description where scanners look for it.
	PathWellKnownOpenAPI = "/.well-known/openapi.json"
	PathSecurityTxt      = "/.well-known/security.txt"
	// The proof of the domain the official MCP Registry fetches.
	PathMCPRegistryAuth = "/.well-known/mcp-registry-auth"
)

// Paths of the agent pages. The twins' paths stand for the addresses that
// follow the site's own pages (see twinPath), set when the service is built.
const (
	PathSitemap      = "/sitemap.xml"
	PathSitemapOwn   = "/sitemap-discovery.xml"
	PathSitemapMD    = "/sitemap.md"
	PathHomeTwin     = "{twin:home}"
	PathAboutTwin    = "{twin:about}"
	PathInsightsTwin = "{twin:insights}"
	PathInsightTwin  = "{twin:insight}"
	PathContactTwin  = "{twin:contact}"
)

// TwinPath is the address of the Markdown twin of the page at path, the
// one agents try first: "/" and "/docs/" give "/index.md" and
// "/docs/index.md", "/about" and "/about.html" give "/about.md".
func TwinPath(path string) string {
	switch {
	case strings.HasSuffix(path, "/"):
		return path + "index.md"
	case strings.HasSuffix(path, ".html"):
		return strings.TrimSuffix(path, ".html") + ".md"
	case strings.HasSuffix(path, ".htm"):
		return strings.TrimSuffix(path, ".htm") + ".md"
	}
	return path + ".md"
}

// PathDevelopersTwin is the developer portal's Markdown twin, by the rule
// of every page's twin.
var PathDevelopersTwin = TwinPath(PathDevelopers)

// InsightPrefix is the path of an insight before its slug.
var InsightPrefix = strings.TrimSuffix(PathInsight, "{slug}")

// InsightPath is the API path of the insight with the given slug.
// The slug is percent-encoded as a path segment.
func InsightPath(slug string) string { return InsightPrefix + url.PathEscape(slug) }
