package docs

import (
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// The A2A agent card (A2A 1.0, lf.a2a.v1.AgentCard): the site's agent
// described the way A2A clients and the agent-readiness scanners read it,
// its skills being the MCP server's tools, as that server declares them.

// a2aVersion is the A2A version whose AgentCard shape the card follows.
const a2aVersion = "1.0"

// MCPBinding identifies the interface the skills are reached through: the
// MCP server's Streamable HTTP transport. The site has no A2A endpoint, so
// the card does not claim one of A2A's own bindings (JSONRPC, GRPC,
// HTTP+JSON): an A2A client would send A2A's SendMessage there and fail.
// A2A names a binding beyond its own by a URI (specification section 5.8).
const MCPBinding = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http"

// AgentCard describes the site's agent: every tool the MCP server declares
// is a skill, with the tool's own name, title and description.
func AgentCard(l view.Links, declared []mcp.DeclaredTool) wire.AgentCard {
	p := l.Cat.Site.Profile
	var skills []wire.AgentSkill
	for _, t := range declared {
		tags := append([]string{"mcp", "read-only"}, strings.Split(t.Name, "_")...)
		skills = append(skills, wire.AgentSkill{ID: t.Name, Name: t.Title, Description: t.Description, Tags: tags})
	}
	return wire.AgentCard{
		Name: p.Name + " public discovery API",
		Description: "Read-only public facts about " + p.Name + " and their published insights. The skills are the tools of the MCP server at " +
			l.Base + view.PathMCP + " (MCP over Streamable HTTP; this site has no A2A endpoint); the same data is at " + l.Base + view.PathIndex + ". No authentication is needed.",
		SupportedInterfaces: []wire.AgentInterface{{URL: l.Base + view.PathMCP, ProtocolBinding: MCPBinding, ProtocolVersion: a2aVersion}},
		Provider:            wire.AgentProvider{URL: l.Base, Organization: p.Name},
		Version:             l.Caller.Version,
		DocumentationURL:    l.Developers(),
		SecuritySchemes: map[string]wire.AgentSecurityType{"oauth2": {OAuth2: wire.AgentOAuth2{
			Description: "Optional: an anonymous token for " + token.Scope + ", which grants nothing beyond unauthenticated access.",
			Flows: wire.AgentFlows{AuthorizationCode: wire.AgentCodeFlow{
				AuthorizationURL: l.Base + view.PathAuthorize,
				TokenURL:         l.Base + view.PathToken,
				Scopes:           map[string]string{token.Scope: "Read the public API."},
				PKCERequired:     true,
			}},
			MetadataURL: l.Base + view.PathASM,
		}}},
		DefaultInputModes:  []string{respond.MediaJSON},
		DefaultOutputModes: []string{respond.MediaJSON},
		Skills:             skills,
	}
}
