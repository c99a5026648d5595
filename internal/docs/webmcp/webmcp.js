// webmcp.js: offers this site's read-only discovery tools to an agent in
// the browser (WebMCP). Each tool answers from the site's JSON API and has
// the name, description and input schema of the MCP server's tool of the
// same name. It registers them with document.modelContext (Chrome 150 on),
// else with navigator.modelContext (the earlier drafts); where the browser
// has neither, it does nothing.
(() => {
  "use strict";

  // The server writes the tools in here when it serves the script.
  const tools = "__DISCOVERY_WEBMCP_TOOLS__";
  const usable = (context) => context && typeof context.registerTool === "function";
  let registerTool;
  if (usable(document.modelContext)) {
    registerTool = (tool) => document.modelContext.registerTool(tool);
  } else if (usable(navigator.modelContext)) {
    registerTool = (tool) => navigator.modelContext.registerTool(tool);
  }
  if (!Array.isArray(tools) || !registerTool) {
    return;
  }

  // The API is on the origin that served this script.
  const script = document.currentScript;
  const origin = script && script.src ? new URL(script.src).origin : location.origin;

  const answer = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });
  const failure = (text) => ({ isError: true, content: [{ type: "text", text }] });

  async function call(tool, input) {
    const args = input && typeof input === "object" ? input : {};
    const inPath = new Set();
    const path = tool.path.replace(/\{(\w+)\}/g, (_, name) => {
      inPath.add(name);
      return encodeURIComponent(String(args[name] ?? ""));
    });
    let response, body;
    try {
      response = await fetch(origin + path, { headers: { Accept: "application/json" } });
      body = await response.json();
    } catch (err) {
      return failure(`${origin}${path} could not be read: ${err.message}`);
    }
    if (!response.ok) {
      // An RFC 9457 problem: what went wrong and what to do.
      return failure([body.title, body.detail, body.hint].filter(Boolean).join(" "));
    }
    // An argument that is not in the path keeps the list items whose field
    // of that name matches it, ignoring case, as the MCP tool does.
    for (const [name, value] of Object.entries(args)) {
      const wanted = String(value ?? "").trim().toLowerCase();
      if (inPath.has(name) || wanted === "" || !Array.isArray(body.items)) {
        continue;
      }
      body.items = body.items.filter((item) => String(item[name]).toLowerCase() === wanted);
      body.count = body.items.length;
    }
    return answer(body);
  }

  for (const tool of tools) {
    try {
      registerTool({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
        execute: (input) => call(tool, input),
      });
    } catch (err) {
      // A tool of that name is registered already (the script included
      // twice, say): the first one stays.
      console.warn(`webmcp: ${tool.name}: ${err.message}`);
    }
  }
})();
