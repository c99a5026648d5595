package handlers

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/mcphttp"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// The developer portal, /developers, and its Markdown twin, /developers.md,
// are two renderings of one portalPage, which is made from the route table,
// the types' schemas, the problem codes and the content.

//go:embed portal/developers.html
var portalHTML string

//go:embed portal/developers.md
var portalMarkdown string

//go:embed portal/style.css
var portalCSS string

var (
	portalTemplate         = template.Must(template.New("developers").Parse(portalHTML))
	portalMarkdownTemplate = texttemplate.Must(texttemplate.New("developers.md").Funcs(texttemplate.FuncMap{
		"fence": markdownFence,
		"cell":  markdownCell,
	}).Parse(portalMarkdown))
)

// pathDevelopersTwin is the portal's Markdown twin, by the rule of every
// page's twin (twinPath).
var pathDevelopersTwin = twinPath(pathDevelopers)

// portalStyleSource is the CSP source of the portal's inline style: its hash.
var portalStyleSource = func() string {
	sum := sha256.Sum256([]byte(portalCSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// portalHeaders are the portal's headers for a base URL. Its
// Content-Security-Policy allows its own inline style and, while WebMCP is
// on, the WebMCP script and the JSON API the script reads; and the site's
// llms.txt, robots.txt and AI catalog, which audits (Lighthouse's SEO and
// Agentic Browsing categories) fetch from the page: nothing else.
func portalHeaders(l links) [][2]string {
	csp := "default-src 'none'; style-src " + portalStyleSource
	connect := ""
	if l.cfg.servesWebMCP() {
		csp += "; script-src " + l.webMCPSource(pathWebMCP)
		connect = l.webMCPSource(apiPrefix)
	}
	docs := []string{pathLLMs}
	if l.cfg.servesRobots() {
		docs = append(docs, pathRobots)
	}
	if l.cfg.servesMCPDiscovery() {
		docs = append(docs, pathAICatalog)
	}
	for _, doc := range docs {
		if src := l.webMCPSource(doc); !slices.Contains(strings.Fields(connect), src) {
			connect = strings.TrimSpace(connect + " " + src)
		}
	}
	if connect != "" {
		csp += "; connect-src " + connect
	}
	csp += "; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return [][2]string{{respond.HeaderCSP, csp}, {respond.HeaderReferrerPolicy, "no-referrer"}}
}

// portalPage is everything the portal says.
type portalPage struct {
	Name, Tagline, Base, Home, LLMs, LLMsFull, OpenAPI, AuthNotes, Markdown, HTML string
	// Updated is the newest modification date of the content, YYYY-MM-DD.
	Updated string
	Slug    string
	Scope   string
	// TokenLifetime says how long an access token lives, in words, and
	// TokenSeconds is its expires_in.
	TokenLifetime string
	TokenSeconds  int
	RateLimit     string
	Limited       bool
	Events        int
	Window        int
	Policy        string
	VersionStatus string
	OpenAPIVer    string
	MCP           string
	MCPBatch      int
	CLI           string
	CLIFile       string
	CLIName       string
	WebMCP        string
	// Listing says how the MCP server is listed beyond the site.
	Listing portalListing
	// Core are the versioned API's operations; Auth, MCPOps and Documents
	// the others, by group.
	Core, Auth, MCPOps, Documents []portalOperation
	Problems                      []problem.Code
	// The example error responses, each a whole HTTP response.
	NotFound, Unauthorized, Refused string
	Clients                         []portalClient
	Types                           []portalType
}

// portalOperation is one route as the portal documents it.
type portalOperation struct {
	ID, Method, Path, Summary, Description string
	// Status and MediaType describe the success response.
	Status    string
	MediaType string
	// Request is a curl command; RequestBody its body, if any, with its
	// media type.
	Request          string
	RequestBody      string
	RequestMediaType string
	// Response is the whole example response body (JSON indented in the
	// order the API sends it), or the response's headers for a redirect;
	// Document is set instead for a route whose response is a document
	// to open.
	Response         string
	ResponseLanguage string
	Document         string
	// Type is the response body's type in the field reference, TypeID its
	// anchor; Shared names the operation whose example is the same.
	Type, TypeID       string
	Shared, SharedPath string
	// Errors are the problem codes beyond the ones every route can give.
	Errors []problem.Code
	// Note says more about the example, when it is not the whole story.
	Note string
}

// portalListing is what the site's owner needs to list the MCP server in
// the official MCP Registry and in DNS (see listing.go).
type portalListing struct {
	// ServerJSON is the server.json to publish; Domain the domain to
	// prove, Proof the address of the proof and Key the key the module
	// serves there ("" while none is configured).
	ServerJSON, Domain, Proof, Key string
	// Login and Publish are the publisher's commands.
	Login, Publish string
	// Records are the DNS-AID records, one a line.
	Records string
}

// portalClient is the setup of one agent or tool.
type portalClient struct {
	ID, Name, Intro, Where, Code, Language, Note string
}

// portalType is one response type of the field reference.
type portalType struct {
	Name, ID, Description string
	Fields                []portalField
}

// portalField is one member of a type; Ref is the type it refers to.
type portalField struct {
	Name, Type, Description string
	Required                bool
	Ref, RefID              string
}

// exampleTime is the time in the examples that would show the clock: the
// content's last update, at noon UTC.
func exampleTime(l links) time.Time {
	t, err := time.Parse(time.DateOnly, lastModified(l))
	if err != nil {
		return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	}
	return t.Add(12 * time.Hour)
}

// lastModified is the newest modification date of the content.
func lastModified(l links) string {
	newest := l.cat.Site.Profile.LastUpdated
	for _, in := range l.cat.Site.Insights {
		newest = max(newest, in.DateModifiedISO)
	}
	return newest
}

// portal makes the portal's content for this base URL.
func portal(l links) *portalPage {
	p := l.cat.Site.Profile
	ttl := l.cfg.tokenTTLSeconds()
	pg := &portalPage{
		Name: p.Name, Tagline: strings.TrimSuffix(pages.OneLine(p.Tagline), "."), Base: l.base,
		Home: l.abs(l.cat.Site.Pages.Home), LLMs: l.base + pathLLMs, LLMsFull: l.base + pathLLMsFull,
		OpenAPI: l.openAPI(), AuthNotes: l.base + pathAuth, HTML: l.developers(), Markdown: l.base + pathDevelopersTwin,
		Updated: lastModified(l), Slug: slugExample(l), Scope: token.Scope,
		TokenLifetime: lifetime(ttl), TokenSeconds: ttl,
		RateLimit: rateLimitSummary(l.cfg), Limited: l.cfg.RateLimit.Events > 0,
		Events: l.cfg.RateLimit.Events, Window: l.cfg.RateLimit.WindowSeconds(),
		Policy:        ratelimit.NewHeaders(l.cfg.RateLimit).Policy(),
		VersionStatus: versionStatus(l), OpenAPIVer: openAPIVersion,
		MCP: l.base + pathMCP, MCPBatch: mcphttp.BatchCap(l.cfg.RateLimit.Events), CLI: l.cliURL(), CLIName: l.cfg.CLIName,
		WebMCP: l.webMCPScriptURL(), Listing: portalListingOf(l),
	}
	pg.CLIFile = path.Base(pg.CLI)
	for _, c := range problem.Codes {
		c.Hint = strings.ReplaceAll(c.Hint, "{base}", l.base)
		pg.Problems = append(pg.Problems, c)
	}
	shared := map[string]*Route{} // example body -> the route whose operation shows it
	types := map[string]bool{}
	for i := range l.routes {
		rt := &l.routes[i]
		op := portalOperationOf(l, rt)
		if op.Response != "" && rt.Body != nil {
			if first, ok := shared[op.Response]; ok {
				op.Shared, op.SharedPath, op.Response = "op-"+first.OperationID, first.Path, ""
			} else {
				shared[op.Response] = rt
			}
		}
		if op.Type != "" {
			types[op.Type] = true
		}
		switch {
		case rt.Versioned():
			pg.Core = append(pg.Core, op)
		case rt.Tag == tagAuth:
			pg.Auth = append(pg.Auth, op)
		case rt.Tag == tagMCP:
			pg.MCPOps = append(pg.MCPOps, op)
		default:
			pg.Documents = append(pg.Documents, op)
		}
	}
	types["Problem"] = true
	pg.Types = portalTypes(types)
	pg.NotFound, pg.Unauthorized, pg.Refused = errorExamples(l)
	pg.Clients = clients(l)
	return pg
}

// lifetime says a number of seconds in words: "24 hours".
func lifetime(seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d%(24*time.Hour) == 0 && d >= 48*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	case d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	}
	return plural(seconds, "second")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

func versionStatus(l links) string {
	status := "v1 is current and not deprecated."
	if !l.cfg.Deprecation.IsZero() {
		status = "v1 is deprecated since " + l.cfg.Deprecation.UTC().Format("2 January 2006") + "."
		if !l.cfg.Sunset.IsZero() {
			status += " It will be removed after " + l.cfg.Sunset.UTC().Format("2 January 2006") + "."
		}
		if l.cfg.Successor != "" {
			status += " Its successor is " + l.cfg.Successor + "."
		}
	}
	return status
}

// operation documents one route: its request, its example response and
// its type.
func portalOperationOf(l links, rt *Route) portalOperation {
	slug := slugExample(l)
	address := l.base + urlPathFor(l.cat, rt, slug)
	op := portalOperation{
		ID: "op-" + rt.OperationID, Method: rt.Method, Path: rt.Path, Summary: rt.Summary,
		Description: rt.Description, MediaType: rt.MediaType, Status: "200 OK",
	}
	if rt.Status != 0 {
		op.Status = strconv.Itoa(rt.Status) + " " + http.StatusText(rt.Status)
	}
	if rt.Status == http.StatusFound {
		op.MediaType = ""
	}
	request := "curl "
	if rt.Method != http.MethodGet {
		request += "-X " + rt.Method + " "
	}
	if rt.ExampleArgs != "" {
		request += rt.ExampleArgs + " "
	}
	op.Request = request + address
	op.RequestMediaType = rt.RequestMediaType
	if name := components.Name(rt.Body); name != "" {
		op.Type, op.TypeID = name, typeAnchor(name)
	}
	for _, status := range rt.Problems {
		for _, c := range problem.Codes {
			if c.Status == status {
				op.Errors = append(op.Errors, c)
			}
		}
	}
	body, note := exampleBody(l, rt, slug)
	op.Note = note
	switch {
	case body != nil:
		var b bytes.Buffer
		if json.Indent(&b, body, "", "  ") == nil {
			op.Response, op.ResponseLanguage = b.String(), "json"
		} else {
			op.Response = string(body)
		}
	case rt.Status == http.StatusFound:
		op.Response, op.ResponseLanguage = redirectExample(l), "http"
	case !strings.Contains(rt.Path, "{"):
		op.Document = address
	default:
		op.Document = l.base + urlPathFor(l.cat, rt, slug)
	}
	return op
}

// The example credentials: shaped like the real ones, valid nowhere.
var (
	exampleToken     = "dsc_" + base64.RawURLEncoding.EncodeToString([]byte("\x01public:read example token, not valid on any site"))
	exampleAssertion = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"anon_example","scope":"public:read"}`)) + ".c2lnbmF0dXJlLW9mLXRoZS1leGFtcGxl"
	exampleClientID = "dcl_" + base64.RawURLEncoding.EncodeToString([]byte("\x01http://127.0.0.1:8765/callback example client"))
)

// exampleBody is the JSON body a route answers its example request with,
// and a note on it; nil for a route whose answer is a document to open.
// A route rendered from the content gives its real body; the others give
// what their handlers send, with example credentials.
func exampleBody(l links, rt *Route, slug string) ([]byte, string) {
	now := exampleTime(l)
	var v any
	note := ""
	switch rt.Path {
	case pathHealth:
		v = newHealth(l, now)
	case pathInsights:
		list := insights(l)
		if len(list.Items) > maxExampleItems {
			list.Items = list.Items[:maxExampleItems]
			note = fmt.Sprintf("The first %d of the %d items; the response lists them all.", maxExampleItems, list.Count)
		}
		v = list
	case pathRegister, pathToken:
		v = oauth.TokenResponse{AccessToken: exampleToken, TokenType: "Bearer", ExpiresIn: l.cfg.tokenTTLSeconds(), Scope: token.Scope}
	case pathIdentity:
		v = oauth.IdentityResponse{
			RegistrationID: "anon_7Qx2mV9kLc4T", RegistrationType: "anonymous", IdentityAssertion: exampleAssertion,
			IdentityAssertionExpiresAt: now.Add(10 * time.Minute).Format(time.RFC3339),
			ClaimToken:                 "clm_" + base64.RawURLEncoding.EncodeToString([]byte("example claim token")),
			ClaimTokenExpiresAt:        now.Add(24 * time.Hour).Format(time.RFC3339), Scope: token.Scope,
		}
	case pathIdentityClaim:
		v = oauth.ClaimAnswer
	case pathClientRegistration:
		v = oauth.ClientInformation{
			ClientID: exampleClientID, ClientIDIssuedAt: now.Unix(), RedirectURIs: []string{"http://127.0.0.1:8765/callback"},
			GrantTypes: []string{oauth.GrantAuthorizationCode}, ResponseTypes: []string{oauth.ResponseTypeCode},
			TokenEndpointAuthMethod: "none", Scope: token.Scope,
		}
	case pathMCP:
		out, _ := searchInsights(context.Background(), l, search.Input{Query: exampleQuery, Limit: exampleLimit})
		text, _ := respond.Marshal(out)
		type textContent struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		// The SDK sends the structured content as a JSON object of its
		// own, its members sorted.
		var structured map[string]any
		_ = json.Unmarshal(text, &structured)
		v = mcphttp.Response{JSONRPC: "2.0", ID: 1, Result: map[string]any{
			"content":           []textContent{{"text", string(text)}},
			"structuredContent": structured,
		}}
		note = "A tools/call of search_insights, answered as JSON (the server also speaks text/event-stream)."
	default:
		if rt.Body == nil || rt.render == nil {
			return nil, ""
		}
		body, err := rt.render(l, slug)
		if err != nil {
			return nil, ""
		}
		return body, ""
	}
	body, err := respond.Marshal(v)
	if err != nil {
		return nil, ""
	}
	return body, note
}

// The MCP example: a search, as the route's example request makes it.
const (
	exampleQuery    = "data contracts"
	exampleLimit    = 2
	maxExampleItems = 3
)

// redirectExample is the answer of the authorization endpoint to its
// example request.
func redirectExample(l links) string {
	return "HTTP/1.1 302 Found\nLocation: http://127.0.0.1:8765/callback?code=dac_" +
		base64.RawURLEncoding.EncodeToString([]byte("example authorization code")) + "&state=<state>&iss=" + l.base + "\nCache-Control: no-store"
}

// errorExamples are whole example responses: a 404, a 401 for a bad
// bearer and a 429, made by the code that makes the real ones.
func errorExamples(l links) (notFound, unauthorized, refused string) {
	profile := routeOf(l, pathProfile)
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: insightPath("no-such-insight")}}
	p := problem.New(l.base, problem.NotFound, r, "The requested API endpoint does not exist: no published insight has the slug \"no-such-insight\".")
	p.Hint = "List the published insights and their slugs at " + l.base + pathInsights + "; the machine-readable description is at " + l.base + pathOpenAPI + "."
	notFound = httpExample(http.StatusNotFound, nil, p)

	r = &http.Request{Method: http.MethodGet, URL: &url.URL{Path: pathProfile}}
	if profile != nil {
		unauthorized = httpExample(http.StatusUnauthorized, [][2]string{{"WWW-Authenticate", oauthPaths.BearerChallenge(l.base, profile.Path, "invalid_token")}},
			oauthPaths.InvalidToken(l.base, r, profile.Path, "The bearer token has expired."))
	}
	if l.cfg.RateLimit.Events > 0 {
		retry := min(17, l.cfg.RateLimit.WindowSeconds())
		rh := ratelimit.NewHeaders(l.cfg.RateLimit)
		refused = httpExample(http.StatusTooManyRequests, [][2]string{
			{"Retry-After", strconv.Itoa(retry)},
			{"RateLimit-Policy", rh.Policy()},
			{"RateLimit", rh.Value(0, retry)},
			{"Vary", "Accept"},
		}, rateLimitedProblem(l.cfg, l.base, r, retry))
	}
	return notFound, unauthorized, refused
}

func routeOf(l links, path string) *Route {
	for i := range l.routes {
		if l.routes[i].Path == path {
			return &l.routes[i]
		}
	}
	return nil
}

// httpExample is a problem response as it goes over the wire.
func httpExample(status int, headers [][2]string, p *problem.Problem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\nContent-Type: %s\n", status, http.StatusText(status), respond.MediaProblem)
	for _, h := range headers {
		b.WriteString(h[0] + ": " + h[1] + "\n")
	}
	body, _ := json.MarshalIndent(p, "", "  ")
	b.WriteString("\n")
	b.Write(body)
	return b.String()
}

// portalListingOf is the portal's account of the MCP server's listings.
func portalListingOf(l links) portalListing {
	server, _ := json.MarshalIndent(newRegistryServer(l), "", "  ")
	domain := registryDomain(l)
	return portalListing{
		ServerJSON: string(server), Domain: domain, Proof: l.base + pathMCPRegistryAuth, Key: l.cfg.MCPRegistryKey,
		Login: "mcp-publisher login http --domain " + domain +
			` --private-key "$(openssl pkey -in key.pem -noout -text | grep -A3 'priv:' | tail -n +2 | tr -d ' :\n')"`,
		Publish: "mcp-publisher publish",
		Records: strings.Join(dnsAIDRecords(l), "\n"),
	}
}

// clients are the setups of the agents people use, for this MCP endpoint.
func clients(l links) []portalClient {
	mcp := l.base + pathMCP
	name := l.cfg.CLIName
	indent := func(v any) string {
		b, _ := json.MarshalIndent(v, "", "  ")
		return string(b)
	}
	type server = map[string]any
	type stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	type remote struct {
		Type string `json:"type,omitempty"`
		URL  string `json:"url"`
	}
	return []portalClient{
		{ID: "connect-claude-code", Name: "Claude Code", Intro: "Run once in a terminal; add --scope user to have it in every project:",
			Code: "claude mcp add --transport http " + name + " " + mcp, Language: "sh"},
		{ID: "connect-claude-desktop", Name: "Claude Desktop",
			Intro: "Remote servers are added under Settings → Connectors → Add custom connector, with the URL " + mcp + ". Or, in claude_desktop_config.json (Settings → Developer → Edit Config), through the mcp-remote bridge (needs Node.js):",
			Where: "claude_desktop_config.json",
			Code:  indent(server{"mcpServers": server{name: stdio{"npx", []string{"-y", "mcp-remote", mcp}}}}), Language: "json"},
		{ID: "connect-cursor", Name: "Cursor", Intro: "In the project's .cursor/mcp.json (or ~/.cursor/mcp.json for every project):",
			Where: ".cursor/mcp.json", Code: indent(server{"mcpServers": server{name: remote{URL: mcp}}}), Language: "json"},
		{ID: "connect-vscode", Name: "VS Code", Intro: "In the workspace's .vscode/mcp.json (GitHub Copilot's agent mode):",
			Where: ".vscode/mcp.json", Code: indent(server{"servers": server{name: remote{"http", mcp}}}), Language: "json"},
		{ID: "connect-chatgpt", Name: "ChatGPT",
			Intro: "Connectors need developer mode: Settings → Apps & Connectors → Advanced settings → Developer mode. Then Settings → Apps & Connectors → Create, give it a name and this MCP server URL, with no authentication:",
			Code:  mcp, Language: "text"},
		{ID: "connect-other", Name: "Other MCP clients", Intro: "Any client that speaks Streamable HTTP takes the URL; most read this shape:",
			Code: indent(server{"mcpServers": server{name: remote{"http", mcp}}}), Language: "json",
			Note: "Clients that run OAuth on a 401 with a loopback or private-use redirect URI complete it unattended: there is no login. An https redirect URI gets a page that names its host first."},
	}
}

// typeAnchor is the anchor of a type in the field reference.
func typeAnchor(name string) string { return "type-" + strings.ToLower(name) }

// developerPortal renders /developers.
func developerPortal(l links, _ string) ([]byte, error) {
	var b bytes.Buffer
	err := portalTemplate.Execute(&b, struct {
		*portalPage
		Style template.CSS
	}{portal(l), template.CSS(portalCSS)})
	return b.Bytes(), err
}

// developerPortalMarkdown renders /developers.md, the portal for agents.
func developerPortalMarkdown(l links, _ string) ([]byte, error) {
	var b bytes.Buffer
	p := portal(l)
	pages.WriteFrontMatter(&b, pages.TwinFacts{
		Title:       p.Name + " public discovery API",
		Description: "The developer portal for agents: every endpoint of the public discovery API of " + p.Name + " with examples, the field reference, authentication, rate limits, errors, MCP and the CLI.",
		URL:         l.developers(), Updated: p.Updated,
	})
	err := portalMarkdownTemplate.Execute(&b, p)
	return b.Bytes(), err
}

// markdownFence wraps code in a fence longer than any run of backticks in
// it.
func markdownFence(language, code string) string {
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + language + "\n" + code + "\n" + fence
}

// markdownCell makes text safe in a Markdown table cell.
func markdownCell(s string) string {
	return strings.ReplaceAll(mdLine(s), "|", `\|`)
}
