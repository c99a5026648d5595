package handlers

import (
	"net/http"
	"strings"
)

// Route is one address the service answers. The route table is the single
// source for dispatch, the API index, the OpenAPI description and every
// document that lists endpoints.
type Route struct {
	// Path is the address; "{slug}" marks the one path parameter.
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
	// MediaType is the success response's media type; Schema names its
	// component schema when the body is JSON.
	MediaType string
	Schema    string
	// CacheControl is the success response's Cache-Control.
	CacheControl string
	// Problems are the statuses of the problem responses beyond the ones
	// every route can give (404, 405, 429, 500).
	Problems []int
	// Listed is where /llms.txt lists the route: listMain, listOptional, or
	// not at all.
	Listed listing
	// RequestMediaType and RequestSchema describe a POST body; the request
	// body is optional when RequestSchema is empty.
	RequestMediaType string
	RequestSchema    string
	// ErrorSchema, when set, names the schema of the 400 response instead of
	// Problem (the OAuth token endpoint answers RFC 6749 errors).
	ErrorSchema string
	// ExampleArgs are the curl arguments of the portal's example request
	// beyond the method and the address.
	ExampleArgs string
}

type listing int

const (
	listNone listing = iota
	listMain
	listOptional
)

// checksBearer reports whether the route refuses an invalid bearer token:
// the specification's public endpoints (the API, /llms.txt, /mcp). The
// other documents ignore Authorization, so that a client whose token has
// expired can still read the metadata and notes it needs to recover.
func (rt *Route) checksBearer() bool {
	return rt.Versioned() || rt.Path == pathLLMs || rt.Path == pathMCP
}

// Versioned reports whether the route is part of the versioned JSON API.
func (rt Route) Versioned() bool { return isAPIPath(rt.Path) }

// allow is the Allow header of the route.
func (rt Route) allow() string {
	if rt.Method == http.MethodGet {
		return "GET, HEAD, OPTIONS"
	}
	return rt.Method + ", OPTIONS"
}

const (
	tagAPI       = "API"
	tagDiscovery = "Discovery"
	tagAuth      = "Authentication"
	tagMCP       = "MCP"

	cacheAPI      = "public, max-age=300"
	cacheDocument = "public, max-age=3600"
	cacheNever    = "no-store"

	mediaJSON     = "application/json"
	mediaProblem  = "application/problem+json"
	mediaText     = "text/plain; charset=utf-8"
	mediaMarkdown = "text/markdown; charset=utf-8"
	mediaHTML     = "text/html; charset=utf-8"
	mediaJS       = "text/javascript; charset=utf-8"
	mediaLinkset  = `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`
	mediaJWKSet   = "application/jwk-set+json"
)

// Paths of the routes that code refers to by name.
const (
	pathIndex    = "/api/v1"
	pathHealth   = "/api/v1/health"
	pathProfile  = "/api/v1/profile"
	pathInsights = "/api/v1/insights"
	pathInsight  = "/api/v1/insights/{slug}"
	pathOpenAPI  = "/openapi.json"

	pathLLMs                = "/llms.txt"
	pathLLMsFull            = "/llms-full.txt"
	pathRobots              = "/robots.txt"
	pathAuth                = "/auth.md"
	pathDevelopers          = "/developers"
	pathCatalog             = "/.well-known/api-catalog"
	pathPRM                 = "/.well-known/oauth-protected-resource"
	pathASM                 = "/.well-known/oauth-authorization-server"
	pathJWKS                = "/.well-known/jwks.json"
	pathServerCard          = "/mcp/server-card"
	pathWellKnownServerCard = "/.well-known/mcp/server-card.json"
	// pathCLI holds the configured CLI name in place of {cli}.
	pathCLI = "/cli/{cli}.mjs"
)

// routes is the route table, in the order documents list it.
var routes = []Route{
	{
		Path: pathIndex, Method: http.MethodGet, OperationID: "getApiIndex", Tag: tagAPI,
		Summary:     "API index",
		Description: "Lists the API's endpoints, its authentication, rate-limit and versioning policies, and the addresses of its documentation.",
		MediaType:   mediaJSON, Schema: "ApiIndex", CacheControl: cacheAPI, Listed: listMain,
	},
	{
		Path: pathHealth, Method: http.MethodGet, OperationID: "getHealth", Tag: tagAPI,
		Summary:     "Service health",
		Description: "Reports that the service is up, with its name, version and the time of the check.",
		MediaType:   mediaJSON, Schema: "Health", CacheControl: cacheNever, Listed: listMain,
	},
	{
		Path: pathProfile, Method: http.MethodGet, OperationID: "getProfile", Tag: tagAPI,
		Summary:     "Profile of the site's subject",
		Description: "Biography, key facts, recognition, expertise, education, contact links and site structure of the profile subject.",
		MediaType:   mediaJSON, Schema: "Profile", CacheControl: cacheAPI, Listed: listMain,
	},
	{
		Path: pathInsights, Method: http.MethodGet, OperationID: "listInsights", Tag: tagAPI,
		Summary:     "List published insights",
		Description: "Every published insight article, newest first, with its summary fields and canonical URL.",
		MediaType:   mediaJSON, Schema: "InsightList", CacheControl: cacheAPI, Listed: listMain,
	},
	{
		Path: pathInsight, Method: http.MethodGet, OperationID: "getInsight", Tag: tagAPI,
		Summary:     "One insight with its Markdown body",
		Description: "One insight article by its slug: the summary fields of the list entry plus the Markdown body in content.",
		MediaType:   mediaJSON, Schema: "InsightDocument", CacheControl: cacheAPI,
		Problems: []int{http.StatusBadRequest},
	},
	{
		Path: pathOpenAPI, Method: http.MethodGet, OperationID: "getOpenApi", Tag: tagDiscovery,
		Summary:     "OpenAPI description",
		Description: "The machine-readable OpenAPI 3.1 description of every endpoint.",
		MediaType:   mediaJSON, CacheControl: cacheDocument, Listed: listMain,
	},
	{
		Path: pathMCP, Method: http.MethodPost, OperationID: "mcp", Tag: tagMCP,
		Summary:     "MCP server",
		Description: "Model Context Protocol over Streamable HTTP (JSON-RPC 2.0, stateless, no authentication): tools for the profile, the insights, a search and the health check, and the insights as resources. Not a REST resource: connect with an MCP client.",
		MediaType:   mediaJSON, Schema: "JSONRPCResponse", CacheControl: cacheNever, Listed: listMain,
		RequestMediaType: mediaJSON, RequestSchema: "JSONRPCMessage",
		Problems:    []int{http.StatusForbidden, http.StatusRequestEntityTooLarge},
		ExampleArgs: `-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts"}}}'`,
	},
	{
		Path: pathServerCard, Method: http.MethodGet, OperationID: "getMcpServerCard", Tag: tagMCP,
		Summary:     "MCP server card",
		Description: "The MCP server card: the server's name, version, transport, protocol versions and capabilities.",
		MediaType:   "application/mcp-server-card+json", Schema: "ServerCard", CacheControl: cacheDocument,
	},
	{
		Path: pathWellKnownServerCard, Method: http.MethodGet, OperationID: "getWellKnownMcpServerCard", Tag: tagMCP,
		Summary:     "MCP server card (well-known address)",
		Description: "The same server card at the address scanners probe.",
		MediaType:   mediaJSON, Schema: "ServerCard", CacheControl: cacheDocument, Listed: listOptional,
	},
	{
		Path: pathDevelopers, Method: http.MethodGet, OperationID: "getDeveloperPortal", Tag: tagDiscovery,
		Summary:     "Developer portal",
		Description: "One HTML page documenting every endpoint with examples, authentication, rate limits, errors, versioning, MCP and the CLI.",
		MediaType:   mediaHTML, CacheControl: cacheDocument, Listed: listMain,
	},
	{
		Path: pathAuth, Method: http.MethodGet, OperationID: "getAuthNotes", Tag: tagDiscovery,
		Summary:     "Authentication notes",
		Description: "Markdown notes for agents: no key is needed; how to get the optional anonymous bearer token and what it grants.",
		MediaType:   mediaMarkdown, CacheControl: cacheDocument, Listed: listMain,
	},
	{
		Path: pathCLI, Method: http.MethodGet, OperationID: "getCli", Tag: tagDiscovery,
		Summary:     "Command-line client",
		Description: "The official zero-dependency Node.js client, with this site's address built in: node <file> profile | insights [slug] | health.",
		MediaType:   mediaJS, CacheControl: cacheDocument, Listed: listMain,
	},
	{
		Path: pathLLMsFull, Method: http.MethodGet, OperationID: "getLlmsFullTxt", Tag: tagDiscovery,
		Summary:     "Full text for agents",
		Description: "Biography, company facts, initiatives and every insight in full, as one plain-text document.",
		MediaType:   mediaText, CacheControl: cacheDocument, Listed: listMain,
	},
	{
		Path: pathLLMs, Method: http.MethodGet, OperationID: "getLlmsTxt", Tag: tagDiscovery,
		Summary:     "Site index for agents",
		Description: "The llms.txt index: what the site is, when to use which interface, and links to every resource.",
		MediaType:   mediaText, CacheControl: cacheDocument,
	},
	{
		Path: pathCatalog, Method: http.MethodGet, OperationID: "getApiCatalog", Tag: tagDiscovery,
		Summary:     "API catalog",
		Description: "The RFC 9727 API catalog: a linkset pointing at the API's description, documentation and status.",
		MediaType:   mediaLinkset, Schema: "ApiCatalog", CacheControl: cacheDocument, Listed: listOptional,
	},
	{
		Path: pathPRM, Method: http.MethodGet, OperationID: "getProtectedResourceMetadata", Tag: tagDiscovery,
		Summary:     "OAuth protected resource metadata",
		Description: "RFC 9728 metadata of the API as a protected resource: its authorization server, scope and bearer methods.",
		MediaType:   mediaJSON, Schema: "ProtectedResourceMetadata", CacheControl: cacheDocument, Listed: listOptional,
	},
	{
		Path: pathASM, Method: http.MethodGet, OperationID: "getAuthorizationServerMetadata", Tag: tagDiscovery,
		Summary:     "OAuth authorization server metadata",
		Description: "RFC 8414 metadata of the token endpoint: the grants, scope and client authentication it supports.",
		MediaType:   mediaJSON, Schema: "AuthorizationServerMetadata", CacheControl: cacheDocument, Listed: listOptional,
	},
	{
		Path: pathJWKS, Method: http.MethodGet, OperationID: "getJwks", Tag: tagDiscovery,
		Summary:     "JSON Web Key Set",
		Description: "The empty key set: access tokens are opaque, so there are no public keys to verify them with.",
		MediaType:   mediaJWKSet, Schema: "JWKSet", CacheControl: cacheDocument,
	},
	{
		Path: pathRegister, Method: http.MethodPost, OperationID: "registerAgent", Tag: tagAuth,
		Summary:     "Register for an anonymous token",
		Description: "Issues an anonymous bearer token with the scope public:read. No body. The token is optional and grants nothing beyond unauthenticated access.",
		MediaType:   mediaJSON, Schema: "TokenResponse", CacheControl: cacheNever,
		Problems: []int{http.StatusRequestEntityTooLarge},
	},
	{
		Path: pathIdentity, Method: http.MethodPost, OperationID: "createAgentIdentity", Tag: tagAuth,
		Summary:     "Register an anonymous agent identity",
		Description: `Takes {"type":"anonymous"} and returns an identity assertion (a short-lived JWT) and a claim token; exchange the assertion at /oauth/token.`,
		MediaType:   mediaJSON, Schema: "IdentityResponse", CacheControl: cacheNever,
		RequestMediaType: mediaJSON, RequestSchema: "IdentityRequest",
		Problems:    []int{http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType},
		ExampleArgs: `-H 'Content-Type: application/json' -d '{"type":"anonymous"}'`,
	},
	{
		Path: pathIdentityClaim, Method: http.MethodPost, OperationID: "claimAgentIdentity", Tag: tagAuth,
		Summary:     "Claim an identity (not required)",
		Description: "States that claiming is not required for this site, and why.",
		MediaType:   mediaJSON, Schema: "ClaimResponse", CacheControl: cacheNever,
		Problems: []int{http.StatusRequestEntityTooLarge},
	},
	{
		Path: pathToken, Method: http.MethodPost, OperationID: "issueToken", Tag: tagAuth,
		Summary:     "OAuth token endpoint",
		Description: "Issues the public:read bearer for the client_credentials grant (no client authentication) or the JWT-bearer grant with an identity assertion of this service. Errors follow RFC 6749.",
		MediaType:   mediaJSON, Schema: "TokenResponse", CacheControl: cacheNever,
		RequestMediaType: "application/x-www-form-urlencoded", RequestSchema: "TokenRequest", ErrorSchema: "OAuthError",
		Problems:    []int{http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType},
		ExampleArgs: `-d grant_type=client_credentials`,
	},
	{
		Path: pathRobots, Method: http.MethodGet, OperationID: "getRobotsTxt", Tag: tagDiscovery,
		Summary:     "robots.txt with content signals",
		Description: "Crawler rules with the site's content-usage signals (contentsignals.org).",
		MediaType:   mediaText, CacheControl: cacheDocument, Listed: listOptional,
	},
}

// apiPrefix is the prefix of every address of the JSON API. The service owns
// all of it, so an unknown path there is a 404 problem, not the next
// handler's page.
const apiPrefix = "/api/"

// mcpPrefix is owned too: an unknown address under /mcp is a 404 problem.
const mcpPrefix = "/mcp/"

func isAPIPath(p string) bool {
	return p == pathIndex || strings.HasPrefix(p, apiPrefix)
}

// insightPrefix is the path of an insight before its slug.
var insightPrefix = strings.TrimSuffix(pathInsight, "{slug}")

// InsightPath is the API path of the insight with the given slug.
func InsightPath(slug string) string { return insightPrefix + slug }
