package handlers

import (
	"slices"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// The machine-readable discovery documents: the RFC 9727 API catalog, the
// OAuth metadata (RFC 9728, RFC 8414), the key set and the MCP server card.

func newAPICatalog(l links) wire.APICatalog {
	return wire.APICatalog{Linkset: []wire.LinksetEntry{{
		Anchor:      l.base + pathIndex,
		ServiceDesc: []wire.Link{{Href: l.openAPI(), Type: respond.MediaJSON}},
		ServiceDoc:  []wire.Link{{Href: l.developers(), Type: "text/html"}},
		Status:      []wire.Link{{Href: l.base + pathHealth, Type: respond.MediaJSON}},
	}}}
}

func newProtectedResourceMetadata(l links) wire.ProtectedResourceMetadata {
	return wire.ProtectedResourceMetadata{
		Resource:               l.base,
		ResourceName:           l.cat.Site.Profile.Name + " public discovery API",
		AuthorizationServers:   []string{l.base},
		ScopesSupported:        []string{token.Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceDocumentation:  l.developers(),
	}
}

// mcpProtectedResourceMetadata describes the MCP endpoint, whose resource
// identifier is its own address (RFC 9728 section 3.3: the resource is the
// one the well-known address was made from).
func mcpProtectedResourceMetadata(l links) wire.ProtectedResourceMetadata {
	m := newProtectedResourceMetadata(l)
	m.Resource = l.base + pathMCP
	m.ResourceName = l.cat.Site.Profile.Name + " MCP server"
	return m
}

func newAgentAuth(l links) wire.AgentAuth {
	return wire.AgentAuth{
		Skill:                  l.base + pathAuth,
		IdentityEndpoint:       l.base + pathIdentity,
		ClaimEndpoint:          l.base + pathIdentityClaim,
		IdentityTypesSupported: []string{oauth.IdentityAnonymous},
		RegisterURI:            l.base + pathRegister,
		ClaimURI:               l.base + pathIdentityClaim,
		Anonymous:              wire.AgentAuthMethod{CredentialTypesSupported: []string{"access_token"}},
	}
}

func newAuthorizationServerMetadata(l links) wire.AuthorizationServerMetadata {
	return wire.AuthorizationServerMetadata{
		Issuer:                                     l.base,
		AuthorizationEndpoint:                      l.base + pathAuthorize,
		TokenEndpoint:                              l.base + pathToken,
		RegistrationEndpoint:                       l.base + pathClientRegistration,
		ResponseTypesSupported:                     []string{oauth.ResponseTypeCode},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{oauth.GrantAuthorizationCode, oauth.GrantClientCredentials, oauth.GrantJWTBearer},
		CodeChallengeMethodsSupported:              []string{oauth.PKCES256},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		ScopesSupported:                            []string{token.Scope},
		JWKSURI:                                    l.base + pathJWKS,
		ServiceDocumentation:                       l.base + pathAuth,
		AuthorizationResponseISSParameterSupported: true,
		ClientIDMetadataDocumentSupported:          l.cfg.ClientMetadata != nil,
		AgentAuth:                                  newAgentAuth(l),
	}
}

func jwks(l links) wire.JWKSet { return wire.JWKSet{Keys: []struct{}{}} }

func newServerCard(l links) wire.ServerCard {
	p := l.cat.Site.Profile
	description := "Read-only public facts about " + p.Name + " and their published insights."
	if len(description) > 100 {
		description = "Read-only public profile and published insights."
	}
	title := p.Name + " public discovery API"
	return wire.ServerCard{
		Schema:      "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		Name:        cardNamespace(origin.HostOnly(origin.HostOf(l.base)), len(l.cfg.ServiceName)) + "/" + l.cfg.ServiceName,
		Version:     l.cfg.Version,
		Title:       clipChars(title, maxCardTitle),
		Description: description,
		WebsiteURL:  l.developers(),
		Remotes: []wire.ServerCardRemote{{
			Type: "streamable-http", URL: l.base + pathMCP, SupportedProtocolVersions: mcpcall.Versions,
		}},
		ServerInfo:      wire.ServerCardInfo{Name: l.cfg.ServiceName, Title: title, Version: l.cfg.Version},
		ProtocolVersion: mcpcall.Versions[0],
		Transport:       wire.ServerCardEndpoint{Type: "streamable-http", Endpoint: pathMCP},
		Endpoint:        l.base + pathMCP,
		Capabilities:    cardCapabilities(mcpCapabilities()),
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
