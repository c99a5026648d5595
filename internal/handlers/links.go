package handlers

import (
	"slices"

	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/portal"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// links is the view of one base URL (view.Links: the addresses against it,
// the catalog and the routes served) with what handlers reads beside it:
// the caller's configuration and the routes bound, routes[i] the route
// whose data is Routes[i].
type links struct {
	view.Links
	cfg    *Config
	routes []route
	// onPanic reports a panic recovered outside the request goroutine.
	onPanic func(any)
}

// newLinks is the view of base for the configuration cfg and its catalog,
// whose served routes are routes (the data of each is the view's).
func newLinks(base string, cfg *Config, cat *catalog.Catalog, routes []route) links {
	data := make([]*view.Route, len(routes))
	for i := range routes {
		data[i] = &routes[i].Route
	}
	return links{Links: view.Links{Base: base, Cat: cat, Routes: data, Caller: callerOf(cfg)}, cfg: cfg, routes: routes}
}

// callerOf is what the view reads of cfg.
func callerOf(cfg *Config) view.Caller {
	return view.Caller{
		ServiceName: cfg.ServiceName, Version: cfg.Version, CLIName: cfg.CLIName,
		WebMCP: cfg.servesWebMCP(), OnSite: cfg.onSite,
		CLIScript: cfg.CLIScript, RobotsContentUsage: cfg.RobotsContentUsage,
		Sitemap: cfg.servesSitemap(), SiteSitemaps: cfg.SiteSitemaps,
		MCPDiscovery: cfg.servesMCPDiscovery(), Skills: cfg.servesSkills(), AgentCard: cfg.servesAgentCard(),
		MCPRegistryKey: cfg.MCPRegistryKey, TokenSeconds: cfg.tokenTTLSeconds(),
		ClientMetadataDocuments: cfg.ClientMetadata != nil,
		RateLimit:               cfg.RateLimit, RefusesAgents: cfg.RefusesAgents,
		Robots:      cfg.servesRobots(),
		Deprecation: cfg.Deprecation, Sunset: cfg.Sunset, Successor: cfg.Successor,
	}
}

// mcpSite is what the MCP tools read of l: its view, the caller's clock,
// metrics and panic report.
func (l links) mcpSite() mcp.Site {
	return mcp.Site{Links: l.Links, Now: l.cfg.Now, Metrics: l.cfg.Metrics, OnPanic: l.onPanic}
}

// tools are the tools the MCP server declares for l, which the documents
// that describe them are given.
func (l links) tools() []mcp.DeclaredTool { return mcp.DeclaredTools(l.mcpSite()) }

// newAgentCard is the agent card of l, whose skills are the MCP server's
// tools.
func newAgentCard(l links) wire.AgentCard { return docs.AgentCard(l.Links, l.tools()) }

// aiCatalog is the AI catalog of l, whose agent card's skills are the MCP
// server's tools.
func aiCatalog(l links) wire.AICatalog { return docs.AICatalog(l.Links, l.tools()) }

// webMCPScriptDocument renders the WebMCP script with the MCP server's
// tools.
func webMCPScriptDocument(l links, _ string) ([]byte, error) { return docs.WebMCPScript(l.tools()) }

// skillMarkdown renders the SKILL.md with the MCP server's tools.
func skillMarkdown(l links, _ string) ([]byte, error) { return docs.SkillMarkdown(l.Links, l.tools()) }

// skillsIndex renders the skills' discovery index with the MCP server's
// tools.
func skillsIndex(l links, _ string) ([]byte, error) { return docs.SkillsIndex(l.Links, l.tools()) }

// portalPage is what the developer portal says for l, the example of each
// route rendered from the content the body its renderer makes.
func portalPage(l links) *portal.Page {
	return portal.Of(l.Links, func(rt *view.Route, slug string) []byte {
		i := slices.Index(l.Routes, rt)
		if i < 0 || l.routes[i].render == nil {
			return nil
		}
		body, err := l.routes[i].render(l, slug)
		if err != nil {
			return nil
		}
		return body
	})
}

// developerPortal renders /developers.
func developerPortal(l links, _ string) ([]byte, error) { return portal.HTML(portalPage(l)) }

// developerPortalMarkdown renders /developers.md, the portal for agents.
func developerPortalMarkdown(l links, _ string) ([]byte, error) {
	return portal.Markdown(portalPage(l), l.Developers())
}

// portalHeaders are the portal's headers for the base URL of l.
func portalHeaders(l links) [][2]string { return portal.Headers(l.Links) }
