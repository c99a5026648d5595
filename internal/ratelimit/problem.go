package ratelimit

import (
	"fmt"
	"net/http"

	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

// Problem is the 429 problem of a request the policy limit refused, on the
// base URL base: the answer a refused client gets, and the portal's
// example of it.
func Problem(limit Policy, base string, r *http.Request, retryAfter int) *problem.Problem {
	p := problem.New(base, problem.RateLimited, r, fmt.Sprintf(
		"This client has used all %d requests the %q policy allows in %d seconds.",
		limit.Events, PolicyName, limit.WindowSeconds()))
	p.Hint = fmt.Sprintf("Retry after %d seconds (the Retry-After header); the RateLimit header shows the quota left on every response.", retryAfter)
	p.ViolatedPolicies = []string{PolicyName}
	return p
}
