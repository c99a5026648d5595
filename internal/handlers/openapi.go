package handlers

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// openAPIVersion is the version of the API description document.
const openAPIVersion = "1.0.0"

type object = map[string]any

// problemResponses are the component responses for each problem status.
var problemResponses = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "InvalidToken",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusRequestEntityTooLarge: "PayloadTooLarge",
	http.StatusUnsupportedMediaType:  "UnsupportedMediaType",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusInternalServerError:   "InternalError",
}

// commonProblems are the problem statuses the specification lists for every
// endpoint.
var commonProblems = []int{http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed,
	http.StatusTooManyRequests, http.StatusInternalServerError}

// openAPIDocument renders the OpenAPI description of every route for one
// base URL.
func (l links) openAPIDocument(_ string) ([]byte, error) {
	return json.MarshalIndent(l.openAPI31(), "", "  ")
}

// openAPI31 describes every route for one base URL.
func (l links) openAPI31() object {
	rateLimited := l.cfg.RateLimit.Events > 0
	paths := object{}
	used := map[int]bool{}
	for i := range l.routes {
		rt := &l.routes[i]
		paths[rt.Path] = object{strings.ToLower(rt.Method): operation(rt, rateLimited)}
		for _, status := range rt.problems(rateLimited) {
			used[status] = true
		}
	}

	headers := object{
		"API-Version": object{
			"description": "The API version of the response: 1 for /api/v1.",
			"schema":      object{"type": "integer", "const": json.Number(apiVersion)},
			"required":    true,
		},
		"ETag": object{
			"description": "Strong entity tag of the body; send it in If-None-Match to get 304 Not Modified.",
			"schema":      object{"type": "string"},
			"required":    true,
		},
		"Link": object{
			"description": "Links to the API catalog (rel=api-catalog, RFC 9727), this description (rel=service-desc) and the developer portal (rel=service-doc); on the Markdown version of a page, first the page itself (rel=canonical).",
			"schema":      object{"type": "string"},
		},
	}
	if rateLimited {
		headers["RateLimit-Policy"] = object{
			"description": `The rate-limit policy: "public";q=<quota>;w=<window seconds> (draft-ietf-httpapi-ratelimit-headers).`,
			"schema":      object{"type": "string", "examples": []string{`"public";q=120;w=60`}},
			"required":    true,
		}
		headers["RateLimit"] = object{
			"description": `What is left of the quota: "public";r=<remaining requests>;t=<seconds until the window frees a request>.`,
			"schema":      object{"type": "string", "examples": []string{`"public";r=119;t=60`}},
			"required":    true,
		}
		headers["Retry-After"] = object{
			"description": "Seconds to wait before retrying.",
			"schema":      object{"type": "integer", "minimum": 0},
			"required":    true,
		}
	}

	responses := object{}
	for _, c := range problemCodes {
		if !used[c.Status] {
			continue
		}
		name := problemResponses[c.Status]
		h := object{}
		if rateLimited {
			h["RateLimit-Policy"] = ref("headers", "RateLimit-Policy")
			h["RateLimit"] = ref("headers", "RateLimit")
		}
		if rateLimited && c.Status == http.StatusTooManyRequests {
			h["Retry-After"] = ref("headers", "Retry-After")
		}
		if c.Status == http.StatusUnauthorized {
			h["WWW-Authenticate"] = object{"description": `Bearer error="invalid_token" with the address of the protected resource metadata (RFC 9728).`, "schema": object{"type": "string"}, "required": true}
		}
		if c.Status == http.StatusMethodNotAllowed {
			h["Allow"] = object{"description": "The methods the endpoint accepts.", "schema": object{"type": "string"}, "required": true}
		}
		responses[name] = object{
			"description": c.Title + ": " + c.Meaning,
			"headers":     h,
			"content":     object{mediaProblem: object{"schema": ref("schemas", "Problem")}},
		}
	}

	profile := l.cfg.Site.Profile
	return object{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": object{
			"title":       profile.Name + " public discovery API",
			"version":     openAPIVersion,
			"summary":     "Read-only public facts about " + profile.Name + " and their published insights.",
			"description": "A read-only public JSON API serving the profile of " + profile.Name + ", their published insight articles and site-discovery metadata. No API key is required. " + l.cfg.rateLimitSummary() + " Errors are RFC 9457 problem documents (application/problem+json). The production deployment is also the sandbox.",
			"contact":     l.openAPIContact(),
		},
		"servers": []object{{"url": l.base, "description": "Production, which is also the sandbox."}},
		"tags": []object{
			{"name": tagAPI, "description": "The versioned JSON API under /api/v1."},
			{"name": tagDiscovery, "description": "Documents that describe the site and the API to agents and developers."},
			{"name": tagAuth, "description": "Optional anonymous bearer tokens with the scope public:read."},
			{"name": tagMCP, "description": "The MCP server (Streamable HTTP) and its server card."},
		},
		"externalDocs": object{"description": "Developer portal", "url": l.developers()},
		// Every operation works without credentials; a bearer token is
		// optional and changes nothing.
		"security": []object{{}, {"bearer": []string{}}},
		"paths":    paths,
		"components": object{
			"securitySchemes": object{
				"bearer": object{
					"type": "http", "scheme": "bearer",
					"description": "Optional anonymous token with the scope public:read, from POST /agent/register or /oauth/token. Opaque, not a JWT.",
				},
			},
			"schemas":   componentSchemas,
			"headers":   headers,
			"responses": responses,
		},
	}
}

// openAPIContact is the description's contact object: the subject's name,
// and the contact form and email when the profile has them.
func (l links) openAPIContact() object {
	c := l.cfg.Site.Profile.Contact
	contact := object{"name": l.cfg.Site.Profile.Name}
	if c.Form != "" {
		contact["url"] = l.abs(c.Form)
	}
	if c.Email != "" {
		contact["email"] = c.Email
	}
	return contact
}

// operation describes one route.
func operation(rt *Route, rateLimited bool) object {
	headers := object{}
	if rt.Versioned() {
		headers["API-Version"] = ref("headers", "API-Version")
	}
	cached := rt.Method == http.MethodGet && rt.Path != pathHealth
	if cached {
		headers["ETag"] = ref("headers", "ETag")
	}
	headers["Link"] = ref("headers", "Link")
	if rt.twinOf != nil {
		headers["Content-Signal"] = object{
			"description": "The site's content-usage signals, as its robots.txt states them (contentsignals.org).",
			"schema":      object{"type": "string", "examples": []string{"ai-train=yes, search=yes, ai-input=yes"}},
			"required":    true,
		}
		headers["X-Markdown-Tokens"] = object{
			"description": "An estimate of the body's length in tokens: a quarter of its characters.",
			"schema":      object{"type": "integer", "minimum": 0},
			"required":    true,
		}
	}
	if rateLimited {
		headers["RateLimit-Policy"] = ref("headers", "RateLimit-Policy")
		headers["RateLimit"] = ref("headers", "RateLimit")
	}
	schema := object{"type": "string"}
	switch {
	case rt.Body != nil:
		schema = ref("schemas", componentName(rt.Body))
	case strings.HasPrefix(rt.MediaType, mediaJSON):
		schema = object{"type": "object"}
	}
	mediaType, _, _ := strings.Cut(rt.MediaType, ";")
	responses := object{
		"200": object{
			"description": rt.Summary + ".",
			"headers":     headers,
			"content":     object{mediaType: object{"schema": schema}},
		},
	}
	if cached {
		responses["304"] = object{"description": "Not Modified: the If-None-Match header named the current ETag."}
	}
	for _, status := range rt.problems(rateLimited) {
		responses[strconv.Itoa(status)] = ref("responses", problemResponses[status])
	}
	if rt.ErrorBody != nil {
		responses["400"] = object{
			"description": "An RFC 6749 error: the request is missing a parameter, or its grant, assertion or scope is refused.",
			"content":     object{mediaJSON: object{"schema": ref("schemas", componentName(rt.ErrorBody))}},
		}
	}
	op := object{
		"operationId": rt.OperationID,
		"summary":     rt.Summary,
		"description": rt.Description,
		"tags":        []string{rt.Tag},
		"responses":   responses,
	}
	if rt.Request != nil {
		op["requestBody"] = object{
			"required": true,
			"content":  object{rt.RequestMediaType: object{"schema": ref("schemas", componentName(rt.Request))}},
		}
	}
	if !rt.Bearer {
		op["security"] = []object{{}} // Authorization is ignored here
	}
	if strings.Contains(rt.Path, "{slug}") {
		description := "The insight's slug: " + content.SlugGrammar + ". A slug outside this grammar is a 400 problem; an unknown one a 404."
		if rt.twinOf != nil {
			// Only published insights' twins are the module's.
			description = "The slug of a published insight (" + content.SlugGrammar + "). Any other address here is the site's own."
		}
		op["parameters"] = []object{{
			"name":        "slug",
			"in":          "path",
			"required":    true,
			"description": description,
			"schema":      componentSchemas["InsightSummary"].Properties["slug"],
		}}
	}
	return op
}

// problems are the statuses of the route's problem responses; 429 only
// when the deployment enforces a rate limit.
func (rt *Route) problems(rateLimited bool) []int {
	var problems []int
	for _, status := range commonProblems {
		if status != http.StatusTooManyRequests || rateLimited {
			problems = append(problems, status)
		}
	}
	problems = append(problems, rt.Problems...)
	if rt.Bearer {
		problems = append(problems, http.StatusUnauthorized) // a bad bearer token
	}
	return problems
}

func ref(kind, name string) object {
	return object{"$ref": "#/components/" + kind + "/" + name}
}
