package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// mcpRequest is a POST /mcp with the headers MCP clients send.
func mcpRequest(body, version string, headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		r.Header.Set("MCP-Protocol-Version", version)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

// compareWithSDK answers body from the kept answers and from the SDK
// alone. It reports whether the kept answers served it, and fails the test
// when they did and their answer differs from the SDK's in any byte, in
// status or in Content-Type or Cache-Control.
func compareWithSDK(t testing.TB, s *Service, body, version string, headers ...string) bool {
	t.Helper()
	rd := s.renditionFor(s.cfg.BaseURL)
	fast := httptest.NewRecorder()
	r := mcpRequest(body, version, headers...)
	if !rd.endpoint.Answer(fast, r, []byte(body)) {
		if fast.Body.Len() != 0 || len(fast.Header()) != 0 {
			t.Fatalf("%s: declined, yet wrote %v %q", body, fast.Header(), fast.Body)
		}
		return false
	}
	sdk := httptest.NewRecorder()
	rd.mcpHandler().ServeHTTP(sdk, mcpRequest(body, version, headers...))
	if fast.Code != sdk.Code || !bytes.Equal(fast.Body.Bytes(), sdk.Body.Bytes()) {
		at := 0
		for at < min(fast.Body.Len(), sdk.Body.Len()) && fast.Body.Bytes()[at] == sdk.Body.Bytes()[at] {
			at++
		}
		t.Fatalf("version %q, %s: from byte %d:\nkept %d %.400s\nSDK  %d %.400s", version, body, at, fast.Code, fast.Body.Bytes()[at:], sdk.Code, sdk.Body.Bytes()[at:])
	}
	for _, h := range []string{"Content-Type", "Cache-Control"} {
		if fast.Header().Get(h) != sdk.Header().Get(h) {
			t.Errorf("%s: %s %q, the SDK's %q", body, h, fast.Header().Get(h), sdk.Header().Get(h))
		}
	}
	if got := fast.Header().Get("Content-Length"); got != strconv.Itoa(fast.Body.Len()) {
		t.Errorf("%s: Content-Length %s for %d bytes", body, got, fast.Body.Len())
	}
	return true
}

// oddIDs are ids as clients send them, and as the SDK reads them: integers
// (a fraction is truncated, a large one rounded through float64) and
// strings that need escaping.
var oddIDs = []string{`1`, `0`, `-7`, `1.5`, `1e3`, `9007199254740993`, `-9223372036854775808`, `"abc"`, `""`,
	`"</script>&"`, `"\u2028 ü \" \\ \n"`, `"\u00e9"`}

// metas2026 are per-request _meta values of 2026-07-28 as clients send
// them, all of which the SDK reads: the bare minimum, every capability the
// SDK knows with the client's identity, and unusual spacing, escapes and a
// capability the SDK does not know.
var metas2026 = []string{
	`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`,
	`{"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.0","title":"Claude <Code> & co"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},` +
		`"elicitation":{"form":{},"url":{}},"experimental":{"x":{"y":[1,2.5,{"z":null}]}},"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
	` { "io.modelcontextprotocol/protocolVersion" : "2026-07-28" , "io.modelcontextprotocol/clientCapabilities" : { "future" : { "a" : [ ] } , "roots" : { } } ,` +
		` "io.modelcontextprotocol/clientInfo" : { "name" : "t\u00e9st \"q\"" , "version" : "" , "websiteUrl" : "https://x.example" , "description" : "d" } } `,
}

// with2026 is method's params with meta as their _meta (first for an even
// k, last for an odd one), and the Mcp-Method and Mcp-Name headers a
// 2026-07-28 client sends with them.
func with2026(t testing.TB, method, params, meta string, k int) (string, []string) {
	t.Helper()
	headers := []string{"Mcp-Method", method}
	var p struct{ Name, URI string }
	if params != "" {
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
	}
	switch method {
	case "tools/call":
		headers = append(headers, "Mcp-Name", p.Name)
	case "resources/read":
		headers = append(headers, "Mcp-Name", p.URI)
	}
	inner := ""
	if params != "" {
		trimmed := strings.TrimSpace(params)
		inner = strings.TrimSpace(trimmed[1 : len(trimmed)-1])
	}
	switch {
	case inner == "":
		return `{"_meta":` + meta + `}`, headers
	case k%2 == 0:
		return `{"_meta":` + meta + `,` + inner + `}`, headers
	}
	return `{` + inner + `,"_meta":` + meta + `}`, headers
}

func rpc(id, method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

// Every read request the kept answers serve gets, byte for byte, what the
// SDK answers, under every protocol version that reaches them and with ids
// of every kind.
func TestMCPAnswersAreTheSDKs(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	rd := s.renditionFor(s.cfg.BaseURL)
	var requests []string
	add := func(method, params string) { requests = append(requests, method+"\x00"+params) }
	add("tools/list", "")
	add("tools/list", `{}`)
	add("resources/list", "")
	add("resources/list", `{}`)
	// The calls of the tools the declaration keeps: without arguments, and
	// with each argument of a tool's input naming nothing, a topic (as the
	// content spells it, and spaced in capitals) or an insight, wherever
	// the declaration's kept recognises them.
	values := []string{""}
	for _, topic := range s.cat.Topics {
		values = append(values, topic, " "+strings.ToUpper(topic)+" ")
	}
	for _, in := range s.cat.Site.Insights {
		values = append(values, in.Slug)
		add("resources/read", `{"uri":"`+rd.Insight(in.Slug)+`"}`)
	}
	site := rd.mcpSite()
	for _, tool := range mcp.DeclaredTools(site) {
		calls := []string{`{"name":"` + tool.Name + `"}`, `{"name":"` + tool.Name + `","arguments":{}}`, `{ "arguments" : { } , "name" : "` + tool.Name + `" }`}
		for name := range tool.InputSchema.(*jsonschema.Schema).Properties {
			for _, v := range values {
				calls = append(calls, `{"name":"`+tool.Name+`","arguments":{"`+name+`":"`+v+`"}}`)
			}
		}
		recognised := 0
		for _, params := range calls {
			c, ok := mcpcall.Read([]byte(rpc("1", "tools/call", params)))
			if _, kept := site.Recognise(c); ok && kept {
				add("tools/call", params)
				recognised++
			}
		}
		if tool.Kept != (recognised > 0) {
			t.Errorf("%s: kept %v, yet %d of its calls are recognised as kept", tool.Name, tool.Kept, recognised)
		}
	}
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		for _, req := range requests {
			method, params, _ := strings.Cut(req, "\x00")
			for _, id := range oddIDs {
				if !compareWithSDK(t, s, rpc(id, method, params), version) {
					t.Errorf("version %q: %s was not answered from the kept answers", version, rpc(id, method, params))
				}
			}
		}
	}
	// Under 2026-07-28, with the _meta and headers of several clients.
	for _, req := range requests {
		method, params, _ := strings.Cut(req, "\x00")
		for k, meta := range metas2026 {
			withMeta, headers := with2026(t, method, params, meta, k)
			for _, id := range oddIDs {
				if !compareWithSDK(t, s, rpc(id, method, withMeta), mcpcall.Revision2026, headers...) {
					t.Errorf("version 2026-07-28: %s was not answered from the kept answers", rpc(id, method, withMeta))
				}
			}
		}
	}
	// Other spellings of the same headers.
	for _, h := range [][]string{{"Accept", "*/*"}, {"Accept", "application/*, text/*;q=0.5"}, {"Content-Type", "APPLICATION/JSON"}} {
		if !compareWithSDK(t, s, rpc("1", "tools/list", ""), "2025-06-18", h...) {
			t.Errorf("%v: not answered from the kept answers", h)
		}
	}
}

// Requests whose answer is not fixed, or whose shape the SDK might read
// otherwise than the pre-check, go to the SDK, which answers them as it
// always did: errors included.
func TestMCPAnswersLeaveTheRestToTheSDK(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	slug := s.cat.Site.Insights[0].Slug
	for name, tc := range map[string]struct {
		body, version string
		headers       []string
	}{
		"notification":                          {body: `{"jsonrpc":"2.0","method":"tools/list"}`},
		"null id":                               {body: `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`},
		"batch":                                 {body: `[` + rpc("1", "tools/list", "") + `]`},
		"another method":                        {body: rpc("1", "prompts/list", "")},
		"a resources cursor":                    {body: rpc("1", "resources/list", `{"cursor":"x"}`)},
		"ping":                                  {body: rpc("1", "ping", "")},
		"initialize":                            {body: rpc("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)},
		"a cursor":                              {body: rpc("1", "tools/list", `{"cursor":"x"}`)},
		"_meta":                                 {body: rpc("1", "tools/call", `{"name":"get_profile","_meta":{"progressToken":1}}`)},
		"params null":                           {body: rpc("1", "tools/list", `null`)},
		"duplicate name":                        {body: rpc("1", "tools/call", `{"name":"get_profile","name":"get_health"}`)},
		"duplicate slug":                        {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"`+slug+`","slug":"x"}}`)},
		"unknown slug":                          {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"no-such-insight"}}`)},
		"malformed slug":                        {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"Not A Slug"}}`)},
		"slug not a string":                     {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":5}}`)},
		"escaped slug":                          {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"\u0074`+slug[1:]+`"}}`)},
		"extra argument":                        {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"`+slug+`","x":1}}`)},
		"no arguments":                          {body: rpc("1", "tools/call", `{"name":"get_insight"}`)},
		"arguments null":                        {body: rpc("1", "tools/call", `{"name":"get_profile","arguments":null}`)},
		"arguments to get_profile":              {body: rpc("1", "tools/call", `{"name":"get_profile","arguments":{"x":1}}`)},
		"unknown topic":                         {body: rpc("1", "tools/call", `{"name":"list_insights","arguments":{"topic":"knitting"}}`)},
		"blank topic":                           {body: rpc("1", "tools/call", `{"name":"list_insights","arguments":{"topic":" "}}`)},
		"health":                                {body: rpc("1", "tools/call", `{"name":"get_health"}`)},
		"unknown tool":                          {body: rpc("1", "tools/call", `{"name":"nope"}`)},
		"unknown resource":                      {body: rpc("1", "resources/read", `{"uri":"https://example.com/insights/no-such-insight"}`)},
		"other host's resource":                 {body: rpc("1", "resources/read", `{"uri":"https://other.example/insights/`+slug+`"}`)},
		"protocol 2026-07-28 without _meta":     {body: rpc("1", "tools/list", ""), version: "2026-07-28", headers: []string{"Mcp-Method", "tools/list"}},
		"_meta of 2026-07-28 before it":         {body: rpc("1", "tools/list", `{"_meta":`+metas2026[0]+`}`), version: "2025-11-25"},
		"_meta of 2026-07-28 without a version": {body: rpc("1", "tools/list", `{"_meta":`+metas2026[0]+`}`)},
		"unsupported protocol":                  {body: rpc("1", "tools/list", ""), version: "2024-11-05"},
		"no Accept":                             {body: rpc("1", "tools/list", ""), headers: []string{"Accept", "application/json"}},
		"text/plain":                            {body: rpc("1", "tools/list", ""), headers: []string{"Content-Type", "text/plain"}},
		"Last-Event-ID":                         {body: rpc("1", "tools/list", ""), headers: []string{"Last-Event-ID", "x"}},
		"Mcp-Method":                            {body: rpc("1", "tools/list", ""), headers: []string{"Mcp-Method", "tools/call"}},
		"wrong version tag":                     {body: `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`},
		"object id":                             {body: `{"jsonrpc":"2.0","id":{},"method":"tools/list"}`},
	} {
		t.Run(name, func(t *testing.T) {
			if compareWithSDK(t, s, tc.body, tc.version, tc.headers...) {
				t.Errorf("answered from the kept answers: %s", tc.body)
			}
		})
	}
	// Under 2026-07-28: a _meta the SDK would refuse or act on, and
	// headers that do not say what the body says.
	const (
		version = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
		caps    = `"io.modelcontextprotocol/clientCapabilities":{}`
	)
	profile := func(meta string) string {
		return rpc("1", "tools/call", `{"name":"get_profile","arguments":{},"_meta":`+meta+`}`)
	}
	callHeaders := []string{"Mcp-Method", "tools/call", "Mcp-Name", "get_profile"}
	for name, tc := range map[string]struct {
		body    string
		headers []string
	}{
		"no Mcp-Method":               {body: profile(metas2026[0]), headers: []string{"Mcp-Name", "get_profile"}},
		"Mcp-Method of another":       {body: profile(metas2026[0]), headers: []string{"Mcp-Method", "tools/list", "Mcp-Name", "get_profile"}},
		"Mcp-Method in capitals":      {body: profile(metas2026[0]), headers: []string{"Mcp-Method", "Tools/Call", "Mcp-Name", "get_profile"}},
		"no Mcp-Name":                 {body: profile(metas2026[0]), headers: []string{"Mcp-Method", "tools/call"}},
		"Mcp-Name of another tool":    {body: profile(metas2026[0]), headers: []string{"Mcp-Method", "tools/call", "Mcp-Name", "get_health"}},
		"Mcp-Name on a list":          {body: rpc("1", "tools/list", `{"_meta":`+metas2026[0]+`}`), headers: []string{"Mcp-Method", "tools/list", "Mcp-Name", "x"}},
		"Mcp-Name of another URI":     {body: rpc("1", "resources/read", `{"uri":"https://example.com/insights/`+slug+`","_meta":`+metas2026[0]+`}`), headers: []string{"Mcp-Method", "resources/read", "Mcp-Name", "https://example.com/insights/x"}},
		"Mcp-Param header":            {body: profile(metas2026[0]), headers: append([]string{"Mcp-Param-Slug", "x"}, callHeaders...)},
		"Mcp-Session-Id":              {body: profile(metas2026[0]), headers: append([]string{"Mcp-Session-Id", "x"}, callHeaders...)},
		"_meta of 2025-11-25":         {body: profile(`{"io.modelcontextprotocol/protocolVersion":"2025-11-25",` + caps + `}`), headers: callHeaders},
		"no protocol version":         {body: profile(`{` + caps + `}`), headers: callHeaders},
		"no capabilities":             {body: profile(`{` + version + `}`), headers: callHeaders},
		"capabilities not an object":  {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":[]}`), headers: callHeaders},
		"capabilities null":           {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":null}`), headers: callHeaders},
		"a capability null":           {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"sampling":null}}`), headers: callHeaders},
		"a capability twice":          {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"roots":{},"roots":{}}}`), headers: callHeaders},
		"listChanged a string":        {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":"yes"}}}`), headers: callHeaders},
		"sampling context true":       {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"sampling":{"context":true}}}`), headers: callHeaders},
		"elicitation of another kind": {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"voice":{}}}}`), headers: callHeaders},
		"clientInfo name a number":    {body: profile(`{` + version + `,` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":5,"version":"1"}}`), headers: callHeaders},
		"clientInfo icons":            {body: profile(`{` + version + `,` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1","icons":[]}}`), headers: callHeaders},
		"clientInfo not an object":    {body: profile(`{` + version + `,` + caps + `,"io.modelcontextprotocol/clientInfo":"t"}`), headers: callHeaders},
		"logLevel":                    {body: profile(`{` + version + `,` + caps + `,"io.modelcontextprotocol/logLevel":"debug"}`), headers: callHeaders},
		"progressToken":               {body: profile(`{` + version + `,` + caps + `,"progressToken":1}`), headers: callHeaders},
		"a member twice":              {body: profile(`{` + version + `,` + version + `,` + caps + `}`), headers: callHeaders},
		"an escaped member name":      {body: profile(`{"io.modelcontextprotocol\/protocolVersion":"2026-07-28",` + caps + `}`), headers: callHeaders},
		"_meta twice":                 {body: rpc("1", "tools/call", `{"name":"get_profile","_meta":`+metas2026[0]+`,"_meta":`+metas2026[0]+`}`), headers: callHeaders},
		"_meta not an object":         {body: rpc("1", "tools/call", `{"name":"get_profile","_meta":[]}`), headers: callHeaders},
		"deep experimental": {body: profile(`{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"experimental":{"a":` +
			strings.Repeat(`[`, 8) + strings.Repeat(`]`, 8) + `}}}`), headers: callHeaders},
	} {
		t.Run("2026-07-28 "+name, func(t *testing.T) {
			if compareWithSDK(t, s, tc.body, mcpcall.Revision2026, tc.headers...) {
				t.Errorf("answered from the kept answers: %v %s", tc.headers, tc.body)
			}
		})
	}
	// The SDK's tool error, through the whole handler.
	w := httptest.NewRecorder()
	s.ServeHTTP(w, mcpRequest(rpc(`"x"`, "tools/call", `{"name":"get_insight","arguments":{"slug":"no-such-insight"}}`), ""))
	var res struct {
		ID     string
		Result struct{ IsError bool }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != http.StatusOK || res.ID != "x" || !res.Result.IsError {
		t.Errorf("an unknown slug: %d %s", w.Code, w.Body)
	}
}

// FuzzMCPAnswers: whatever the body, when the kept answers serve it, the
// SDK answers exactly the same.
func FuzzMCPAnswers(f *testing.F) {
	s := newTestService(f, Config{BaseURL: "https://example.com"})
	slug := s.cat.Site.Insights[0].Slug
	for _, seed := range []string{
		rpc("1", "tools/list", ""),
		rpc(`"a"`, "tools/call", `{"name":"get_profile"}`),
		rpc("2", "tools/call", `{"name":"get_insight","arguments":{"slug":"`+slug+`"}}`),
		rpc("3", "tools/call", `{"name":"fetch","arguments":{"id":"`+slug+`"}}`),
		rpc("4", "tools/call", `{"name":"list_insights","arguments":{"topic":"privacy"}}`),
		rpc("5", "resources/read", `{"uri":"https://example.com/insights/`+slug+`"}`),
		rpc("6", "tools/call", `{"name":"search_insights","arguments":{"query":"data","limit":2,"topic":"privacy"}}`),
		rpc("7", "tools/call", `{"name":"search","arguments":{"query":"data contracts"}}`),
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{},"id":2}`,
		`{"method":"tools/list","jsonrpc":"2.0","id":1e2,"extra":true}`,
	} {
		for _, version := range []uint8{0, 1, 2, 3} {
			f.Add([]byte(seed), version)
		}
	}
	for _, seed := range []string{
		rpc("1", "tools/list", `{"_meta":`+metas2026[0]+`}`),
		rpc(`"b"`, "tools/call", `{"name":"get_insight","arguments":{"slug":"`+slug+`"},"_meta":`+metas2026[1]+`}`),
		rpc("2", "resources/read", `{"_meta":`+metas2026[2]+`,"uri":"https://example.com/insights/`+slug+`"}`),
		rpc("3", "tools/call", `{"name":"search_insights","arguments":{"query":"data","limit":2},"_meta":`+metas2026[0]+`}`),
	} {
		f.Add([]byte(seed), uint8(4))
	}
	versions := []string{"", "2025-03-26", "2025-06-18", "2025-11-25", mcpcall.Revision2026}
	f.Fuzz(func(t *testing.T, body []byte, version uint8) {
		if !json.Valid(body) {
			return // answered before the kept answers are consulted
		}
		v := versions[int(version)%len(versions)]
		var headers []string
		if v == mcpcall.Revision2026 {
			// The headers a client derives from the body, so that the
			// fuzzer reaches the kept answers.
			var m struct {
				Method string
				Params struct{ Name, URI string }
			}
			_ = json.Unmarshal(body, &m)
			headers = []string{"Mcp-Method", m.Method}
			if name := m.Params.Name + m.Params.URI; name != "" {
				headers = append(headers, "Mcp-Name", name)
			}
		}
		compareWithSDK(t, s, string(body), v, headers...)
	})
}

// BenchmarkMCPRead is one read request through the service, no network:
// answered from the kept answers, and by the SDK alone (what every MCP
// request cost before), next to the GET of the REST document with the same
// data.
func BenchmarkMCPRead(b *testing.B) {
	s := newTestService(b, Config{BaseURL: "https://example.com"})
	rd := s.renditionFor(s.cfg.BaseURL)
	slug := s.cat.Site.Insights[0].Slug
	for _, tc := range []struct{ name, rest, method, params string }{
		{"get_profile", view.PathProfile, "tools/call", `{"name":"get_profile","arguments":{}}`},
		{"get_insight", view.InsightPath(slug), "tools/call", `{"name":"get_insight","arguments":{"slug":"` + slug + `"}}`},
		{"resources_read", view.InsightPath(slug), "resources/read", `{"uri":"` + rd.Insight(slug) + `"}`},
		{"tools_list", view.PathOpenAPI, "tools/list", ""},
	} {
		body := rpc("1", tc.method, tc.params)
		b.Run(tc.name+"/rest", func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, tc.rest, nil)
			w := &discardWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, r)
			}
		})
		body2026, headers := with2026(b, tc.method, tc.params, metas2026[1], 0)
		body2026 = rpc("1", tc.method, body2026)
		for _, path := range []string{"kept", "sdk", "kept_2026", "sdk_2026"} {
			b.Run(tc.name+"/"+path, func(b *testing.B) {
				w := &deadlineWriter{discardWriter{h: make(http.Header)}}
				body := body
				r := mcpRequest(body, "")
				if strings.HasSuffix(path, "_2026") {
					body = body2026
					r = mcpRequest(body, mcpcall.Revision2026, headers...)
				}
				reader := strings.NewReader(body)
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					reader.Reset(body)
					r.Body = io.NopCloser(reader)
					if strings.HasPrefix(path, "kept") {
						s.ServeHTTP(w, r)
					} else {
						rd.mcpHandler().ServeHTTP(w, r)
					}
				}
			})
		}
	}
}

// deadlineWriter can set a read deadline, as a server's writer can, so the
// body is read as it is in a server.
type deadlineWriter struct{ discardWriter }

func (*deadlineWriter) SetReadDeadline(time.Time) error { return nil }
