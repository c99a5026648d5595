package handlers

import (
	"context"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/mcphttp"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
)

// What the MCP endpoint (internal/mcphttp) asks of a rendition: which calls
// name something of the content, in their canonical form, and the search.

// search is the search of the insights for the rendition's base URL.
func (rd *rendition) search(ctx context.Context, in search.Input) (search.Output, error) {
	return searchInsights(ctx, rd.links, in)
}

// recogniseMCP recognises a call whose answer depends on the content
// only, naming something that exists, and gives its canonical form.
func (rd *rendition) recogniseMCP(c mcpcall.Call) (mcphttp.Request, bool) {
	switch mcpcall.PlainString(c.Method) {
	case "tools/list", "resources/list":
		// The first page: a cursor goes to the SDK.
		if c.Params == nil || (c.Name == nil && c.Arguments == nil && c.URI == nil) {
			return mcphttp.Request{Method: mcpcall.PlainString(c.Method)}, true
		}
	case "resources/read":
		if c.Name != nil || c.Arguments != nil {
			break
		}
		if slug, ok := rd.resourceSlug(mcpcall.PlainString(c.URI)); ok {
			return mcphttp.Request{Method: "resources/read", Arg: "uri", Value: rd.Insight(slug)}, true
		}
	case "tools/call":
		if c.URI != nil {
			break
		}
		return rd.fixedToolCall(c)
	}
	return mcphttp.Request{}, false
}

// fixedToolCall recognises a call of a tool whose result depends on the
// content and its arguments only, with arguments naming something that
// exists (the tool's kept, in mcpTools).
func (rd *rendition) fixedToolCall(c mcpcall.Call) (mcphttp.Request, bool) {
	if c.ArgCount > 1 {
		return mcphttp.Request{}, false
	}
	name := mcpcall.PlainString(c.Name)
	for _, t := range mcpTools {
		if t.name == name && t.kept != nil {
			return t.kept(rd, c, mcpcall.PlainString(c.Argument))
		}
	}
	return mcphttp.Request{}, false
}

// keptProfile: get_profile without arguments.
func keptProfile(_ *rendition, c mcpcall.Call, _ string) (mcphttp.Request, bool) {
	if c.ArgName == nil {
		return mcphttp.Request{Method: "tools/call", Tool: "get_profile"}, true
	}
	return mcphttp.Request{}, false
}

// keptInsightList: list_insights of every topic, or of one topic the
// content has.
func keptInsightList(rd *rendition, c mcpcall.Call, arg string) (mcphttp.Request, bool) {
	if c.ArgName == nil || (string(c.ArgName) == "topic" && string(c.Argument) == `""`) {
		return mcphttp.Request{Method: "tools/call", Tool: "list_insights"}, true
	}
	if string(c.ArgName) != "topic" || arg == "" {
		return mcphttp.Request{}, false
	}
	// The tool compares topics case-insensitively; the answer is the
	// same for every spelling of one.
	for _, t := range rd.Cat.Topics {
		if strings.EqualFold(t, strings.TrimSpace(arg)) {
			return mcphttp.Request{Method: "tools/call", Tool: "list_insights", Arg: "topic", Value: t}, true
		}
	}
	return mcphttp.Request{}, false
}

// keptInsight: get_insight of a published slug.
func keptInsight(rd *rendition, c mcpcall.Call, arg string) (mcphttp.Request, bool) {
	if i, ok := rd.Cat.BySlug[arg]; ok && string(c.ArgName) == "slug" && content.ValidSlug(arg) {
		return mcphttp.Request{Method: "tools/call", Tool: "get_insight", Arg: "slug", Value: rd.Cat.Site.Insights[i].Slug}, true
	}
	return mcphttp.Request{}, false
}

// keptFetch: fetch of a published slug.
func keptFetch(rd *rendition, c mcpcall.Call, arg string) (mcphttp.Request, bool) {
	if i, ok := rd.Cat.BySlug[arg]; ok && string(c.ArgName) == "id" && content.ValidSlug(arg) {
		return mcphttp.Request{Method: "tools/call", Tool: "fetch", Arg: "id", Value: rd.Cat.Site.Insights[i].Slug}, true
	}
	return mcphttp.Request{}, false
}

// resourceSlug is the slug of the insight whose resource URI (its page's
// address) is uri.
func (rd *rendition) resourceSlug(uri string) (string, bool) {
	link := uri
	if rest, ok := strings.CutPrefix(uri, rd.Base); ok && strings.HasPrefix(rest, "/") {
		link = rest
	}
	slug, ok := rd.Cat.SlugOfPage[link]
	return slug, ok && rd.Insight(slug) == uri
}
