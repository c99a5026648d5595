package handlers

import (
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// How MCP clients and scanners find the server before they connect: the
// AI catalog that points at the card (internal/docs derives the card's
// fields).

// AgentDocs says which of the documents for agents beyond the
// specification's a Service serves. A document that is off is not the
// module's: its path goes to the next handler.
type AgentDocs struct {
	// MCPDiscovery serves the server card at the well-known addresses
	// scanners probe (/.well-known/mcp/server-card.json, server-cards.json,
	// /.well-known/mcp.json) and the AI catalog; /mcp/server-card is served
	// either way.
	MCPDiscovery bool
	// Skills serves the agent skill (a SKILL.md) and its discovery index at
	// /.well-known/agent-skills/index.json and /.well-known/skills/index.json.
	Skills bool
	// WebMCP serves /mcp/webmcp.js, which offers the MCP server's tools to
	// an agent in the browser, and includes it in the developer portal.
	WebMCP bool
	// AgentCard serves the A2A agent card at /.well-known/agent-card.json
	// and /.well-known/agent.json.
	AgentCard bool
	// WellKnownOpenAPI serves the OpenAPI description at
	// /.well-known/openapi.json too.
	WellKnownOpenAPI bool
	// SecurityTxt serves /.well-known/security.txt when the content names a
	// security contact and the site has no security.txt of its own.
	SecurityTxt bool
}

func newAICatalog(l links) wire.AICatalog {
	card := docs.ServerCard(l.Links)
	queries := representativeQueries(l)
	c := wire.AICatalog{
		SpecVersion: "1.0",
		Host: wire.AICatalogHost{
			DisplayName:      l.Cat.Site.Profile.Name,
			Identifier:       airPublisher(l.Base),
			DocumentationURL: l.Developers(),
		},
		Entries: []wire.AICatalogEntry{{
			Identifier:            airIdentifier(l.Base, "mcp", l.cfg.ServiceName),
			DisplayName:           card.Title,
			Type:                  respond.MediaCard,
			URL:                   l.Base + view.PathServerCard,
			Description:           card.Description,
			RepresentativeQueries: queries,
		}},
	}
	if l.cfg.servesSkills() {
		c.Entries = append(c.Entries, wire.AICatalogEntry{
			Identifier:            airIdentifier(l.Base, "skill", view.SkillName(l.cfg.CLIName)),
			DisplayName:           view.SkillName(l.cfg.CLIName),
			Type:                  mediaSkill,
			URL:                   l.Base + l.SkillPath(),
			Description:           skillDescription(l),
			RepresentativeQueries: queries,
		})
	}
	if l.cfg.servesAgentCard() {
		card := newAgentCard(l)
		c.Entries = append(c.Entries, wire.AICatalogEntry{
			Identifier:            airIdentifier(l.Base, "a2a", l.cfg.ServiceName),
			DisplayName:           card.Name,
			Type:                  respond.MediaA2ACard,
			URL:                   l.Base + view.PathAgentCard,
			Description:           card.Description,
			RepresentativeQueries: queries,
		})
	}
	return c
}

// representativeQueries are questions the site's artifacts answer, from
// the content: who the subject is, what they wrote on their newest
// insight's topic, and how to reach them.
func representativeQueries(l links) []string {
	name := docs.ClipChars(pages.OneLine(l.Cat.Site.Profile.Name), docs.MaxCardTitle)
	queries := []string{"Who is " + name + " and what do they do?"}
	if ins := l.Cat.Site.Insights; len(ins) > 0 && ins[0].Topic != "" {
		queries = append(queries, "What has "+name+" written about "+docs.ClipChars(pages.OneLine(ins[0].Topic), docs.MaxCardTitle)+"?")
	} else {
		queries = append(queries, "What has "+name+" written?")
	}
	return append(queries, "How can I contact "+name+"?")
}

// airPublisher is the publisher segment of the site's urn:air identifiers:
// its host name (the colons of an IPv6 address, which separate segments,
// become "-").
func airPublisher(base string) string {
	return strings.ReplaceAll(origin.HostOnly(origin.HostOf(base)), ":", "-")
}

// airIdentifier is urn:air:<publisher>:<namespace>:<name>.
func airIdentifier(base, namespace, name string) string {
	return "urn:air:" + airPublisher(base) + ":" + namespace + ":" + name
}
