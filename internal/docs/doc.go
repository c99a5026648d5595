// Package docs is what each of the module's documents says, each a
// function of the view of one base URL (view.Links: the addresses, the
// catalog, the routes the configuration serves and the caller's switches)
// and the data it needs handed to it: the API index (apiindex.go);
// openapi.json (openapi.go), from the named schemas of the API's bodies
// (components.go); llms.txt, llms-full.txt and the CLI with its address
// built in (llms.go); robots.txt with the site's preferences, merged into
// the site's own (robots.go); the sitemaps (sitemap.go); the Markdown twins
// of the site's pages (twins.go); auth.md (auth.go); the API catalog, the
// OAuth metadata, the key set and the MCP server card (wellknown.go);
// security.txt (securitytxt.go); the MCP server's listings beyond the site
// (listing.go: the MCP Registry's proof of the domain and server.json, the
// DNS-AID records); and, each given the tools the MCP server declares, the
// A2A agent card (agentcard.go), the AI catalog (aicatalog.go), the agent
// skill and its index (skills.go) and the WebMCP script (webmcp.go); the
// CLI's commands the documents teach (cli.go). The route table in handlers
// binds each route to its renderer here; docs never imports handlers.
//
// Imports from the module: content, internal/catalog, internal/convert, internal/mcp, internal/mcp/mcpcall, internal/oauth, internal/origin, internal/pages, internal/problem, internal/ratelimit, internal/respond, internal/schema, internal/token, internal/view, internal/wire.
package docs
