package mcp

import (
	"context"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
)

// uncounted marks the context of a request the service makes of its own
// MCP server, to keep an answer: the client's request is counted where it
// is answered.
type uncounted struct{}

// CountCalls is the MCP server's middleware that counts each tool call
// and resource read for site, with how long it took and whether it
// failed.
func CountCalls(tools map[string]bool, site *metrics.Site) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "tools/call" && method != "resources/read" || ctx.Value(uncounted{}) != nil {
				return next(ctx, method, req)
			}
			start := time.Now()
			result, err := next(ctx, method, req)
			kind, name := callName(tools, method, req.GetParams())
			failed := err != nil
			if r, ok := result.(*sdk.CallToolResult); ok && r != nil && r.IsError {
				failed = true
			}
			site.MCPCall(kind, name, failed, time.Since(start))
			return result, err
		}
	}
}

// callName is the kind and the name a call is counted under: a tool of
// the server's, a resource's kind, else "other", so that no client can
// add a series.
func callName(tools map[string]bool, method string, params sdk.Params) (kind, name string) {
	switch p := params.(type) {
	case *sdk.CallToolParamsRaw:
		if p != nil && tools[p.Name] {
			return "tool", p.Name
		}
		return "tool", "other"
	case *sdk.ReadResourceParams:
		if p != nil && strings.HasPrefix(p.URI, "http") {
			return "resource", "insight"
		}
		return "resource", "other"
	}
	if method == "tools/call" {
		return "tool", "other"
	}
	return "resource", "other"
}

// countKept counts a request answered from a kept answer (see
// answers.go), made by the SDK once and counted here every time.
func (e *Endpoint) countKept(req Request, start time.Time) {
	switch req.Method {
	case "tools/call":
		e.Metrics.MCPCall("tool", req.Tool, false, time.Since(start))
	case "resources/read":
		e.Metrics.MCPCall("resource", "insight", false, time.Since(start))
	}
}
