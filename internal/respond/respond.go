// Package respond writes the answers a request makes: bodies made per
// request (JSON, problems, forms of HTML), never stored, with the header
// names and media types every part of the module writes.
//
// Imports from the module: internal/problem.
package respond

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

// Header names, canonical so that Caddy's header directive and Header.Get
// see them (field names are case-insensitive; HTTP/2 sends them lowercase).
const (
	HeaderAPIVersion     = "Api-Version"
	HeaderRateLimit      = "Ratelimit"
	HeaderRateLimitPol   = "Ratelimit-Policy"
	HeaderRetryAfter     = "Retry-After"
	HeaderWWWAuth        = "Www-Authenticate"
	HeaderLink           = "Link"
	HeaderDeprecation    = "Deprecation"
	HeaderSunset         = "Sunset"
	HeaderVary           = "Vary"
	HeaderAllow          = "Allow"
	HeaderETag           = "Etag"
	HeaderNoSniff        = "X-Content-Type-Options"
	HeaderAllowOrigin    = "Access-Control-Allow-Origin"
	HeaderAllowMethods   = "Access-Control-Allow-Methods"
	HeaderAllowHeaders   = "Access-Control-Allow-Headers"
	HeaderExposeHeaders  = "Access-Control-Expose-Headers"
	HeaderMaxAge         = "Access-Control-Max-Age"
	HeaderContentType    = "Content-Type"
	HeaderContentLength  = "Content-Length"
	HeaderContentEnc     = "Content-Encoding"
	HeaderCacheControl   = "Cache-Control"
	HeaderPragma         = "Pragma"
	HeaderConnection     = "Connection"
	HeaderCSP            = "Content-Security-Policy"
	HeaderReferrerPolicy = "Referrer-Policy"
)

// ValueNoSniff is X-Content-Type-Options' one value.
const ValueNoSniff = "nosniff"

// Cache policies.
const (
	CacheAPI      = "public, max-age=300"
	CacheDocument = "public, max-age=3600"
	CacheNever    = "no-store"
)

// Media types.
const (
	MediaJSON      = "application/json"
	MediaProblem   = "application/problem+json"
	MediaForm      = "application/x-www-form-urlencoded"
	MediaText      = "text/plain; charset=utf-8"
	MediaMarkdown  = "text/markdown; charset=utf-8"
	MediaHTML      = "text/html; charset=utf-8"
	MediaJS        = "text/javascript; charset=utf-8"
	MediaLinkset   = `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`
	MediaJWKSet    = "application/jwk-set+json"
	MediaCard      = "application/mcp-server-card+json"
	MediaXML       = "application/xml; charset=utf-8"
	MediaAICatalog = "application/ai-catalog+json"
	// MediaA2ACard is the type an AI catalog names an A2A agent card by.
	MediaA2ACard = "application/a2a-agent-card+json"
)

// Write is the one writer of bodies made per request (JSON and problems):
// it sets the type, the cache policy and the length, and writes the body
// unless the request is HEAD. Such bodies are never stored.
func Write(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set(HeaderContentType, contentType)
	h.Set(HeaderCacheControl, CacheNever)
	h.Set(HeaderContentLength, strconv.Itoa(len(body)))
	h.Del(HeaderETag)
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// JSON writes v as JSON with status; token responses are also marked
// Pragma: no-cache (RFC 6749 section 5.1).
func JSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := Marshal(v)
	if err != nil {
		panic(err) // structs of strings, ints and bools
	}
	w.Header().Set(HeaderPragma, "no-cache")
	Write(w, r, status, MediaJSON, body)
}

// Marshal encodes v as JSON. It escapes <, > and &, so nothing taken from
// the content or the request reaches a client as markup.
func Marshal(v any) ([]byte, error) {
	return json.Marshal(v)
}

// Problem writes p as application/problem+json.
func Problem(w http.ResponseWriter, r *http.Request, p *problem.Problem) {
	body, err := Marshal(p)
	if err != nil {
		// A Problem holds only strings and ints; this cannot fail.
		body = []byte(`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"","code":"internal_error","hint":""}`)
	}
	Write(w, r, p.Status, MediaProblem, body)
}
