package handlers

import (
	"net/http"
	"strings"
)

// Route is one address the service answers. The route table is the single
// source for dispatch, the API index, the OpenAPI description and every
// document that lists endpoints.
type Route struct {
	// Path is the address; "{slug}" marks the one path parameter.
	Path string
	// Method is the method served: GET (which implies HEAD) or POST.
	Method string
	// OperationID names the operation in the OpenAPI description.
	OperationID string
	// Summary is a few words; Description one or two sentences.
	Summary     string
	Description string
	// Tag groups the operation in the OpenAPI description.
	Tag string
	// MediaType is the success response's media type; Schema names its
	// component schema when the body is JSON.
	MediaType string
	Schema    string
	// CacheControl is the success response's Cache-Control.
	CacheControl string
	// Problems are the statuses of the problem responses beyond the ones
	// every route can give (404, 405, 429, 500).
	Problems []int
}

// Versioned reports whether the route is part of the versioned JSON API.
func (rt Route) Versioned() bool { return isAPIPath(rt.Path) }

// allow is the Allow header of the route.
func (rt Route) allow() string {
	if rt.Method == http.MethodGet {
		return "GET, HEAD, OPTIONS"
	}
	return rt.Method + ", OPTIONS"
}

const (
	tagAPI       = "API"
	tagDiscovery = "Discovery"

	cacheAPI      = "public, max-age=300"
	cacheDocument = "public, max-age=3600"
	cacheNever    = "no-store"

	mediaJSON    = "application/json"
	mediaProblem = "application/problem+json"
)

// Paths of the routes that code refers to by name.
const (
	pathIndex    = "/api/v1"
	pathHealth   = "/api/v1/health"
	pathProfile  = "/api/v1/profile"
	pathInsights = "/api/v1/insights"
	pathInsight  = "/api/v1/insights/{slug}"
	pathOpenAPI  = "/openapi.json"
)

// routes is the route table, in the order documents list it.
var routes = []Route{
	{
		Path: pathIndex, Method: http.MethodGet, OperationID: "getApiIndex", Tag: tagAPI,
		Summary:     "API index",
		Description: "Lists the API's endpoints, its authentication, rate-limit and versioning policies, and the addresses of its documentation.",
		MediaType:   mediaJSON, Schema: "ApiIndex", CacheControl: cacheAPI,
	},
	{
		Path: pathHealth, Method: http.MethodGet, OperationID: "getHealth", Tag: tagAPI,
		Summary:     "Service health",
		Description: "Reports that the service is up, with its name, version and the time of the check.",
		MediaType:   mediaJSON, Schema: "Health", CacheControl: cacheNever,
	},
	{
		Path: pathProfile, Method: http.MethodGet, OperationID: "getProfile", Tag: tagAPI,
		Summary:     "Profile of the site's subject",
		Description: "Biography, key facts, recognition, expertise, education, contact links and site structure of the profile subject.",
		MediaType:   mediaJSON, Schema: "Profile", CacheControl: cacheAPI,
	},
	{
		Path: pathInsights, Method: http.MethodGet, OperationID: "listInsights", Tag: tagAPI,
		Summary:     "List published insights",
		Description: "Every published insight article, newest first, with its summary fields and canonical URL.",
		MediaType:   mediaJSON, Schema: "InsightList", CacheControl: cacheAPI,
	},
	{
		Path: pathInsight, Method: http.MethodGet, OperationID: "getInsight", Tag: tagAPI,
		Summary:     "One insight with its Markdown body",
		Description: "One insight article by its slug: the summary fields of the list entry plus the Markdown body in content.",
		MediaType:   mediaJSON, Schema: "InsightDocument", CacheControl: cacheAPI,
		Problems: []int{http.StatusBadRequest},
	},
	{
		Path: pathOpenAPI, Method: http.MethodGet, OperationID: "getOpenApi", Tag: tagDiscovery,
		Summary:     "OpenAPI description",
		Description: "This machine-readable OpenAPI 3.1 description of every endpoint.",
		MediaType:   mediaJSON, CacheControl: cacheDocument,
	},
}

// apiPrefix is the prefix of every address of the JSON API. The service owns
// all of it, so an unknown path there is a 404 problem, not the next
// handler's page.
const apiPrefix = "/api/"

func isAPIPath(p string) bool {
	return p == pathIndex || strings.HasPrefix(p, apiPrefix)
}

// insightPrefix is the path of an insight before its slug.
var insightPrefix = strings.TrimSuffix(pathInsight, "{slug}")

// InsightPath is the API path of the insight with the given slug.
func InsightPath(slug string) string { return insightPrefix + slug }
