package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

func TestToolPanicBecomesToolError(t *testing.T) {
	var reported any
	h := safeTool(func(v any) { reported = v }, func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, wire.Health, error) {
		panic("boom")
	})
	_, _, err := h(context.Background(), nil, noInput{})
	if err == nil || reported != "boom" {
		t.Errorf("err %v, reported %v", err, reported)
	}
}
