package caddytest

import (
	"net/http"
	"strings"
	"testing"
)

// TestDeveloperPortalAudit holds /developers, as the demo site serves it,
// to Lighthouse 95 in every category (Agentic Browsing included) on a phone
// and a desktop, and to no axe violation at 1280 and 390 px; and the page a
// refused browser gets to no axe violation either. Each Lighthouse run costs about 8 s, so there
// are two.
func TestDeveloperPortalAudit(t *testing.T) {
	s := startCaddy(t, demoSite(t)+`
http://127.0.0.1:9081 {
	discovery {
		content sample
		rate_limit 1 600s
		rate_limit_key audit
	}
}
`)
	if r := s.get("/developers"); r.StatusCode != http.StatusOK {
		t.Fatalf("/developers: %d", r.StatusCode)
	}
	// One key for every client: the request below uses the quota, so the
	// browser is refused.
	limited := "http://127.0.0.1:9081/api/v1/profile"
	s.do(http.MethodGet, limited, nil)
	if r := s.do(http.MethodGet, limited, nil, "Accept", browserAccept); r.StatusCode != http.StatusTooManyRequests ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("the refused page: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	results := audit(t, auditRequest{URLs: []string{base + "/developers"}, Lighthouse: []string{"mobile", "desktop"}, AxeWidths: []int{1280, 390}, Agentic: true})
	for _, formFactor := range []string{"mobile", "desktop"} {
		if len(results[base+"/developers"].Lighthouse[formFactor].Scores) != 5 {
			t.Errorf("Lighthouse %s did not score the five categories: %v", formFactor, results[base+"/developers"].Lighthouse[formFactor].Scores)
		}
	}
	page := audit(t, auditRequest{URLs: []string{limited}, Lighthouse: []string{}, AxeWidths: []int{1280, 390}})
	if len(page[limited].Axe) != 2 {
		t.Errorf("axe did not run at both widths on the refused page: %v", page[limited].Axe)
	}
	results[limited] = page[limited]
	// The portal has no form, so webmcp-form-coverage has nothing to cover;
	// every other Agentic Browsing audit applies (the WebMCP script
	// registers its tools here too).
	requireAudit(t, results, 0.95, "webmcp-form-coverage")
}
