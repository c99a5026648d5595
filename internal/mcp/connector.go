package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The search and fetch tools have the shapes ChatGPT connectors and deep
// research call by name: search takes one query string and returns
// results of {id, title, url}; fetch takes one of those ids and returns
// the document as {id, title, text, url, metadata}. They are the same
// index and documents as search_insights and get_insight, under the names
// and fields those clients require; the id is the insight's slug.

type connectorSearchInput struct {
	Query string `json:"query" jsonschema:"words to look for in the insights' titles, descriptions, topics and bodies"`
}

type connectorResult struct {
	ID    string `json:"id" jsonschema:"the insight's slug; pass it to fetch"`
	Title string `json:"title"`
	URL   string `json:"url" schema:"format=uri" jsonschema:"canonical URL of the article, for citation"`
}

type connectorSearchOutput struct {
	Results []connectorResult `json:"results" jsonschema:"the best matches first, at most 10"`
}

type fetchInput struct {
	ID string `json:"id" jsonschema:"an id returned by search: an insight's slug"`
}

type fetchMetadata struct {
	Topic       string `json:"topic"`
	Description string `json:"description"`
	Published   string `json:"published" schema:"format=date"`
	Modified    string `json:"modified" schema:"format=date"`
	ReadTime    string `json:"readTime"`
	APIURL      string `json:"apiUrl" schema:"format=uri" jsonschema:"the same document in the REST API"`
	ContentType string `json:"contentType" jsonschema:"the media type of text"`
}

type fetchOutput struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Text     string        `json:"text" jsonschema:"the article's Markdown body"`
	URL      string        `json:"url" schema:"format=uri" jsonschema:"canonical URL of the article, for citation"`
	Metadata fetchMetadata `json:"metadata"`
}

// connectorSearch is search_insights' first page, in the connectors'
// shape.
func connectorSearch(ctx context.Context, l Site, in connectorSearchInput) (connectorSearchOutput, error) {
	found, err := SearchInsights(ctx, l, search.Input{Query: in.Query})
	if err != nil {
		return connectorSearchOutput{}, err
	}
	out := connectorSearchOutput{Results: make([]connectorResult, len(found.Results))}
	for i, r := range found.Results {
		out.Results[i] = connectorResult{ID: r.Slug, Title: r.Title, URL: r.URL}
	}
	return out, nil
}

// addConnectorSearchTool registers search.
func addConnectorSearchTool(l Site, t *sdk.Tool, server *sdk.Server) {
	addTool(l, t,
		server, func(ctx context.Context, _ *sdk.CallToolRequest, in connectorSearchInput) (*sdk.CallToolResult, connectorSearchOutput, error) {
			out, err := connectorSearch(ctx, l, in)
			return nil, out, err
		})
}

// addFetchTool registers fetch.
func addFetchTool(l Site, t *sdk.Tool, server *sdk.Server) {
	addTool(l, t,
		server, func(_ context.Context, _ *sdk.CallToolRequest, in fetchInput) (*sdk.CallToolResult, fetchOutput, error) {
			if !content.ValidSlug(in.ID) {
				return nil, fetchOutput{}, fmt.Errorf("the id %s is not valid: an id is an insight's slug, %s. Call search for ids", problem.Quote(in.ID), content.SlugGrammar)
			}
			doc, ok := l.Published(in.ID)
			if !ok {
				return nil, fetchOutput{}, fmt.Errorf("no published insight has the id %s. Call search for ids", problem.Quote(in.ID))
			}
			d := l.InsightDocument(doc)
			return nil, fetchOutput{
				ID: d.Slug, Title: d.Title, Text: d.Content, URL: d.URL,
				Metadata: fetchMetadata{
					Topic: d.Topic, Description: d.Description, Published: d.DateISO, Modified: d.DateModifiedISO,
					ReadTime: d.ReadTime, APIURL: l.Base + view.InsightPath(d.Slug), ContentType: "text/markdown",
				},
			}, nil
		})
}
