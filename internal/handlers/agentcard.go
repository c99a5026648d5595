package handlers

import (
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// The A2A agent card (A2A 1.0, lf.a2a.v1.AgentCard): the site's agent
// described the way A2A clients and the agent-readiness scanners read it,
// its skills being the MCP server's tools, as that server declares them.

// a2aVersion is the A2A version whose AgentCard shape the card follows.
const a2aVersion = "1.0"

// mcpBinding identifies the interface the skills are reached through: the
// MCP server's Streamable HTTP transport. The site has no A2A endpoint, so
// the card does not claim one of A2A's own bindings (JSONRPC, GRPC,
// HTTP+JSON): an A2A client would send A2A's SendMessage there and fail.
// A2A names a binding beyond its own by a URI (specification section 5.8).
const mcpBinding = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http"

// agentCard is an A2A AgentCard. The official JSON Schema allows no other
// members, so the card carries nothing of older drafts (a top-level url,
// protocolVersion or preferredTransport).
type agentCard struct {
	Name                string                       `json:"name" jsonschema:"The agent's name, as people read it."`
	Description         string                       `json:"description" jsonschema:"What the agent offers, and how to reach it."`
	SupportedInterfaces []agentInterface             `json:"supportedInterfaces" schema:"minItems=1" jsonschema:"Where and how the skills are called, preferred first."`
	Provider            agentProvider                `json:"provider"`
	Version             string                       `json:"version" jsonschema:"The service's version."`
	DocumentationURL    string                       `json:"documentationUrl" schema:"format=uri" jsonschema:"The developer portal."`
	Capabilities        agentCapabilities            `json:"capabilities"`
	SecuritySchemes     map[string]agentSecurityType `json:"securitySchemes" jsonschema:"How a caller may authenticate; no security requirement is stated, since none is needed."`
	DefaultInputModes   []string                     `json:"defaultInputModes" jsonschema:"Media types the skills take."`
	DefaultOutputModes  []string                     `json:"defaultOutputModes" jsonschema:"Media types the skills return."`
	Skills              []agentSkill                 `json:"skills" jsonschema:"What the agent can do: the MCP server's tools."`
}

type agentInterface struct {
	URL             string `json:"url" schema:"format=uri" jsonschema:"The MCP endpoint."`
	ProtocolBinding string `json:"protocolBinding" jsonschema:"The MCP Streamable HTTP transport, named by a URI: not an A2A binding."`
	ProtocolVersion string `json:"protocolVersion" jsonschema:"The A2A version of the card."`
}

type agentProvider struct {
	URL          string `json:"url" schema:"format=uri" jsonschema:"The site."`
	Organization string `json:"organization" jsonschema:"Who the site is about."`
}

// agentCapabilities are the A2A capabilities: none, stated explicitly.
type agentCapabilities struct {
	Streaming         bool `json:"streaming" jsonschema:"false: answers are single JSON documents."`
	PushNotifications bool `json:"pushNotifications" jsonschema:"false."`
	ExtendedAgentCard bool `json:"extendedAgentCard" jsonschema:"false: there is nothing more to show an authenticated caller."`
}

// agentSecurityType is one A2A SecurityScheme (a one-of): here always OAuth 2.0.
type agentSecurityType struct {
	OAuth2 agentOAuth2 `json:"oauth2SecurityScheme"`
}

type agentOAuth2 struct {
	Description string     `json:"description"`
	Flows       agentFlows `json:"flows"`
	MetadataURL string     `json:"oauth2MetadataUrl" schema:"format=uri" jsonschema:"The RFC 8414 authorization server metadata."`
}

// agentFlows is A2A's OAuthFlows, also a one-of.
type agentFlows struct {
	AuthorizationCode agentCodeFlow `json:"authorizationCode"`
}

type agentCodeFlow struct {
	AuthorizationURL string            `json:"authorizationUrl" schema:"format=uri"`
	TokenURL         string            `json:"tokenUrl" schema:"format=uri"`
	Scopes           map[string]string `json:"scopes" jsonschema:"Each scope with what it grants."`
	PKCERequired     bool              `json:"pkceRequired" schema:"const=true"`
}

type agentSkill struct {
	ID          string   `json:"id" jsonschema:"The MCP tool's name."`
	Name        string   `json:"name" jsonschema:"The MCP tool's title."`
	Description string   `json:"description" jsonschema:"The MCP tool's description."`
	Tags        []string `json:"tags" jsonschema:"Keywords: mcp, read-only and the words of the tool's name."`
}

// agentCard describes the site's agent: every tool the MCP server declares
// is a skill, with the tool's own name, title and description.
func newAgentCard(l links) agentCard {
	p := l.cfg.Site.Profile
	var skills []agentSkill
	for _, t := range declaredTools(l) {
		tags := append([]string{"mcp", "read-only"}, strings.Split(t.Name, "_")...)
		skills = append(skills, agentSkill{ID: t.Name, Name: t.Title, Description: t.Description, Tags: tags})
	}
	return agentCard{
		Name: p.Name + " public discovery API",
		Description: "Read-only public facts about " + p.Name + " and their published insights. The skills are the tools of the MCP server at " +
			l.base + pathMCP + " (MCP over Streamable HTTP; this site has no A2A endpoint); the same data is at " + l.base + pathIndex + ". No authentication is needed.",
		SupportedInterfaces: []agentInterface{{URL: l.base + pathMCP, ProtocolBinding: mcpBinding, ProtocolVersion: a2aVersion}},
		Provider:            agentProvider{URL: l.base, Organization: p.Name},
		Version:             l.cfg.Version,
		DocumentationURL:    l.developers(),
		SecuritySchemes: map[string]agentSecurityType{"oauth2": {OAuth2: agentOAuth2{
			Description: "Optional: an anonymous token for " + token.Scope + ", which grants nothing beyond unauthenticated access.",
			Flows: agentFlows{AuthorizationCode: agentCodeFlow{
				AuthorizationURL: l.base + pathAuthorize,
				TokenURL:         l.base + pathToken,
				Scopes:           map[string]string{token.Scope: "Read the public API."},
				PKCERequired:     true,
			}},
			MetadataURL: l.base + pathASM,
		}}},
		DefaultInputModes:  []string{respond.MediaJSON},
		DefaultOutputModes: []string{respond.MediaJSON},
		Skills:             skills,
	}
}
