package docs

import (
	"bytes"
	_ "embed"
	"errors"
	"net/http"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// WebMCP: a script for the site's own pages that offers the MCP server's
// read-only tools to an agent in the browser
// (document.modelContext.registerTool, or navigator.modelContext in earlier browsers), each answering from the JSON API.

//go:embed webmcp/webmcp.js
var webMCPScript []byte

// webMCPPlaceholder is where the script receives its tools.
var webMCPPlaceholder = []byte(`"__DISCOVERY_WEBMCP_TOOLS__"`)

// webMCPTool is a tool as the script registers it, with the API path it
// reads ("{slug}" filled from the argument of that name).
type webMCPTool struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	InputSchema any               `json:"inputSchema"`
	Annotations webMCPAnnotations `json:"annotations"`
	Path        string            `json:"path"`
}

type webMCPAnnotations struct {
	ReadOnlyHint bool `json:"readOnlyHint"`
}

// WebMCPScript renders the script with the tools the MCP server
// declares that have a JSON twin: every tool but the search, which has no
// REST endpoint to call.
func WebMCPScript(declared []mcp.DeclaredTool) ([]byte, error) {
	var tools []webMCPTool
	for _, t := range declared {
		if t.Route == nil || t.Route.Method != http.MethodGet {
			continue
		}
		tools = append(tools, webMCPTool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: webMCPAnnotations{ReadOnlyHint: t.Annotations != nil && t.Annotations.ReadOnlyHint},
			Path:        t.Route.Path,
		})
	}
	// JSON is a JavaScript expression; respond.Marshal escapes <, > and & too, so
	// no content can close the script or open markup.
	list, err := respond.Marshal(tools)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(webMCPScript, webMCPPlaceholder) {
		return nil, errors.New("webmcp.js has no place for its tools")
	}
	return bytes.Replace(webMCPScript, webMCPPlaceholder, list, 1), nil
}
