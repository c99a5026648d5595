package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// mcpCall posts one JSON-RPC request to the service's /mcp and returns its
// result.
func mcpCall(t *testing.T, s *Service, method string, params any) map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, r)
	var resp struct {
		Result map[string]any
		Error  any
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Error != nil || rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", method, rec.Code, rec.Body)
	}
	return resp.Result
}

// Every tool's schemas use forms every MCP client accepts: one type per
// schema (no type arrays such as ["null","array"], which several clients
// reject), and no null type at all.
func TestToolSchemasArePortable(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	tools, _ := mcpCall(t, s, "tools/list", map[string]any{})["tools"].([]any)
	if len(tools) == 0 {
		t.Fatal("no tools listed")
	}
	var walk func(tool, at string, v any)
	walk = func(tool, at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ, ok := v["type"]; ok {
				if name, ok := typ.(string); !ok || name == "null" {
					t.Errorf("%s: %s has type %v", tool, at, typ)
				}
			}
			for k, e := range v {
				if k != "properties" || at == "" {
					walk(tool, at+"/"+k, e)
					continue
				}
				for name, p := range e.(map[string]any) {
					walk(tool, at+"/properties/"+name, p)
				}
			}
		case []any:
			for _, e := range v {
				walk(tool, at+"[]", e)
			}
		}
	}
	for _, tool := range tools {
		tool := tool.(map[string]any)
		name, _ := tool["name"].(string)
		if tool["outputSchema"] == nil {
			t.Errorf("%s has no output schema", name)
		}
		walk(name, "inputSchema", tool["inputSchema"])
		walk(name, "outputSchema", tool["outputSchema"])
	}
}

// Arguments outside their declared bounds are refused with a tool error
// that names the argument, not clamped.
func TestToolArgumentsOutOfBoundsAreRefused(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	for _, limit := range []int{-1, 0, 51, 1000} {
		res := mcpCall(t, s, "tools/call", map[string]any{"name": "search_insights", "arguments": map[string]any{"query": "data", "limit": limit}})
		text, _ := json.Marshal(res["content"])
		if res["isError"] != true || !strings.Contains(string(text), "limit") {
			t.Errorf("limit %d: %v", limit, res)
		}
	}
	for _, limit := range []int{1, 50} {
		res := mcpCall(t, s, "tools/call", map[string]any{"name": "search_insights", "arguments": map[string]any{"query": "data", "limit": limit}})
		if res["isError"] == true {
			t.Errorf("limit %d refused: %v", limit, res)
		}
	}
}
