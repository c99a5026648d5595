package handlers

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"path"
	"strings"
)

//go:embed portal/developers.html
var portalHTML string

//go:embed portal/style.css
var portalCSS string

var portalTemplate = template.Must(template.New("developers").Parse(portalHTML))

// portalStyleSource is the CSP source of the portal's inline style: its hash.
var portalStyleSource = func() string {
	sum := sha256.Sum256([]byte(portalCSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// portalHeaders are the portal's headers for a base URL. Its
// Content-Security-Policy allows its own inline style and, while WebMCP is
// on, the WebMCP script and the JSON API the script reads: nothing else.
func (l links) portalHeaders() [][2]string {
	csp := "default-src 'none'; style-src " + portalStyleSource
	if l.cfg.servesWebMCP() {
		csp += "; script-src " + l.webMCPSource(pathWebMCP) + "; connect-src " + l.webMCPSource(apiPrefix)
	}
	csp += "; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return [][2]string{{headerCSP, csp}, {headerReferrerPolicy, "no-referrer"}}
}

type portalEndpoint struct {
	ID, Method, Path, Description, MediaType, Example, Response string
}

type portalDocument struct{ Title, URL, Description string }

// maxExampleLines cuts long example responses on the portal.
const maxExampleLines = 24

// developerPortal renders /developers from the route table, the problem
// codes and the content.
func (l links) developerPortal(_ string) ([]byte, error) {
	p := l.cfg.Site.Profile
	slug := l.slugExample()
	var endpoints []portalEndpoint
	var documents []portalDocument
	for i := range l.routes {
		rt := &l.routes[i]
		example := l.base + strings.Replace(rt.Path, "{slug}", slug, 1)
		ep := portalEndpoint{
			ID: "op-" + rt.OperationID, Method: rt.Method, Path: rt.Path,
			Description: rt.Description, MediaType: rt.MediaType, Example: strings.TrimSpace(rt.ExampleArgs + " " + example),
		}
		if rt.Status == http.StatusFound {
			ep.MediaType = "302 redirect"
		}
		if rt.Versioned() || rt.Body != nil {
			ep.Response = l.exampleResponse(rt, slug)
		}
		endpoints = append(endpoints, ep)
		if rt.Tag == tagDiscovery && rt.Method == http.MethodGet && rt.Path != pathDevelopers {
			documents = append(documents, portalDocument{rt.Summary, example, rt.Description})
		}
	}
	problemExample, _ := json.MarshalIndent(&Problem{
		Type: l.developers() + "#" + codeNotFound.Anchor(), Title: codeNotFound.Title, Status: codeNotFound.Status,
		Detail: "No published insight has the slug \"no-such-insight\".", Instance: l.base + insightPath("no-such-insight"),
		Code: codeNotFound.Code, Hint: "List the published insights and their slugs at " + l.base + pathInsights + ".",
	}, "", "  ")
	problems := make([]problemCode, len(problemCodes))
	for i, c := range problemCodes {
		c.Hint = strings.ReplaceAll(c.Hint, "{base}", l.base)
		problems[i] = c
	}
	versionStatus := "v1 is current and not deprecated."
	if !l.cfg.Deprecation.IsZero() {
		versionStatus = "v1 is deprecated since " + l.cfg.Deprecation.UTC().Format("2 January 2006") + "."
		if !l.cfg.Sunset.IsZero() {
			versionStatus += " It will be removed after " + l.cfg.Sunset.UTC().Format("2 January 2006") + "."
		}
		if l.cfg.Successor != "" {
			versionStatus += " Its successor is " + l.cfg.Successor + "."
		}
	}
	mcp := l.base + pathMCP
	cli := l.cliURL()
	var b bytes.Buffer
	err := portalTemplate.Execute(&b, map[string]any{
		"Name": p.Name, "Tagline": strings.TrimSuffix(p.Tagline, "."), "Base": l.base, "Home": l.abs(l.cfg.Site.Pages.Home),
		"Slug": slug, "Scope": tokenScope, "Style": template.CSS(portalCSS),
		"Endpoints": endpoints, "Problems": problems, "ProblemExample": string(problemExample),
		"RateLimit": l.cfg.rateLimitSummary(), "Limited": l.cfg.RateLimit.Events > 0,
		"PolicyExample": NewRateLimitHeaders(l.cfg.RateLimit).policy,
		"VersionStatus": versionStatus, "openAPIVersion": openAPIVersion,
		"MCP": mcp, "MCPBatch": l.cfg.batchCap(), "CLI": cli, "CLIFile": path.Base(cli), "CLIName": l.cfg.CLIName,
		"Documents": documents, "WebMCP": l.webMCPScriptURL(),
	})
	return b.Bytes(), err
}

// exampleResponse is the response body of a JSON route, indented and cut.
func (l links) exampleResponse(rt *Route, slug string) string {
	var v any
	switch {
	case rt.Path == pathHealth:
		v = health{"ok", l.cfg.ServiceName, l.cfg.Version, apiVersion, l.base + pathHealth, "2026-01-01T00:00:00Z"}
	case rt.Path == pathInsight && len(l.cfg.Site.Insights) > 0:
		v = l.insightDocument(l.cfg.Site.Insights[0])
	case rt.Path == pathInsights:
		// The example shows a few items whatever the site's size.
		list := insightList{Count: len(l.cfg.Site.Insights), Items: []insightSummary{}}
		for _, in := range l.cfg.Site.Insights[:min(3, len(l.cfg.Site.Insights))] {
			list.Items = append(list.Items, l.summary(in))
		}
		v = list
	case rt.OperationID == "getOpenApi" || rt.Path == pathDevelopers:
		return ""
	case rt.render == nil:
		return ""
	default:
		body, err := rt.render(l, "")
		if err != nil || json.Unmarshal(body, &v) != nil {
			return ""
		}
	}
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	lines := strings.Split(string(body), "\n")
	for i, line := range lines {
		if len(line) > 120 {
			lines[i] = line[:strings.LastIndex(line[:117], " ")+1] + "…"
		}
	}
	if len(lines) > maxExampleLines {
		lines = append(lines[:maxExampleLines], "  …")
	}
	return strings.Join(lines, "\n")
}
