// Lint for the project's JavaScript: the CLI (Node, no dependencies), its
// tests and the MCP client test (Node), and the WebMCP script (browser). The
// demo site has no script of its own: Caddy's templates render its pages.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["cli/**/*.mjs", "caddy_test/**/*.mjs", "bench/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: globals.node },
  },
  {
    // The WebMCP script the module serves to the site's pages (browser).
    files: ["internal/docs/webmcp/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: globals.browser },
  },
  {
    rules: {
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
];
