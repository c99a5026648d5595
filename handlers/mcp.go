package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// MCPProtocolVersions are the MCP protocol versions the endpoint speaks,
// newest first.
var MCPProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}

type listInsightsInput struct {
	Topic string `json:"topic,omitempty" jsonschema:"only insights with this topic (case-insensitive); omit for all"`
}

type getInsightInput struct {
	Slug string `json:"slug" jsonschema:"the insight's slug, as listed by list_insights"`
}

type searchInput struct {
	Query string `json:"query" jsonschema:"words to look for in titles, descriptions, topics and bodies"`
	Limit int    `json:"limit,omitempty" jsonschema:"the most results to return, 1 to 50; default 10"`
}

type searchResult struct {
	Slug    string  `json:"slug"`
	Title   string  `json:"title"`
	Topic   string  `json:"topic"`
	Date    string  `json:"date"`
	URL     string  `json:"url"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

type searchOutput struct {
	Query   string         `json:"query"`
	Count   int            `json:"count"`
	Results []searchResult `json:"results"`
}

type noInput struct{}

// safeTool turns a panic in a tool handler into a tool error. The SDK runs
// handlers on goroutines of its own, where a panic would end the process.
func safeTool[In, Out any](onPanic func(any), h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				onPanic(v)
				res, err = nil, fmt.Errorf("the tool failed on the server's side; the fault has been logged")
			}
		}()
		return h(ctx, req, in)
	}
}

// mcpServer builds the MCP server of one rendition: read-only tools whose
// structured results are the REST API's JSON for the same resource, and
// the insights as resources.
func (l links) mcpServer() *mcp.Server {
	if l.onPanic == nil {
		l.onPanic = func(any) {}
	}
	p := l.cfg.Site.Profile
	server := mcp.NewServer(&mcp.Implementation{
		Name:       l.cfg.ServiceName,
		Title:      p.Name + " public discovery API",
		Version:    l.cfg.Version,
		WebsiteURL: l.base + pathDevelopers,
	}, &mcp.ServerOptions{
		Instructions: "Read-only public facts about " + p.Name + " and their published insights. " +
			"Use get_profile for the biography and contact links, list_insights or search_insights to find articles, " +
			"and get_insight for one article's Markdown body. The same data is at " + l.base + pathIndex + ".",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	describe := func(operationID, extra string) string {
		for _, rt := range l.routes {
			if rt.OperationID == operationID {
				return rt.Description + extra + " Same JSON as GET " + rt.Path + "."
			}
		}
		return extra
	}
	theProfile := l.profile()
	mcp.AddTool(server, &mcp.Tool{Name: "get_profile", Title: "Profile", Annotations: readOnly,
		Description: describe("getProfile", "")},
		safeTool(l.onPanic, func(context.Context, *mcp.CallToolRequest, noInput) (*mcp.CallToolResult, profile, error) {
			return nil, theProfile, nil
		}))
	all := l.insights()
	mcp.AddTool(server, &mcp.Tool{Name: "list_insights", Title: "List insights", Annotations: readOnly,
		Description: describe("listInsights", " Optionally only those of one topic ("+strings.Join(l.cfg.Site.Topics(), ", ")+").")},
		safeTool(l.onPanic, func(_ context.Context, _ *mcp.CallToolRequest, in listInsightsInput) (*mcp.CallToolResult, insightList, error) {
			if in.Topic == "" {
				return nil, all, nil
			}
			out := insightList{Items: []insightSummary{}}
			for _, it := range all.Items {
				if strings.EqualFold(it.Topic, strings.TrimSpace(in.Topic)) {
					out.Items = append(out.Items, it)
				}
			}
			out.Count = len(out.Items)
			return nil, out, nil
		}))
	bySlug := make(map[string]content.Insight, len(l.cfg.Site.Insights))
	for _, in := range l.cfg.Site.Insights {
		bySlug[in.Slug] = in
	}
	mcp.AddTool(server, &mcp.Tool{Name: "get_insight", Title: "One insight", Annotations: readOnly,
		Description: describe("getInsight", "")},
		safeTool(l.onPanic, func(_ context.Context, _ *mcp.CallToolRequest, in getInsightInput) (*mcp.CallToolResult, insightDocument, error) {
			if !content.ValidSlug(in.Slug) {
				return nil, insightDocument{}, fmt.Errorf("the slug %s is not valid: a slug is %s. Call list_insights for the published slugs", quote(in.Slug), content.SlugGrammar)
			}
			doc, ok := bySlug[in.Slug]
			if !ok {
				return nil, insightDocument{}, fmt.Errorf("no published insight has the slug %s. Call list_insights or search_insights for the published slugs", quote(in.Slug))
			}
			return nil, l.insightDocument(doc), nil
		}))
	mcp.AddTool(server, &mcp.Tool{Name: "search_insights", Title: "Search insights", Annotations: readOnly,
		Description: "Searches the published insights' titles, descriptions, topics and bodies for the query's words; returns the best matches first, each with a snippet and its slug for get_insight."},
		safeTool(l.onPanic, func(_ context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, searchOutput, error) {
			if strings.TrimSpace(in.Query) == "" {
				return nil, searchOutput{}, fmt.Errorf("the query is empty: give one or more words to look for")
			}
			return nil, l.search(in.Query, in.Limit), nil
		}))
	mcp.AddTool(server, &mcp.Tool{Name: "get_health", Title: "Health", Annotations: readOnly,
		Description: describe("getHealth", "")},
		safeTool(l.onPanic, func(context.Context, *mcp.CallToolRequest, noInput) (*mcp.CallToolResult, health, error) {
			return nil, l.health(l.cfg.Now()), nil
		}))
	for _, in := range l.cfg.Site.Insights {
		uri := l.insight(in.Slug)
		body := in.Body
		server.AddResource(&mcp.Resource{
			URI: uri, Name: in.Slug, Title: in.Title, MIMEType: "text/markdown",
			Description: in.Description, Size: int64(len(body)),
		}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: body}}}, nil
		})
	}
	return server
}

// Bounds of a search query, so that one call cannot cost much.
const (
	maxQueryWords    = 16
	maxQueryWordSize = 64
)

// queryWords are the distinct lowercase words of a query, at most
// maxQueryWords of at most maxQueryWordSize bytes.
func queryWords(query string) []string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(strings.ToValidUTF8(query, ""))) {
		if len(w) <= maxQueryWordSize && !slices.Contains(words, w) {
			words = append(words, w)
			if len(words) == maxQueryWords {
				break
			}
		}
	}
	return words
}

// search ranks insights by how often and where the query's words appear:
// a title match counts most, then topic, description and body.
func (l links) search(query string, limit int) searchOutput {
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	words := queryWords(query)
	out := searchOutput{Query: query, Results: []searchResult{}}
	for _, in := range l.cfg.Site.Insights {
		title, topic, desc, body := strings.ToLower(in.Title), strings.ToLower(in.Topic), strings.ToLower(in.Description), strings.ToLower(in.Body)
		score := 0.0
		for _, w := range words {
			score += 8*float64(strings.Count(title, w)) + 5*float64(strings.Count(topic, w)) +
				3*float64(strings.Count(desc, w)) + float64(min(strings.Count(body, w), 20))
		}
		if score == 0 {
			continue
		}
		out.Results = append(out.Results, searchResult{
			Slug: in.Slug, Title: in.Title, Topic: in.Topic, Date: in.DateISO, URL: l.insight(in.Slug),
			Score: score, Snippet: snippet(in.Body, words),
		})
	}
	sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Score > out.Results[j].Score })
	if len(out.Results) > limit {
		out.Results = out.Results[:limit]
	}
	out.Count = len(out.Results)
	return out
}

// snippet is about 200 characters of body around the first word found.
func snippet(body string, words []string) string {
	// Lowercasing can change a rune's length in bytes, so a match found in
	// the lowercase text is located in body by its rune index.
	lower := strings.ToLower(body)
	at := -1
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at > 0 {
		runes := utf8.RuneCountInString(lower[:at])
		at = 0
		for range runes {
			_, size := utf8.DecodeRuneInString(body[at:])
			at += size
		}
	}
	start := max(at-80, 0)
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	end := min(start+200, len(body))
	for end < len(body) && !utf8.RuneStart(body[end]) {
		end++
	}
	s := strings.Join(strings.Fields(body[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(body) {
		s += "…"
	}
	return s
}

// serverCard is the MCP server card: the current fields (SEP-2127) and the
// older ones scanners still read, in one object.
func (l links) serverCard() any {
	p := l.cfg.Site.Profile
	description := "Read-only public facts about " + p.Name + " and their published insights."
	if len(description) > 100 {
		description = "Read-only public profile and published insights."
	}
	host := l.base[strings.Index(l.base, "://")+3:]
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return map[string]any{
		"$schema":     "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		"name":        reverseDNS(host) + "/" + l.cfg.ServiceName,
		"version":     l.cfg.Version,
		"title":       p.Name + " public discovery API",
		"description": description,
		"websiteUrl":  l.developers(),
		"remotes": []map[string]any{{
			"type": "streamable-http", "url": l.base + pathMCP, "supportedProtocolVersions": MCPProtocolVersions,
		}},
		"serverInfo":      map[string]string{"name": l.cfg.ServiceName, "title": p.Name + " public discovery API", "version": l.cfg.Version},
		"protocolVersion": MCPProtocolVersions[0],
		"transport":       map[string]string{"type": "streamable-http", "endpoint": pathMCP},
		"capabilities": map[string]any{
			"tools":     map[string]bool{"listChanged": false},
			"resources": map[string]bool{"listChanged": false, "subscribe": false},
		},
		"authentication": map[string]any{"required": false, "schemes": []string{"bearer"}},
	}
}

// reverseDNS turns a host name into the namespace form of server names:
// "www.example.com" becomes "com.example.www".
func reverseDNS(host string) string {
	parts := strings.Split(host, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// serveMCP answers POST /mcp: checks what the SDK does not (origin, host,
// size, well-formed JSON) and hands the request to the stateless SDK
// handler of the rendition.
func (s *Service) serveMCP(w http.ResponseWriter, r *http.Request, rd *rendition) {
	if origin := r.Header.Get("Origin"); origin != "" && originOf(origin) != rd.origin {
		p := NewProblem(rd.base, CodeForbidden, r, "Browser requests to the MCP endpoint are accepted only from "+rd.origin+", not from "+quote(origin)+".")
		p.Hint = "Call the MCP endpoint from an MCP client, a server or a CLI (they send no Origin), or from a page of " + rd.origin + "."
		WriteProblem(w, r, p)
		return
	}
	if !s.hostAllowed(r) {
		p := NewProblem(rd.base, CodeForbidden, r, "The Host "+quote(r.Host)+" is not a name of this server.")
		p.Hint = "Use the address " + rd.base + pathMCP + "."
		WriteProblem(w, r, p)
		return
	}
	body, ok := readBody(w, r, rd, "")
	if !ok {
		return
	}
	if !json.Valid(body) {
		// The SDK answers a parse error with a text/plain 400; JSON-RPC
		// clients expect its error object (code -32700).
		w.Header().Set("Content-Type", mediaJSON)
		writeBody(w, r, http.StatusBadRequest, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not valid JSON"}}`))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rw := &rpcErrorWriter{ResponseWriter: w}
	rd.mcp.ServeHTTP(rw, r)
	rw.finish()
}

// rpcErrorWriter turns the SDK's plain-text transport errors (a bad Accept
// header, a message that is JSON but not JSON-RPC) into JSON-RPC error
// objects, the format MCP clients parse; everything else passes through.
type rpcErrorWriter struct {
	http.ResponseWriter
	status int
	text   bytes.Buffer
}

func (w *rpcErrorWriter) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *rpcErrorWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.text.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *rpcErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		f.Flush()
	}
}

func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the error object of an intercepted error: -32600, Invalid
// Request, with the SDK's explanation.
func (w *rpcErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	msg, _ := json.Marshal(strings.TrimSpace(w.text.String()))
	h := w.Header()
	h.Set("Content-Type", mediaJSON)
	h.Del("Content-Length")
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = fmt.Fprintf(w.ResponseWriter, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":%s}}`, msg)
}

// hostAllowed protects a server on a loopback listener from DNS rebinding:
// there a Host must be a loopback name or the configured base URL's host
// (one derived from the request proves nothing). A Caddy on 127.0.0.1
// behind a tunnel or proxy therefore works once base_url names its public
// host, or with the check turned off (MCPAnyHost).
func (s *Service) hostAllowed(r *http.Request) bool {
	if s.cfg.MCPAnyHost {
		return true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil || !isLoopback(local.String()) {
		return true
	}
	if isLoopback(r.Host) {
		return true
	}
	return s.cfg.BaseURL != "" && strings.EqualFold(hostOnly(r.Host), hostOnly(s.cfg.BaseURL[strings.Index(s.cfg.BaseURL, "://")+3:]))
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopback(hostport string) bool {
	h := hostOnly(hostport)
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// originOf is the serialised origin of a URL: lowercase scheme://host, with
// a port only when it is not the scheme's default.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return scheme + "://" + host
}
