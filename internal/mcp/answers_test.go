package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
)

// testSlugs are the documents of the test endpoint's tools.
var testSlugs = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}

// testEndpoint is an endpoint in front of a real SDK server whose tools
// get_insight and fetch answer a document of about 2 KiB for each of
// testSlugs, recognised as the rendition recognises its insights.
func testEndpoint(t testing.TB) *Endpoint {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	type document struct {
		Slug string `json:"slug"`
		Body string `json:"body"`
	}
	type byID struct {
		ID string `json:"id"`
	}
	type bySlug struct {
		Slug string `json:"slug"`
	}
	body := func(slug string) document { return document{slug, strings.Repeat(slug+" ", 2048/(len(slug)+1))} }
	sdk.AddTool(server, &sdk.Tool{Name: "get_insight"}, func(_ context.Context, _ *sdk.CallToolRequest, in bySlug) (*sdk.CallToolResult, document, error) {
		return nil, body(in.Slug), nil
	})
	sdk.AddTool(server, &sdk.Tool{Name: "fetch"}, func(_ context.Context, _ *sdk.CallToolRequest, in byID) (*sdk.CallToolResult, document, error) {
		return nil, body(in.ID), nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	return &Endpoint{
		Base: "https://example.com", Origin: "https://example.com", BodyTimeout: 10 * time.Second,
		Handler: func() http.Handler { return h },
		Recognise: func(c mcpcall.Call) (Request, bool) {
			tool, arg := mcpcall.PlainString(c.Name), mcpcall.PlainString(c.Argument)
			for _, slug := range testSlugs {
				switch {
				case slug != arg || c.ArgCount != 1:
				case tool == "get_insight" && string(c.ArgName) == "slug":
					return Request{Method: "tools/call", Tool: tool, Arg: "slug", Value: slug}, true
				case tool == "fetch" && string(c.ArgName) == "id":
					return Request{Method: "tools/call", Tool: tool, Arg: "id", Value: slug}, true
				}
			}
			return Request{}, false
		},
		Budget: DefaultBudget,
	}
}

// call is a tools/call of tool with one argument.
func call(id, tool, arg, value string) *http.Request {
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"` + arg + `":"` + value + `"}}}`
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	return r
}

// answeredAsTheSDK answers r from the kept answers and from the SDK alone,
// and fails the test unless the kept answers served it with the SDK's
// bytes.
func answeredAsTheSDK(t *testing.T, e *Endpoint, tool, arg, value string) {
	t.Helper()
	fast := httptest.NewRecorder()
	r := call("7", tool, arg, value)
	body, _ := readAll(r)
	if !e.Answer(fast, r, body) {
		t.Fatalf("%s %s: not answered from the kept answers", tool, value)
	}
	sdk := httptest.NewRecorder()
	e.Handler().ServeHTTP(sdk, call("7", tool, arg, value))
	if fast.Code != sdk.Code || !bytes.Equal(fast.Body.Bytes(), sdk.Body.Bytes()) {
		t.Fatalf("%s %s:\nkept %d %.300s\nSDK  %d %.300s", tool, value, fast.Code, fast.Body, sdk.Code, sdk.Body)
	}
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	r.Body.Close()
	return b.Bytes(), err
}

// The kept answers stay within their budget, dropping others to make room,
// and the answers served after are still the SDK's.
func TestAnswersBudget(t *testing.T) {
	probe := testEndpoint(t)
	answeredAsTheSDK(t, probe, "get_insight", "slug", testSlugs[0])
	e := testEndpoint(t)
	e.Budget = probe.keptAnswers().Bytes() + 1 // room for one answer
	for _, slug := range testSlugs {
		answeredAsTheSDK(t, e, "get_insight", "slug", slug)
		kept, total := keptAnswers(e)
		if total != e.keptAnswers().Bytes() || total > e.Budget || kept > 1 {
			t.Errorf("%d answers of %d bytes kept (accounted %d) within a budget of %d", kept, total, e.keptAnswers().Bytes(), e.Budget)
		}
	}
}

// keptAnswers counts the answers e keeps and their bytes.
func keptAnswers(e *Endpoint) (kept, total int) {
	for _, a := range e.keptAnswers().All() {
		kept++
		total += a.size()
	}
	return kept, total
}

// Concurrent requests for answers being made and dropped, under a budget
// that holds only a few, all get their result with their own id, and the
// accounting stays exact (run with -race, as make test does).
func TestAnswersConcurrently(t *testing.T) {
	probe := testEndpoint(t)
	answeredAsTheSDK(t, probe, "get_insight", "slug", testSlugs[0])
	e := testEndpoint(t)
	e.Budget = 3 * probe.keptAnswers().Bytes()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i, slug := range testSlugs {
				for _, tool := range [][2]string{{"get_insight", "slug"}, {"fetch", "id"}} {
					id := strconv.Itoa(g*1000 + i)
					w := httptest.NewRecorder()
					e.ServeHTTP(w, call(id, tool[0], tool[1], slug))
					var res struct {
						ID     int
						Result struct{ IsError bool }
					}
					if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != http.StatusOK || res.ID != g*1000+i || res.Result.IsError {
						t.Errorf("%s %s: %d %.200s", tool[0], slug, w.Code, w.Body)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if _, total := keptAnswers(e); total != e.keptAnswers().Bytes() || total > e.Budget {
		t.Errorf("answers of %d bytes kept, %d accounted, budget %d", total, e.keptAnswers().Bytes(), e.Budget)
	}
}
