package caddytest

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var mcpVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}

func connectMCP(t *testing.T, s *server, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "caddy-discovery-test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: s.Client, DisableStandaloneSSE: true,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect with %s: %v", version, err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// structured calls a tool and returns its structured content as JSON.
func structured(t *testing.T, session *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, []byte) {
	t.Helper()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: the MCP result differs from the REST API's JSON\nMCP:  %.300s\nREST: %.300s", what, got, want)
	}
}

func TestMCPWithTheGoSDKClient(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, version := range mcpVersions {
		t.Run(version, func(t *testing.T) {
			session := connectMCP(t, s, version)
			// The SDK client's ping carries no per-request _meta, which
			// 2026-07-28 requires of every request; ping is exercised with
			// the versions that have it in their handshake era.
			if version < "2026-07-28" {
				if err := session.Ping(context.Background(), nil); err != nil {
					t.Errorf("ping: %v", err)
				}
			}
			if got := session.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, asked for %s", got, version)
			}
			tools, err := session.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
				if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Description == "" ||
					tool.InputSchema == nil || tool.OutputSchema == nil {
					t.Errorf("tool %s: annotations %+v, description %q, schemas %v %v", tool.Name, tool.Annotations, tool.Description, tool.InputSchema != nil, tool.OutputSchema != nil)
				}
			}
			if strings.Join(names, ",") != "fetch,get_health,get_insight,get_profile,list_insights,search,search_insights" {
				t.Errorf("tools %v", names)
			}

			_, profile := structured(t, session, "get_profile", nil)
			sameJSON(t, "get_profile", profile, s.get("/api/v1/profile").body)
			_, list := structured(t, session, "list_insights", nil)
			sameJSON(t, "list_insights", list, s.get("/api/v1/insights").body)
			slug := "the-case-for-a-boring-data-platform"
			_, doc := structured(t, session, "get_insight", map[string]any{"slug": slug})
			sameJSON(t, "get_insight", doc, s.get("/api/v1/insights/"+slug).body)

			_, filtered := structured(t, session, "list_insights", map[string]any{"topic": "privacy"})
			var f struct {
				Count int `json:"count"`
				Items []struct{ Topic string }
			}
			_ = json.Unmarshal(filtered, &f)
			if f.Count != 1 || len(f.Items) != 1 || f.Items[0].Topic != "Privacy" {
				t.Errorf("list_insights by topic: %s", filtered)
			}

			_, found := structured(t, session, "search_insights", map[string]any{"query": "warehouse cost"})
			var sr struct {
				Count   int
				Results []struct{ Slug, Snippet string }
			}
			_ = json.Unmarshal(found, &sr)
			if sr.Count == 0 || sr.Results[0].Slug != "where-warehouse-spend-really-goes" || sr.Results[0].Snippet == "" {
				t.Errorf("search_insights: %s", found)
			}

			_, h := structured(t, session, "get_health", nil)
			if !strings.Contains(string(h), `"status":"ok"`) {
				t.Errorf("get_health: %s", h)
			}

			for _, bad := range []string{"no-such-insight", "Not A Slug"} {
				res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_insight", Arguments: map[string]any{"slug": bad}})
				if err != nil {
					t.Fatalf("get_insight %q: %v", bad, err)
				}
				text := ""
				if len(res.Content) > 0 {
					text = res.Content[0].(*mcp.TextContent).Text
				}
				if !res.IsError || !strings.Contains(text, "list_insights") {
					t.Errorf("get_insight %q: isError %v, %q", bad, res.IsError, text)
				}
			}

			resources, err := session.ListResources(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(resources.Resources) < 6 {
				t.Fatalf("%d resources", len(resources.Resources))
			}
			r0 := resources.Resources[0]
			read, err := session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: r0.URI})
			if err != nil {
				t.Fatal(err)
			}
			var rest struct{ Content string }
			_ = json.Unmarshal(s.get("/api/v1/insights/"+r0.Name).body, &rest)
			if len(read.Contents) != 1 || read.Contents[0].MIMEType != "text/markdown" || read.Contents[0].Text != rest.Content {
				t.Errorf("resource %s does not hold the insight's Markdown", r0.URI)
			}
		})
	}
}

// mcpPost sends one raw JSON-RPC message to /mcp.
func (s *server) mcpPost(body string, headers ...string) *response {
	s.t.Helper()
	h := append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, headers...)
	return s.do(http.MethodPost, base+"/mcp", strings.NewReader(body), h...)
}

func TestMCPRobustness(t *testing.T) {
	s := startCaddy(t, sampleSite)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

	r := s.mcpPost(initialize)
	if r.StatusCode != http.StatusOK || r.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize: %d, session %q: %s", r.StatusCode, r.Header.Get("Mcp-Session-Id"), r.body)
	}
	s.validate(r)

	r = s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":`)
	var rpcErr struct {
		Error struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal(r.body, &rpcErr); err != nil || r.StatusCode != 400 || rpcErr.Error.Code != -32700 ||
		r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("malformed JSON: %d %q %s", r.StatusCode, r.Header.Get("Content-Type"), r.body)
	}

	r = s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 70000) + `"}}`)
	s.validateProblem(r, http.StatusRequestEntityTooLarge, "payload_too_large")

	r = s.mcpPost(initialize, "Origin", "https://evil.example")
	s.validateProblem(r, http.StatusForbidden, "forbidden")
	s.validate(r)
	if r = s.mcpPost(initialize, "Origin", base); r.StatusCode != http.StatusOK {
		t.Errorf("the site's own origin: %d", r.StatusCode)
	}

	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		r = s.do(method, base+"/mcp", nil)
		s.validateProblem(r, http.StatusMethodNotAllowed, "method_not_allowed")
		if r.Header.Get("Allow") != "POST, OPTIONS" {
			t.Errorf("%s: Allow %q", method, r.Header.Get("Allow"))
		}
	}

	r = s.do(http.MethodOptions, base+"/mcp", nil, "Origin", base, "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type, mcp-protocol-version")
	if r.StatusCode != http.StatusNoContent || r.Header.Get("Access-Control-Allow-Origin") != base ||
		!strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "MCP-Protocol-Version") {
		t.Errorf("preflight: %d %v", r.StatusCode, r.Header)
	}

	r = s.mcpPost(initialize, "Authorization", "Bearer forged")
	s.validateProblem(r, http.StatusUnauthorized, "invalid_token")
	if tok := s.register(); s.mcpPost(initialize, "Authorization", "Bearer "+tok).StatusCode != http.StatusOK {
		t.Error("a valid bearer is refused on /mcp")
	}

	s.validateProblem(s.get("/mcp/nope"), http.StatusNotFound, "not_found")
}

// A Caddy on a loopback listener behind a tunnel gets requests whose Host is
// the public name: with base_url naming it they pass; other names do not.
func TestMCPHostCheckOnLoopback(t *testing.T) {
	s := startCaddy(t, `
http://:9080 {
	discovery {
		content sample
		base_url https://public.example
		rate_limit 1500 60s
	}
}
`)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	send := func(host string) *response {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(initialize))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		return s.send(req)
	}
	for host, want := range map[string]int{"public.example": 200, "localhost:9080": 200, "127.0.0.1:9080": 200, "rebound.example": 403} {
		if r := send(host); r.StatusCode != want {
			t.Errorf("Host %s: %d, want %d: %s", host, r.StatusCode, want, r.body)
		}
	}

	s = startCaddy(t, `
http://:9080 {
	discovery {
		content sample
		mcp_host_check off
		rate_limit 1500 60s
	}
}
`)
	if r := send("rebound.example"); r.StatusCode != http.StatusOK {
		t.Errorf("mcp_host_check off: %d", r.StatusCode)
	}
}

// TestMCPRefusedHostNamesTheServer: the answer to a refused Host names
// none of its addresses after that Host (a rebinding page would read them
// as the site's): they are the configured base_url's or, without one, the
// address the connection reached. That holds whatever the method.
func TestMCPRefusedHostNamesTheServer(t *testing.T) {
	for _, tc := range []struct{ option, want string }{
		{"base_url https://public.example", "https://public.example"},
		{"", "http://127.0.0.1:9080"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			s := startCaddy(t, "http://:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t\t"+tc.option+"\n\t\trate_limit 1500 60s\n\t}\n}\n")
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				req, _ := http.NewRequest(method, "http://127.0.0.1:9080/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Host = "rebound.example"
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				r := s.send(req)
				if r.StatusCode != http.StatusForbidden {
					t.Fatalf("%s: %d, want 403: %s", method, r.StatusCode, r.body)
				}
				p := r.json(t)
				if p["type"] != tc.want+"/developers#error-forbidden" || p["instance"] != tc.want+"/mcp" || p["code"] != "forbidden" {
					t.Errorf("%s: type %v, instance %v, code %v", method, p["type"], p["instance"], p["code"])
				}
				if hint := p["hint"].(string); strings.Contains(hint, "rebound.example") {
					t.Errorf("%s: the hint names the refused Host: %s", method, hint)
				}
				for _, field := range []string{"Link", "Access-Control-Allow-Origin"} {
					if v := r.Header.Get(field); strings.Contains(v, "rebound.example") || !strings.Contains(v, tc.want) {
						t.Errorf("%s: %s %q", method, field, v)
					}
				}
				if method == http.MethodPost {
					s.validate(r)
				}
			}
		})
	}
}

func TestServerCard(t *testing.T) {
	s := startCaddy(t, sampleSite)
	wellKnown := s.get("/.well-known/mcp/server-card.json")
	card := s.get("/mcp/server-card")
	s.validate(wellKnown)
	s.validate(card)
	if string(wellKnown.body) != string(card.body) {
		t.Error("the two server card addresses serve different cards")
	}
	c := card.json(t)
	remotes := c["remotes"].([]any)[0].(map[string]any)
	if c["$schema"] != "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json" ||
		!strings.Contains(c["name"].(string), "/") || len(c["description"].(string)) > 100 ||
		remotes["type"] != "streamable-http" || remotes["url"] != base+"/mcp" ||
		c["transport"].(map[string]any)["endpoint"] != "/mcp" ||
		c["authentication"].(map[string]any)["required"] != false {
		t.Errorf("server card %v", c)
	}
	for _, h := range []struct{ name, want string }{
		{"Access-Control-Allow-Origin", "*"}, {"Cache-Control", "private, max-age=3600"}, // no base_url: the card names the Host
	} {
		if got := wellKnown.Header.Get(h.name); got != h.want {
			t.Errorf("%s %q", h.name, got)
		}
	}
	if wellKnown.Header.Get("ETag") == "" {
		t.Error("no ETag")
	}
}

// meta20260728 is the per-request _meta a 2026-07-28 client sends.
const meta20260728 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// Every kind of answer /mcp gives is declared in /openapi.json: its status,
// its content type and its body's schema, and a JSON-RPC error carries the
// code and id JSON-RPC prescribes.
func TestMCPAnswersAreDeclared(t *testing.T) {
	s := startCaddy(t, sampleSite)
	const accept = "application/json, text/event-stream"
	for _, c := range []struct {
		name, body string
		headers    []string
		status     int
		// contentType is empty for an answer without a body.
		contentType string
		// code is the JSON-RPC error code, 0 for a result; id the
		// expected id, as JSON.
		code int
		id   string
	}{
		{name: "request", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			status: 200, contentType: "application/json", id: "1"},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			status: 202},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"two","method":"ping"}]`,
			status: 200, contentType: "application/json"},
		{name: "parse error", body: `{"jsonrpc":"2.0","id":1,"method":`,
			status: 400, contentType: "application/json", code: -32700, id: "null"},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":3,"method":"tasks/list"}`,
			status: 200, contentType: "application/json", code: -32601, id: "3"},
		{name: "unknown method, string id", body: `{"jsonrpc":"2.0","id":"x","method":"tasks/list"}`,
			status: 200, contentType: "application/json", code: -32601, id: `"x"`},
		{name: "unknown method at 2026-07-28", body: `{"jsonrpc":"2.0","id":3,"method":"tasks/list"}`,
			headers: []string{"MCP-Protocol-Version", "2026-07-28"},
			status:  404, contentType: "application/json", code: -32601, id: "3"},
		// The server has no prompts and does not declare the capability:
		// its methods are not found, as the SDK would otherwise list none.
		{name: "prompts/list", body: `{"jsonrpc":"2.0","id":7,"method":"prompts/list"}`,
			status: 200, contentType: "application/json", code: -32601, id: "7"},
		{name: "prompts/get", body: `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"x"}}`,
			status: 200, contentType: "application/json", code: -32601, id: "8"},
		{name: "prompts/list at 2026-07-28", body: `{"jsonrpc":"2.0","id":9,"method":"prompts/list","params":{"_meta":` + meta20260728 + `}}`,
			headers: []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "prompts/list"},
			status:  404, contentType: "application/json", code: -32601, id: "9"},
		{name: "not JSON-RPC", body: `{"hello":1}`,
			status: 400, contentType: "application/json", code: -32600, id: "null"},
		{name: "bad Accept", body: `{"jsonrpc":"2.0","id":5,"method":"ping"}`, headers: []string{"Accept", "application/json"},
			status: 400, contentType: "application/json", code: -32600, id: "5"},
		{name: "unknown tool", body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			status: 200, contentType: "application/json", code: -32602, id: "6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := *s
			s.t = t
			headers := append([]string{"Content-Type", "application/json", "Accept", accept}, c.headers...)
			r := s.do(http.MethodPost, base+"/mcp", strings.NewReader(c.body), headers...)
			if r.StatusCode != c.status || r.Header.Get("Content-Type") != c.contentType {
				t.Fatalf("%d %q, want %d %q: %s", r.StatusCode, r.Header.Get("Content-Type"), c.status, c.contentType, r.body)
			}
			s.validate(r)
			if c.contentType == "" {
				if len(r.body) != 0 {
					t.Errorf("body %s, want none", r.body)
				}
				return
			}
			if c.id == "" {
				return
			}
			var msg struct {
				ID    json.RawMessage     `json:"id"`
				Error *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(r.body, &msg); err != nil {
				t.Fatal(err)
			}
			if string(msg.ID) != c.id {
				t.Errorf("id %s, want %s", msg.ID, c.id)
			}
			code := 0
			if msg.Error != nil {
				code = msg.Error.Code
			}
			if code != c.code {
				t.Errorf("error code %d, want %d: %s", code, c.code, r.body)
			}
		})
	}
}
