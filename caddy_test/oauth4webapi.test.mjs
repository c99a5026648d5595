// oauth4webapi, an independent certified OAuth client library, against a real
// Caddy: a REST client with a stale token follows the 401's challenge to the
// metadata, registers (or uses its Client ID Metadata Document), runs the
// authorization code flow with PKCE and calls the API; the negative cases
// fail with the RFCs' errors. Run by TestOAuth4WebAPI with
// DISCOVERY_TEST_BASE_URL set, and DISCOVERY_TEST_CLIENT_METADATA_URL: the
// https URL of this client's metadata document, served by the Go test.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";

const base = process.env.DISCOVERY_TEST_BASE_URL;
if (!base) throw new Error("DISCOVERY_TEST_BASE_URL is not set");
const clientMetadataUrl = process.env.DISCOVERY_TEST_CLIENT_METADATA_URL;
if (!clientMetadataUrl) throw new Error("DISCOVERY_TEST_CLIENT_METADATA_URL is not set");

// The test server speaks plain HTTP on localhost.
const insecure = { [oauth.allowInsecureRequests]: true };
const redirectUri = "http://127.0.0.1:43110/callback";

// discoverServers follows a stale token's 401 to the protected resource
// metadata and the authorization server's.
async function discoverServers() {
  const stale = await fetch(base + "/api/v1/profile", { headers: { authorization: "Bearer dsc_stale" } });
  assert.equal(stale.status, 401);
  const challenge = stale.headers.get("www-authenticate");
  assert.match(challenge, /^Bearer error="invalid_token"/);
  const prm = new URL(/resource_metadata="([^"]+)"/.exec(challenge)[1]);
  assert.equal(prm.href, new URL("/.well-known/oauth-protected-resource", base).href);

  const resource = new URL(base);
  const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
  const issuer = new URL(rs.authorization_servers[0]);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
  return { as, resource: rs.resource };
}

async function discover() {
  const { as, resource } = await discoverServers();
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { redirect_uris: [redirectUri], token_endpoint_auth_method: "none", client_name: "oauth4webapi test" },
      insecure,
    ),
  );
  return { as, client, resource };
}

// authorize runs the authorization request as a browser would and returns the
// redirect it answers with.
async function authorize(as, client, params) {
  const url = new URL(as.authorization_endpoint);
  for (const [k, v] of Object.entries({ response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, ...params })) {
    if (v !== undefined) url.searchParams.set(k, v);
  }
  const res = await fetch(url, { redirect: "manual" });
  return res;
}

async function codeFlow(as, client, resource) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const res = await authorize(as, client, {
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    scope: "public:read",
    resource,
  });
  assert.equal(res.status, 302, `authorization: ${res.status} ${await res.text()}`);
  const params = oauth.validateAuthResponse(as, client, new URL(res.headers.get("location")), state);
  return { verifier, params };
}

const exchange = (as, client, params, verifier) =>
  oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure);

test("a REST client recovers from a stale token with the code flow", async () => {
  const { as, client } = await discover();
  assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
  const { verifier, params } = await codeFlow(as, client);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(as, client, params, verifier));
  assert.equal(tokens.token_type, "bearer");
  assert.equal(tokens.scope, "public:read");
  const res = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(base + "/api/v1/profile"), undefined, undefined, insecure);
  assert.equal(res.status, 200);
  assert.ok((await res.json()).name);
});

test("a REST client with a Client ID Metadata Document recovers without registering", async () => {
  const { as, resource } = await discoverServers();
  assert.equal(as.client_id_metadata_document_supported, true);
  // The client is its document's URL: nothing to register.
  const client = { client_id: clientMetadataUrl, token_endpoint_auth_method: "none" };
  const { verifier, params } = await codeFlow(as, client, resource);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
      ...insecure,
      additionalParameters: { resource },
    }),
  );
  assert.equal(tokens.scope, "public:read");
  const res = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(base + "/api/v1/profile"), undefined, undefined, insecure);
  assert.equal(res.status, 200);
  // Bound to the site (RFC 8707): good on /mcp too, which the site's resource covers.
  const mcp = await fetch(base + "/mcp", {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "oauth4webapi", version: "1" } } }),
  });
  assert.equal(mcp.status, 200);
});

test("a token asked for /mcp is refused by the REST API, and the client recovers with one for the site", async () => {
  const { as, resource } = await discoverServers();
  const client = { client_id: clientMetadataUrl, token_endpoint_auth_method: "none" };
  const { verifier, params } = await codeFlow(as, client, base + "/mcp");
  const forMCP = await oauth.processAuthorizationCodeResponse(as, client, await exchange(as, client, params, verifier));
  const refused = await fetch(base + "/api/v1/profile", { headers: { authorization: `Bearer ${forMCP.access_token}` } });
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get("www-authenticate"), /^Bearer error="invalid_token"/);
  const again = await codeFlow(as, client, resource);
  const forSite = await oauth.processAuthorizationCodeResponse(as, client, await exchange(as, client, again.params, again.verifier));
  const res = await fetch(base + "/api/v1/profile", { headers: { authorization: `Bearer ${forSite.access_token}` } });
  assert.equal(res.status, 200);
});

test("a resource that is not this site's is invalid_target at the token endpoint", async () => {
  const { as } = await discoverServers();
  const client = { client_id: clientMetadataUrl, token_endpoint_auth_method: "none" };
  const { verifier, params } = await codeFlow(as, client);
  await rejectsWith(
    oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
        ...insecure,
        additionalParameters: { resource: "https://elsewhere.example/mcp" },
      }),
    ),
    "invalid_target",
  );
});

test("the MCP endpoint's metadata is found at its path-suffixed address", async () => {
  const resource = new URL(base + "/mcp");
  const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
  assert.equal(rs.resource, base + "/mcp");
});

// rejectsWith expects the OAuth error code of an error response.
async function rejectsWith(promise, error) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError, String(err));
    assert.equal(err.error, error);
    assert.ok(err.error_description);
    return true;
  });
}

test("a reused code is invalid_grant", async () => {
  const { as, client } = await discover();
  const { verifier, params } = await codeFlow(as, client);
  await oauth.processAuthorizationCodeResponse(as, client, await exchange(as, client, params, verifier));
  await rejectsWith(oauth.processAuthorizationCodeResponse(as, client, await exchange(as, client, params, verifier)), "invalid_grant");
});

test("a wrong verifier is invalid_grant", async () => {
  const { as, client } = await discover();
  const { params } = await codeFlow(as, client);
  const other = oauth.generateRandomCodeVerifier();
  await rejectsWith(oauth.processAuthorizationCodeResponse(as, client, await exchange(as, client, params, other)), "invalid_grant");
});

for (const [name, pkce] of [
  ["plain PKCE", (v) => ({ code_challenge: v, code_challenge_method: "plain" })],
  ["no PKCE", () => ({})],
]) {
  test(`${name} is refused with invalid_request, and not redirected`, async () => {
    const { as, client } = await discover();
    const state = oauth.generateRandomState();
    const res = await authorize(as, client, { ...pkce(oauth.generateRandomCodeVerifier()), state });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("location"), null);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.match((await res.json()).detail, /^invalid_request: /);
  });
}

test("an unregistered redirect URI gets no redirect", async () => {
  const { as, client } = await discover();
  const verifier = oauth.generateRandomCodeVerifier();
  const res = await authorize(as, client, {
    redirect_uri: "https://attacker.example/callback",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.match((await res.json()).detail, /not registered/);
});

test("a code for another client is invalid_grant", async () => {
  const { as, client } = await discover();
  const other = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: ["http://127.0.0.1:43111/callback"] }, insecure),
  );
  const { verifier, params } = await codeFlow(as, client);
  await rejectsWith(oauth.processAuthorizationCodeResponse(as, other, await exchange(as, other, params, verifier)), "invalid_grant");
});
