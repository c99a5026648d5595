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
	redocly, err := filepath.Abs("../node_modules/.bin/redocly")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(redocly); err != nil {
		t.Fatalf("Redocly CLI is not installed (run `npm ci` in the repository root): %v", err)
	}
	s := startCaddy(t, sampleSite)
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, s.get("/openapi.json").body, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(redocly, "lint", "--format=summary", doc).CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "valid") {
		t.Errorf("unexpected redocly output:\n%s", out)
	}
}
