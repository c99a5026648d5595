package ratelimit

import (
	"net/http"
	"strconv"
	"time"

	"github.com/dunglas/httpsfv"
)

// Headers writes the fields of draft-ietf-httpapi-ratelimit-headers for the
// public policy: RateLimit-Policy, the quota, and RateLimit, what is left of
// it. Both are Structured Fields (RFC 9651): an Item, the policy's name as a
// String, with Integer parameters.
type Headers struct {
	// policy is the RateLimit-Policy field.
	policy string
	// name is the policy's name as RateLimit's Item, serialized; Value
	// appends the parameters, which change with every response.
	name string
}

// NewHeaders serializes the RateLimit-Policy field of limit, and the part of
// RateLimit that depends on limit only.
func NewHeaders(limit Policy) Headers {
	policy := httpsfv.NewItem(PolicyName)
	policy.Params.Add("q", int64(limit.Events))
	policy.Params.Add("w", int64(limit.WindowSeconds()))
	// The integers are within RFC 9651's fifteen digits (Validate bounds the
	// events and the window) and the name is a String: nothing can fail.
	field, _ := httpsfv.Marshal(policy)
	name, _ := httpsfv.Marshal(httpsfv.NewItem(PolicyName))
	return Headers{policy: field, name: name}
}

// Policy is the RateLimit-Policy field.
func (rh Headers) Policy() string { return rh.policy }

// Value is the RateLimit field with remaining requests and resetSeconds
// until the window frees one. The Integer parameters are appended as RFC
// 9651, section 4.1.4, serializes them, their decimal digits: the field is
// written on every counted response, where httpsfv's Marshal of the whole
// Item costs about a microsecond and ten allocations (TestRateLimitValue
// holds the two to the same bytes).
func (rh Headers) Value(remaining, resetSeconds int) string {
	return rh.name + ";r=" + strconv.Itoa(remaining) + ";t=" + strconv.Itoa(resetSeconds)
}

// Set writes RateLimit-Policy and RateLimit with remaining requests and reset
// rounded up to whole seconds.
func (rh Headers) Set(h http.Header, remaining int, reset time.Duration) {
	h["Ratelimit-Policy"] = []string{rh.policy}
	h["Ratelimit"] = []string{rh.Value(remaining, CeilSeconds(reset))}
}
