package handlers

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// How MCP clients and scanners find the server before they connect: the
// server card's derived fields and the AI catalog that points at the card.

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
	card := newServerCard(l)
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
