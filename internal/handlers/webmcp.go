package handlers

import (
	"bytes"
	_ "embed"
	"errors"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"net/http"
	"strings"
)

// WebMCP: a script for the site's own pages that offers the MCP server's
// read-only tools to an agent in the browser
// (document.modelContext.registerTool, or navigator.modelContext in earlier browsers), each answering from the JSON API.

//go:embed webmcp/webmcp.js
var webMCPScript []byte

// webMCPPlaceholder is where the script receives its tools.
var webMCPPlaceholder = []byte(`"__DISCOVERY_WEBMCP_TOOLS__"`)

func (c *Config) servesWebMCP() bool { return c.Agents.WebMCP }

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

// webMCPScriptDocument renders the script with the tools the MCP server
// declares that have a JSON twin: every tool but the search, which has no
// REST endpoint to call.
func (l links) webMCPScriptDocument(_ string) ([]byte, error) {
	var tools []webMCPTool
	for _, t := range l.tools() {
		if t.route == nil || t.route.Method != http.MethodGet {
			continue
		}
		tools = append(tools, webMCPTool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: webMCPAnnotations{ReadOnlyHint: t.Annotations != nil && t.Annotations.ReadOnlyHint},
			Path:        t.route.Path,
		})
	}
	// JSON is a JavaScript expression; marshal escapes <, > and & too, so
	// no content can close the script or open markup.
	list, err := marshal(tools)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(webMCPScript, webMCPPlaceholder) {
		return nil, errors.New("webmcp.js has no place for its tools")
	}
	return bytes.Replace(webMCPScript, webMCPPlaceholder, list, 1), nil
}

// webMCPSource is the CSP source that allows the script on the portal and
// no other: its own URL. A host-source cannot name an IPv6 address, so a
// base URL with one falls back to the portal's own origin.
func (l links) webMCPSource(path string) string {
	if strings.Contains(origin.HostOnly(origin.HostOf(l.base)), ":") {
		return "'self'"
	}
	return l.base + path
}

// webMCPScriptURL is the script's address, or "" when it is off.
func (l links) webMCPScriptURL() string {
	if !l.cfg.servesWebMCP() {
		return ""
	}
	return l.base + pathWebMCP
}
