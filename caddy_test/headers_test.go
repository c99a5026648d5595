package caddytest

import (
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

// The headers the module sets on its responses, by the response that
// carries them: a 200 of the API, a 401 for a bad bearer, a 429.
var (
	apiHeaders = []string{"API-Version", "RateLimit", "RateLimit-Policy", "Link", "ETag", "Cache-Control",
		"X-Content-Type-Options", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Vary"}
	unauthorizedHeaders = []string{"WWW-Authenticate"}
	refusedHeaders      = []string{"Retry-After", "RateLimit", "RateLimit-Policy"}
)

// TestHeaderDirectiveRemovesEveryHeader: Caddy's header directive finds
// every header the module sets, whatever the spelling a user writes, so
// `header -RateLimit` removes it.
func TestHeaderDirectiveRemovesEveryHeader(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	header {
		-API-Version
		-RateLimit
		-ratelimit-policy
		-Link
		-ETag
		-Cache-Control
		-X-Content-Type-Options
		-Access-Control-Allow-Origin
		-Access-Control-Expose-Headers
		-Vary
		-WWW-Authenticate
		-Retry-After
	}
	discovery {
		content sample
		rate_limit 2 60s
	}
}
`)
	responses := map[string]*response{
		"200": s.get("/api/v1/profile"),
		"401": s.get("/api/v1", "Authorization", "Bearer forged"),
		"429": s.get("/api/v1"),
	}
	if responses["200"].StatusCode != http.StatusOK || responses["401"].StatusCode != http.StatusUnauthorized ||
		responses["429"].StatusCode != http.StatusTooManyRequests {
		t.Fatalf("statuses %d, %d, %d; want 200, 401, 429",
			responses["200"].StatusCode, responses["401"].StatusCode, responses["429"].StatusCode)
	}
	for status, names := range map[string][]string{"200": apiHeaders, "401": unauthorizedHeaders, "429": refusedHeaders} {
		for _, name := range names {
			if v, ok := responses[status].Header[textproto.CanonicalMIMEHeaderKey(name)]; ok {
				t.Errorf("%s response: `header -%s` left %q", status, name, v)
			}
		}
	}
}

// TestHeaderDirectiveSetsOneField: a site that sets one of the module's
// headers itself gets one field, not two spellings of it.
func TestHeaderDirectiveSetsOneField(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	header API-Version "site"
	header RateLimit-Policy "site"
	discovery {
		content sample
	}
}
`)
	r := s.get("/api/v1")
	for _, name := range []string{"API-Version", "RateLimit-Policy"} {
		if n := len(r.Header.Values(name)); n != 1 {
			t.Errorf("%s: %d fields %q, want 1", name, n, r.Header.Values(name))
		}
	}
	// The module sets its own value after the site's header directive ran.
	if got := r.Header.Get("API-Version"); got != "1" {
		t.Errorf("API-Version %q, want the module's 1", got)
	}
}

// TestHeaderDirectiveReplacesInValues: a deferred replacement, which
// reads each header with the canonical key as any Go middleware does,
// sees the module's values.
func TestHeaderDirectiveReplacesInValues(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	header >WWW-Authenticate invalid_token replaced_token
	header >RateLimit-Policy public site
	discovery {
		content sample
	}
}
`)
	r := s.get("/api/v1", "Authorization", "Bearer forged")
	if got := r.Header.Get("WWW-Authenticate"); got == "" || !strings.Contains(got, "replaced_token") {
		t.Errorf("WWW-Authenticate %q: the header directive did not see it", got)
	}
	if got := r.Header.Get("RateLimit-Policy"); !strings.Contains(got, `"site"`) {
		t.Errorf("RateLimit-Policy %q: the header directive did not see it", got)
	}
}
