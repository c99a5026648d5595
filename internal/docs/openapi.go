package docs

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/schema"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// OpenAPIVersion is the version of the API description document.
const OpenAPIVersion = "1.0.0"

type object = map[string]any

// problemResponses are the component responses for each problem status.
var problemResponses = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "InvalidToken",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusRequestTimeout:        "RequestTimeout",
	http.StatusRequestEntityTooLarge: "PayloadTooLarge",
	http.StatusUnsupportedMediaType:  "UnsupportedMediaType",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusInternalServerError:   "InternalError",
}

// problemResponse names the component response of a problem status on a
// route that is counted against the rate limit (metered) or not. Only a
// counted route's problems carry the RateLimit fields; the portal is not
// counted, so its problems are described apart when the deployment has a
// rate limit.
func problemResponse(status int, metered, rateLimited bool) string {
	if rateLimited && !metered {
		return problemResponses[status] + "Unmetered"
	}
	return problemResponses[status]
}

// commonProblems are the problem statuses the specification lists for every
// endpoint.
var commonProblems = []int{http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed,
	http.StatusTooManyRequests, http.StatusInternalServerError}

// OpenAPIDocument renders the OpenAPI description of every route for one
// base URL.
func OpenAPIDocument(l view.Links, _ string) ([]byte, error) {
	return json.MarshalIndent(openAPI31(l), "", "  ")
}

// openAPI31 describes every route for one base URL.
func openAPI31(l view.Links) object {
	rateLimited := l.RateLimit.Events > 0
	paths := object{}
	type problemUse struct {
		status  int
		metered bool
	}
	used := map[problemUse]bool{}
	for _, rt := range l.Routes {
		metered := rateLimited && !rt.Unmetered
		refusing := l.RefusesAgents && !rt.AnyAgent
		paths[rt.Path] = object{strings.ToLower(rt.Method): operation(rt, l.Cat.TwinOfPage(rt.Path), metered, rateLimited, refusing)}
		for _, status := range problemsOf(rt, metered, refusing) {
			used[problemUse{status, metered}] = true
		}
	}

	headers := object{
		"API-Version": object{
			"description": "The API version of the response: 1 for /api/v1.",
			"schema":      object{"type": "integer", "const": json.Number(view.APIVersion)},
			"required":    true,
		},
		"ETag": object{
			"description": "Strong entity tag of the body; send it in If-None-Match to get 304 Not Modified.",
			"schema":      object{"type": "string"},
			"required":    true,
		},
		"Content-Usage": object{
			"description": "The site's preferences for the use of the content, in the IETF AI preferences vocabulary (draft-ietf-aipref-vocab-07, attached by draft-ietf-aipref-attach-05): an RFC 9651 dictionary of train-ai and search, each y (allow) or n (disallow). The same preferences as the Content-Signal rule of robots.txt; its ai-input has no label in this vocabulary.",
			"schema":      object{"type": "string", "examples": []string{"train-ai=y, search=y"}},
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
	for _, c := range problem.Codes {
		for _, metered := range []bool{true, false} {
			if !used[problemUse{c.Status, metered}] {
				continue
			}
			h := object{}
			if metered {
				h["RateLimit-Policy"] = ref("headers", "RateLimit-Policy")
				h["RateLimit"] = ref("headers", "RateLimit")
			}
			if metered && c.Status == http.StatusTooManyRequests {
				h["Retry-After"] = ref("headers", "Retry-After")
			}
			if c.Status == http.StatusUnauthorized {
				h["WWW-Authenticate"] = object{"description": `Bearer error="invalid_token" with the address of the protected resource metadata (RFC 9728).`, "schema": object{"type": "string"}, "required": true}
			}
			if c.Status == http.StatusMethodNotAllowed {
				h["Allow"] = object{"description": "The methods the endpoint accepts.", "schema": object{"type": "string"}, "required": true}
			}
			description := c.Title + ": " + c.Meaning
			if rateLimited && !metered {
				description += " On a route outside the rate limit, without the RateLimit fields."
			}
			responses[problemResponse(c.Status, metered, rateLimited)] = object{
				"description": description,
				"headers":     h,
				"content":     object{respond.MediaProblem: object{"schema": ref("schemas", "Problem")}},
			}
		}
	}

	profile := l.Cat.Site.Profile
	return object{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": object{
			"title":       profile.Name + " public discovery API",
			"version":     OpenAPIVersion,
			"summary":     "Read-only public facts about " + profile.Name + " and their published insights.",
			"description": "A read-only public JSON API serving the profile of " + profile.Name + ", their published insight articles and site-discovery metadata. No API key is required. " + RateLimitSummary(l.RateLimit) + " Errors are RFC 9457 problem documents (application/problem+json). The production deployment is also the sandbox.",
			"contact":     openAPIContact(l),
		},
		"servers": []object{{"url": l.Base, "description": "Production, which is also the sandbox."}},
		"tags": []object{
			{"name": view.TagAPI, "description": "The versioned JSON API under /api/v1."},
			{"name": view.TagDiscovery, "description": "Documents that describe the site and the API to agents and developers."},
			{"name": view.TagAuth, "description": "Optional anonymous bearer tokens with the scope public:read."},
			{"name": view.TagMCP, "description": "The MCP server (Streamable HTTP) and its server card."},
		},
		"externalDocs": object{"description": "Developer portal", "url": l.Developers()},
		// Every operation works without credentials; a bearer token is
		// optional and changes nothing.
		"security": []object{{}, {"bearer": []string{}}, {"oauth2": []string{token.Scope}}},
		"paths":    paths,
		"components": object{
			"securitySchemes": object{
				"bearer": object{
					"type": "http", "scheme": "bearer",
					"description": "Optional anonymous token with the scope public:read, from POST /agent/register or /oauth/token. Opaque, not a JWT.",
				},
				"oauth2": object{
					"type":        "oauth2",
					"description": "The same optional token through OAuth: the authorization code flow with PKCE (no login: nothing private is behind it) or client credentials with no client secret.",
					"flows": object{
						"authorizationCode": object{
							"authorizationUrl": l.Base + view.PathAuthorize, "tokenUrl": l.Base + view.PathToken,
							"scopes": object{token.Scope: "Read the public API; grants nothing beyond unauthenticated access."},
						},
						"clientCredentials": object{
							"tokenUrl": l.Base + view.PathToken,
							"scopes":   object{token.Scope: "Read the public API; grants nothing beyond unauthenticated access."},
						},
					},
				},
			},
			"schemas":   Components.Schemas,
			"headers":   headers,
			"responses": responses,
		},
	}
}

// openAPIContact is the description's contact object: the subject's name,
// and the contact form and email when the profile has them.
func openAPIContact(l view.Links) object {
	c := l.Cat.Site.Profile.Contact
	contact := object{"name": l.Cat.Site.Profile.Name}
	if c.Form != "" {
		contact["url"] = l.Abs(c.Form)
	}
	if c.Email != "" {
		contact["email"] = c.Email
	}
	return contact
}

// operation describes one route; metered says whether the route is counted
// against the deployment's rate limit, rateLimited whether it has one.
func operation(rt *view.Route, twin string, metered, rateLimited, refusing bool) object {
	headers := object{}
	if rt.Versioned() {
		headers["API-Version"] = ref("headers", "API-Version")
	}
	cached := rt.Kept
	if cached {
		headers["ETag"] = ref("headers", "ETag")
	}
	headers["Link"] = ref("headers", "Link")
	headers["Content-Usage"] = ref("headers", "Content-Usage")
	if rt.Twin {
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
	if metered {
		headers["RateLimit-Policy"] = ref("headers", "RateLimit-Policy")
		headers["RateLimit"] = ref("headers", "RateLimit")
	}
	status := http.StatusOK
	if rt.Status != 0 {
		status = rt.Status
	}
	success := object{"description": rt.Summary + ".", "headers": headers}
	if status == http.StatusFound {
		headers["Location"] = object{
			"description": "The client's redirect URI with code, state and iss (RFC 6749 section 4.1.2, RFC 9207).",
			"schema":      object{"type": "string", "format": "uri"},
			"required":    true,
		}
	} else {
		sch := object{"type": "string"}
		switch {
		case rt.Body != nil:
			sch = ref("schemas", Components.Name(rt.Body))
		case strings.HasPrefix(rt.MediaType, respond.MediaJSON):
			sch = object{"type": "object"}
		}
		mediaType, _, _ := strings.Cut(rt.MediaType, ";")
		success["content"] = object{mediaType: object{"schema": sch}}
		if twin != "" {
			// The route answers its Markdown twin for Accept: text/markdown.
			success["content"].(object)["text/markdown"] = object{"schema": object{"type": "string"}}
			success["description"] = rt.Summary + "; its Markdown version (" + twin + ") when Accept prefers text/markdown."
		}
	}
	responses := object{strconv.Itoa(status): success}
	if status == http.StatusFound {
		page, _, _ := strings.Cut(respond.MediaHTML, ";")
		responses["200"] = object{
			"description": "A valid request whose redirect URI is an https address: a page that names the host the user is going to, and links there with code, state and iss.",
			"content":     object{page: object{"schema": object{"type": "string"}}},
		}
	}
	if cached {
		responses["304"] = object{"description": "Not Modified: the If-None-Match header named the current ETag."}
	}
	for _, status := range problemsOf(rt, metered, refusing) {
		responses[strconv.Itoa(status)] = ref("responses", problemResponse(status, metered, rateLimited))
	}
	if rt.Twin && rt.HasSlug() {
		// The module owns only the twins of published insights: any other
		// address here is the site's, and passes to it unchanged.
		responses["404"] = object{
			"description": "Not an answer of this API: an address here whose slug is not a published insight's belongs to the site, which answers it as it answers any address it does not serve (its own 404 page, in its own media type).",
		}
	}
	if rt.ErrorBody != nil {
		name := Components.Name(rt.ErrorBody)
		responses["400"] = object{
			"description": Components.Schemas[name].Description,
			"content":     object{respond.MediaJSON: object{"schema": ref("schemas", name)}},
		}
	}
	if rt.JSONRPC {
		jsonRPC(responses, metered)
	}
	op := object{
		"operationId": rt.OperationID,
		"summary":     rt.Summary,
		"description": rt.Description,
		"tags":        []string{rt.Tag},
		"responses":   responses,
	}
	if rt.Request != nil {
		sch := ref("schemas", Components.Name(rt.Request))
		if rt.JSONRPC {
			sch = orBatch(sch, "A batch of at most "+strconv.Itoa(mcp.MaxBatch)+" messages (MCP 2025-03-26 only).")
		}
		op["requestBody"] = object{
			"required": true,
			"content":  object{rt.RequestMediaType: object{"schema": sch}},
		}
	}
	if !rt.Bearer {
		op["security"] = []object{{}} // Authorization is ignored here
	}
	if rt.Query != nil {
		op["parameters"] = queryParameters(rt.Query)
	}
	if strings.Contains(rt.Path, "{slug}") {
		description := "The insight's slug: " + content.SlugGrammar + ". A slug outside this grammar is a 400 problem; an unknown one a 404."
		if rt.Twin {
			// Only published insights' twins are the module's.
			description = "The slug of a published insight (" + content.SlugGrammar + "). Any other address here is the site's own."
		}
		parameters := []object{}
		for _, p := range []struct{ name, what, pattern string }{
			{"year", "year", "^[0-9]{4}$"}, {"month", "month, two digits", "^[0-9]{2}$"}, {"day", "day of the month, two digits", "^[0-9]{2}$"},
		} {
			if strings.Contains(rt.Path, "{"+p.name+"}") {
				parameters = append(parameters, object{
					"name": p.name, "in": "path", "required": true,
					"description": "The " + p.what + " of the insight's publication day.",
					"schema":      object{"type": "string", "pattern": p.pattern},
				})
			}
		}
		op["parameters"] = append(parameters, object{
			"name":        "slug",
			"in":          "path",
			"required":    true,
			"description": description,
			"schema":      Components.Schemas["InsightSummary"].Properties["slug"],
		})
	}
	return op
}

// jsonRPC describes a JSON-RPC route's answers beyond a REST route's: a
// batch's array of responses, the 202 of a notification, and the JSON-RPC
// errors that stand for a 400 (malformed JSON, an invalid message, a batch
// over the cap), a 404 (an unknown method, from protocol 2026-07-28 on) or
// a 429 (a batch over what is left of the quota), next to the problems.
func jsonRPC(responses object, rateLimited bool) {
	response := ref("schemas", Components.Name(reflect.TypeFor[mcp.Response]()))
	rpcError := ref("schemas", Components.Name(reflect.TypeFor[mcp.ErrorResponse]()))
	ok := responses["200"].(object)
	ok["description"] = "The JSON-RPC response to a request: its result, or the error of the method (before protocol 2026-07-28, -32601 for an unknown method and -32602 for invalid params), with the request's id."
	ok["content"] = object{respond.MediaJSON: object{"schema": orBatch(response, "The responses to a batch, one for each request in it.")}}
	responses["202"] = object{"description": "Accepted: the body was a notification or a response, which get no answer. No body."}
	headers := object{}
	if rateLimited {
		headers["RateLimit-Policy"] = ref("headers", "RateLimit-Policy")
		headers["RateLimit"] = ref("headers", "RateLimit")
	}
	responses["400"] = object{
		"headers": headers,
		"description": problem.BadRequest.Title + ": " + problem.BadRequest.Meaning + " A JSON-RPC client gets a JSON-RPC error, with the request's id when it can be read: -32700 for malformed JSON;" +
			" -32600 for an invalid message, an Accept header without both application/json and text/event-stream, or a batch of more than " + strconv.Itoa(mcp.MaxBatch) + " messages (or than the quota, if smaller);" +
			" from protocol 2026-07-28 on, -32602 for invalid params.",
		"content": object{
			respond.MediaProblem: object{"schema": ref("schemas", "Problem")},
			respond.MediaJSON:    object{"schema": rpcError},
		},
	}
	responses["404"] = object{
		"headers":     headers,
		"description": "Method not found, from protocol 2026-07-28 on (the MCP-Protocol-Version header): a JSON-RPC error -32601 with the request's id. Earlier versions get it with status 200.",
		"content":     object{respond.MediaJSON: object{"schema": rpcError}},
	}
	if !rateLimited {
		return
	}
	responses["429"] = object{
		"description": problem.RateLimited.Title + ": " + problem.RateLimited.Meaning + " A batch counts one request per message; one larger than what is left is refused whole, with a JSON-RPC error (code -32000) for each request in it.",
		"headers": object{
			"RateLimit-Policy": headers["RateLimit-Policy"],
			"RateLimit":        headers["RateLimit"],
			"Retry-After":      ref("headers", "Retry-After"),
		},
		"content": object{
			respond.MediaProblem: object{"schema": ref("schemas", "Problem")},
			respond.MediaJSON:    object{"schema": orBatch(rpcError, "An error for each request of the batch.")},
		},
	}
}

// orBatch is sch, or a JSON-RPC batch of at most mcp.MaxBatch of them,
// described by batch.
func orBatch(sch object, batch string) object {
	return object{"oneOf": []object{sch, {
		"description": batch,
		"type":        "array", "items": sch, "minItems": 1, "maxItems": mcp.MaxBatch,
	}}}
}

// queryParameters describes the fields of the struct t as query parameters,
// in the order of the fields; a field is required unless its json tag says
// omitempty.
func queryParameters(t reflect.Type) []object {
	sch := schema.Inline(t)
	var params []object
	for _, f := range reflect.VisibleFields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		prop := *sch.Properties[name]
		description := prop.Description
		prop.Description = ""
		p := object{"name": name, "in": "query", "required": opts != "omitempty", "schema": &prop}
		if description != "" {
			p["description"] = description
		}
		params = append(params, p)
	}
	return params
}

// problems are the statuses of the route's problem responses; 429 only
// when the deployment enforces a rate limit.
func problemsOf(rt *view.Route, rateLimited, refusing bool) []int {
	var problems []int
	for _, status := range commonProblems {
		if status != http.StatusTooManyRequests || rateLimited {
			problems = append(problems, status)
		}
	}
	problems = append(problems, rt.Problems...)
	if refusing && !slices.Contains(problems, http.StatusForbidden) {
		problems = append(problems, http.StatusForbidden) // an agent the owner refuses
	}
	if rt.Bearer {
		problems = append(problems, http.StatusUnauthorized) // a bad bearer token
	}
	return problems
}

func ref(kind, name string) object {
	return object{"$ref": "#/components/" + kind + "/" + name}
}
