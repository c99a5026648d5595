package handlers

import (
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// links is the view of one base URL (view.Links: the addresses against it
// and the catalog) with what handlers' renderers read beside it: the
// caller's configuration and the route table.
type links struct {
	view.Links
	cfg    *Config
	routes []route
	// onPanic reports a panic recovered outside the request goroutine.
	onPanic func(any)
}

// newLinks is the view of base for the configuration cfg and its catalog.
func newLinks(base string, cfg *Config, cat *siteCatalog, routes []route) links {
	return links{
		Links: view.Links{Base: base, Cat: cat, Caller: view.Caller{
			ServiceName: cfg.ServiceName, Version: cfg.Version, CLIName: cfg.CLIName,
			WebMCP: cfg.servesWebMCP(), OnSite: cfg.onSite,
		}},
		cfg: cfg, routes: routes,
	}
}

// routeAt is the route of path, if the configuration serves it.
func (l links) routeAt(path string) *route {
	for i := range l.routes {
		if l.routes[i].Path == path {
			return &l.routes[i]
		}
	}
	return nil
}

// mcpSite is what the MCP tools read of l: its view, the caller's clock,
// metrics and panic report, and the routes the configuration serves.
func (l links) mcpSite() mcp.Site {
	return mcp.Site{Links: l.Links, Now: l.cfg.Now, Metrics: l.cfg.Metrics, OnPanic: l.onPanic,
		Route: func(path string) *view.Route { return l.routeAt(path).data() }}
}

// newAgentCard is the agent card of l, whose skills are the tools the MCP
// server declares for it.
func newAgentCard(l links) wire.AgentCard {
	return docs.AgentCard(l.Links, mcp.DeclaredTools(l.mcpSite()))
}

// webMCPScriptDocument renders the WebMCP script with the tools the MCP
// server declares for l.
func webMCPScriptDocument(l links, _ string) ([]byte, error) {
	return docs.WebMCPScript(mcp.DeclaredTools(l.mcpSite()))
}
