package handlers

import (
	"net/http"
	"reflect"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// route is a route of the table bound to what answers it: its renderer
// or its serve function, its switch, and what dispatch settles when the
// service is built.
type route struct {
	view.Route

	// Exactly one of render and serve is set. render makes the body of a
	// GET route once per base URL (once per slug for a {slug} route), so
	// that serving it is a lookup; serve answers a request that varies.
	render renderer
	serve  func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition)
	// enabled, when set, says whether a configuration serves the route: a
	// document that can be switched off and left to the site.
	enabled func(c *Config) bool
	// headers, when set, are the extra headers of the route's documents for
	// a base URL (the portal's Content-Security-Policy names it).
	headers func(l links) [][2]string
	// twinOf, set on a Markdown twin, gives the address of its page: the
	// twin's canonical URL.
	twinOf func(l links, slug string) string
	// merge, when set, makes the document of the site's own file at the
	// address, when the site has one: the Caddy module asks the next
	// handler first and serves what merge makes of the site's file
	// (robots.txt and llms.txt), its own document only when the site has
	// none (see Merges).
	merge func(l view.Links, site []byte) []byte
	// siteFirst leaves the address to the site when the site has a file
	// there: the Caddy module asks the next handler first and serves the
	// route only when the site has none (see SiteFirst).
	siteFirst bool

	// surface is the route's metrics surface (see surfaceOf).
	surface string
	// page is the route's entry in the page registry when the route is a
	// page of the module's own with a Markdown twin (the developer
	// portal), set with the registry (see placeAgentRoutes).
	page *catalog.Page
}

// placeholder reports whether the route's path stands for the twins of
// the site's pages, settled by placeAgentRoutes.
func (rt *route) placeholder() bool { return strings.HasPrefix(rt.Path, "{twin:") }

// leftToTheSite reports whether the route is a document the site may have
// a file of its own at, which then wins: a GET of a fixed address that
// the specification does not give the module alone (the API, /mcp, the
// OAuth and identity endpoints stay the module's), not merged with the
// site's file and not already asked of the site on each request.
func (rt *route) leftToTheSite() bool {
	p := rt.Path
	return rt.Method == http.MethodGet && rt.merge == nil && !rt.siteFirst && rt.serve == nil &&
		!strings.Contains(p, "{") && !view.IsAPIPath(p) && !strings.HasPrefix(p, view.MCPPrefix) && p != view.PathMCP &&
		!strings.HasPrefix(p, "/oauth/") && !strings.HasPrefix(p, "/agent/")
}

// allow is the Allow header of the route.
func (rt *route) allow() string {
	if rt.Method == http.MethodGet {
		return "GET, HEAD, OPTIONS"
	}
	return rt.Method + ", OPTIONS"
}

// modulePage is the page entry of rt when rt is a page of the module's own
// with a Markdown twin (the developer portal), else nil (rt may be nil).
func (rt *route) modulePage() *catalog.Page {
	if rt == nil {
		return nil
	}
	return rt.page
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// routes is the route table, in the order documents list it.
var routes = []route{
	{
		Route: view.Route{
			Path: view.PathIndex, Method: http.MethodGet, OperationID: "getApiIndex", Tag: view.TagAPI,
			Summary:     "API index",
			Description: "Lists the API's endpoints, its authentication, rate-limit and versioning policies, and the addresses of its documentation.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.APIIndex](), CacheControl: respond.CacheAPI, Listed: view.ListMain, Bearer: true,
		},
		render: viewJSON(docs.APIIndex),
	},
	{
		Route: view.Route{
			Path: view.PathHealth, Method: http.MethodGet, OperationID: "getHealth", Tag: view.TagAPI,
			Summary:     "Service health",
			Description: "Reports that the service is up, with its name, version and the time of the check.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.Health](), CacheControl: respond.CacheNever, Listed: view.ListMain, Bearer: true,
		},
		serve: (*Service).serveHealth,
	},
	{
		Route: view.Route{
			Path: view.PathProfile, Method: http.MethodGet, OperationID: "getProfile", Tag: view.TagAPI,
			Summary:     "Profile of the site's subject",
			Description: "Biography, key facts, recognition, expertise, education, contact links and site structure of the profile subject.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.Profile](), CacheControl: respond.CacheAPI, Listed: view.ListMain, Bearer: true,
		},
		render: viewJSON(view.Links.Profile),
	},
	{
		Route: view.Route{
			Path: view.PathInsights, Method: http.MethodGet, OperationID: "listInsights", Tag: view.TagAPI,
			Summary:     "List published insights",
			Description: "Every published insight article, newest first, with its summary fields and canonical URL.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.InsightList](), CacheControl: respond.CacheAPI, Listed: view.ListMain, Bearer: true,
		},
		render: viewJSON(view.Links.Insights),
	},
	{
		Route: view.Route{
			Path: view.PathInsight, Method: http.MethodGet, OperationID: "getInsight", Tag: view.TagAPI,
			Summary:     "One insight with its Markdown body",
			Description: "One insight article by its slug: the summary fields of the list entry plus the Markdown body in content.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.InsightDocument](), CacheControl: respond.CacheAPI, Bearer: true,
		},
		render: func(l links, slug string) ([]byte, error) {
			in, _ := l.Published(slug)
			return respond.Marshal(l.InsightDocument(in))
		},
	},
	{
		Route: view.Route{
			Path: view.PathOpenAPI, Method: http.MethodGet, OperationID: "getOpenApi", Tag: view.TagDiscovery,
			Summary:     "OpenAPI description",
			Description: "The machine-readable OpenAPI 3.1 description of every endpoint.",
			MediaType:   respond.MediaJSON, CacheControl: respond.CacheDocument, Listed: view.ListMain,
		},
		render: viewRender(docs.OpenAPIDocument),
	},
	{
		Route: view.Route{
			Path: view.PathWellKnownOpenAPI, Method: http.MethodGet, OperationID: "getWellKnownOpenApi", Tag: view.TagDiscovery,
			Summary:     "OpenAPI description (well-known address)",
			Description: "The same OpenAPI description as /openapi.json, at the address scanners probe.",
			MediaType:   respond.MediaJSON, CacheControl: respond.CacheDocument,
		},
		render: viewRender(docs.OpenAPIDocument), enabled: (*Config).servesWellKnownOpenAPI,
	},
	{
		Route: view.Route{
			Path: view.PathMCP, Method: http.MethodPost, OperationID: "mcp", Tag: view.TagMCP,
			Summary:     "MCP server",
			Description: "Model Context Protocol over Streamable HTTP (JSON-RPC 2.0, stateless, no authentication): tools for the profile, the insights, a search and the health check, and the insights as resources. Not a REST resource: connect with an MCP client.",
			MediaType:   respond.MediaJSON, Body: typeOf[mcp.Response](), CacheControl: respond.CacheNever, Listed: view.ListMain,
			SiteOrigin: true, Bearer: true,
			RequestMediaType: respond.MediaJSON, Request: typeOf[mcp.Message](), JSONRPC: true,
			Problems:    []int{http.StatusForbidden, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge},
			ExampleArgs: `-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts","limit":2}}}'`,
		},
		serve: func(_ *Service, w http.ResponseWriter, r *http.Request, rd *rendition) { rd.endpoint.ServeHTTP(w, r) },
	},
	{
		Route: view.Route{
			Path: view.PathServerCard, Method: http.MethodGet, OperationID: "getMcpServerCard", Tag: view.TagMCP,
			Summary:     "MCP server card",
			Description: "The MCP server card: the server's name, version, transport, protocol versions and capabilities.",
			MediaType:   respond.MediaCard, Body: typeOf[wire.ServerCard](), CacheControl: respond.CacheDocument,
		},
		render: viewJSON(docs.ServerCard),
	},
	{
		Route: view.Route{
			Path: view.PathWellKnownServerCard, Method: http.MethodGet, OperationID: "getWellKnownMcpServerCard", Tag: view.TagMCP,
			Summary:     "MCP server card (well-known address)",
			Description: "The same server card at the address scanners probe.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.ServerCard](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewJSON(docs.ServerCard), enabled: (*Config).servesMCPDiscovery,
	},
	{
		Route: view.Route{
			Path: view.PathServerCards, Method: http.MethodGet, OperationID: "getMcpServerCards", Tag: view.TagMCP,
			Summary:     "MCP server card (plural well-known address)",
			Description: "The same server card at the plural address some scanners probe.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.ServerCard](), CacheControl: respond.CacheDocument,
		},
		render: viewJSON(docs.ServerCard), enabled: (*Config).servesMCPDiscovery,
	},
	{
		Route: view.Route{
			Path: view.PathMCPJSON, Method: http.MethodGet, OperationID: "getMcpJson", Tag: view.TagMCP,
			Summary:     "MCP server card (/.well-known/mcp.json)",
			Description: "The same server card at the single-file address older clients and scanners probe.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.ServerCard](), CacheControl: respond.CacheDocument,
		},
		render: viewJSON(docs.ServerCard), enabled: (*Config).servesMCPDiscovery,
	},
	{
		Route: view.Route{
			Path: view.PathMCPRegistryAuth, Method: http.MethodGet, OperationID: "getMcpRegistryAuth", Tag: view.TagMCP,
			Summary:     "MCP Registry domain proof",
			Description: "The public key the official MCP Registry checks when the site's owner publishes its MCP server under the site's own namespace (HTTP domain verification), as one line: v=MCPv1; k=ed25519; p=<base64 public key>. Served to every client, whatever the rate limit and the agents the owner refuses: the registry's fetcher must read it.",
			MediaType:   respond.MediaText, CacheControl: respond.CacheDocument, Unmetered: true, AnyAgent: true,
		},
		render: viewDocument(docs.MCPRegistryAuth), enabled: (*Config).servesMCPRegistryAuth,
	},
	{
		Route: view.Route{
			Path: view.PathAICatalog, Method: http.MethodGet, OperationID: "getAiCatalog", Tag: view.TagDiscovery,
			Summary:     "AI catalog",
			Description: "The site's AI Catalog (ai-catalog.org): the agent artifacts it publishes, each with its type and address, starting with the MCP server card.",
			MediaType:   respond.MediaAICatalog, Body: typeOf[wire.AICatalog](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: jsonDocument(aiCatalog), enabled: (*Config).servesMCPDiscovery,
	},
	{
		Route: view.Route{
			Path: view.PathAgentCard, Method: http.MethodGet, OperationID: "getAgentCard", Tag: view.TagDiscovery,
			Summary:     "A2A agent card",
			Description: "The A2A agent card (A2A 1.0): the site's agent, its skills, which are the MCP server's tools, and the MCP endpoint they are called at. The site has no A2A endpoint: an agent connects with MCP.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.AgentCard](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: jsonDocument(newAgentCard), enabled: (*Config).servesAgentCard,
	},
	{
		Route: view.Route{
			Path: view.PathAgentJSON, Method: http.MethodGet, OperationID: "getAgentJson", Tag: view.TagDiscovery,
			Summary:     "A2A agent card (earlier address)",
			Description: "The same agent card at the address of A2A's earlier drafts, which scanners still probe.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.AgentCard](), CacheControl: respond.CacheDocument,
		},
		render: jsonDocument(newAgentCard), enabled: (*Config).servesAgentCard,
	},
	{
		Route: view.Route{
			Path: view.PathSkill, Method: http.MethodGet, OperationID: "getAgentSkill", Tag: view.TagDiscovery,
			Summary:     "Agent skill",
			Description: "A SKILL.md (Agent Skills format) that teaches an agent this API through REST, the CLI and MCP: when to use which, and the calls to make.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Listed: view.ListMain,
		},
		render: skillMarkdown, enabled: (*Config).servesSkills,
	},
	{
		Route: view.Route{
			Path: view.PathAgentSkills, Method: http.MethodGet, OperationID: "getAgentSkillsIndex", Tag: view.TagDiscovery,
			Summary:     "Agent skills index",
			Description: "The Agent Skills discovery index (v0.2.0): the site's skills, each with the address and SHA-256 digest of its SKILL.md.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.SkillsIndex](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: skillsIndex, enabled: (*Config).servesSkills,
	},
	{
		Route: view.Route{
			Path: view.PathWebMCP, Method: http.MethodGet, OperationID: "getWebMcpScript", Tag: view.TagMCP,
			Summary:     "WebMCP script",
			Description: "A script for the site's own pages that offers the MCP server's read-only tools to an agent in the browser (WebMCP: document.modelContext, or navigator.modelContext in browsers before Chrome 150), each answering from the JSON API. A page includes it with one deferred script element whose src is /mcp/webmcp.js.",
			MediaType:   respond.MediaJS, CacheControl: respond.CacheDocument,
		},
		render: webMCPScriptDocument, enabled: (*Config).servesWebMCP,
	},
	{
		Route: view.Route{
			Path: view.PathSkills, Method: http.MethodGet, OperationID: "getSkillsIndex", Tag: view.TagDiscovery,
			Summary:     "Agent skills index (first draft's address)",
			Description: "The same index at the address clients of the discovery proposal's first draft probe.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.SkillsIndex](), CacheControl: respond.CacheDocument,
		},
		render: skillsIndex, enabled: (*Config).servesSkills,
	},
	{
		Route: view.Route{
			Path: view.PathDevelopers, Method: http.MethodGet, OperationID: "getDeveloperPortal", Tag: view.TagDiscovery,
			Summary:     "Developer portal",
			Description: "One HTML page documenting every endpoint with examples, authentication, rate limits, errors, versioning, MCP and the CLI.",
			MediaType:   respond.MediaHTML, CacheControl: respond.CacheDocument, Listed: view.ListMain, Unmetered: true,
		},
		render: developerPortal, headers: portalHeaders,
	},
	{
		Route: view.Route{
			Path: view.PathDevelopersTwin, Method: http.MethodGet, OperationID: "getDeveloperPortalMarkdown", Tag: view.TagDiscovery,
			Summary:     "Developer portal as Markdown",
			Description: "The developer portal for agents: the same endpoints, examples, field reference and setup as /developers, as Markdown. /developers answers it too for Accept: text/markdown.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Unmetered: true,
		},
		render: developerPortalMarkdown, twinOf: func(l links, _ string) string { return l.Developers() },
	},
	{
		Route: view.Route{
			Path: view.PathAuth, Method: http.MethodGet, OperationID: "getAuthNotes", Tag: view.TagDiscovery,
			Summary:     "Authentication notes",
			Description: "Markdown notes for agents: no key is needed; how to get the optional anonymous bearer token and what it grants.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Listed: view.ListMain,
		},
		render: viewDocument(docs.AuthMarkdown),
	},
	{
		Route: view.Route{
			Path: view.PathCLI, Method: http.MethodGet, OperationID: "getCli", Tag: view.TagDiscovery,
			Summary:     "Command-line client",
			Description: "The official zero-dependency Node.js client, with this site's address built in: node <file> profile | insights [slug] | health | dns-aid.",
			MediaType:   respond.MediaJS, CacheControl: respond.CacheDocument, Listed: view.ListMain,
		},
		render: viewDocument(docs.CLIScript),
	},
	{
		Route: view.Route{
			Path: view.PathLLMsFull, Method: http.MethodGet, OperationID: "getLlmsFullTxt", Tag: view.TagDiscovery,
			Summary:     "Full text for agents",
			Description: "Biography, company facts, initiatives and every insight in full, as one plain-text document.",
			// Optional: it repeats what the index links, so an agent on a
			// short context skips it (llmstxt.org).
			MediaType: respond.MediaText, CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewDocument(docs.LLMsFullTxt),
	},
	{
		Route: view.Route{
			Path: view.PathLLMs, Method: http.MethodGet, OperationID: "getLlmsTxt", Tag: view.TagDiscovery,
			Summary:     "Site index for agents",
			Description: "The llms.txt index: what the site is, when to use which interface, and links to every resource.",
			MediaType:   respond.MediaText, CacheControl: respond.CacheDocument, Bearer: true,
		},
		render: viewDocument(docs.LLMsTxt), merge: docs.MergeLLMs,
	},
	{
		Route: view.Route{
			Path: view.PathCatalog, Method: http.MethodGet, OperationID: "getApiCatalog", Tag: view.TagDiscovery,
			Summary:     "API catalog",
			Description: "The RFC 9727 API catalog: a linkset pointing at the API's description, documentation and status.",
			MediaType:   respond.MediaLinkset, Body: typeOf[wire.APICatalog](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewJSON(docs.APICatalog),
	},
	{
		Route: view.Route{
			Path: view.PathPRM, Method: http.MethodGet, OperationID: "getProtectedResourceMetadata", Tag: view.TagDiscovery,
			Summary:     "OAuth protected resource metadata",
			Description: "RFC 9728 metadata of the API as a protected resource: its authorization server, scope and bearer methods.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.ProtectedResourceMetadata](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewJSON(docs.ProtectedResourceMetadata),
	},
	{
		Route: view.Route{
			Path: view.PathASM, Method: http.MethodGet, OperationID: "getAuthorizationServerMetadata", Tag: view.TagDiscovery,
			Summary:     "OAuth authorization server metadata",
			Description: "RFC 8414 metadata of the authorization server: its authorization, token and registration endpoints, grants, PKCE method, scope and client authentication.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.AuthorizationServerMetadata](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewJSON(docs.AuthorizationServerMetadata),
	},
	{
		Route: view.Route{
			Path: view.PathJWKS, Method: http.MethodGet, OperationID: "getJwks", Tag: view.TagDiscovery,
			Summary:     "JSON Web Key Set",
			Description: "The empty key set: access tokens are opaque, so there are no public keys to verify them with.",
			MediaType:   respond.MediaJWKSet, Body: typeOf[wire.JWKSet](), CacheControl: respond.CacheDocument,
		},
		render: viewJSON(docs.JWKS),
	},
	{
		Route: view.Route{
			Path: view.PathRegister, Method: http.MethodPost, OperationID: "registerAgent", Tag: view.TagAuth,
			Summary:     "Register for an anonymous token",
			Description: "Issues an anonymous bearer token with the scope public:read. No body. The token is optional and grants nothing beyond unauthenticated access.",
			MediaType:   respond.MediaJSON, Body: typeOf[oauth.TokenResponse](), CacheControl: respond.CacheNever,
			Problems: []int{http.StatusRequestTimeout, http.StatusRequestEntityTooLarge},
		},
		serve: func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
			s.oauth.Register(w, r, rd.oauth)
		},
	},
	{
		Route: view.Route{
			Path: view.PathIdentity, Method: http.MethodPost, OperationID: "createAgentIdentity", Tag: view.TagAuth,
			Summary:     "Register an anonymous agent identity",
			Description: `Takes {"type":"anonymous"} and returns an identity assertion (a short-lived JWT) and a claim token; exchange the assertion at /oauth/token.`,
			MediaType:   respond.MediaJSON, Body: typeOf[oauth.IdentityResponse](), CacheControl: respond.CacheNever,
			RequestMediaType: respond.MediaJSON, Request: typeOf[oauth.IdentityRequest](),
			Problems:    []int{http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType},
			ExampleArgs: `-H 'Content-Type: application/json' -d '{"type":"anonymous"}'`,
		},
		serve: func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
			s.oauth.Identity(w, r, rd.oauth)
		},
	},
	{
		Route: view.Route{
			Path: view.PathIdentityClaim, Method: http.MethodPost, OperationID: "claimAgentIdentity", Tag: view.TagAuth,
			Summary:     "Claim an identity (not required)",
			Description: "States that claiming is not required for this site, and why.",
			MediaType:   respond.MediaJSON, Body: typeOf[oauth.ClaimResponse](), CacheControl: respond.CacheNever,
			Problems: []int{http.StatusRequestTimeout, http.StatusRequestEntityTooLarge},
		},
		serve: func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
			s.oauth.Claim(w, r, rd.oauth)
		},
	},
	{
		Route: view.Route{
			Path: view.PathToken, Method: http.MethodPost, OperationID: "issueToken", Tag: view.TagAuth,
			Summary:     "OAuth token endpoint",
			Description: "Issues the public:read bearer for the authorization_code grant (with the PKCE verifier), the client_credentials grant (no client authentication) or the JWT-bearer grant with an identity assertion of this service. A token asked for resources (RFC 8707) is valid at them only. Errors follow RFC 6749.",
			MediaType:   respond.MediaJSON, Body: typeOf[oauth.TokenResponse](), CacheControl: respond.CacheNever,
			RequestMediaType: respond.MediaForm, Request: typeOf[oauth.TokenRequest](), ErrorBody: typeOf[oauth.ErrorResponse](),
			Problems:    []int{http.StatusRequestTimeout, http.StatusRequestEntityTooLarge},
			ExampleArgs: `-d grant_type=client_credentials`,
		},
		serve: func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
			s.oauth.Token(w, r, rd.oauth)
		},
	},
	// The anonymous authorization code flow and its metadata.
	{
		Route: view.Route{
			Path: view.PathAuthorize, Method: http.MethodGet, OperationID: "authorize", Tag: view.TagAuth,
			Summary:     "OAuth authorization endpoint",
			Description: "The authorization code flow with PKCE (S256) and no login: there is nothing private behind it. Only a request valid in every respect (a client, registered or named by the https URL of its Client ID Metadata Document, which is fetched within 3 seconds; one of its redirect URIs; response_type=code, an S256 code_challenge, scope public:read, resources of this site) is answered with a code for public:read (valid 60 seconds, usable once): at once, by a redirect, when the redirect URI is on a loopback address or uses a private-use scheme (RFC 8252); for an https redirect URI, by a page that names its host and links there. Any other request gets a 400 problem, its RFC 6749 error code first in the detail, and never a redirect.",
			Status:      http.StatusFound, CacheControl: respond.CacheNever, Query: typeOf[oauth.AuthorizationRequest](),
			ExampleArgs: `-i -G -d response_type=code -d client_id=<client_id> -d redirect_uri=http://127.0.0.1:8765/callback -d code_challenge=<S256 challenge> -d code_challenge_method=S256 -d state=<state>`,
		},
		serve: func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
			s.oauth.Authorize(w, r, rd.oauth)
		},
	},
	{
		Route: view.Route{
			Path: view.PathClientRegistration, Method: http.MethodPost, OperationID: "registerClient", Tag: view.TagAuth,
			Summary:     "OAuth dynamic client registration",
			Description: "RFC 7591 registration of a public client for the authorization code flow. The client_id encodes the redirect URIs under a signature, so nothing is stored; no client secret is issued.",
			MediaType:   respond.MediaJSON, Body: typeOf[oauth.ClientInformation](), Status: http.StatusCreated, CacheControl: respond.CacheNever,
			RequestMediaType: respond.MediaJSON, Request: typeOf[oauth.ClientRegistration](), ErrorBody: typeOf[oauth.RegistrationError](),
			Problems:    []int{http.StatusRequestTimeout, http.StatusRequestEntityTooLarge},
			ExampleArgs: `-H 'Content-Type: application/json' -d '{"redirect_uris":["http://127.0.0.1:8765/callback"]}'`,
		},
		serve: func(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
			s.oauth.RegisterClient(w, r, rd.oauth)
		},
	},
	{
		Route: view.Route{
			Path: view.PathPRMMCP, Method: http.MethodGet, OperationID: "getMcpProtectedResourceMetadata", Tag: view.TagDiscovery,
			Summary:     "OAuth protected resource metadata of the MCP endpoint",
			Description: "RFC 9728 metadata of the MCP endpoint as a protected resource, at the path-suffixed address MCP clients try first.",
			MediaType:   respond.MediaJSON, Body: typeOf[wire.ProtectedResourceMetadata](), CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewJSON(docs.MCPProtectedResourceMetadata),
	},
	{
		Route: view.Route{
			Path: view.PathSecurityTxt, Method: http.MethodGet, OperationID: "getSecurityTxt", Tag: view.TagDiscovery,
			Summary:     "Security contact",
			Description: "The RFC 9116 security.txt: whom to tell about a vulnerability in this site, and until when that holds. Served only when the site has no security.txt of its own.",
			MediaType:   respond.MediaText, CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewDocument(docs.SecurityTxt), enabled: (*Config).servesSecurityTxt, siteFirst: true,
	},
	{
		Route: view.Route{
			Path: view.PathRobots, Method: http.MethodGet, OperationID: "getRobotsTxt", Tag: view.TagDiscovery,
			Summary:     "robots.txt with content signals",
			Description: "Crawler rules with the site's content-usage signals (contentsignals.org).",
			MediaType:   respond.MediaText, CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewDocument(docs.RobotsTxt), enabled: (*Config).servesRobots, merge: docs.MergeRobots,
	},

	// The site's own pages, made readable for agents: the sitemap and the
	// Markdown twins (internal/docs: sitemap.go, twins.go; pages.go).
	{
		Route: view.Route{
			Path: view.PathSitemapOwn, Method: http.MethodGet, OperationID: "getSitemap", Tag: view.TagDiscovery,
			Summary:     "Sitemap",
			Description: "The sitemaps.org sitemap of the site's pages named in the content, every insight's page with its modification date, and the developer portal.",
			MediaType:   respond.MediaXML, CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewDocument(docs.Sitemap), enabled: (*Config).servesSitemap,
	},
	{
		Route: view.Route{
			Path: view.PathSitemap, Method: http.MethodGet, OperationID: "getSitemapXml", Tag: view.TagDiscovery,
			Summary:     "Sitemap at the usual address",
			Description: "The same sitemap, served only when the site has no /sitemap.xml of its own: a site's own sitemap is passed on unchanged.",
			MediaType:   respond.MediaXML, CacheControl: respond.CacheDocument,
		},
		serve: serveSitemap, enabled: (*Config).servesSitemap, siteFirst: true,
	},
	{
		Route: view.Route{
			Path: view.PathSitemapMD, Method: http.MethodGet, OperationID: "getSitemapMarkdown", Tag: view.TagDiscovery,
			Summary:     "Sitemap as Markdown",
			Description: "The sitemap's addresses for agents that read rather than parse: each page with its Markdown version and last update. Served only when the site has no /sitemap.md of its own.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Listed: view.ListOptional,
		},
		render: viewDocument(docs.SitemapMarkdown), enabled: (*Config).servesSitemap, siteFirst: true,
	},
	{
		Route: view.Route{
			Path: view.PathHomeTwin, Method: http.MethodGet, OperationID: "getHomeMarkdown", Tag: view.TagDiscovery,
			Summary:     "Home page as Markdown",
			Description: "The site's home page for agents: who the subject is, the site's pages, the latest insights and the interfaces for agents.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Unmetered: true,
		},
		enabled: (*Config).servesMarkdown,
		render:  viewDocument(docs.HomeMarkdown), twinOf: pageOf(func(p content.Pages) string { return p.Home }),
	},
	{
		Route: view.Route{
			Path: view.PathAboutTwin, Method: http.MethodGet, OperationID: "getAboutMarkdown", Tag: view.TagDiscovery,
			Summary:     "About page as Markdown",
			Description: "The site's about page for agents: biography, key facts, recognition, expertise, education and contact.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Unmetered: true,
		},
		enabled: (*Config).servesMarkdown,
		render:  viewDocument(docs.AboutMarkdown), twinOf: pageOf(func(p content.Pages) string { return p.About }),
	},
	{
		Route: view.Route{
			Path: view.PathInsightsTwin, Method: http.MethodGet, OperationID: "getInsightsMarkdown", Tag: view.TagDiscovery,
			Summary:     "Insights list as Markdown",
			Description: "Every published insight, newest first, each linked to its Markdown version.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Unmetered: true,
		},
		enabled: (*Config).servesMarkdown,
		render:  viewDocument(docs.InsightsMarkdown), twinOf: pageOf(func(p content.Pages) string { return p.Insights }),
	},
	{
		Route: view.Route{
			Path: view.PathContactTwin, Method: http.MethodGet, OperationID: "getContactMarkdown", Tag: view.TagDiscovery,
			Summary:     "Contact page as Markdown",
			Description: "The site's contact page for agents: every way to reach the subject that the profile publishes.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Unmetered: true,
		},
		enabled: (*Config).servesMarkdown,
		render:  viewDocument(docs.ContactMarkdown), twinOf: func(l links, _ string) string { return l.Abs(l.Cat.Site.Profile.Contact.Form) },
	},
	{
		Route: view.Route{
			Path: view.PathInsightTwin, Method: http.MethodGet, OperationID: "getInsightMarkdown", Tag: view.TagDiscovery,
			Summary:     "One insight as Markdown",
			Description: "One insight article as Markdown: its title, dates, topic and the full body, at the address of its page with .md (index.md after a slash). A post whose own front matter or the site's sitemap gives its page another address has its twin there; llms.txt and the sitemap list every twin.",
			MediaType:   respond.MediaMarkdown, CacheControl: respond.CacheDocument, Unmetered: true,
		},
		enabled: (*Config).servesMarkdown,
		render:  viewRender(docs.InsightMarkdown), twinOf: links.Insight,
	},
}

// renderer makes a route's body for the base URL of l; slug is the path
// parameter of a {slug} route and empty otherwise.
type renderer func(l links, slug string) ([]byte, error)

// jsonDocument renders the JSON of a value that depends on the base URL only.
func jsonDocument[T any](f func(links) T) renderer {
	return func(l links, _ string) ([]byte, error) { return respond.Marshal(f(l)) }
}

// viewJSON renders the JSON of a value of internal/docs, which reads the
// view of the base URL alone.
func viewJSON[T any](f func(view.Links) T) renderer {
	return func(l links, _ string) ([]byte, error) { return respond.Marshal(f(l.Links)) }
}

// viewDocument renders a text document of internal/docs, which reads the
// view of the base URL alone.
func viewDocument(f func(view.Links) []byte) renderer {
	return func(l links, _ string) ([]byte, error) { return f(l.Links), nil }
}

// viewRender renders a document of internal/docs that reads the view of
// the base URL alone and the slug of a {slug} route.
func viewRender(f func(view.Links, string) ([]byte, error)) renderer {
	return func(l links, slug string) ([]byte, error) { return f(l.Links, slug) }
}

// serveSitemap answers /sitemap.xml, once the site has said it has none,
// with the module's sitemap.
func serveSitemap(s *Service, w http.ResponseWriter, r *http.Request, rd *rendition) {
	doc := s.document(rd, s.byPath[view.PathSitemapOwn], "", view.PathSitemapOwn)
	serveDocument(newFields(w.Header()), w, r, doc)
}
