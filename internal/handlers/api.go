package handlers

import (
	"cmp"
	"fmt"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
)

// The JSON shapes of the API. Field order follows the specification; a
// field is always present unless its json tag says omitempty. The schema
// tags carry the specification's constraints into /openapi.json (internal/schema).

type apiIndex struct {
	Name          string          `json:"name" jsonschema:"Name of the API."`
	APIVersion    string          `json:"apiVersion" jsonschema:"URL-path API version."`
	Documentation string          `json:"documentation" schema:"format=uri" jsonschema:"Address of the developer portal."`
	OpenAPI       string          `json:"openapi" schema:"format=uri" jsonschema:"Address of the machine-readable description."`
	Auth          string          `json:"auth" jsonschema:"Summary of the authentication model."`
	RateLimit     string          `json:"rateLimit" jsonschema:"Summary of the rate-limit policy."`
	Versioning    string          `json:"versioning" jsonschema:"Summary of the versioning policy."`
	Endpoints     []indexEndpoint `json:"endpoints" jsonschema:"The versioned endpoints."`
	URLs          indexURLs       `json:"urls" jsonschema:"Addresses of the site and of the other interfaces."`
}

type indexEndpoint struct {
	Method      string `json:"method" jsonschema:"HTTP method."`
	Path        string `json:"path" jsonschema:"Path, with {slug} for the path parameter."`
	Description string `json:"description" jsonschema:"What the endpoint returns."`
}

type indexURLs struct {
	Home       string `json:"home" schema:"format=uri" jsonschema:"The site's home page."`
	Developers string `json:"developers" schema:"format=uri" jsonschema:"The developer portal."`
	OpenAPI    string `json:"openapi" schema:"format=uri" jsonschema:"The OpenAPI description."`
	Auth       string `json:"auth" schema:"format=uri" jsonschema:"The authentication notes for agents."`
	MCP        string `json:"mcp" schema:"format=uri" jsonschema:"The MCP endpoint."`
	CLI        string `json:"cli" schema:"format=uri" jsonschema:"The command-line client."`
}

type health struct {
	Status     string `json:"status" schema:"enum=ok" jsonschema:"ok while the service answers."`
	Service    string `json:"service" jsonschema:"Service name."`
	Version    string `json:"version" jsonschema:"Service version."`
	APIVersion string `json:"apiVersion" schema:"examples=1" jsonschema:"URL-path API version."`
	URL        string `json:"url" schema:"format=uri" jsonschema:"Address of this health check."`
	CheckedAt  string `json:"checkedAt" schema:"format=date-time" jsonschema:"Time of the check."`
}

type profile struct {
	content.Profile
	URLs profileURLs `json:"urls" jsonschema:"Addresses of the site's pages and of the documents about the subject."`
}

// The profile's parts are the content model's own types.
type (
	profileContact = content.Contact
	siteLink       = content.SiteLink
)

type profileURLs struct {
	Home       string `json:"home" schema:"format=uri" jsonschema:"The site's home page."`
	About      string `json:"about" schema:"format=uri" jsonschema:"The site's about page."`
	Developers string `json:"developers" schema:"format=uri" jsonschema:"The developer portal."`
	LLMsTxt    string `json:"llmsTxt" schema:"format=uri" jsonschema:"The llms.txt index for agents."`
	LLMsFull   string `json:"llmsFull" schema:"format=uri" jsonschema:"Everything as one plain-text document."`
	APICatalog string `json:"apiCatalog" schema:"format=uri" jsonschema:"The RFC 9727 API catalog."`
	OpenAPI    string `json:"openapi" schema:"format=uri" jsonschema:"The OpenAPI description."`
}

type insightSummary struct {
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

type insightList struct {
	Count int              `json:"count" schema:"minimum=0" jsonschema:"Number of published insights."`
	Items []insightSummary `json:"items" jsonschema:"Every published insight, newest first."`
}

type insightDocument struct {
	insightSummary
	Content string `json:"content" schema:"contentMediaType=text/markdown" jsonschema:"Markdown body of the article."`
}

// apiVersion is the version in the API's path, sent as the API-Version header
// and in the apiVersion fields.
const apiVersion = "1"

func index(l links) apiIndex {
	var endpoints []indexEndpoint
	for _, rt := range l.routes {
		if rt.Versioned() {
			endpoints = append(endpoints, indexEndpoint{rt.Method, rt.Path, rt.Description})
		}
	}
	return apiIndex{
		Name:          l.cfg.Site.Profile.Name + " public discovery API",
		APIVersion:    apiVersion,
		Documentation: l.developers(),
		OpenAPI:       l.openAPI(),
		Auth:          "No authentication is required: unauthenticated GET works on every public endpoint. An optional anonymous bearer token (scope public:read, from POST " + pathRegister + " or the OAuth flows of " + l.base + pathASM + ", with no login) grants nothing more. See " + l.base + pathAuth + ".",
		RateLimit:     rateLimitSummary(l.cfg),
		Versioning:    "The version is in the URL path (/api/v1) and in the API-Version response header. Additive changes stay within v1; breaking changes ship as /api/v2 with at least 180 days of overlap, announced by Deprecation and Sunset headers. See " + l.developers() + "#versioning.",
		Endpoints:     endpoints,
		URLs: indexURLs{
			Home:       l.abs(l.cfg.Site.Pages.Home),
			Developers: l.developers(),
			OpenAPI:    l.openAPI(),
			Auth:       l.base + pathAuth,
			MCP:        l.base + pathMCP,
			CLI:        l.cliURL(),
		},
	}
}

func newHealth(l links, now time.Time) health {
	return health{
		Status:     "ok",
		Service:    l.cfg.ServiceName,
		Version:    l.cfg.Version,
		APIVersion: apiVersion,
		URL:        l.base + pathHealth,
		CheckedAt:  now.UTC().Format(time.RFC3339),
	}
}

func newProfile(l links) profile {
	p := l.cfg.Site.Profile
	c := &p.Contact
	for _, f := range []*string{&c.Form, &c.LinkedIn, &c.X, &c.Substack, &c.YouTube, &c.CompanyBio} {
		*f = l.abs(*f)
	}
	p.SiteStructure = make([]content.SiteLink, len(p.SiteStructure))
	for i, sl := range l.cfg.Site.Profile.SiteStructure {
		sl.URL = l.abs(sl.URL)
		p.SiteStructure[i] = sl
	}
	return profile{
		Profile: p,
		URLs: profileURLs{
			Home: l.abs(l.cfg.Site.Pages.Home),
			// A site with no About page: the home page is what says who
			// the profile is.
			About:      l.abs(cmp.Or(l.cfg.Site.Pages.About, l.cfg.Site.Pages.Home)),
			Developers: l.developers(),
			LLMsTxt:    l.base + pathLLMs,
			LLMsFull:   l.base + pathLLMsFull,
			APICatalog: l.base + pathCatalog,
			OpenAPI:    l.openAPI(),
		},
	}
}

func summary(l links, in content.Insight) insightSummary {
	return insightSummary{
		Slug:            in.Slug,
		Title:           in.Title,
		Description:     in.Description,
		Date:            in.Date,
		DateISO:         in.DateISO,
		DateModifiedISO: in.DateModifiedISO,
		Topic:           in.Topic,
		ReadTime:        in.ReadTime,
		URL:             l.insight(in.Slug),
	}
}

func insights(l links) insightList {
	items := make([]insightSummary, len(l.cfg.Site.Insights))
	for i, in := range l.cfg.Site.Insights {
		items[i] = summary(l, in)
	}
	return insightList{Count: len(items), Items: items}
}

func newInsightDocument(l links, in content.Insight) insightDocument {
	return insightDocument{insightSummary: summary(l, in), Content: in.Body}
}

// rateLimitSummary describes the rate-limit policy in a sentence.
func rateLimitSummary(c *Config) string {
	if c.RateLimit.Events == 0 {
		return "No rate limit is enforced by this deployment."
	}
	return fmt.Sprintf("%d requests per %d seconds per client, policy %q, on every address of the API and its documents but the developer portal. Every counted response carries RateLimit and RateLimit-Policy headers; a refused request gets 429 with Retry-After.",
		c.RateLimit.Events, c.RateLimit.WindowSeconds(), ratelimit.PolicyName)
}
