package handlers

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// The JSON shapes of the API. Field order follows the specification; every
// field is always present.

type apiIndex struct {
	Name          string          `json:"name"`
	APIVersion    string          `json:"apiVersion"`
	Documentation string          `json:"documentation"`
	OpenAPI       string          `json:"openapi"`
	Auth          string          `json:"auth"`
	RateLimit     string          `json:"rateLimit"`
	Versioning    string          `json:"versioning"`
	Endpoints     []indexEndpoint `json:"endpoints"`
	URLs          indexURLs       `json:"urls"`
}

type indexEndpoint struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Description string `json:"description"`
}

type indexURLs struct {
	Home       string `json:"home"`
	Developers string `json:"developers"`
	OpenAPI    string `json:"openapi"`
	Auth       string `json:"auth"`
	MCP        string `json:"mcp"`
	CLI        string `json:"cli"`
}

type health struct {
	Status     string `json:"status"`
	Service    string `json:"service"`
	Version    string `json:"version"`
	APIVersion string `json:"apiVersion"`
	URL        string `json:"url"`
	CheckedAt  string `json:"checkedAt"`
}

type profile struct {
	content.Profile
	URLs profileURLs `json:"urls"`
}

type profileURLs struct {
	Home       string `json:"home"`
	About      string `json:"about"`
	Developers string `json:"developers"`
	LLMsTxt    string `json:"llmsTxt"`
	LLMsFull   string `json:"llmsFull"`
	APICatalog string `json:"apiCatalog"`
	OpenAPI    string `json:"openapi"`
}

type insightSummary struct {
	Slug            string `json:"slug"`
	Title           string `json:"title"`
	Description     string `json:"description"`
	Date            string `json:"date"`
	DateISO         string `json:"dateISO"`
	DateModifiedISO string `json:"dateModifiedISO"`
	Topic           string `json:"topic"`
	ReadTime        string `json:"readTime"`
	URL             string `json:"url"`
}

type insightList struct {
	Count int              `json:"count"`
	Items []insightSummary `json:"items"`
}

type insightDocument struct {
	insightSummary
	Content string `json:"content"`
}

// APIVersion is the version in the API's path, sent as the API-Version header
// and in the apiVersion fields.
const APIVersion = "1"

// links resolves the addresses a rendition publishes against one base URL.
type links struct {
	base   string
	cfg    *Config
	routes []Route
	// onPanic reports a panic recovered outside the request goroutine.
	onPanic func(any)
}

// abs makes a content link absolute: a path beginning with "/" is taken
// relative to the base URL.
func (l links) abs(link string) string {
	if strings.HasPrefix(link, "/") {
		return l.base + link
	}
	return link
}

func (l links) developers() string { return l.base + pathDevelopers }
func (l links) openAPI() string    { return l.base + pathOpenAPI }
func (l links) insight(slug string) string {
	return l.abs(strings.ReplaceAll(l.cfg.Site.Pages.Insight, "{slug}", slug))
}

func (l links) index() apiIndex {
	var endpoints []indexEndpoint
	for _, rt := range l.routes {
		if rt.Versioned() {
			endpoints = append(endpoints, indexEndpoint{rt.Method, rt.Path, rt.Description})
		}
	}
	return apiIndex{
		Name:          l.cfg.Site.Profile.Name + " public discovery API",
		APIVersion:    APIVersion,
		Documentation: l.developers(),
		OpenAPI:       l.openAPI(),
		Auth:          "No authentication is required: unauthenticated GET works on every public endpoint. An optional anonymous bearer token (scope public:read, from POST " + pathRegister + ") grants nothing more. See " + l.base + pathAuth + ".",
		RateLimit:     l.cfg.rateLimitSummary(),
		Versioning:    "The version is in the URL path (/api/v1) and in the API-Version response header. Additive changes stay within v1; breaking changes ship as /api/v2 with at least 180 days of overlap, announced by Deprecation and Sunset headers. See " + l.developers() + "#versioning.",
		Endpoints:     endpoints,
		URLs: indexURLs{
			Home:       l.abs(l.cfg.Site.Pages.Home),
			Developers: l.developers(),
			OpenAPI:    l.openAPI(),
			Auth:       l.base + pathAuth,
			MCP:        l.base + pathMCP,
			CLI:        l.url("getCli"),
		},
	}
}

func (l links) health(now time.Time) health {
	return health{
		Status:     "ok",
		Service:    l.cfg.ServiceName,
		Version:    l.cfg.Version,
		APIVersion: APIVersion,
		URL:        l.base + pathHealth,
		CheckedAt:  now.UTC().Format(time.RFC3339),
	}
}

func (l links) profile() profile {
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
			Home:       l.abs(l.cfg.Site.Pages.Home),
			About:      l.abs(l.cfg.Site.Pages.About),
			Developers: l.developers(),
			LLMsTxt:    l.base + pathLLMs,
			LLMsFull:   l.base + pathLLMsFull,
			APICatalog: l.base + pathCatalog,
			OpenAPI:    l.openAPI(),
		},
	}
}

func (l links) summary(in content.Insight) insightSummary {
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

func (l links) insights() insightList {
	items := make([]insightSummary, len(l.cfg.Site.Insights))
	for i, in := range l.cfg.Site.Insights {
		items[i] = l.summary(in)
	}
	return insightList{Count: len(items), Items: items}
}

func (l links) insightDocument(in content.Insight) insightDocument {
	return insightDocument{insightSummary: l.summary(in), Content: in.Body}
}

// rateLimitSummary describes the rate-limit policy in a sentence.
func (c *Config) rateLimitSummary() string {
	if c.RateLimit.Events == 0 {
		return "No rate limit is enforced by this deployment."
	}
	return fmt.Sprintf("%d requests per %d seconds per client, policy %q. Every response carries RateLimit and RateLimit-Policy headers; a refused request gets 429 with Retry-After.",
		c.RateLimit.Events, c.RateLimit.windowSeconds(), PolicyName)
}
