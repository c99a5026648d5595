// Node's own fetch (undici, what the TypeScript MCP SDK uses) POSTs a 2 MiB
// body at full speed, 30 times, for every kind of request the module
// answers without reading the body: each must get its problem, not
// ECONNRESET. Run by TestRefusedBodiesWithNodeFetch with
// DISCOVERY_TEST_BASE_URL set, against a site whose quota (5 a minute) is
// keyed on the X-Client header.
import { test } from "node:test";
import assert from "node:assert/strict";

const base = process.env.DISCOVERY_TEST_BASE_URL;
if (!base) throw new Error("DISCOVERY_TEST_BASE_URL is not set");

const tries = 30;
const body = new Uint8Array(2 << 20).fill(0x20);

const json = { "Content-Type": "application/json" };
const cases = [
  { name: "registration", path: "/agent/register", headers: json, status: 413, code: "payload_too_large" },
  { name: "identity", path: "/agent/identity", headers: json, status: 413, code: "payload_too_large" },
  { name: "token", path: "/oauth/token", headers: { "Content-Type": "application/x-www-form-urlencoded" }, status: 413, code: "payload_too_large" },
  { name: "MCP", path: "/mcp", headers: json, status: 413, code: "payload_too_large" },
  { name: "bad token", path: "/mcp", headers: { ...json, Authorization: "Bearer not-a-token" }, status: 401, code: "invalid_token" },
  { name: "GET endpoint", path: "/api/v1/profile", headers: json, status: 405, code: "method_not_allowed" },
  { name: "over the quota", path: "/mcp", headers: { ...json, "X-Client": "node-spent" }, status: 429, code: "rate_limited" },
];

test("spend the quota of X-Client node-spent", async () => {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(base + "/api/v1/health", { headers: { "X-Client": "node-spent" } });
    await res.arrayBuffer();
    assert.equal(res.status, 200);
  }
});

for (const c of cases) {
  test(`POST ${c.path} with 2 MiB: ${c.status} (${c.name})`, async () => {
    let answered = 0;
    const failures = {};
    for (let i = 0; i < tries; i++) {
      try {
        const res = await fetch(base + c.path, {
          method: "POST",
          headers: { Accept: "application/json, text/event-stream", "X-Client": `node ${c.name} ${i}`, ...c.headers },
          body,
        });
        const text = await res.text();
        const type = res.headers.get("content-type");
        if (res.status === c.status && type === "application/problem+json" && JSON.parse(text).code === c.code) {
          answered++;
        } else {
          const key = `${res.status} ${type}`;
          failures[key] = (failures[key] ?? 0) + 1;
        }
      } catch (err) {
        const key = err.cause?.code ?? err.code ?? err.message;
        failures[key] = (failures[key] ?? 0) + 1;
      }
    }
    console.log(`POST ${c.path} (${c.name}): ${answered} of ${tries} answered; failures ${JSON.stringify(failures)}`);
    assert.equal(answered, tries, `failures: ${JSON.stringify(failures)}`);
  });
}
