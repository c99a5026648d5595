package mcp

import (
	"context"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
)

// What the MCP endpoint asks of the tools of one base URL: which calls
// name something of the content, in their canonical form, and the search.

// Search is the search of the insights for the base URL.
func (rd Site) Search(ctx context.Context, in search.Input) (search.Output, error) {
	return SearchInsights(ctx, rd, in)
}

// Recognise recognises a call whose answer depends on the content
// only, naming something that exists, and gives its canonical form.
func (rd Site) Recognise(c mcpcall.Call) (Request, bool) {
	switch mcpcall.PlainString(c.Method) {
	case "tools/list", "resources/list":
		// The first page: a cursor goes to the SDK.
		if c.Params == nil || (c.Name == nil && c.Arguments == nil && c.URI == nil) {
			return Request{Method: mcpcall.PlainString(c.Method)}, true
		}
	case "resources/read":
		if c.Name != nil || c.Arguments != nil {
			break
		}
		if slug, ok := rd.resourceSlug(mcpcall.PlainString(c.URI)); ok {
			return Request{Method: "resources/read", Arg: "uri", Value: rd.Insight(slug)}, true
		}
	case "tools/call":
		if c.URI != nil {
			break
		}
		return rd.fixedToolCall(c)
	}
	return Request{}, false
}

// fixedToolCall recognises a call of a tool whose result depends on the
// content and its arguments only, with arguments naming something that
// exists (the tool's kept, in mcpTools).
func (rd Site) fixedToolCall(c mcpcall.Call) (Request, bool) {
	if c.ArgCount > 1 {
		return Request{}, false
	}
	name := mcpcall.PlainString(c.Name)
	for _, t := range mcpTools {
		if t.name == name && t.kept != nil {
			return t.kept(rd, c, mcpcall.PlainString(c.Argument))
		}
	}
	return Request{}, false
}

// keptProfile: get_profile without arguments.
func keptProfile(_ Site, c mcpcall.Call, _ string) (Request, bool) {
	if c.ArgName == nil {
		return Request{Method: "tools/call", Tool: "get_profile"}, true
	}
	return Request{}, false
}

// keptInsightList: list_insights of every topic, or of one topic the
// content has.
func keptInsightList(rd Site, c mcpcall.Call, arg string) (Request, bool) {
	if c.ArgName == nil || (string(c.ArgName) == "topic" && string(c.Argument) == `""`) {
		return Request{Method: "tools/call", Tool: "list_insights"}, true
	}
	if string(c.ArgName) != "topic" || arg == "" {
		return Request{}, false
	}
	// The tool compares topics case-insensitively; the answer is the
	// same for every spelling of one.
	for _, t := range rd.Cat.Topics {
		if strings.EqualFold(t, strings.TrimSpace(arg)) {
			return Request{Method: "tools/call", Tool: "list_insights", Arg: "topic", Value: t}, true
		}
	}
	return Request{}, false
}

// keptInsight: get_insight of a published slug.
func keptInsight(rd Site, c mcpcall.Call, arg string) (Request, bool) {
	if i, ok := rd.Cat.BySlug[arg]; ok && string(c.ArgName) == "slug" && content.ValidSlug(arg) {
		return Request{Method: "tools/call", Tool: "get_insight", Arg: "slug", Value: rd.Cat.Site.Insights[i].Slug}, true
	}
	return Request{}, false
}

// keptFetch: fetch of a published slug.
func keptFetch(rd Site, c mcpcall.Call, arg string) (Request, bool) {
	if i, ok := rd.Cat.BySlug[arg]; ok && string(c.ArgName) == "id" && content.ValidSlug(arg) {
		return Request{Method: "tools/call", Tool: "fetch", Arg: "id", Value: rd.Cat.Site.Insights[i].Slug}, true
	}
	return Request{}, false
}

// resourceSlug is the slug of the insight whose resource URI (its page's
// address) is uri.
func (rd Site) resourceSlug(uri string) (string, bool) {
	link := uri
	if rest, ok := strings.CutPrefix(uri, rd.Base); ok && strings.HasPrefix(rest, "/") {
		link = rest
	}
	slug, ok := rd.Cat.SlugOfPage[link]
	return slug, ok && rd.Insight(slug) == uri
}
