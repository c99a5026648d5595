// Package docs is what each of the module's documents says, each a
// function of the view of one base URL (view.Links) and the data it needs
// handed to it: the API catalog, the OAuth metadata, the key set and the
// MCP server card (wellknown.go), security.txt (securitytxt.go), the A2A
// agent card (agentcard.go) and the WebMCP script (webmcp.go), both given
// the tools the MCP server declares, the CLI's commands the documents
// teach (cli.go) and the named schemas of the API's bodies
// (components.go). The route table in handlers binds each route to its
// renderer here; docs never imports handlers.
//
// Imports from the module: internal/catalog, internal/mcp, internal/mcp/mcpcall, internal/oauth, internal/origin, internal/pages, internal/problem, internal/respond, internal/schema, internal/token, internal/view, internal/wire.
package docs
