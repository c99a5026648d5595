// Package wire holds the JSON shapes the module sends, shared by whatever
// sends or describes them (the API, the MCP tools, openapi.json's
// components, the portal's field reference): the API's bodies (the
// profile, the insights, health, the index; api.go) and the discovery
// documents' (the API catalog, the OAuth metadata and the server card:
// wellknown.go; the A2A agent card: agentcard.go; the AI catalog:
// aicatalog.go; the skills index: skills.go). Field order follows the
// specification; a field is always present unless its json tag says
// omitempty. The schema tags carry the specification's constraints into
// /openapi.json (internal/schema).
//
// Imports from the module: content.
package wire

import (
	"github.com/caddy-discovery/caddy-discovery/content"
)

type APIIndex struct {
	Name          string          `json:"name" jsonschema:"Name of the API."`
	APIVersion    string          `json:"apiVersion" jsonschema:"URL-path API version."`
	Documentation string          `json:"documentation" schema:"format=uri" jsonschema:"Address of the developer portal."`
	OpenAPI       string          `json:"openapi" schema:"format=uri" jsonschema:"Address of the machine-readable description."`
	Auth          string          `json:"auth" jsonschema:"Summary of the authentication model."`
	RateLimit     string          `json:"rateLimit" jsonschema:"Summary of the rate-limit policy."`
	Versioning    string          `json:"versioning" jsonschema:"Summary of the versioning policy."`
	Endpoints     []IndexEndpoint `json:"endpoints" jsonschema:"The versioned endpoints."`
	URLs          IndexURLs       `json:"urls" jsonschema:"Addresses of the site and of the other interfaces."`
}

type IndexEndpoint struct {
	Method      string `json:"method" jsonschema:"HTTP method."`
	Path        string `json:"path" jsonschema:"Path, with {slug} for the path parameter."`
	Description string `json:"description" jsonschema:"What the endpoint returns."`
}

type IndexURLs struct {
	Home       string `json:"home" schema:"format=uri" jsonschema:"The site's home page."`
	Developers string `json:"developers" schema:"format=uri" jsonschema:"The developer portal."`
	OpenAPI    string `json:"openapi" schema:"format=uri" jsonschema:"The OpenAPI description."`
	Auth       string `json:"auth" schema:"format=uri" jsonschema:"The authentication notes for agents."`
	MCP        string `json:"mcp" schema:"format=uri" jsonschema:"The MCP endpoint."`
	CLI        string `json:"cli" schema:"format=uri" jsonschema:"The command-line client."`
}

type Health struct {
	Status     string `json:"status" schema:"enum=ok" jsonschema:"ok while the service answers."`
	Service    string `json:"service" jsonschema:"Service name."`
	Version    string `json:"version" jsonschema:"Service version."`
	APIVersion string `json:"apiVersion" schema:"examples=1" jsonschema:"URL-path API version."`
	URL        string `json:"url" schema:"format=uri" jsonschema:"Address of this health check."`
	CheckedAt  string `json:"checkedAt" schema:"format=date-time" jsonschema:"Time of the check."`
}

type Profile struct {
	content.Profile
	URLs ProfileURLs `json:"urls" jsonschema:"Addresses of the site's pages and of the documents about the subject."`
}

// The profile's parts are the content model's own types.
type (
	ProfileContact = content.Contact
	SiteLink       = content.SiteLink
)

type ProfileURLs struct {
	Home       string `json:"home" schema:"format=uri" jsonschema:"The site's home page."`
	About      string `json:"about" schema:"format=uri" jsonschema:"The site's about page."`
	Developers string `json:"developers" schema:"format=uri" jsonschema:"The developer portal."`
	LLMsTxt    string `json:"llmsTxt" schema:"format=uri" jsonschema:"The llms.txt index for agents."`
	LLMsFull   string `json:"llmsFull" schema:"format=uri" jsonschema:"Everything as one plain-text document."`
	APICatalog string `json:"apiCatalog" schema:"format=uri" jsonschema:"The RFC 9727 API catalog."`
	OpenAPI    string `json:"openapi" schema:"format=uri" jsonschema:"The OpenAPI description."`
}

type InsightSummary struct {
	Slug            string `json:"slug" schema:"pattern=@slug;minLength=1;maxLength=200" jsonschema:"The article's slug: the last segment of its page's address on the site, as the site writes it. Percent-encode it as a path segment in a URL."`
	Title           string `json:"title" jsonschema:"Title of the article."`
	Description     string `json:"description" jsonschema:"One or two sentences on what the article says."`
	Date            string `json:"date" jsonschema:"Display date, free-form text."`
	DateISO         string `json:"dateISO" schema:"format=date" jsonschema:"Publication date."`
	DateModifiedISO string `json:"dateModifiedISO" schema:"format=date" jsonschema:"Last modification date."`
	Topic           string `json:"topic" jsonschema:"The article's topic."`
	ReadTime        string `json:"readTime" jsonschema:"Estimated reading time, such as 7 min read."`
	URL             string `json:"url" schema:"format=uri" jsonschema:"Canonical URL of the article."`
}

type InsightList struct {
	Count int              `json:"count" schema:"minimum=0" jsonschema:"Number of published insights."`
	Items []InsightSummary `json:"items" jsonschema:"Every published insight, newest first."`
}

type InsightDocument struct {
	InsightSummary
	Content string `json:"content" schema:"contentMediaType=text/markdown" jsonschema:"Markdown body of the article."`
}
