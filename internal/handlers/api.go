package handlers

import (
	"cmp"
	"fmt"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// apiVersion is the version in the API's path, sent as the API-Version header
// and in the apiVersion fields.
const apiVersion = "1"

func index(l links) wire.APIIndex {
	var endpoints []wire.IndexEndpoint
	for _, rt := range l.routes {
		if rt.Versioned() {
			endpoints = append(endpoints, wire.IndexEndpoint{Method: rt.Method, Path: rt.Path, Description: rt.Description})
		}
	}
	return wire.APIIndex{
		Name:          l.cat.Site.Profile.Name + " public discovery API",
		APIVersion:    apiVersion,
		Documentation: l.developers(),
		OpenAPI:       l.openAPI(),
		Auth:          "No authentication is required: unauthenticated GET works on every public endpoint. An optional anonymous bearer token (scope public:read, from POST " + pathRegister + " or the OAuth flows of " + l.base + pathASM + ", with no login) grants nothing more. See " + l.base + pathAuth + ".",
		RateLimit:     rateLimitSummary(l.cfg),
		Versioning:    "The version is in the URL path (/api/v1) and in the API-Version response header. Additive changes stay within v1; breaking changes ship as /api/v2 with at least 180 days of overlap, announced by Deprecation and Sunset headers. See " + l.developers() + "#versioning.",
		Endpoints:     endpoints,
		URLs: wire.IndexURLs{
			Home:       l.abs(l.cat.Site.Pages.Home),
			Developers: l.developers(),
			OpenAPI:    l.openAPI(),
			Auth:       l.base + pathAuth,
			MCP:        l.base + pathMCP,
			CLI:        l.cliURL(),
		},
	}
}

func newHealth(l links, now time.Time) wire.Health {
	return wire.Health{
		Status:     "ok",
		Service:    l.cfg.ServiceName,
		Version:    l.cfg.Version,
		APIVersion: apiVersion,
		URL:        l.base + pathHealth,
		CheckedAt:  now.UTC().Format(time.RFC3339),
	}
}

func newProfile(l links) wire.Profile {
	p := l.cat.Site.Profile
	c := &p.Contact
	for _, f := range []*string{&c.Form, &c.LinkedIn, &c.X, &c.Substack, &c.YouTube, &c.CompanyBio} {
		*f = l.abs(*f)
	}
	p.SiteStructure = make([]content.SiteLink, len(p.SiteStructure))
	for i, sl := range l.cat.Site.Profile.SiteStructure {
		sl.URL = l.abs(sl.URL)
		p.SiteStructure[i] = sl
	}
	return wire.Profile{
		Profile: p,
		URLs: wire.ProfileURLs{
			Home: l.abs(l.cat.Site.Pages.Home),
			// A site with no About page: the home page is what says who
			// the profile is.
			About:      l.abs(cmp.Or(l.cat.Site.Pages.About, l.cat.Site.Pages.Home)),
			Developers: l.developers(),
			LLMsTxt:    l.base + pathLLMs,
			LLMsFull:   l.base + pathLLMsFull,
			APICatalog: l.base + pathCatalog,
			OpenAPI:    l.openAPI(),
		},
	}
}

func summary(l links, in content.Insight) wire.InsightSummary {
	return wire.InsightSummary{
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

func insights(l links) wire.InsightList {
	items := make([]wire.InsightSummary, len(l.cat.Site.Insights))
	for i, in := range l.cat.Site.Insights {
		items[i] = summary(l, in)
	}
	return wire.InsightList{Count: len(items), Items: items}
}

func newInsightDocument(l links, in content.Insight) wire.InsightDocument {
	return wire.InsightDocument{InsightSummary: summary(l, in), Content: in.Body}
}

// rateLimitSummary describes the rate-limit policy in a sentence.
func rateLimitSummary(c *Config) string {
	if c.RateLimit.Events == 0 {
		return "No rate limit is enforced by this deployment."
	}
	return fmt.Sprintf("%d requests per %d seconds per client, policy %q, on every address of the API and its documents but the developer portal. Every counted response carries RateLimit and RateLimit-Policy headers; a refused request gets 429 with Retry-After.",
		c.RateLimit.Events, c.RateLimit.WindowSeconds(), ratelimit.PolicyName)
}
