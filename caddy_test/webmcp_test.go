package caddytest

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// webMCPTools are the tools the WebMCP script registers: the MCP server's,
// but for the search, which has no JSON twin to call.
var webMCPTools = []string{"get_health", "get_insight", "get_profile", "list_insights"}

// TestWebMCPScript: the script is a document like the others, and the
// tools it registers are the MCP server's, as tools/list declares them.
func TestWebMCPScript(t *testing.T) {
	s := startCaddy(t, sampleSite)
	script := string(s.agentDocument("/mcp/webmcp.js", "text/javascript; charset=utf-8").body)
	// Scanners read the call from the page's same-origin scripts.
	for _, call := range []string{"document.modelContext.registerTool(", "navigator.modelContext.registerTool("} {
		if !strings.Contains(script, call) {
			t.Errorf("the script does not call %s", call)
		}
	}
	_, list, ok := strings.Cut(script, "const tools = ")
	list, _, _ = strings.Cut(list, ";\n")
	var registered []struct {
		Name, Description, Path string
		InputSchema             map[string]any `json:"inputSchema"`
		Annotations             struct {
			ReadOnlyHint bool `json:"readOnlyHint"`
		}
	}
	if err := json.Unmarshal([]byte(list), &registered); !ok || err != nil {
		t.Fatalf("no tool list in the script (%v):\n%.300s", err, list)
	}
	declared, err := connectMCP(t, s, "2025-06-18").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range registered {
		names = append(names, r.Name)
		i := slices.IndexFunc(declared.Tools, func(d *mcp.Tool) bool { return d.Name == r.Name })
		if i < 0 {
			t.Errorf("the script registers %s, which the MCP server does not declare", r.Name)
			continue
		}
		d := declared.Tools[i]
		schema, _ := json.Marshal(d.InputSchema)
		if r.Description != d.Description || !reflect.DeepEqual(r.InputSchema, decode(t, "input schema", schema)) ||
			!r.Annotations.ReadOnlyHint || !strings.HasPrefix(r.Path, "/api/v1/") {
			t.Errorf("%s: the script's tool differs from the server's: %+v", r.Name, r)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, webMCPTools) {
		t.Errorf("the script registers %v, want %v", names, webMCPTools)
	}
}

// fakeModelContext stands in for the browser's agent on owner, document
// (Chrome 150 on) or navigator (the earlier drafts), the other one left
// without WebMCP: it records the tools a page registers, and every request
// the page's scripts fetch.
func fakeModelContext(owner string) string {
	return noModelContext + `
window.__tools = {};
window.__fetched = [];
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => { window.__fetched.push(String(input)); return realFetch(input, init); };
Object.defineProperty(` + owner + `, "modelContext", { configurable: true, value: {
	registerTool(tool) {
		if (window.__tools[tool.name]) throw new DOMException("registered already", "InvalidStateError");
		window.__tools[tool.name] = tool;
	},
}});
`
}

// noModelContext is a browser without WebMCP.
const noModelContext = `Object.defineProperty(navigator, "modelContext", { configurable: true, value: undefined });
Object.defineProperty(document, "modelContext", { configurable: true, value: undefined });`

// browser runs headless Chromium with init run in every document before
// the page's own scripts, and collects what the pages log as errors (CSP
// violations and exceptions among them).
func browser(t *testing.T, init string) (ctx context.Context, consoleErrors func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	addInit := func(ctx context.Context, target *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: init})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(ctx, addInit); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	timeoutCtx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	consoleCtx, stopConsole := context.WithCancel(timeoutCtx)
	var errs []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range chromedp.Console(consoleCtx) {
			if err != nil {
				return
			}
			// Chromium asks every site for /favicon.ico; the demo site has none.
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !strings.HasSuffix(m.URL, "/favicon.ico") {
				errs = append(errs, m.Text+" ("+m.URL+")")
			}
		}
	}()
	return timeoutCtx, func() []string {
		time.Sleep(200 * time.Millisecond) // let late messages arrive
		stopConsole()
		<-done
		return errs
	}
}

func evaluate[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expression, chromedp.EvalAwaitPromise))
	var v T
	if err == nil {
		err = json.Unmarshal(raw, &v)
	}
	if err != nil {
		t.Fatalf("%s: %v", expression, err)
	}
	return v
}

// TestWebMCPInBrowser: every demo page and the developer portal register
// the tools with the browser's agent, and a tool called there answers with
// what the JSON API serves, read from the JSON API; the portal's CSP lets
// the script and its requests through.
func TestWebMCPInBrowser(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	for _, owner := range []string{"document", "navigator"} {
		t.Run(owner+".modelContext", func(t *testing.T) { testWebMCPInBrowser(t, s, owner) })
	}
}

func testWebMCPInBrowser(t *testing.T, s *server, owner string) {
	ctx, consoleErrors := browser(t, fakeModelContext(owner))
	slug := "the-case-for-a-boring-data-platform"
	for _, path := range []string{"/", "/about", "/insights", "/insights/" + slug, "/contact", "/developers"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		names := evaluate[[]string](t, ctx, `new Promise((resolve) => {
			const poll = () => Object.keys(window.__tools).length ? resolve(Object.keys(window.__tools).sort()) : setTimeout(poll, 20);
			poll();
			setTimeout(() => resolve(Object.keys(window.__tools).sort()), 5000);
		})`)
		if !slices.Equal(names, webMCPTools) {
			t.Errorf("%s registers %v, want %v", path, names, webMCPTools)
			continue
		}
		if path != "/" && path != "/developers" {
			continue
		}
		for _, call := range []struct {
			tool, args, rest string
		}{
			{"get_profile", `{}`, "/api/v1/profile"},
			{"list_insights", `{}`, "/api/v1/insights"},
			{"get_insight", `{"slug": "` + slug + `"}`, "/api/v1/insights/" + slug},
		} {
			got := evaluate[struct {
				IsError           bool            `json:"isError"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				Fetched           []string        `json:"fetched"`
			}](t, ctx, `(async () => {
				window.__fetched = [];
				const result = await window.__tools["`+call.tool+`"].execute(`+call.args+`);
				return {...result, fetched: window.__fetched};
			})()`)
			if got.IsError || !slices.Contains(got.Fetched, base+call.rest) {
				t.Errorf("%s %s: isError %v, fetched %v", path, call.tool, got.IsError, got.Fetched)
				continue
			}
			sameJSON(t, path+" "+call.tool, got.StructuredContent, s.get(call.rest).body)
		}
		filtered := evaluate[struct {
			StructuredContent struct {
				Count int
				Items []struct{ Topic string }
			} `json:"structuredContent"`
		}](t, ctx, `window.__tools["list_insights"].execute({topic: " privacy "})`)
		if c := filtered.StructuredContent; c.Count != 1 || len(c.Items) != 1 || c.Items[0].Topic != "Privacy" {
			t.Errorf("%s list_insights by topic: %+v", path, c)
		}
		missing := evaluate[struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}](t, ctx, `window.__tools["get_insight"].execute({slug: "no-such-insight"})`)
		if !missing.IsError || len(missing.Content) != 1 || !strings.Contains(missing.Content[0].Text, "/api/v1/insights") {
			t.Errorf("%s get_insight of an unknown slug: %+v", path, missing)
		}
	}
	// The unknown slug is a 404 the browser logs as a failed resource.
	for _, e := range consoleErrors() {
		if !strings.HasSuffix(e, "/api/v1/insights/no-such-insight)") {
			t.Errorf("console error: %s", e)
		}
	}
}

// TestWebMCPWithoutModelContext: where the browser has no WebMCP the
// script does nothing, quietly.
func TestWebMCPWithoutModelContext(t *testing.T) {
	startCaddy(t, demoSite(t))
	ctx, consoleErrors := browser(t, noModelContext+`
window.__fetched = [];
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => { window.__fetched.push(String(input)); return realFetch(input, init); };`)
	for _, path := range []string{"/", "/developers"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		loaded := evaluate[bool](t, ctx, `new Promise((resolve) => {
			const script = document.querySelector('script[src$="/mcp/webmcp.js"]');
			if (document.readyState === "complete") resolve(!!script); else addEventListener("load", () => resolve(!!script));
		})`)
		if !loaded {
			t.Errorf("%s does not include the WebMCP script", path)
		}
		if fetched := evaluate[[]string](t, ctx, `window.__fetched`); path == "/developers" && len(fetched) != 0 {
			t.Errorf("%s fetched %v without an agent to ask", path, fetched)
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestWebMCPOff: webmcp off takes the script off the portal, with the CSP
// that allowed it.
func TestWebMCPOff(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		webmcp off
		rate_limit 1500 60s
	}
}
`)
	s.validateProblem(s.get("/mcp/webmcp.js"), http.StatusNotFound, "not_found")
	portal := s.get("/developers")
	if csp := portal.Header.Get("Content-Security-Policy"); strings.Contains(string(portal.body), "webmcp.js") ||
		strings.Contains(csp, "script-src") || !strings.Contains(csp, "; connect-src "+base+"/llms.txt "+base+"/robots.txt "+base+"/.well-known/ai-catalog.json;") {
		t.Errorf("webmcp off: the portal still allows or includes the script (CSP %q)", csp)
	}
	on := startCaddy(t, sampleSite).get("/developers").Header.Get("Content-Security-Policy")
	if !strings.Contains(on, "script-src "+base+"/mcp/webmcp.js;") || !strings.Contains(on, "connect-src "+base+"/api/v1/ "+base+"/llms.txt "+base+"/robots.txt "+base+"/.well-known/ai-catalog.json;") ||
		!strings.Contains(on, "default-src 'none'") {
		t.Errorf("the portal's CSP %q does not allow exactly the script, the API it reads, llms.txt, robots.txt and the AI catalog", on)
	}
}
