package handlers

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/portal"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The developer portal, /developers, and its Markdown twin, /developers.md,
// are two renderings (internal/portal) of one portal.Page, which is made
// here from the route table, the types' schemas, the problem codes and the
// catalog.

// pathDevelopersTwin is the portal's Markdown twin, by the rule of every
// page's twin (twinPath).
var pathDevelopersTwin = twinPath(view.PathDevelopers)

// portalHeaders are the portal's headers for a base URL. Its
// Content-Security-Policy allows its own inline style and, while WebMCP is
// on, the WebMCP script and the JSON API the script reads; and the site's
// llms.txt, robots.txt and AI catalog, which audits (Lighthouse's SEO and
// Agentic Browsing categories) fetch from the page: nothing else.
func portalHeaders(l links) [][2]string {
	csp := "default-src 'none'; style-src " + portal.StyleSource
	connect := ""
	if l.cfg.servesWebMCP() {
		csp += "; script-src " + l.WebMCPSource(view.PathWebMCP)
		connect = l.WebMCPSource(view.APIPrefix)
	}
	docs := []string{view.PathLLMs}
	if l.cfg.servesRobots() {
		docs = append(docs, view.PathRobots)
	}
	if l.cfg.servesMCPDiscovery() {
		docs = append(docs, view.PathAICatalog)
	}
	for _, doc := range docs {
		if src := l.WebMCPSource(doc); !slices.Contains(strings.Fields(connect), src) {
			connect = strings.TrimSpace(connect + " " + src)
		}
	}
	if connect != "" {
		csp += "; connect-src " + connect
	}
	csp += "; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return [][2]string{{respond.HeaderCSP, csp}, {respond.HeaderReferrerPolicy, "no-referrer"}}
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
	newest := l.Cat.Site.Profile.LastUpdated
	for _, in := range l.Cat.Site.Insights {
		newest = max(newest, in.DateModifiedISO)
	}
	return newest
}

// portalOf makes the portal's content for this base URL.
func portalOf(l links) *portal.Page {
	p := l.Cat.Site.Profile
	ttl := l.cfg.tokenTTLSeconds()
	pg := &portal.Page{
		Name: p.Name, Tagline: strings.TrimSuffix(pages.OneLine(p.Tagline), "."), Base: l.Base,
		Home: l.Abs(l.Cat.Site.Pages.Home), LLMs: l.Base + view.PathLLMs, LLMsFull: l.Base + view.PathLLMsFull,
		OpenAPI: l.OpenAPI(), AuthNotes: l.Base + view.PathAuth, HTML: l.Developers(), Markdown: l.Base + pathDevelopersTwin,
		Updated: lastModified(l), Slug: docs.SlugExample(l.Links), Scope: token.Scope,
		TokenLifetime: portal.Lifetime(ttl), TokenSeconds: ttl,
		RateLimit: docs.RateLimitSummary(l.cfg.RateLimit), Limited: l.cfg.RateLimit.Events > 0,
		Events: l.cfg.RateLimit.Events, Window: l.cfg.RateLimit.WindowSeconds(),
		Policy:        ratelimit.NewHeaders(l.cfg.RateLimit).Policy(),
		VersionStatus: versionStatus(l), OpenAPIVer: docs.OpenAPIVersion,
		MCP: l.Base + view.PathMCP, MCPBatch: mcp.BatchCap(l.cfg.RateLimit.Events), CLI: l.CLIURL(), CLIName: l.cfg.CLIName,
		WebMCP: l.WebMCPScriptURL(), Listing: portalListingOf(l),
	}
	pg.CLIFile = path.Base(pg.CLI)
	for _, c := range problem.Codes {
		c.Hint = strings.ReplaceAll(c.Hint, "{base}", l.Base)
		pg.Problems = append(pg.Problems, c)
	}
	shared := map[string]*route{} // example body -> the route whose operation shows it
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
		case rt.Tag == view.TagAuth:
			pg.Auth = append(pg.Auth, op)
		case rt.Tag == view.TagMCP:
			pg.MCPOps = append(pg.MCPOps, op)
		default:
			pg.Documents = append(pg.Documents, op)
		}
	}
	types["Problem"] = true
	pg.Types = portal.Types(types, docs.Components)
	pg.NotFound, pg.Unauthorized, pg.Refused = errorExamples(l)
	pg.Clients = portal.Clients(l.Base+view.PathMCP, l.cfg.CLIName)
	return pg
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
func portalOperationOf(l links, rt *route) portal.Operation {
	slug := docs.SlugExample(l.Links)
	address := l.Base + view.URLPathFor(l.Cat, &rt.Route, slug)
	op := portal.Operation{
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
	if name := docs.Components.Name(rt.Body); name != "" {
		op.Type, op.TypeID = name, portal.TypeAnchor(name)
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
		op.Document = l.Base + view.URLPathFor(l.Cat, &rt.Route, slug)
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
func exampleBody(l links, rt *route, slug string) ([]byte, string) {
	now := exampleTime(l)
	var v any
	note := ""
	switch rt.Path {
	case view.PathHealth:
		v = l.Health(now)
	case view.PathInsights:
		list := l.Insights()
		if len(list.Items) > maxExampleItems {
			list.Items = list.Items[:maxExampleItems]
			note = fmt.Sprintf("The first %d of the %d items; the response lists them all.", maxExampleItems, list.Count)
		}
		v = list
	case view.PathRegister, view.PathToken:
		v = oauth.TokenResponse{AccessToken: exampleToken, TokenType: "Bearer", ExpiresIn: l.cfg.tokenTTLSeconds(), Scope: token.Scope}
	case view.PathIdentity:
		v = oauth.IdentityResponse{
			RegistrationID: "anon_7Qx2mV9kLc4T", RegistrationType: "anonymous", IdentityAssertion: exampleAssertion,
			IdentityAssertionExpiresAt: now.Add(10 * time.Minute).Format(time.RFC3339),
			ClaimToken:                 "clm_" + base64.RawURLEncoding.EncodeToString([]byte("example claim token")),
			ClaimTokenExpiresAt:        now.Add(24 * time.Hour).Format(time.RFC3339), Scope: token.Scope,
		}
	case view.PathIdentityClaim:
		v = oauth.ClaimAnswer
	case view.PathClientRegistration:
		v = oauth.ClientInformation{
			ClientID: exampleClientID, ClientIDIssuedAt: now.Unix(), RedirectURIs: []string{"http://127.0.0.1:8765/callback"},
			GrantTypes: []string{oauth.GrantAuthorizationCode}, ResponseTypes: []string{oauth.ResponseTypeCode},
			TokenEndpointAuthMethod: "none", Scope: token.Scope,
		}
	case view.PathMCP:
		out, _ := mcp.SearchInsights(context.Background(), l.mcpSite(), search.Input{Query: exampleQuery, Limit: exampleLimit})
		text, _ := respond.Marshal(out)
		type textContent struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		// The SDK sends the structured content as a JSON object of its
		// own, its members sorted.
		var structured map[string]any
		_ = json.Unmarshal(text, &structured)
		v = mcp.Response{JSONRPC: "2.0", ID: 1, Result: map[string]any{
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
		base64.RawURLEncoding.EncodeToString([]byte("example authorization code")) + "&state=<state>&iss=" + l.Base + "\nCache-Control: no-store"
}

// errorExamples are whole example responses: a 404, a 401 for a bad
// bearer and a 429, made by the code that makes the real ones.
func errorExamples(l links) (notFound, unauthorized, refused string) {
	profile := l.routeAt(view.PathProfile)
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: view.InsightPath("no-such-insight")}}
	p := problem.New(l.Base, problem.NotFound, r, "The requested API endpoint does not exist: no published insight has the slug \"no-such-insight\".")
	p.Hint = "List the published insights and their slugs at " + l.Base + view.PathInsights + "; the machine-readable description is at " + l.Base + view.PathOpenAPI + "."
	notFound = portal.HTTPExample(http.StatusNotFound, nil, p)

	r = &http.Request{Method: http.MethodGet, URL: &url.URL{Path: view.PathProfile}}
	if profile != nil {
		unauthorized = portal.HTTPExample(http.StatusUnauthorized, [][2]string{{"WWW-Authenticate", oauthPaths.BearerChallenge(l.Base, profile.Path, "invalid_token")}},
			oauthPaths.InvalidToken(l.Base, r, profile.Path, "The bearer token has expired."))
	}
	if l.cfg.RateLimit.Events > 0 {
		retry := min(17, l.cfg.RateLimit.WindowSeconds())
		rh := ratelimit.NewHeaders(l.cfg.RateLimit)
		refused = portal.HTTPExample(http.StatusTooManyRequests, [][2]string{
			{"Retry-After", strconv.Itoa(retry)},
			{"RateLimit-Policy", rh.Policy()},
			{"RateLimit", rh.Value(0, retry)},
			{"Vary", "Accept"},
		}, rateLimitedProblem(l.cfg, l.Base, r, retry))
	}
	return notFound, unauthorized, refused
}

// portalListingOf is the portal's account of the MCP server's listings.
func portalListingOf(l links) portal.Listing {
	server := docs.RegistryServerJSON(l.Links)
	domain := docs.RegistryDomain(l.Links)
	return portal.Listing{
		ServerJSON: server, Domain: domain, Proof: l.Base + view.PathMCPRegistryAuth, Key: l.cfg.MCPRegistryKey,
		Login: "mcp-publisher login http --domain " + domain +
			` --private-key "$(openssl pkey -in key.pem -noout -text | grep -A3 'priv:' | tail -n +2 | tr -d ' :\n')"`,
		Publish: "mcp-publisher publish",
		Records: strings.Join(docs.DNSAIDRecords(l.Links), "\n"),
	}
}

// developerPortal renders /developers.
func developerPortal(l links, _ string) ([]byte, error) {
	return portal.HTML(portalOf(l))
}

// developerPortalMarkdown renders /developers.md, the portal for agents.
func developerPortalMarkdown(l links, _ string) ([]byte, error) {
	return portal.Markdown(portalOf(l), l.Developers())
}
