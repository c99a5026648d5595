package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
)

// Searches are answered off the SDK with, byte for byte, what the SDK
// answers: every page of several queries, with filters, under every
// protocol version that reaches the pre-check and ids of every kind.
func TestMCPSearchAnswersAreTheSDKs(t *testing.T) {
	sample, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	odd := *sample
	// Texts whose case folding changes their length, ligatures, and
	// characters that JSON encoders escape differently.
	odd.Insights = []content.Insight{
		{Slug: "odd-0", Title: "İstanbul and ISTANBUL", Topic: "Straße", Description: "STRASSE straße",
			Body: "Ⱥ Ⱦ K ẞ İstanbul zebra crossing, zebra-crossing data", DateISO: "2024-01-01"},
		{Slug: "odd-1", Title: "C++ & e.g. don't", Topic: "Data", Description: "data, DATA; data.",
			Body: "c++ c+ e.g.e.g. don't don't-stop (data)(data) ﬁne ligatures and ǅ digraphs", DateISO: "2024-01-01"},
	}
	odd.Insights = append(odd.Insights, content.Insight{Slug: "odd-html", Title: `<script>&"x" ` + "\u2028\u2029", Topic: "Misc",
		Description: "tabs\tand\x01controls", Body: "<b>bold</b> & \"quoted\" \\ \u2028 \x7f \u00e9 \ufffd x\xffy", DateISO: "2024-02-02"})
	for _, site := range []*content.Site{sample, &odd} {
		s := newTestService(t, Config{BaseURL: "https://example.com", Site: site})
		var requests []string
		for _, args := range []string{
			`{"query":"data"}`, `{"query":"data contracts","limit":2}`, `{"query":"the","limit":1}`,
			`{"query":"DATA","topic":"privacy"}`, `{"query":"data","since":"2023-01-01","until":"2024-12-31","limit":3}`,
			`{"query":"zyzzyva"}`, `{"query":"a","limit":50}`, `{"query":"script b bold x","limit":5}`,
			`{ "limit" : 3 , "query" : "aa" , "topic" : "" , "since" : "" , "until" : "" , "cursor" : "" }`,
			`{"query":"é ü 漢字 data"}`, `{"query":"` + strings.Repeat("data ", 30) + `"}`,
		} {
			var in search.Input
			if err := json.Unmarshal([]byte(args), &in); err != nil {
				t.Fatal(err)
			}
			// Every page of the search.
			l := s.renditionFor(s.cfg.BaseURL).links
			for page := 0; page < 4; page++ {
				requests = append(requests, fmt.Sprintf(`{"name":%q,"arguments":%s}`, searchTool(t, mcp.SearchFull), mustJSON(t, in)))
				out, err := mcp.SearchInsights(context.Background(), l.mcpSite(), in)
				if err != nil {
					t.Fatal(err)
				}
				if out.NextCursor == "" {
					break
				}
				in.Cursor = out.NextCursor
			}
			requests = append(requests, fmt.Sprintf(`{"name":%q,"arguments":%s}`, searchTool(t, mcp.SearchFull), args))
			requests = append(requests, fmt.Sprintf(`{"name":%q,"arguments":{"query":%q}}`, searchTool(t, mcp.SearchConnector), in.Query))
		}
		for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
			for _, params := range requests {
				for _, id := range oddIDs {
					if !compareWithSDK(t, s, rpc(id, "tools/call", params), version) {
						t.Errorf("version %q: %s was left to the SDK", version, params)
					}
				}
			}
		}
		// Under 2026-07-28, with the _meta and headers of several clients.
		for i, params := range requests {
			k := i % len(metas2026)
			withMeta, headers := with2026(t, "tools/call", params, metas2026[k], i)
			for _, id := range oddIDs {
				if !compareWithSDK(t, s, rpc(id, "tools/call", withMeta), mcpcall.Revision2026, headers...) {
					t.Errorf("version 2026-07-28: %s was left to the SDK", withMeta)
				}
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Searches that fail, and arguments the SDK might read otherwise than the
// pre-check, go to the SDK, which answers them as it always did.
func TestMCPSearchLeavesTheRestToTheSDK(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	l := s.renditionFor(s.cfg.BaseURL).links
	first, err := mcp.SearchInsights(context.Background(), l.mcpSite(), search.Input{Query: "data", Limit: 2})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("%+v, %v", first, err)
	}
	for name, args := range map[string]string{
		"empty query":           `{"query":""}`,
		"blank query":           `{"query":"  "}`,
		"no query":              `{"limit":3}`,
		"no arguments":          ``,
		"query not a string":    `{"query":5}`,
		"escaped query":         `{"query":"d\u0061ta"}`,
		"query twice":           `{"query":"data","query":"x"}`,
		"unknown argument":      `{"query":"data","page":2}`,
		"argument of another":   `{"query":"data","slug":"x"}`,
		"limit 0":               `{"query":"data","limit":0}`,
		"limit 51":              `{"query":"data","limit":51}`,
		"limit fraction":        `{"query":"data","limit":2.5}`,
		"limit as float":        `{"query":"data","limit":2.0}`,
		"limit as string":       `{"query":"data","limit":"2"}`,
		"limit null":            `{"query":"data","limit":null}`,
		"cursor of another":     `{"query":"platform","cursor":"` + first.NextCursor + `"}`,
		"cursor of other topic": `{"query":"data","limit":2,"topic":"privacy","cursor":"` + first.NextCursor + `"}`,
		"not a cursor":          `{"query":"data","cursor":"page-2"}`,
		"long cursor":           `{"query":"data","cursor":"` + strings.Repeat("A", 65) + `"}`,
		"not a date":            `{"query":"data","since":"2024-13-01"}`,
		"since after until":     `{"query":"data","since":"2024-02-01","until":"2024-01-01"}`,
		"topic not a string":    `{"query":"data","topic":["privacy"]}`,
		"connector with limit":  `{"query":"data","limit":2}`,
	} {
		t.Run(name, func(t *testing.T) {
			tool := searchTool(t, mcp.SearchFull)
			if strings.HasPrefix(name, "connector") {
				tool = searchTool(t, mcp.SearchConnector)
			}
			params := `{"name":"` + tool + `"}`
			if args != "" {
				params = `{"name":"` + tool + `","arguments":` + args + `}`
			}
			if compareWithSDK(t, s, rpc("1", "tools/call", params), "") {
				t.Errorf("answered off the SDK: %s", params)
			}
		})
	}
}

// The searches of one request share search.RequestPostings, through the
// SDK too: a batch of 32 searches, each reading tens of thousands of
// postings over 2 000 insights, runs those that fit and answers the rest
// with a tool error that says why. A forged cursor is a tool error too.
func TestMCPSearchBudget(t *testing.T) {
	site, err := content.Load(scaleContent(t, 2000))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		t.Fatal(err)
	}
	calls := make([]string, 32)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"the data","limit":1}}}`, i+1)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, mcpRequest("["+strings.Join(calls, ",")+"]", ""))
	var answers []struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &answers); err != nil || len(answers) != 32 {
		t.Fatalf("%d %v\n%.500s", rec.Code, err, rec.Body)
	}
	ran, refused := 0, 0
	for _, a := range answers {
		switch {
		case !a.Result.IsError:
			ran++
		case len(a.Result.Content) == 1 && a.Result.Content[0].Text == search.ErrBudgetSpent.Error():
			refused++
		default:
			t.Errorf("an answer neither a result nor the budget's error: %+v", a)
		}
	}
	if ran == 0 || refused == 0 {
		t.Errorf("%d searches ran, %d were refused; want both", ran, refused)
	}

	for _, cursor := range []string{strings.Repeat("A", 64), strings.Repeat("A", 17)} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, mcpRequest(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data","cursor":"`+cursor+`"}}}`, ""))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"isError":true`) || !strings.Contains(rec.Body.String(), "not one this server gave") {
			t.Errorf("cursor %q: %d %.300s", cursor, rec.Code, rec.Body)
		}
	}
}

// searchTool is the name of the search tool of the shape, as mcpTools
// declares it.
func searchTool(t testing.TB, shape mcp.SearchShape) string {
	t.Helper()
	for name, s := range mcp.Searches {
		if s == shape {
			return name
		}
	}
	t.Fatalf("no search tool of shape %d", shape)
	return ""
}
