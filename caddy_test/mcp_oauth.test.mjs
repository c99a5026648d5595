// The official TypeScript MCP SDK's OAuth client against a real Caddy: a
// client holding a stale token gets 401 from /mcp and recovers with no human
// (discovery, registration or a Client ID Metadata Document, authorization,
// token) and then calls a tool. Run by TestMCPOAuthRecovery with
// DISCOVERY_TEST_BASE_URL set, and DISCOVERY_TEST_CLIENT_METADATA_URL: the
// https URL of this client's metadata document, served by the Go test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const base = process.env.DISCOVERY_TEST_BASE_URL;
if (!base) throw new Error("DISCOVERY_TEST_BASE_URL is not set");
const clientMetadataUrl = process.env.DISCOVERY_TEST_CLIENT_METADATA_URL;
if (!clientMetadataUrl) throw new Error("DISCOVERY_TEST_CLIENT_METADATA_URL is not set");

// A provider for an unattended client: redirectToAuthorization follows the
// authorization URL itself, as a browser would, and reads the code from the
// redirect instead of running a callback listener.
class UnattendedProvider {
  constructor(staleToken, metadataUrl) {
    this.stored = { tokens: { access_token: staleToken, token_type: "Bearer" } };
    this.code = undefined;
    // With it, the SDK uses the URL as its client_id when the server
    // advertises client_id_metadata_document_supported; without, it registers.
    this.clientMetadataUrl = metadataUrl;
  }
  get redirectUrl() {
    return "http://127.0.0.1:33418/callback";
  }
  get clientMetadata() {
    return {
      client_name: "caddy-discovery unattended test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    this.stored.state = crypto.randomUUID();
    return this.stored.state;
  }
  clientInformation() {
    return this.stored.client;
  }
  saveClientInformation(client) {
    this.stored.client = client;
  }
  tokens() {
    return this.stored.tokens;
  }
  saveTokens(tokens) {
    this.stored.tokens = tokens;
  }
  saveCodeVerifier(verifier) {
    this.stored.verifier = verifier;
  }
  codeVerifier() {
    return this.stored.verifier;
  }
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "client") delete this.stored.client;
    if (scope === "all" || scope === "tokens") delete this.stored.tokens;
  }
  async redirectToAuthorization(url) {
    const res = await fetch(url, { redirect: "manual" });
    assert.equal(res.status, 302, `authorization: ${res.status} ${await res.text()}`);
    const callback = new URL(res.headers.get("location"));
    assert.equal(callback.origin + callback.pathname, this.redirectUrl);
    assert.equal(callback.searchParams.get("state"), this.stored.state);
    assert.equal(callback.searchParams.get("error"), null, callback.searchParams.get("error_description"));
    this.code = callback.searchParams.get("code");
  }
}

// recordingFetch records what the client asks for, in order.
function recordingFetch(log) {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    log.push(`${init?.method ?? "GET"} ${url.pathname}`);
    return fetch(input, init);
  };
}

async function recover(staleToken, metadataUrl) {
  const provider = new UnattendedProvider(staleToken, metadataUrl);
  const log = [];
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(base + "/mcp"), { authProvider: provider, fetch: recordingFetch(log) });
  const first = transport();
  await assert.rejects(new Client({ name: "unattended", version: "1.0.0" }).connect(first), UnauthorizedError);
  assert.ok(provider.code, "no authorization code was captured");
  await first.finishAuth(provider.code);
  const client = new Client({ name: "unattended", version: "1.0.0" });
  await client.connect(transport());
  return { provider, log, client };
}

test("a client with a stale token recovers unattended and calls a tool", async () => {
  const { provider, log, client } = await recover("dsc_" + "A".repeat(60));
  assert.match(provider.stored.tokens.access_token, /^dsc_/);
  assert.equal(provider.stored.tokens.scope, "public:read");
  assert.match(provider.stored.client.client_id, /^dcl_/);
  for (const step of [
    "POST /mcp", // 401 with the challenge
    "GET /.well-known/oauth-protected-resource/mcp",
    "GET /.well-known/oauth-authorization-server",
    "POST /oauth/register",
    "POST /oauth/token",
  ]) {
    assert.ok(log.includes(step), `${step} is not in ${JSON.stringify(log)}`);
  }
  const health = await client.callTool({ name: "get_health" });
  assert.notEqual(health.isError, true);
  assert.equal(health.structuredContent.status, "ok");
  const { tools } = await client.listTools();
  assert.ok(tools.length >= 5);
  await client.close();
});

test("a client whose token came from another site's secret recovers too", async () => {
  // Well-formed, but signed with another key: the service's own format.
  const foreign = "dsc_" + Buffer.from(new Uint8Array(70).fill(7)).toString("base64url");
  const { client } = await recover(foreign);
  const list = await client.callTool({ name: "list_insights" });
  assert.ok(list.structuredContent.count >= 1);
  await client.close();
});

test("the recovered token is bound to /mcp: the REST API refuses it and names its own metadata", async () => {
  const { provider } = await recover("stale");
  const res = await fetch(base + "/api/v1/profile", {
    headers: { authorization: `Bearer ${provider.stored.tokens.access_token}` },
  });
  assert.equal(res.status, 401);
  assert.match(res.headers.get("www-authenticate"), /^Bearer error="invalid_token"/);
  assert.match(res.headers.get("www-authenticate"), /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/);
  assert.match((await res.json()).detail, /issued for another resource/);
});

test("a client with a Client ID Metadata Document recovers unattended, without registering", async () => {
  const { provider, log, client } = await recover("dsc_" + "B".repeat(60), clientMetadataUrl);
  assert.equal(provider.stored.client.client_id, clientMetadataUrl);
  assert.match(provider.stored.tokens.access_token, /^dsc_/);
  for (const step of [
    "POST /mcp",
    "GET /.well-known/oauth-protected-resource/mcp",
    "GET /.well-known/oauth-authorization-server",
    "POST /oauth/token",
  ]) {
    assert.ok(log.includes(step), `${step} is not in ${JSON.stringify(log)}`);
  }
  assert.ok(!log.includes("POST /oauth/register"), `the client registered: ${JSON.stringify(log)}`);
  const health = await client.callTool({ name: "get_health" });
  assert.notEqual(health.isError, true);
  assert.equal(health.structuredContent.status, "ok");
  await client.close();
});

test("a Client ID Metadata Document client recovers again once its token is stale", async () => {
  const first = await recover("stale", clientMetadataUrl);
  await first.client.close();
  // The same client, its token gone stale: the document is cached or fetched again.
  const { provider, client } = await recover("dsc_" + "C".repeat(60), clientMetadataUrl);
  assert.equal(provider.stored.client.client_id, clientMetadataUrl);
  const list = await client.callTool({ name: "list_insights" });
  assert.ok(list.structuredContent.count >= 1);
  await client.close();
});
