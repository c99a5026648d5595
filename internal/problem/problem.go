// Package problem owns the RFC 9457 problem details the module answers
// with: the Problem document (with the specification's code and hint), the
// table of problem codes, which is the single source for the problem
// responses, the developer portal's error anchors and the OpenAPI
// description, and the quoting of a client's input in a detail.
//
// Imports from the module: none.
package problem

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is an RFC 9457 problem details document, with the specification's
// required code and hint members.
type Problem struct {
	Type     string `json:"type" schema:"format=uri" jsonschema:"Problem type address: the developer portal's anchor for the code."`
	Title    string `json:"title" jsonschema:"Short, stable summary of the problem type."`
	Status   int    `json:"status" schema:"minimum=100;maximum=599" jsonschema:"HTTP status of this occurrence."`
	Detail   string `json:"detail" jsonschema:"Human-readable explanation of this occurrence."`
	Instance string `json:"instance,omitempty" schema:"format=uri" jsonschema:"Address of this occurrence: the requested URL."`
	Code     string `json:"code" jsonschema:"Machine-readable code."`
	Hint     string `json:"hint" jsonschema:"What a client should do to recover."`
	// ViolatedPolicies names the rate-limit policies a 429 exceeded
	// (draft-ietf-httpapi-ratelimit-headers).
	ViolatedPolicies []string `json:"violated-policies,omitempty" jsonschema:"On 429: the rate-limit policies exceeded."`
}

// Code is one kind of problem the service reports. The table below is
// the single source for the problem responses, the developer portal's error
// anchors and the OpenAPI description.
type Code struct {
	Code   string
	Status int
	Title  string
	// Meaning says when the problem happens, for the developer portal.
	Meaning string
	// Hint is the default recovery advice, with {base} standing for the
	// base URL; a response may give a better one.
	Hint string
}

// Anchor is the fragment of the problem's section on the developer portal:
// "error-" and the code with hyphens.
func (c Code) Anchor() string {
	return "error-" + strings.ReplaceAll(c.Code, "_", "-")
}

// The problem codes, in status order.
var (
	BadRequest = Code{"bad_request", http.StatusBadRequest, "Bad Request",
		"The request is malformed: for example a slug outside the slug grammar, or a body that is not what the endpoint accepts.",
		"Correct the request as the detail says; the OpenAPI description lists every parameter and its format."}
	InvalidToken = Code{"invalid_token", http.StatusUnauthorized, "Invalid Token",
		"An Authorization header was sent, but its bearer token is malformed, expired or was not issued by this service.",
		"Omit the Authorization header (no token is needed), or obtain a fresh token with POST /agent/register."}
	Forbidden = Code{"forbidden", http.StatusForbidden, "Forbidden",
		"The MCP endpoint refused a browser request from another site's origin, or a Host header that is not this server's name; or the site's owner refuses the agent that sent the request (by its User-Agent).",
		"Call the MCP endpoint from an MCP client or a server (they send no Origin header), at the site's own address."}
	NotFound = Code{"not_found", http.StatusNotFound, "Not Found",
		"The requested API endpoint does not exist, or the insight with that slug does not exist.",
		"Check the path against the machine-readable description at {base}/openapi.json."}
	MethodNotAllowed = Code{"method_not_allowed", http.StatusMethodNotAllowed, "Method Not Allowed",
		"The endpoint exists but does not accept this HTTP method. The Allow header lists the methods it accepts.",
		"Use one of the methods in the Allow header."}
	RequestTimeout = Code{"request_timeout", http.StatusRequestTimeout, "Request Timeout",
		"The request body did not arrive completely within the time the site allows from the start of its reading (10 seconds unless configured). The connection is closed.",
		"Send the whole body without pauses, on a new connection."}
	PayloadTooLarge = Code{"payload_too_large", http.StatusRequestEntityTooLarge, "Payload Too Large",
		"The request body is larger than the endpoint accepts (64 KiB).",
		"Send a smaller body."}
	UnsupportedMediaType = Code{"unsupported_media_type", http.StatusUnsupportedMediaType, "Unsupported Media Type",
		"The request body's Content-Type is not the one the endpoint accepts.",
		"Send the body with the Content-Type the OpenAPI description gives for the endpoint."}
	RateLimited = Code{"rate_limited", http.StatusTooManyRequests, "Too Many Requests",
		"The client sent more requests than the public rate-limit policy allows in its window.",
		"Wait the number of seconds in the Retry-After header, then retry."}
	InternalError = Code{"internal_error", http.StatusInternalServerError, "Internal Server Error",
		"The service failed to answer because of a fault on its side. The fault has been logged.",
		"Retry later; if the problem persists, report it to the site owner."}
)

// Codes lists every problem code, in status order.
var Codes = []Code{
	BadRequest, InvalidToken, Forbidden, NotFound, MethodNotAllowed,
	RequestTimeout, PayloadTooLarge, UnsupportedMediaType, RateLimited, InternalError,
}

// New builds the problem for code at the request path, with the given
// detail; base is the service's base URL.
func New(base string, code Code, r *http.Request, detail string) *Problem {
	return &Problem{
		Type:     base + "/developers#" + code.Anchor(),
		Title:    code.Title,
		Status:   code.Status,
		Detail:   detail,
		Instance: base + r.URL.EscapedPath(),
		Code:     code.Code,
		Hint:     strings.ReplaceAll(code.Hint, "{base}", base),
	}
}

// MaxQuoted is how much of a client's input a problem detail repeats.
const MaxQuoted = 64

// Quote renders client input for a problem detail: cut to MaxQuoted bytes
// at a rune boundary, invalid UTF-8 replaced, and Go-quoted so that control
// characters show as escapes.
func Quote(s string) string {
	cut := false
	if len(s) > MaxQuoted {
		end := MaxQuoted
		for end > MaxQuoted-utf8.UTFMax && !utf8.RuneStart(s[end]) {
			end--
		}
		s, cut = s[:end], true
	}
	q := strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
	if cut {
		q += "…"
	}
	return q
}
