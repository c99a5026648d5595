package docs

import (
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// The machine-readable discovery documents: the RFC 9727 API catalog, the
// OAuth metadata (RFC 9728, RFC 8414), the key set and the MCP server card.

// APICatalog is the RFC 9727 API catalog: a linkset naming the API and
// its description, documentation and status.
func APICatalog(l view.Links) wire.APICatalog {
	return wire.APICatalog{Linkset: []wire.LinksetEntry{{
		Anchor:      l.Base + view.PathIndex,
		ServiceDesc: []wire.Link{{Href: l.OpenAPI(), Type: respond.MediaJSON}},
		ServiceDoc:  []wire.Link{{Href: l.Developers(), Type: "text/html"}},
		Status:      []wire.Link{{Href: l.Base + view.PathHealth, Type: respond.MediaJSON}},
	}}}
}

// ProtectedResourceMetadata is the RFC 9728 metadata of the API as a
// protected resource.
func ProtectedResourceMetadata(l view.Links) wire.ProtectedResourceMetadata {
	return wire.ProtectedResourceMetadata{
		Resource:               l.Base,
		ResourceName:           l.Cat.Site.Profile.Name + " public discovery API",
		AuthorizationServers:   []string{l.Base},
		ScopesSupported:        []string{token.Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceDocumentation:  l.Developers(),
	}
}

// MCPProtectedResourceMetadata describes the MCP endpoint, whose resource
// identifier is its own address (RFC 9728 section 3.3: the resource is the
// one the well-known address was made from).
func MCPProtectedResourceMetadata(l view.Links) wire.ProtectedResourceMetadata {
	m := ProtectedResourceMetadata(l)
	m.Resource = l.Base + view.PathMCP
	m.ResourceName = l.Cat.Site.Profile.Name + " MCP server"
	return m
}

// agentAuth is the agent_auth block of the authorization server's
// metadata (the auth.md protocol).
func agentAuth(l view.Links) wire.AgentAuth {
	return wire.AgentAuth{
		Skill:                  l.Base + view.PathAuth,
		IdentityEndpoint:       l.Base + view.PathIdentity,
		ClaimEndpoint:          l.Base + view.PathIdentityClaim,
		IdentityTypesSupported: []string{oauth.IdentityAnonymous},
		RegisterURI:            l.Base + view.PathRegister,
		ClaimURI:               l.Base + view.PathIdentityClaim,
		Anonymous:              wire.AgentAuthMethod{CredentialTypesSupported: []string{"access_token"}},
	}
}

// AuthorizationServerMetadata is the RFC 8414 metadata of the
// authorization server, with the auth.md protocol's agent_auth block.
func AuthorizationServerMetadata(l view.Links) wire.AuthorizationServerMetadata {
	return wire.AuthorizationServerMetadata{
		Issuer:                                     l.Base,
		AuthorizationEndpoint:                      l.Base + view.PathAuthorize,
		TokenEndpoint:                              l.Base + view.PathToken,
		RegistrationEndpoint:                       l.Base + view.PathClientRegistration,
		ResponseTypesSupported:                     []string{oauth.ResponseTypeCode},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{oauth.GrantAuthorizationCode, oauth.GrantClientCredentials, oauth.GrantJWTBearer},
		CodeChallengeMethodsSupported:              []string{oauth.PKCES256},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		ScopesSupported:                            []string{token.Scope},
		JWKSURI:                                    l.Base + view.PathJWKS,
		ServiceDocumentation:                       l.Base + view.PathAuth,
		AuthorizationResponseISSParameterSupported: true,
		ClientIDMetadataDocumentSupported:          l.ClientMetadataDocuments,
		AgentAuth:                                  agentAuth(l),
	}
}

// JWKS is the key set: empty, as access tokens are opaque.
func JWKS(l view.Links) wire.JWKSet { return wire.JWKSet{Keys: []struct{}{}} }

// ServerCard is the MCP server card.
func ServerCard(l view.Links) wire.ServerCard {
	p := l.Cat.Site.Profile
	description := "Read-only public facts about " + p.Name + " and their published insights."
	if len(description) > 100 {
		description = "Read-only public profile and published insights."
	}
	title := p.Name + " public discovery API"
	return wire.ServerCard{
		Schema:      "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		Name:        cardNamespace(origin.HostOnly(origin.HostOf(l.Base)), len(l.Caller.ServiceName)) + "/" + l.Caller.ServiceName,
		Version:     l.Caller.Version,
		Title:       clipChars(title, maxCardTitle),
		Description: description,
		WebsiteURL:  l.Developers(),
		Remotes: []wire.ServerCardRemote{{
			Type: "streamable-http", URL: l.Base + view.PathMCP, SupportedProtocolVersions: mcpcall.Versions,
		}},
		ServerInfo:      wire.ServerCardInfo{Name: l.Caller.ServiceName, Title: title, Version: l.Caller.Version},
		ProtocolVersion: mcpcall.Versions[0],
		Transport:       wire.ServerCardEndpoint{Type: "streamable-http", Endpoint: view.PathMCP},
		Endpoint:        l.Base + view.PathMCP,
		Capabilities:    cardCapabilities(mcp.Capabilities()),
		Authentication:  wire.ServerCardAuth{Required: false, Schemes: []string{"bearer"}},
	}
}

// reverseDNS turns a host name into the namespace form of server names:
// "www.example.com" becomes "com.example.www".
func reverseDNS(host string) string {
	parts := strings.Split(host, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// cardCapabilities are the capabilities c declares, as the server card
// carries them: the same JSON as initialize's.
func cardCapabilities(c *sdk.ServerCapabilities) wire.ServerCapabilities {
	var out wire.ServerCapabilities
	if c.Tools != nil {
		out.Tools = &wire.ListChanged{ListChanged: c.Tools.ListChanged}
	}
	if c.Resources != nil {
		out.Resources = &wire.ResourcesChange{ListChanged: c.Resources.ListChanged, Subscribe: c.Resources.Subscribe}
	}
	return out
}

// The longest server name and title the server card schema allows, in
// characters.
const (
	maxCardName  = 200
	maxCardTitle = 100
)

// clipChars cuts s to at most n characters, marking a cut with "…".
func clipChars(s string, n int) string {
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return strings.TrimSpace(string(runes[:n-1])) + "…"
}

// cardNamespace is the namespace of the server card's name for host: its
// labels reversed ("www.example.com" becomes "com.example.www"), with any
// character the name's grammar refuses (the colons of an IPv6 address)
// turned into "-", and cut so that namespace, "/" and a server name of
// nameLen characters fit the schema's 200.
func cardNamespace(host string, nameLen int) string {
	ns := []byte(reverseDNS(host))
	for i, c := range ns {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			ns[i] = '-'
		}
	}
	if limit := maxCardName - 1 - nameLen; len(ns) > limit {
		ns = ns[:limit]
	}
	return strings.Trim(string(ns), ".")
}

// OAuthPaths are the addresses the OAuth server's answers name, which
// the documents name too.
var OAuthPaths = oauth.Paths{
	Auth: view.PathAuth, ClientRegistration: view.PathClientRegistration, Identity: view.PathIdentity, Register: view.PathRegister,
	MCP: view.PathMCP, PRM: view.PathPRM, PRMMCP: view.PathPRMMCP,
}
