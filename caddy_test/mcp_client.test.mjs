// The official TypeScript MCP SDK client against a real Caddy: lists and
// calls every tool, reads a resource, and checks that each structured
// result is the REST API's JSON for the same resource. Run by
// TestMCPTypeScriptClient with DISCOVERY_TEST_BASE_URL set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.env.DISCOVERY_TEST_BASE_URL;
if (!base) throw new Error("DISCOVERY_TEST_BASE_URL is not set");

const rest = async (path) => (await fetch(base + path)).json();

async function connect() {
  const client = new Client({ name: "caddy-discovery-ts-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp")));
  return client;
}

test("lists the seven read-only tools", async () => {
  const client = await connect();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ["fetch", "get_health", "get_insight", "get_profile", "list_insights", "search", "search_insights"]);
  for (const tool of tools) {
    assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
    assert.ok(tool.description.length > 20, tool.name);
    assert.equal(tool.outputSchema?.type, "object", tool.name);
  }
  await client.close();
});

test("every tool answers with the REST API's JSON", async () => {
  const client = await connect();
  const call = async (name, args = {}) => {
    const res = await client.callTool({ name, arguments: args });
    assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
    return res.structuredContent;
  };
  assert.deepEqual(await call("get_profile"), await rest("/api/v1/profile"));
  const list = await rest("/api/v1/insights");
  assert.deepEqual(await call("list_insights"), list);
  const slug = list.items[0].slug;
  assert.deepEqual(await call("get_insight", { slug }), await rest(`/api/v1/insights/${slug}`));
  const topic = list.items[0].topic;
  const filtered = await call("list_insights", { topic });
  assert.ok(filtered.count >= 1 && filtered.items.every((i) => i.topic === topic));
  const found = await call("search_insights", { query: list.items[0].title });
  assert.equal(found.results[0].slug, slug);
  assert.equal((await call("get_health")).status, "ok");
  await client.close();
});

// The shapes ChatGPT connectors and deep research require: search(query)
// gives one text item holding {results: [{id, title, url}]}, fetch(id) one
// holding {id, title, text, url, metadata}.
test("search and fetch have the connector shapes", async () => {
  const client = await connect();
  const list = await rest("/api/v1/insights");
  const textJSON = (res) => {
    assert.notEqual(res.isError, true, JSON.stringify(res.content));
    assert.equal(res.content.length, 1);
    assert.equal(res.content[0].type, "text");
    return JSON.parse(res.content[0].text);
  };
  const found = textJSON(await client.callTool({ name: "search", arguments: { query: list.items[0].title } }));
  assert.ok(found.results.length >= 1);
  for (const r of found.results) assert.deepEqual(Object.keys(r).sort(), ["id", "title", "url"]);
  assert.deepEqual(found.results[0], { id: list.items[0].slug, title: list.items[0].title, url: list.items[0].url });
  const doc = await rest(`/api/v1/insights/${found.results[0].id}`);
  const fetched = textJSON(await client.callTool({ name: "fetch", arguments: { id: found.results[0].id } }));
  assert.deepEqual(Object.keys(fetched).sort(), ["id", "metadata", "text", "title", "url"]);
  assert.equal(fetched.id, doc.slug);
  assert.equal(fetched.title, doc.title);
  assert.equal(fetched.text, doc.content);
  assert.equal(fetched.url, doc.url);
  assert.equal(fetched.metadata.topic, doc.topic);
  const missing = await client.callTool({ name: "fetch", arguments: { id: "no-such-insight" } });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /search/);
  await client.close();
});

test("arguments outside their bounds are refused, not clamped", async () => {
  const client = await connect();
  for (const limit of [-1, 0, 51, 1000]) {
    const res = await client.callTool({ name: "search_insights", arguments: { query: "data", limit } });
    assert.equal(res.isError, true, `limit ${limit}`);
    assert.match(res.content[0].text, /limit/);
  }
  await client.close();
});

test("an unknown slug is a tool error that says what to do", async () => {
  const client = await connect();
  const res = await client.callTool({ name: "get_insight", arguments: { slug: "no-such-insight" } });
  assert.equal(res.isError, true);
  assert.match(res.content[0].text, /list_insights/);
  await client.close();
});

test("insights are resources with their Markdown", async () => {
  const client = await connect();
  const { resources } = await client.listResources();
  const list = await rest("/api/v1/insights");
  assert.equal(resources.length, list.count);
  const doc = await rest(`/api/v1/insights/${resources[0].name}`);
  const read = await client.readResource({ uri: resources[0].uri });
  assert.equal(read.contents[0].mimeType, "text/markdown");
  assert.equal(read.contents[0].text, doc.content);
  await client.close();
});
