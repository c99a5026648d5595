package docs

import (
	"fmt"

	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// APIIndex is the API index: its endpoints, policies and documents.
func APIIndex(l view.Links) wire.APIIndex {
	var endpoints []wire.IndexEndpoint
	for _, rt := range l.Routes {
		if rt.Versioned() {
			endpoints = append(endpoints, wire.IndexEndpoint{Method: rt.Method, Path: rt.Path, Description: rt.Description})
		}
	}
	return wire.APIIndex{
		Name:          l.Cat.Site.Profile.Name + " public discovery API",
		APIVersion:    view.APIVersion,
		Documentation: l.Developers(),
		OpenAPI:       l.OpenAPI(),
		Auth:          "No authentication is required: unauthenticated GET works on every public endpoint. An optional anonymous bearer token (scope public:read, from POST " + view.PathRegister + " or the OAuth flows of " + l.Base + view.PathASM + ", with no login) grants nothing more. See " + l.Base + view.PathAuth + ".",
		RateLimit:     RateLimitSummary(l.RateLimit),
		Versioning:    "The version is in the URL path (/api/v1) and in the API-Version response header. Additive changes stay within v1; breaking changes ship as /api/v2 with at least 180 days of overlap, announced by Deprecation and Sunset headers. See " + l.Developers() + "#versioning.",
		Endpoints:     endpoints,
		URLs: wire.IndexURLs{
			Home:       l.Abs(l.Cat.Site.Pages.Home),
			Developers: l.Developers(),
			OpenAPI:    l.OpenAPI(),
			Auth:       l.Base + view.PathAuth,
			MCP:        l.Base + view.PathMCP,
			CLI:        l.CLIURL(),
		},
	}
}

// RateLimitSummary describes the rate-limit policy in a sentence.
func RateLimitSummary(p ratelimit.Policy) string {
	if p.Events == 0 {
		return "No rate limit is enforced by this deployment."
	}
	return fmt.Sprintf("%d requests per %d seconds per client, policy %q, on every address of the API and its documents but the developer portal. Every counted response carries RateLimit and RateLimit-Policy headers; a refused request gets 429 with Retry-After.",
		p.Events, p.WindowSeconds(), ratelimit.PolicyName)
}
