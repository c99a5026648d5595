package mcp

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/schema"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// Site is what the tools read: the view of one base URL and, beside it,
// what the caller set that a tool uses.
type Site struct {
	view.Links
	// Now is the clock of the health tool.
	Now func() time.Time
	// Metrics counts the calls; nil counts nothing.
	Metrics *metrics.Site
	// OnPanic reports a panic recovered in a tool, which runs apart from
	// the request; nil reports nothing.
	OnPanic func(any)
}

// Capabilities are the capabilities the server declares in initialize
// (and server/discover), and the ones its server card repeats. The server
// is stateless: it cannot tell a client that a list changed or that a
// subscribed resource did, and it sends no log messages. So it declares
// tools and resources and nothing more (left to itself, the SDK would
// declare listChanged and logging).
func Capabilities() *sdk.ServerCapabilities {
	return &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}}
}

// undeclaredMethods are the methods of the prompts capability, which the
// server does not declare: it has no prompts. The SDK would answer
// prompts/list with an empty list all the same, and a server that answers
// it must declare the capability (server/discover of 2026-07-28 is checked
// against what the server honours). So they are refused as methods the
// server does not have, under every protocol version; completion/complete
// and resources/subscribe are refused by the SDK itself, as the server
// sets neither a completion nor a subscription handler.
var undeclaredMethods = map[string]bool{"prompts/list": true, "prompts/get": true}

// refuseUndeclared is the MCP server's middleware that answers a method of
// a capability the server does not declare with JSON-RPC -32601 (Method
// not found), which the SDK sends with HTTP 200 before protocol 2026-07-28
// and 404 from it on, as it does for any unknown method.
func refuseUndeclared(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if undeclaredMethods[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "Method not found: " + method + "; this server has no prompts: it declares the tools and resources capabilities only."}
		}
		return next(ctx, method, req)
	}
}

// mcpTool is one tool of the MCP server, declared once: its name and
// title; the route whose JSON it returns, whose description it takes (a
// tool of its own has a description instead); its handler, with its input
// and output types (add); the calls whose answers the endpoint keeps
// (kept); and, for a search, the shape the endpoint answers it in off the
// SDK (search). Registration, the kept answers, the metrics' tool names and the
// documents that describe the tools (the server and agent cards, SKILL.md,
// the WebMCP script) follow from mcpTools.
type mcpTool struct {
	name, title string
	// route is the path of the GET route whose JSON the tool returns; ""
	// for a tool of its own, described by description.
	route       string
	description string
	// add registers the tool's handler on server.
	add func(l Site, t *sdk.Tool, server *sdk.Server)
	// kept gives the canonical form of a call of the tool whose answer
	// depends on the content and its one argument (arg, as a plain string)
	// only, naming something that exists: the endpoint keeps the SDK's
	// answer to it. nil when no answer of the tool is kept.
	kept func(rd Site, c mcpcall.Call, arg string) (Request, bool)
	// search is the shape in which the endpoint answers the tool's plain
	// calls off the SDK with the search; 0 for a tool that is no search.
	search SearchShape
}

// Searches are the search tools of mcpTools, by name, with their shapes.
var Searches = func() map[string]SearchShape {
	shapes := make(map[string]SearchShape)
	for _, t := range mcpTools {
		if t.search != 0 {
			shapes[t.name] = t.search
		}
	}
	return shapes
}()

// metaTool is the tool whose kept answer resultMeta reads the SDK's _meta
// from: the first of mcpTools whose kept answers a call without
// arguments, whatever the content.
var metaTool = func() string {
	none := Site{Links: view.Links{Cat: &catalog.Catalog{Site: &content.Site{}}}}
	for _, t := range mcpTools {
		if t.kept == nil {
			continue
		}
		if req, ok := t.kept(none, mcpcall.Call{}, ""); ok && req.Arg == "" {
			return req.Tool
		}
	}
	return ""
}()

// mcpTools are the MCP server's tools, in the order tools/list gives them.
var mcpTools = []mcpTool{
	{name: "get_health", title: "Health", route: view.PathHealth, add: addHealthTool},
	{name: "get_profile", title: "Profile", route: view.PathProfile, add: addProfileTool, kept: keptProfile},
	{name: "list_insights", title: "List insights", route: view.PathInsights, add: addListInsightsTool, kept: keptInsightList},
	{name: "get_insight", title: "One insight", route: view.PathInsight, add: addInsightTool, kept: keptInsight},
	{name: "search_insights", title: "Search insights", add: addSearchTool, search: SearchFull,
		description: "Searches the published insights' titles, descriptions, topics and bodies for the query's words, each matching its other forms (plurals and other endings, with or without accents, hyphens or dots) and, weighing less, the longer words it begins. " +
			"Ranks them by BM25 relevance (title first, then topic, description and body), then newest first, each with its score, a snippet and its slug for get_insight. " +
			"Optionally only one topic or a range of publication dates; limit sets the page size and nextCursor, passed back as cursor, the next page."},
	{name: "search", title: "Search (connector)", add: addConnectorSearchTool, search: SearchConnector,
		description: "Searches the published insights for the query's words, best matches first (the ranking of search_insights); each result's id is for fetch. " +
			"The search/fetch pair ChatGPT connectors and deep research use; search_insights gives scores and snippets."},
	{name: "fetch", title: "Fetch (connector)", add: addFetchTool, kept: keptFetch,
		description: "Returns one insight by the id search gave: its title, Markdown text, canonical URL and metadata. " +
			"The search/fetch pair ChatGPT connectors and deep research use; get_insight gives the REST API's JSON."},
}

type noInput struct{}

type listInsightsInput struct {
	Topic string `json:"topic,omitempty" jsonschema:"only insights with this topic (case-insensitive); omit for all"`
}

type getInsightInput struct {
	Slug string `json:"slug" jsonschema:"the insight's slug, as listed by list_insights"`
}

// safeTool turns a panic in a tool handler into a tool error. The SDK runs
// handlers on goroutines of its own, where a panic would end the process.
func safeTool[In, Out any](onPanic func(any), h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				onPanic(v)
				res, err = nil, fmt.Errorf("the tool failed on the server's side; the fault has been logged")
			}
		}()
		return h(ctx, req, in)
	}
}

// addTool registers a tool whose input and output schemas are generated
// like the OpenAPI description's, so both say the same.
func addTool[In, Out any](l Site, t *sdk.Tool, server *sdk.Server, h sdk.ToolHandlerFor[In, Out]) {
	t.InputSchema = schema.Inline(reflect.TypeFor[In]())
	t.OutputSchema = schema.Inline(reflect.TypeFor[Out]())
	sdk.AddTool(server, t, safeTool(l.OnPanic, h))
}

func addProfileTool(l Site, t *sdk.Tool, server *sdk.Server) {
	p := l.Profile()
	addTool(l, t, server, func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, wire.Profile, error) {
		return nil, p, nil
	})
}

func addHealthTool(l Site, t *sdk.Tool, server *sdk.Server) {
	addTool(l, t, server, func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, wire.Health, error) {
		return nil, l.Health(l.Now()), nil
	})
}

func addListInsightsTool(l Site, t *sdk.Tool, server *sdk.Server) {
	t.Description += " Optionally only those of one topic (" + strings.Join(l.Cat.Site.Topics(), ", ") + ")."
	all := l.Insights()
	addTool(l, t, server, func(_ context.Context, _ *sdk.CallToolRequest, in listInsightsInput) (*sdk.CallToolResult, wire.InsightList, error) {
		if in.Topic == "" {
			return nil, all, nil
		}
		out := wire.InsightList{Items: []wire.InsightSummary{}}
		for _, it := range all.Items {
			if strings.EqualFold(it.Topic, strings.TrimSpace(in.Topic)) {
				out.Items = append(out.Items, it)
			}
		}
		out.Count = len(out.Items)
		return nil, out, nil
	})
}

func addInsightTool(l Site, t *sdk.Tool, server *sdk.Server) {
	addTool(l, t, server, func(_ context.Context, _ *sdk.CallToolRequest, in getInsightInput) (*sdk.CallToolResult, wire.InsightDocument, error) {
		if !content.ValidSlug(in.Slug) {
			return nil, wire.InsightDocument{}, fmt.Errorf("the slug %s is not valid: a slug is %s. Call list_insights for the published slugs", problem.Quote(in.Slug), content.SlugGrammar)
		}
		doc, ok := l.Published(in.Slug)
		if !ok {
			return nil, wire.InsightDocument{}, fmt.Errorf("no published insight has the slug %s. Call list_insights or search_insights for the published slugs", problem.Quote(in.Slug))
		}
		return nil, l.InsightDocument(doc), nil
	})
}

// NewServer builds the MCP server of one rendition: the tools of the route
// table, whose structured results are the REST API's JSON for the same
// resource, a search, and the insights as resources.
func NewServer(l Site) *sdk.Server {
	if l.OnPanic == nil {
		l.OnPanic = func(any) {}
	}
	p := l.Cat.Site.Profile
	server := sdk.NewServer(&sdk.Implementation{
		Name:       l.ServiceName,
		Title:      p.Name + " public discovery API",
		Version:    l.Version,
		WebsiteURL: l.Base + view.PathDevelopers,
	}, &sdk.ServerOptions{
		Capabilities: Capabilities(),
		Instructions: "Read-only public facts about " + p.Name + " and their published insights. " +
			"Use get_profile for the biography and contact links, list_insights or search_insights to find articles, " +
			"and get_insight for one article's Markdown body; search and fetch are the same search and articles in the shape ChatGPT connectors and deep research use. The same data is at " + l.Base + view.PathIndex + ".",
	})
	addTools(l, server)
	server.AddReceivingMiddleware(refuseUndeclared, CountCalls(l.Cat.ToolNames, l.Metrics))
	for _, in := range l.Cat.Site.Insights {
		uri := l.Insight(in.Slug)
		body := in.Body
		server.AddResource(&sdk.Resource{
			URI: uri, Name: in.Slug, Title: in.Title, MIMEType: "text/markdown",
			Description: in.Description, Size: int64(len(body)),
		}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: body}}}, nil
		})
	}
	return server
}

// DeclaredTool is a tool as the MCP server declares it to clients, with the
// route whose JSON it returns (nil for a tool of its own, such as
// search_insights).
type DeclaredTool struct {
	*sdk.Tool
	Route *view.Route
	// Kept says that the endpoint keeps the SDK's answers to some calls of
	// the tool (its declaration's kept).
	Kept bool
}

// addTools registers every tool of mcpTools on server, a tool of a route
// only when the configuration serves the route. It returns them as
// declared, so that the documents that describe the tools (SKILL.md, the
// WebMCP script) say what the server says.
func addTools(l Site, server *sdk.Server) []DeclaredTool {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	var tools []DeclaredTool
	for _, d := range mcpTools {
		t := &sdk.Tool{Name: d.name, Title: d.title, Annotations: readOnly, Description: d.description}
		var rt *view.Route
		if d.route != "" {
			if rt = l.RouteAt(d.route); rt == nil { // a tool of a route the configuration does not serve
				continue
			}
			t.Description = rt.Description + " Same JSON as GET " + rt.Path + "."
		}
		d.add(l, t, server)
		tools = append(tools, DeclaredTool{t, rt, d.kept != nil})
	}
	return tools
}

// addSearchTool registers search_insights.
func addSearchTool(l Site, t *sdk.Tool, server *sdk.Server) {
	addTool(l, t, server, func(ctx context.Context, _ *sdk.CallToolRequest, in search.Input) (*sdk.CallToolResult, search.Output, error) {
		out, err := SearchInsights(ctx, l, in)
		return nil, out, err
	})
}

// DeclaredTools are the MCP server's tools as it declares them, from a server
// built for the purpose (registering a tool runs no handler).
func DeclaredTools(l Site) []DeclaredTool {
	if l.OnPanic == nil {
		l.OnPanic = func(any) {}
	}
	return addTools(l, sdk.NewServer(&sdk.Implementation{Name: l.ServiceName, Version: l.Version}, nil))
}

// SearchInsights is the search of the insights for the base URL of l: the
// content's index, each result at its page's address, within the budget
// ctx carries (the MCP endpoint gives each request one).
func SearchInsights(ctx context.Context, l Site, in search.Input) (search.Output, error) {
	return l.Cat.SearchIndex.Search(ctx, in, l.Insight)
}

// NewHandler is the SDK's stateless handler of the MCP server of l.
func NewHandler(l Site) http.Handler {
	server := NewServer(l)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// HostAllowed does this check, knowing the configured base URL.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        body.MaxSize,
	})
}

// Lazy gives the SDK's stateless handler of the MCP server of l, built on
// its first call, after which built (when set) is told.
func Lazy(l Site, built func()) func() http.Handler {
	var once sync.Once
	var h http.Handler
	return func() http.Handler {
		once.Do(func() {
			h = NewHandler(l)
			if built != nil {
				built()
			}
		})
		return h
	}
}
