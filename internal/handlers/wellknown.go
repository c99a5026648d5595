package handlers

import (
	"slices"
	"strings"

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

func newAPICatalog(l links) wire.APICatalog {
	return wire.APICatalog{Linkset: []wire.LinksetEntry{{
		Anchor:      l.Base + view.PathIndex,
		ServiceDesc: []wire.Link{{Href: l.OpenAPI(), Type: respond.MediaJSON}},
		ServiceDoc:  []wire.Link{{Href: l.Developers(), Type: "text/html"}},
		Status:      []wire.Link{{Href: l.Base + view.PathHealth, Type: respond.MediaJSON}},
	}}}
}

func newProtectedResourceMetadata(l links) wire.ProtectedResourceMetadata {
	return wire.ProtectedResourceMetadata{
		Resource:               l.Base,
		ResourceName:           l.Cat.Site.Profile.Name + " public discovery API",
		AuthorizationServers:   []string{l.Base},
		ScopesSupported:        []string{token.Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceDocumentation:  l.Developers(),
	}
}

// mcpProtectedResourceMetadata describes the MCP endpoint, whose resource
// identifier is its own address (RFC 9728 section 3.3: the resource is the
// one the well-known address was made from).
func mcpProtectedResourceMetadata(l links) wire.ProtectedResourceMetadata {
	m := newProtectedResourceMetadata(l)
	m.Resource = l.Base + view.PathMCP
	m.ResourceName = l.Cat.Site.Profile.Name + " MCP server"
	return m
}

func newAgentAuth(l links) wire.AgentAuth {
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

func newAuthorizationServerMetadata(l links) wire.AuthorizationServerMetadata {
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
		ClientIDMetadataDocumentSupported:          l.cfg.ClientMetadata != nil,
		AgentAuth:                                  newAgentAuth(l),
	}
}

func jwks(l links) wire.JWKSet { return wire.JWKSet{Keys: []struct{}{}} }

func newServerCard(l links) wire.ServerCard {
	p := l.Cat.Site.Profile
	description := "Read-only public facts about " + p.Name + " and their published insights."
	if len(description) > 100 {
		description = "Read-only public profile and published insights."
	}
	title := p.Name + " public discovery API"
	return wire.ServerCard{
		Schema:      "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		Name:        cardNamespace(origin.HostOnly(origin.HostOf(l.Base)), len(l.cfg.ServiceName)) + "/" + l.cfg.ServiceName,
		Version:     l.cfg.Version,
		Title:       clipChars(title, maxCardTitle),
		Description: description,
		WebsiteURL:  l.Developers(),
		Remotes: []wire.ServerCardRemote{{
			Type: "streamable-http", URL: l.Base + view.PathMCP, SupportedProtocolVersions: mcpcall.Versions,
		}},
		ServerInfo:      wire.ServerCardInfo{Name: l.cfg.ServiceName, Title: title, Version: l.cfg.Version},
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
