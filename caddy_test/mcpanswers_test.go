package caddytest

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// The read requests answered from the kept answers (tools/list,
// resources/list, get_profile,
// list_insights, get_insight, fetch, resources/read) answer through a real
// Caddy what the SDK answers. The SDK's answer is taken from the same
// request sent as a batch of one, which the pre-check always leaves to the
// SDK (batches are protocol 2025-03-26, the version a request without
// MCP-Protocol-Version is taken for).
func TestMCPKeptAnswersAreTheSDKs(t *testing.T) {
	s := startCaddy(t, sampleSite)
	var listed struct {
		Result struct {
			Resources []struct{ URI, Name string }
		}
	}
	if err := json.Unmarshal(s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`).body, &listed); err != nil || len(listed.Result.Resources) == 0 {
		t.Fatalf("resources/list: %v", err)
	}
	type call struct{ method, params string }
	calls := []call{
		{"tools/list", ``},
		{"tools/list", `{}`},
		{"resources/list", ``},
		{"tools/call", `{"name":"get_profile"}`},
		{"tools/call", `{"name":"get_profile","arguments":{}}`},
		{"tools/call", `{"name":"list_insights"}`},
		{"tools/call", `{"name":"list_insights","arguments":{"topic":"privacy"}}`},
		{"tools/call", `{"name":"list_insights","arguments":{"topic":" PRIVACY "}}`},
	}
	for _, r := range listed.Result.Resources {
		calls = append(calls,
			call{"tools/call", `{"name":"get_insight","arguments":{"slug":"` + r.Name + `"}}`},
			call{"tools/call", `{"name":"fetch","arguments":{"id":"` + r.Name + `"}}`},
			call{"resources/read", `{"uri":"` + r.URI + `"}`})
	}
	ids := []string{`1`, `0`, `-0`, `1.5`, `1e3`, `9007199254740993`, `"abc"`, `""`, `"</script>&"`, `"\u2028 é \" \n"`}
	for _, c := range calls {
		for _, id := range ids {
			body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + c.method + `"`
			if c.params != "" {
				body += `,"params":` + c.params
			}
			body += "}"
			kept := s.mcpPost(body)
			if kept.StatusCode != http.StatusOK || kept.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%s: %d %q %.300s", body, kept.StatusCode, kept.Header.Get("Content-Type"), kept.body)
			}
			// A kept answer is written with its length; the SDK streams
			// answers of this size without one. So this tells that the
			// kept answers served the request.
			if kept.ContentLength != int64(len(kept.body)) {
				t.Errorf("%s: Content-Length %d for %d bytes: not answered from the kept answers", body, kept.ContentLength, len(kept.body))
			}
			sameAnswer(t, body, kept.body, s.mcpPost("["+body+"]").body)
		}
	}
}

// Under protocol 2026-07-28 the read requests and the searches, sent with
// a client's per-request _meta and the Mcp-Method and Mcp-Name headers,
// are answered through a real Caddy, byte for byte, as the SDK answers
// them: resultType, the server's identity in _meta, and ttlMs and
// cacheScope on the lists and reads. The SDK's answer is taken from the
// same request whose clientInfo also lists icons, which the SDK reads and
// does not act on, and the pre-check leaves to it (2026-07-28 has no
// batches).
func TestMCPKeptAnswersAreTheSDKsUnder20260728(t *testing.T) {
	s := startCaddy(t, sampleSite)
	const (
		meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{"form":{}}},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"`
		kept, sdkOnly = meta + `}}`, meta + `,"icons":[]}}`
	)
	uri := base + "/insights/data-contracts-that-teams-actually-keep"
	for _, c := range []struct{ method, name, params string }{
		{"tools/list", "", `{`},
		{"resources/list", "", `{`},
		{"tools/call", "get_profile", `{"name":"get_profile","arguments":{},`},
		{"tools/call", "list_insights", `{"name":"list_insights","arguments":{"topic":"privacy"},`},
		{"tools/call", "get_insight", `{"name":"get_insight","arguments":{"slug":"data-contracts-that-teams-actually-keep"},`},
		{"tools/call", "fetch", `{"name":"fetch","arguments":{"id":"data-contracts-that-teams-actually-keep"},`},
		{"resources/read", uri, `{"uri":"` + uri + `",`},
		{"tools/call", "search_insights", `{"name":"search_insights","arguments":{"query":"data contracts","limit":2},`},
		{"tools/call", "search", `{"name":"search","arguments":{"query":"platform"},`},
	} {
		headers := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", c.method}
		if c.name != "" {
			headers = append(headers, "Mcp-Name", c.name)
		}
		for _, id := range []string{`1`, `"</script>&"`, `9007199254740993`} {
			body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + c.method + `","params":` + c.params + `"_meta":` + kept + `}}`
			fast := s.mcpPost(body, headers...)
			// An answer off the SDK is written with its length; the SDK
			// streams the larger ones without.
			if fast.StatusCode != http.StatusOK || fast.ContentLength != int64(len(fast.body)) {
				t.Fatalf("%s: %d, Content-Length %d for %d bytes: not answered off the SDK: %.300s", body, fast.StatusCode, fast.ContentLength, len(fast.body), fast.body)
			}
			sdk := s.mcpPost(strings.Replace(body, kept, sdkOnly, 1), headers...)
			if string(fast.body) != string(sdk.body) {
				t.Errorf("%s: the answer differs from the SDK's\ngot: %.400s\nSDK: %.400s", body, fast.body, sdk.body)
			}
			if !strings.Contains(string(fast.body), `"resultType":"complete"`) || !strings.Contains(string(fast.body), `"io.modelcontextprotocol/serverInfo"`) {
				t.Errorf("%s: no resultType or serverInfo: %.300s", body, fast.body)
			}
			if c.method != "tools/call" && !strings.Contains(string(fast.body), `"ttlMs":0,"cacheScope":"public"`) {
				t.Errorf("%s: no caching hints: %.300s", body, fast.body)
			}
		}
	}
}

// sameAnswer compares an answer with the SDK's answer to the same request
// in a batch of one, as parsed JSON.
func sameAnswer(t *testing.T, what string, got, batch []byte) {
	t.Helper()
	var g any
	var w []any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %.300s", what, err, got)
	}
	if err := json.Unmarshal(batch, &w); err != nil || len(w) != 1 {
		t.Fatalf("%s: the SDK's batch answer %v: %.300s", what, err, batch)
	}
	if !reflect.DeepEqual(g, w[0]) {
		t.Errorf("%s: the answer differs from the SDK's\ngot: %.400s\nSDK: %.400s", what, got, batch)
	}
}

// Arguments that are not the tool's still get the SDK's answers: a tool
// error for an unknown or malformed slug or a wrong type, the SDK's
// JSON-RPC error for an unknown resource, with the request's id.
func TestMCPInvalidReadsGetTheSDKsErrors(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, tc := range []struct {
		body, want string
	}{
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"get_insight","arguments":{"slug":"no-such-insight"}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_insight","arguments":{"slug":"Not A Slug"}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_insight","arguments":{"slug":5}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_insight","arguments":{}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"no-such-insight"}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_insights","arguments":{"topic":7}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"http://localhost:9080/insights/no-such-insight"}}`, `"error":{"code":-32602,"message":"Resource not found"`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"no_such_tool"}}`, `"error":`},
	} {
		r := s.mcpPost(tc.body)
		if r.StatusCode != http.StatusOK || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s: %d %.300s, want %s", tc.body, r.StatusCode, r.body, tc.want)
		}
		sameAnswer(t, tc.body, r.body, s.mcpPost("["+tc.body+"]").body)
	}
}
