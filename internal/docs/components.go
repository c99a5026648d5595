package docs

import (
	"reflect"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/schema"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// The JSON schemas of the API's bodies are generated from the Go types that
// produce them (internal/schema documents the tags).

// Components are the named schemas, in the order the description lists
// them. A struct type used inside another is referenced by name.
var Components = schema.NewComponents([]schema.Component{
	schema.Of[wire.Health]("Health", ""),
	schema.Of[wire.Profile]("Profile", ""),
	schema.Of[wire.ProfileContact]("ProfileContact", ""),
	schema.Of[wire.SiteLink]("SiteLink", ""),
	schema.Of[wire.ProfileURLs]("ProfileUrls", ""),
	schema.Of[wire.InsightSummary]("InsightSummary", ""),
	schema.Of[wire.InsightList]("InsightList", ""),
	schema.Of[wire.InsightDocument]("InsightDocument", ""),
	schema.Of[wire.APIIndex]("ApiIndex", "The API index. urls is present in the served index beyond the specification's formal schema."),
	{Name: "Problem", Type: reflect.TypeFor[problem.Problem](), Open: true,
		Description: "An RFC 9457 problem details document with the required code and hint members. Extra members are allowed."},
	schema.Of[wire.APICatalog]("ApiCatalog", "RFC 9727 API catalog: an RFC 9264 linkset."),
	schema.Of[wire.ProtectedResourceMetadata]("ProtectedResourceMetadata", "RFC 9728 protected resource metadata."),
	schema.Of[wire.AuthorizationServerMetadata]("AuthorizationServerMetadata", "RFC 8414 authorization server metadata, with the auth.md protocol's agent_auth."),
	schema.Of[wire.AgentAuth]("AgentAuth", "The auth.md protocol's agent_auth block: where an agent registers, in the names of v0.7 (identity_endpoint, claim_endpoint) and of v0.1 (register_uri, claim_uri, anonymous), which scanners still read."),
	schema.Of[wire.JWKSet]("JWKSet", "A JSON Web Key Set (RFC 7517); empty, as access tokens are opaque."),
	schema.Of[oauth.TokenResponse]("TokenResponse", "RFC 6749 section 5.1 access token response."),
	schema.Of[oauth.TokenRequest]("TokenRequest", "RFC 6749 token request, form-encoded."),
	schema.Of[oauth.ErrorResponse]("OAuthError", "RFC 6749 section 5.2 error response: a missing, repeated or malformed parameter, or a refused client, grant, code, scope or resource."),
	{Name: "ClientRegistration", Type: reflect.TypeFor[oauth.ClientRegistration](), Open: true,
		Description: "RFC 7591 client registration request: the members the service reads. Other client metadata is accepted and ignored."},
	schema.Of[oauth.ClientInformation]("ClientInformation", "RFC 7591 client information response. No client secret: clients are public and use PKCE."),
	schema.Of[oauth.RegistrationError]("RegistrationError", "RFC 7591 section 3.2.2 error response."),
	schema.Of[oauth.IdentityRequest]("IdentityRequest", ""),
	schema.Of[oauth.IdentityResponse]("IdentityResponse", ""),
	schema.Of[oauth.ClaimResponse]("ClaimResponse", ""),
	schema.Of[mcp.Message]("JSONRPCMessage", "A JSON-RPC 2.0 request or notification of the Model Context Protocol."),
	schema.Of[mcp.Response]("JSONRPCResponse", "A JSON-RPC 2.0 response: result or error."),
	schema.Of[mcp.ErrorResponse]("JSONRPCErrorResponse", "A JSON-RPC 2.0 error response."),
	schema.Of[wire.ServerCard]("ServerCard", "MCP server card: the current fields and the older serverInfo/transport ones."),
	schema.Of[wire.AICatalog]("AICatalog", "An AI Catalog (ai-catalog.org) of the site's agent artifacts."),
	schema.Of[wire.SkillsIndex]("SkillsIndex", "An Agent Skills discovery index (v0.2.0)."),
	schema.Of[wire.AgentCard]("AgentCard", "An A2A 1.0 agent card: the site's agent, its skills (the MCP server's tools) and the MCP endpoint they are called at."),
})
