package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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
	if !s.serveMCPAnswer(fast, r, rd, []byte(body)) {
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
	add("tools/call", `{"name":"get_profile"}`)
	add("tools/call", `{"name":"get_profile","arguments":{}}`)
	add("tools/call", `{ "arguments" : { } , "name" : "get_profile" }`)
	add("tools/call", `{"name":"list_insights"}`)
	add("tools/call", `{"name":"list_insights","arguments":{"topic":""}}`)
	for _, topic := range s.cfg.topics {
		add("tools/call", `{"name":"list_insights","arguments":{"topic":"`+topic+`"}}`)
		add("tools/call", `{"name":"list_insights","arguments":{"topic":" `+strings.ToUpper(topic)+` "}}`)
	}
	for _, in := range s.cfg.Site.Insights {
		add("tools/call", `{"name":"get_insight","arguments":{"slug":"`+in.Slug+`"}}`)
		add("tools/call", `{"name":"fetch","arguments":{"id":"`+in.Slug+`"}}`)
		add("resources/read", `{"uri":"`+rd.insight(in.Slug)+`"}`)
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
	slug := s.cfg.Site.Insights[0].Slug
	for name, tc := range map[string]struct {
		body, version string
		headers       []string
	}{
		"notification":             {body: `{"jsonrpc":"2.0","method":"tools/list"}`},
		"null id":                  {body: `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`},
		"batch":                    {body: `[` + rpc("1", "tools/list", "") + `]`},
		"another method":           {body: rpc("1", "prompts/list", "")},
		"a resources cursor":       {body: rpc("1", "resources/list", `{"cursor":"x"}`)},
		"ping":                     {body: rpc("1", "ping", "")},
		"initialize":               {body: rpc("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)},
		"a cursor":                 {body: rpc("1", "tools/list", `{"cursor":"x"}`)},
		"_meta":                    {body: rpc("1", "tools/call", `{"name":"get_profile","_meta":{"progressToken":1}}`)},
		"params null":              {body: rpc("1", "tools/list", `null`)},
		"duplicate name":           {body: rpc("1", "tools/call", `{"name":"get_profile","name":"get_health"}`)},
		"duplicate slug":           {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"`+slug+`","slug":"x"}}`)},
		"unknown slug":             {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"no-such-insight"}}`)},
		"malformed slug":           {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"Not A Slug"}}`)},
		"slug not a string":        {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":5}}`)},
		"escaped slug":             {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"\u0074`+slug[1:]+`"}}`)},
		"extra argument":           {body: rpc("1", "tools/call", `{"name":"get_insight","arguments":{"slug":"`+slug+`","x":1}}`)},
		"no arguments":             {body: rpc("1", "tools/call", `{"name":"get_insight"}`)},
		"arguments null":           {body: rpc("1", "tools/call", `{"name":"get_profile","arguments":null}`)},
		"arguments to get_profile": {body: rpc("1", "tools/call", `{"name":"get_profile","arguments":{"x":1}}`)},
		"unknown topic":            {body: rpc("1", "tools/call", `{"name":"list_insights","arguments":{"topic":"knitting"}}`)},
		"blank topic":              {body: rpc("1", "tools/call", `{"name":"list_insights","arguments":{"topic":" "}}`)},
		"health":                   {body: rpc("1", "tools/call", `{"name":"get_health"}`)},
		"unknown tool":             {body: rpc("1", "tools/call", `{"name":"nope"}`)},
		"unknown resource":         {body: rpc("1", "resources/read", `{"uri":"https://example.com/insights/no-such-insight"}`)},
		"other host's resource":    {body: rpc("1", "resources/read", `{"uri":"https://other.example/insights/`+slug+`"}`)},
		"protocol 2026-07-28":      {body: rpc("1", "tools/list", ""), version: "2026-07-28"},
		"unsupported protocol":     {body: rpc("1", "tools/list", ""), version: "2024-11-05"},
		"no Accept":                {body: rpc("1", "tools/list", ""), headers: []string{"Accept", "application/json"}},
		"text/plain":               {body: rpc("1", "tools/list", ""), headers: []string{"Content-Type", "text/plain"}},
		"Last-Event-ID":            {body: rpc("1", "tools/list", ""), headers: []string{"Last-Event-ID", "x"}},
		"Mcp-Method":               {body: rpc("1", "tools/list", ""), headers: []string{"Mcp-Method", "tools/call"}},
		"wrong version tag":        {body: `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`},
		"object id":                {body: `{"jsonrpc":"2.0","id":{},"method":"tools/list"}`},
	} {
		t.Run(name, func(t *testing.T) {
			if compareWithSDK(t, s, tc.body, tc.version, tc.headers...) {
				t.Errorf("answered from the kept answers: %s", tc.body)
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

// The kept answers stay within their budget, dropping others to make room,
// and the answers served after are still the SDK's.
func TestMCPAnswersBudget(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	rd := s.renditionFor(s.cfg.BaseURL)
	compareWithSDK(t, s, rpc("1", "tools/list", ""), "")
	rd.answers.mu.Lock()
	rd.answers.budget = rd.answers.total + 1 // room for nothing more
	rd.answers.mu.Unlock()
	for _, in := range s.cfg.Site.Insights {
		if !compareWithSDK(t, s, rpc("2", "tools/call", `{"name":"get_insight","arguments":{"slug":"`+in.Slug+`"}}`), "") {
			t.Fatal("not answered from the kept answers")
		}
		rd.answers.mu.RLock()
		total, kept, budget := 0, len(rd.answers.byKey), rd.answers.budget
		for _, a := range rd.answers.byKey {
			total += a.size()
		}
		if total != rd.answers.total || total > budget || kept > 1 {
			t.Errorf("%d answers of %d bytes kept (accounted %d) within a budget of %d", kept, total, rd.answers.total, budget)
		}
		rd.answers.mu.RUnlock()
	}
}

// Concurrent requests for answers being made and dropped, under a budget
// that holds only a few, all get their result with their own id, and the
// accounting stays exact (run with -race, as make test does).
func TestMCPAnswersConcurrently(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	rd := s.renditionFor(s.cfg.BaseURL)
	compareWithSDK(t, s, rpc("1", "tools/list", ""), "")
	rd.answers.mu.Lock()
	rd.answers.budget = 3 * rd.answers.total
	rd.answers.mu.Unlock()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i, in := range s.cfg.Site.Insights {
				for _, params := range []string{
					`{"name":"get_insight","arguments":{"slug":"` + in.Slug + `"}}`,
					`{"name":"fetch","arguments":{"id":"` + in.Slug + `"}}`,
				} {
					id := strconv.Itoa(g*1000 + i)
					w := httptest.NewRecorder()
					s.ServeHTTP(w, mcpRequest(rpc(id, "tools/call", params), ""))
					var res struct {
						ID     int
						Result struct{ IsError bool }
					}
					if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != http.StatusOK || res.ID != g*1000+i || res.Result.IsError {
						t.Errorf("%s: %d %.200s", params, w.Code, w.Body)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	rd.answers.mu.RLock()
	defer rd.answers.mu.RUnlock()
	total := 0
	for _, a := range rd.answers.byKey {
		total += a.size()
	}
	if total != rd.answers.total || total > rd.answers.budget {
		t.Errorf("answers of %d bytes kept, %d accounted, budget %d", total, rd.answers.total, rd.answers.budget)
	}
}

// FuzzMCPAnswers: whatever the body, when the kept answers serve it, the
// SDK answers exactly the same.
func FuzzMCPAnswers(f *testing.F) {
	s := newTestService(f, Config{BaseURL: "https://example.com"})
	slug := s.cfg.Site.Insights[0].Slug
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
	versions := []string{"", "2025-03-26", "2025-06-18", "2025-11-25"}
	f.Fuzz(func(t *testing.T, body []byte, version uint8) {
		if !json.Valid(body) {
			return // answered before the kept answers are consulted
		}
		compareWithSDK(t, s, string(body), versions[int(version)%len(versions)])
	})
}

// BenchmarkMCPRead is one read request through the service, no network:
// answered from the kept answers, and by the SDK alone (what every MCP
// request cost before), next to the GET of the REST document with the same
// data.
func BenchmarkMCPRead(b *testing.B) {
	s := newTestService(b, Config{BaseURL: "https://example.com"})
	rd := s.renditionFor(s.cfg.BaseURL)
	slug := s.cfg.Site.Insights[0].Slug
	for _, tc := range []struct{ name, rest, method, params string }{
		{"get_profile", pathProfile, "tools/call", `{"name":"get_profile","arguments":{}}`},
		{"get_insight", insightPath(slug), "tools/call", `{"name":"get_insight","arguments":{"slug":"` + slug + `"}}`},
		{"resources_read", insightPath(slug), "resources/read", `{"uri":"` + rd.insight(slug) + `"}`},
		{"tools_list", pathOpenAPI, "tools/list", ""},
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
		for _, path := range []string{"kept", "sdk"} {
			b.Run(tc.name+"/"+path, func(b *testing.B) {
				w := &deadlineWriter{discardWriter{h: make(http.Header)}}
				r := mcpRequest(body, "")
				reader := strings.NewReader(body)
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					reader.Reset(body)
					r.Body = io.NopCloser(reader)
					if path == "kept" {
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
