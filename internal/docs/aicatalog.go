package docs

import (
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// How MCP clients and scanners find the server before they connect: the
// AI catalog that points at the card (wellknown.go derives the card's
// fields).

// AICatalog is the site's AI catalog: the MCP server card, then the
// skill and the agent card when they are served (the card's skills are
// the tools the MCP server declares).
func AICatalog(l view.Links, tools []mcp.DeclaredTool) wire.AICatalog {
	card := ServerCard(l)
	queries := representativeQueries(l)
	c := wire.AICatalog{
		SpecVersion: "1.0",
		Host: wire.AICatalogHost{
			DisplayName:      l.Cat.Site.Profile.Name,
			Identifier:       airPublisher(l.Base),
			DocumentationURL: l.Developers(),
		},
		Entries: []wire.AICatalogEntry{{
			Identifier:            airIdentifier(l.Base, "mcp", l.ServiceName),
			DisplayName:           card.Title,
			Type:                  respond.MediaCard,
			URL:                   l.Base + view.PathServerCard,
			Description:           card.Description,
			RepresentativeQueries: queries,
		}},
	}
	if l.Skills {
		c.Entries = append(c.Entries, wire.AICatalogEntry{
			Identifier:            airIdentifier(l.Base, "skill", view.SkillName(l.CLIName)),
			DisplayName:           view.SkillName(l.CLIName),
			Type:                  mediaSkill,
			URL:                   l.Base + l.SkillPath(),
			Description:           skillDescription(l),
			RepresentativeQueries: queries,
		})
	}
	if l.AgentCard {
		card := AgentCard(l, tools)
		c.Entries = append(c.Entries, wire.AICatalogEntry{
			Identifier:            airIdentifier(l.Base, "a2a", l.ServiceName),
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
func representativeQueries(l view.Links) []string {
	name := clipChars(pages.OneLine(l.Cat.Site.Profile.Name), maxCardTitle)
	queries := []string{"Who is " + name + " and what do they do?"}
	if ins := l.Cat.Site.Insights; len(ins) > 0 && ins[0].Topic != "" {
		queries = append(queries, "What has "+name+" written about "+clipChars(pages.OneLine(ins[0].Topic), maxCardTitle)+"?")
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
