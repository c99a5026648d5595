package portal

import (
	"bytes"
	"context"
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
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// What the portal says, made from the view of one base URL: the routes
// the configuration serves, the types' schemas, the problem codes and the
// catalog; the bodies of the examples are the ones the routes' renderers
// give (Example) or what the other routes' handlers send, with example
// credentials.

// Example gives the body the renderer of rt makes for slug, or nil for a
// route without one: what a GET of the route answers.
type Example func(rt *view.Route, slug string) []byte

// Headers are the portal's headers for a base URL. Its
// Content-Security-Policy allows its own inline style and, while WebMCP is
// on, the WebMCP script and the JSON API the script reads; and the site's
// llms.txt, robots.txt and AI catalog, which audits (Lighthouse's SEO and
// Agentic Browsing categories) fetch from the page: nothing else.
func Headers(l view.Links) [][2]string {
	csp := "default-src 'none'; style-src " + styleSource
	connect := ""
	if l.WebMCP {
		csp += "; script-src " + l.WebMCPSource(view.PathWebMCP)
		connect = l.WebMCPSource(view.APIPrefix)
	}
	docs := []string{view.PathLLMs}
	if l.Robots {
		docs = append(docs, view.PathRobots)
	}
	if l.MCPDiscovery {
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
func exampleTime(l view.Links) time.Time {
	t, err := time.Parse(time.DateOnly, lastModified(l))
	if err != nil {
		return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	}
	return t.Add(12 * time.Hour)
}

// lastModified is the newest modification date of the content.
func lastModified(l view.Links) string {
	newest := l.Cat.Site.Profile.LastUpdated
	for _, in := range l.Cat.Site.Insights {
		newest = max(newest, in.DateModifiedISO)
	}
	return newest
}

// Of makes the portal's content for the base URL of l, the examples of
// the routes rendered from the content given by example.
func Of(l view.Links, example Example) *Page {
	p := l.Cat.Site.Profile
	ttl := l.TokenSeconds
	pg := &Page{
		Name: p.Name, Tagline: strings.TrimSuffix(pages.OneLine(p.Tagline), "."), Base: l.Base,
		Home: l.Abs(l.Cat.Site.Pages.Home), LLMs: l.Base + view.PathLLMs, LLMsFull: l.Base + view.PathLLMsFull,
		OpenAPI: l.OpenAPI(), AuthNotes: l.Base + view.PathAuth, HTML: l.Developers(), Markdown: l.Base + view.PathDevelopersTwin,
		Updated: lastModified(l), Slug: docs.SlugExample(l), Scope: token.Scope,
		TokenLifetime: lifetime(ttl), TokenSeconds: ttl,
		RateLimit: docs.RateLimitSummary(l.RateLimit), Limited: l.RateLimit.Events > 0,
		Events: l.RateLimit.Events, Window: l.RateLimit.WindowSeconds(),
		Policy:        ratelimit.NewHeaders(l.RateLimit).Policy(),
		VersionStatus: versionStatus(l), OpenAPIVer: docs.OpenAPIVersion,
		MCP: l.Base + view.PathMCP, MCPBatch: mcp.BatchCap(l.RateLimit.Events), CLI: l.CLIURL(), CLIName: l.CLIName,
		WebMCP: l.WebMCPScriptURL(), Listing: listingOf(l),
	}
	pg.CLIFile = path.Base(pg.CLI)
	for _, c := range problem.Codes {
		c.Hint = strings.ReplaceAll(c.Hint, "{base}", l.Base)
		pg.Problems = append(pg.Problems, c)
	}
	shared := map[string]*view.Route{} // example body -> the route whose operation shows it
	types := map[string]bool{}
	for _, rt := range l.Routes {
		op := operationOf(l, rt, example)
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
	pg.Types = typesOf(types, docs.Components)
	pg.NotFound, pg.Unauthorized, pg.Refused = errorExamples(l)
	pg.Clients = clientsOf(l.Base+view.PathMCP, l.CLIName)
	return pg
}

func versionStatus(l view.Links) string {
	status := "v1 is current and not deprecated."
	if !l.Deprecation.IsZero() {
		status = "v1 is deprecated since " + l.Deprecation.UTC().Format("2 January 2006") + "."
		if !l.Sunset.IsZero() {
			status += " It will be removed after " + l.Sunset.UTC().Format("2 January 2006") + "."
		}
		if l.Successor != "" {
			status += " Its successor is " + l.Successor + "."
		}
	}
	return status
}

// operationOf documents one route: its request, its example response and
// its type.
func operationOf(l view.Links, rt *view.Route, example Example) Operation {
	slug := docs.SlugExample(l)
	address := l.Base + view.URLPathFor(l.Cat, rt, slug)
	op := Operation{
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
		op.Type, op.TypeID = name, typeAnchor(name)
	}
	for _, status := range rt.Problems {
		for _, c := range problem.Codes {
			if c.Status == status {
				op.Errors = append(op.Errors, c)
			}
		}
	}
	body, note := exampleBody(l, rt, slug, example)
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
		op.Document = l.Base + view.URLPathFor(l.Cat, rt, slug)
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
func exampleBody(l view.Links, rt *view.Route, slug string, example Example) ([]byte, string) {
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
		v = oauth.TokenResponse{AccessToken: exampleToken, TokenType: "Bearer", ExpiresIn: l.TokenSeconds, Scope: token.Scope}
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
		out, _ := mcp.SearchInsights(context.Background(), mcp.Site{Links: l}, search.Input{Query: exampleQuery, Limit: exampleLimit})
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
		if rt.Body == nil || !rt.Kept {
			return nil, ""
		}
		return example(rt, slug), ""
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
func redirectExample(l view.Links) string {
	return "HTTP/1.1 302 Found\nLocation: http://127.0.0.1:8765/callback?code=dac_" +
		base64.RawURLEncoding.EncodeToString([]byte("example authorization code")) + "&state=<state>&iss=" + l.Base + "\nCache-Control: no-store"
}

// errorExamples are whole example responses: a 404, a 401 for a bad
// bearer and a 429, made by the code that makes the real ones.
func errorExamples(l view.Links) (notFound, unauthorized, refused string) {
	profile := l.RouteAt(view.PathProfile)
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: view.InsightPath("no-such-insight")}}
	p := problem.New(l.Base, problem.NotFound, r, "The requested API endpoint does not exist: no published insight has the slug \"no-such-insight\".")
	p.Hint = "List the published insights and their slugs at " + l.Base + view.PathInsights + "; the machine-readable description is at " + l.Base + view.PathOpenAPI + "."
	notFound = httpExample(http.StatusNotFound, nil, p)

	r = &http.Request{Method: http.MethodGet, URL: &url.URL{Path: view.PathProfile}}
	if profile != nil {
		unauthorized = httpExample(http.StatusUnauthorized, [][2]string{{"WWW-Authenticate", docs.OAuthPaths.BearerChallenge(l.Base, profile.Path, "invalid_token")}},
			docs.OAuthPaths.InvalidToken(l.Base, r, profile.Path, "The bearer token has expired."))
	}
	if l.RateLimit.Events > 0 {
		retry := min(17, l.RateLimit.WindowSeconds())
		rh := ratelimit.NewHeaders(l.RateLimit)
		refused = httpExample(http.StatusTooManyRequests, [][2]string{
			{"Retry-After", strconv.Itoa(retry)},
			{"RateLimit-Policy", rh.Policy()},
			{"RateLimit", rh.Value(0, retry)},
			{"Vary", "Accept"},
		}, ratelimit.Problem(l.RateLimit, l.Base, r, retry))
	}
	return notFound, unauthorized, refused
}

// listingOf is the portal's account of the MCP server's listings.
func listingOf(l view.Links) Listing {
	server := docs.RegistryServerJSON(l)
	domain := docs.RegistryDomain(l)
	return Listing{
		ServerJSON: server, Domain: domain, Proof: l.Base + view.PathMCPRegistryAuth, Key: l.MCPRegistryKey,
		Login: "mcp-publisher login http --domain " + domain +
			` --private-key "$(openssl pkey -in key.pem -noout -text | grep -A3 'priv:' | tail -n +2 | tr -d ' :\n')"`,
		Publish: "mcp-publisher publish",
		Records: strings.Join(docs.DNSAIDRecords(l), "\n"),
	}
}
