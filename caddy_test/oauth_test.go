package caddytest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The anonymous authorization code flow over real HTTP, step by step; the
// node tests run the same flow through real OAuth client libraries.

const (
	loopbackRedirect = "http://127.0.0.1/callback"
	prmURL           = base + "/.well-known/oauth-protected-resource"
	prmMCPURL        = base + "/.well-known/oauth-protected-resource/mcp"
)

// newPKCE returns a fresh verifier and its S256 challenge.
func newPKCE() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// registerClient registers redirect URIs and returns the client id.
func (s *server) registerClient(uris ...string) string {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"redirect_uris": uris, "client_name": "caddy-discovery test"})
	r := s.do(http.MethodPost, base+"/oauth/register", strings.NewReader(string(body)), "Content-Type", "application/json")
	s.validate(r)
	if r.StatusCode != http.StatusCreated {
		s.t.Fatalf("registration: %d %s", r.StatusCode, r.body)
	}
	return r.json(s.t)["client_id"].(string)
}

// authorize sends an authorization request and returns the response
// without following its redirect.
func (s *server) authorize(query url.Values) *response {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/oauth/authorize?"+query.Encode(), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	client := *s.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return &response{Response: resp, body: body}
}

// consented checks that r is the page of a valid request whose redirect URI
// is an https address: no redirect, a page naming the host it links to,
// that no other page may frame; it returns the query of that link, which
// starts with target.
func consented(t *testing.T, r *response, target string) url.Values {
	t.Helper()
	if r.StatusCode != http.StatusOK || r.Header.Get("Location") != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("authorization: %d, Location %q, %s; want the page that links to %s", r.StatusCode, r.Header.Get("Location"), r.Header.Get("Content-Type"), target)
	}
	csp := r.Header.Get("Content-Security-Policy")
	if r.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(csp, "frame-ancestors 'none'") || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the page may be framed or kept: X-Frame-Options %q, CSP %q, Cache-Control %q",
			r.Header.Get("X-Frame-Options"), csp, r.Header.Get("Cache-Control"))
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.body), "<h1>Continue to "+u.Host+"?</h1>") {
		t.Errorf("the page does not name %s:\n%s", u.Host, r.body)
	}
	m := regexp.MustCompile(`<a href="([^"]+)">Continue to `).FindSubmatch(r.body)
	if m == nil {
		t.Fatalf("the page has no link onward:\n%s", r.body)
	}
	link := html.UnescapeString(string(m[1]))
	if !strings.HasPrefix(link, target+"?") && !strings.HasPrefix(link, target+"&") {
		t.Fatalf("the page links to %s, want %s", link, target)
	}
	return authorizationResponse(t, link)
}

// authorizationResponse is the query of the address an authorization
// response sends the client to, which names this server as its iss.
func authorizationResponse(t *testing.T, link string) url.Values {
	t.Helper()
	l, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := l.Query()
	if q.Get("iss") != base {
		t.Errorf("iss %q, want %s (RFC 9207)", q.Get("iss"), base)
	}
	return q
}

// redirected checks that r redirects to a URI starting with target and
// returns its query.
func redirected(t *testing.T, r *response, target string) url.Values {
	t.Helper()
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, target+"?") && !strings.HasPrefix(loc, target+"&") {
		t.Fatalf("authorization: %d to %q, want 302 to %s", r.StatusCode, loc, target)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	return authorizationResponse(t, loc)
}

func authorizationQuery(client, redirect, challenge string) url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-" + challenge[:8]},
		"scope": {"public:read"}, "resource": {base + "/mcp"},
	}
}

// exchange posts a token request and returns the response.
func (s *server) exchange(form url.Values) *response {
	s.t.Helper()
	r := s.do(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()), "Content-Type", formType)
	s.validate(r)
	return r
}

func wantOAuthError(t *testing.T, r *response, status int, code string) {
	t.Helper()
	var e struct{ Error, ErrorDescription string }
	e.ErrorDescription = "-"
	_ = json.Unmarshal(r.body, &e)
	var desc map[string]any
	_ = json.Unmarshal(r.body, &desc)
	if r.StatusCode != status || e.Error != code || desc["error_description"] == "" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%d %s %s, want %d error %s", r.StatusCode, r.Header.Get("Content-Type"), r.body, status, code)
	}
}

func TestAuthorizationCodeFlow(t *testing.T) {
	s := startCaddy(t, sampleSite)
	client := s.registerClient(loopbackRedirect, "https://app.example/cb?tenant=7")
	verifier, challenge := newPKCE()
	// RFC 8252: a loopback redirect URI on any port.
	redirect := "http://127.0.0.1:53682/callback"
	q := redirected(t, s.authorize(authorizationQuery(client, redirect, challenge)), redirect)
	if q.Get("state") != "st-"+challenge[:8] || q.Get("code") == "" || q.Get("error") != "" {
		t.Fatalf("authorization response %v", q)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "code_verifier": {verifier},
		"client_id": {client}, "redirect_uri": {redirect}, "resource": {base + "/mcp"}}
	r := s.exchange(form)
	tok := r.json(t)
	if r.StatusCode != http.StatusOK || tok["token_type"] != "Bearer" || tok["scope"] != "public:read" || tok["refresh_token"] != nil {
		t.Fatalf("token response %d %v", r.StatusCode, tok)
	}
	// The token is for /mcp (RFC 8707): good there, refused elsewhere with
	// the challenge that names where to ask.
	bearer := "Bearer " + tok["access_token"].(string)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	if r := s.mcpPost(initialize, "Authorization", bearer); r.StatusCode != http.StatusOK {
		t.Errorf("/mcp with its token: %d %s", r.StatusCode, r.body)
	}
	for _, path := range []string{"/api/v1/profile", "/llms.txt"} {
		r := s.get(path, "Authorization", bearer)
		s.validate(r)
		if r.StatusCode != http.StatusUnauthorized || !strings.Contains(string(r.body), "issued for another resource") ||
			!strings.HasPrefix(r.Header.Get("WWW-Authenticate"), `Bearer error="invalid_token"`) {
			t.Errorf("%s with the token for /mcp: %d %s", path, r.StatusCode, r.body)
		}
	}
	// A code is good once.
	wantOAuthError(t, s.exchange(form), http.StatusBadRequest, "invalid_grant")

	// Without resource, as before RFC 8707: a token for every address.
	query := authorizationQuery(client, redirect, challenge)
	query.Del("resource")
	form.Set("code", redirected(t, s.authorize(query), redirect).Get("code"))
	form.Del("resource")
	r = s.exchange(form)
	for _, path := range []string{"/api/v1/profile", "/llms.txt"} {
		if r := s.get(path, "Authorization", "Bearer "+r.json(t)["access_token"].(string)); r.StatusCode != http.StatusOK {
			t.Errorf("%s with a token for no resource in particular: %d", path, r.StatusCode)
		}
	}

	// An https redirect URI gets a page naming its host, not a redirect. A
	// registered URI with a query keeps it; state is optional.
	query = authorizationQuery(client, "https://app.example/cb?tenant=7", challenge)
	query.Del("state")
	q = consented(t, s.authorize(query), "https://app.example/cb?tenant=7")
	if _, ok := q["state"]; ok || q.Get("tenant") != "7" || q.Get("code") == "" {
		t.Errorf("authorization response %v", q)
	}
}

func TestAuthorizationCodeErrors(t *testing.T) {
	s := startCaddy(t, sampleSite)
	client := s.registerClient(loopbackRedirect)
	other := s.registerClient("https://other.example/cb")
	verifier, challenge := newPKCE()
	wrongVerifier, _ := newPKCE()
	code := func(redirect string) string {
		return redirected(t, s.authorize(authorizationQuery(client, redirect, challenge)), redirect).Get("code")
	}
	form := func(c, v, cl, redirect string) url.Values {
		f := url.Values{"grant_type": {"authorization_code"}, "code": {c}, "code_verifier": {v}, "client_id": {cl}}
		if redirect != "" {
			f.Set("redirect_uri", redirect)
		}
		return f
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"wrong verifier", form(code(loopbackRedirect), wrongVerifier, client, loopbackRedirect), 400, "invalid_grant"},
		{"another client", form(code(loopbackRedirect), verifier, other, ""), 400, "invalid_grant"},
		{"another redirect port", form(code("http://127.0.0.1:4000/callback"), verifier, client, "http://127.0.0.1:4001/callback"), 400, "invalid_grant"},
		{"forged code", form("dac_"+strings.Repeat("A", 161), verifier, client, ""), 400, "invalid_grant"},
		{"no verifier", form(code(loopbackRedirect), "", client, ""), 400, "invalid_request"},
		{"malformed verifier", form(code(loopbackRedirect), "short", client, ""), 400, "invalid_request"},
		{"no client", form(code(loopbackRedirect), verifier, "", ""), 400, "invalid_request"},
		{"unknown client", form(code(loopbackRedirect), verifier, "dcl_forged", ""), 400, "invalid_client"},
		{"no code", form("", verifier, client, ""), 400, "invalid_request"},
		{"foreign resource", func() url.Values {
			f := form(code(loopbackRedirect), verifier, client, "")
			f.Set("resource", "https://elsewhere.example/mcp")
			return f
		}(), 400, "invalid_target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantOAuthError(t, s.exchange(tc.form), tc.status, tc.want)
		})
	}
	// The refused attempts did not use up the code: the right verifier
	// still redeems it.
	c := code(loopbackRedirect)
	wantOAuthError(t, s.exchange(form(c, wrongVerifier, client, "")), 400, "invalid_grant")
	if r := s.exchange(form(c, verifier, client, "")); r.StatusCode != http.StatusOK {
		t.Errorf("the code after a wrong verifier: %d %s", r.StatusCode, r.body)
	}
}

func TestAuthorizationEndpointErrors(t *testing.T) {
	s := startCaddy(t, sampleSite)
	client := s.registerClient(loopbackRedirect, "https://app.example/cb")
	_, challenge := newPKCE()
	good := func(change func(url.Values)) url.Values {
		q := authorizationQuery(client, loopbackRedirect, challenge)
		change(q)
		return q
	}
	// An invalid request is never redirected, even to a registered
	// redirect URI: a 400 problem names the RFC 6749 error.
	for _, tc := range []struct {
		name   string
		change func(url.Values)
		want   string
	}{
		{"no PKCE", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request"},
		{"no method", func(q url.Values) { q.Del("code_challenge_method") }, "invalid_request"},
		{"malformed challenge", func(q url.Values) { q.Set("code_challenge", "abc") }, "invalid_request"},
		{"no response type", func(q url.Values) { q.Del("response_type") }, "invalid_request"},
		{"implicit", func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type"},
		{"another scope", func(q url.Values) { q.Set("scope", "public:read admin") }, "invalid_scope"},
		{"foreign resource", func(q url.Values) { q.Set("resource", "https://elsewhere.example/") }, "invalid_target"},
		{"repeated parameter", func(q url.Values) { q["scope"] = []string{"public:read", "public:read"} }, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, redirect := range []string{loopbackRedirect, "https://app.example/cb"} {
				q := good(tc.change)
				q.Set("redirect_uri", redirect)
				r := s.authorize(q)
				if r.Header.Get("Location") != "" {
					t.Fatalf("redirected to %s", r.Header.Get("Location"))
				}
				r = s.get("/oauth/authorize?" + q.Encode())
				p := s.validateProblem(r, http.StatusBadRequest, "bad_request")
				if detail, _ := p["detail"].(string); !strings.HasPrefix(detail, tc.want+": ") {
					t.Errorf("detail %q, want it to begin with %s", detail, tc.want)
				}
				s.validate(r)
			}
		})
	}
	// Errors that must not redirect: the client or the URI is not trusted.
	for _, tc := range []struct {
		name   string
		change func(url.Values)
	}{
		{"unregistered redirect", func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") }},
		{"registered host, other path", func(q url.Values) { q.Set("redirect_uri", "https://app.example/cb/other") }},
		{"loopback, other path", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:5000/elsewhere") }},
		{"no redirect, two registered", func(q url.Values) { q.Del("redirect_uri") }},
		{"unknown client", func(q url.Values) { q.Set("client_id", "dcl_"+strings.Repeat("A", 60)) }},
		{"no client", func(q url.Values) { q.Del("client_id") }},
		{"repeated redirect", func(q url.Values) { q["redirect_uri"] = []string{loopbackRedirect, loopbackRedirect} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.authorize(good(tc.change))
			if r.Header.Get("Location") != "" {
				t.Fatalf("redirected to %s", r.Header.Get("Location"))
			}
			r = s.get("/oauth/authorize?" + good(tc.change).Encode())
			s.validateProblem(r, http.StatusBadRequest, "bad_request")
			s.validate(r)
		})
	}
}

func TestClientRegistration(t *testing.T) {
	s := startCaddy(t, sampleSite)
	r := s.do(http.MethodPost, base+"/oauth/register", strings.NewReader(`{"redirect_uris":["http://localhost:6274/oauth/callback"],
		"client_name":"x","grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"client_secret_basic","scope":"public:read"}`),
		"Content-Type", "application/json")
	s.validate(r)
	info := r.json(t)
	if r.StatusCode != http.StatusCreated || info["token_endpoint_auth_method"] != "none" || info["client_secret"] != nil ||
		r.Header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(info["client_id"].(string), "dcl_") {
		t.Fatalf("%d %v", r.StatusCode, info)
	}
	for _, tc := range []struct{ name, contentType, body, want string }{
		{"no redirect URIs", "application/json", `{"client_name":"x"}`, "invalid_redirect_uri"},
		{"http on a public host", "application/json", `{"redirect_uris":["http://app.example/cb"]}`, "invalid_redirect_uri"},
		{"a fragment", "application/json", `{"redirect_uris":["https://app.example/cb#x"]}`, "invalid_redirect_uri"},
		{"ftp", "application/json", `{"redirect_uris":["ftp://files.example/cb"]}`, "invalid_redirect_uri"},
		{"a system settings scheme", "application/json", `{"redirect_uris":["ms-settings:privacy"]}`, "invalid_redirect_uri"},
		{"a browser extension", "application/json", `{"redirect_uris":["chrome-extension://abcdefghijklmnop/cb"]}`, "invalid_redirect_uri"},
		{"javascript", "application/json", `{"redirect_uris":["javascript:alert(1)"]}`, "invalid_redirect_uri"},
		{"relative", "application/json", `{"redirect_uris":["/cb"]}`, "invalid_redirect_uri"},
		{"five URIs", "application/json", `{"redirect_uris":["https://a.example/1","https://a.example/2","https://a.example/3","https://a.example/4","https://a.example/5"]}`, "invalid_redirect_uri"},
		{"implicit only", "application/json", `{"redirect_uris":["https://a.example/1"],"grant_types":["implicit"]}`, "invalid_client_metadata"},
		{"token response", "application/json", `{"redirect_uris":["https://a.example/1"],"response_types":["token"]}`, "invalid_client_metadata"},
		{"not JSON", "application/json", `{"redirect_uris":`, "invalid_client_metadata"},
		{"URIs not a list", "application/json", `{"redirect_uris":"https://a.example/1"}`, "invalid_client_metadata"},
		{"a form", formType, `redirect_uris=https://a.example/1`, "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(http.MethodPost, base+"/oauth/register", strings.NewReader(tc.body), "Content-Type", tc.contentType)
			s.validate(r)
			wantOAuthError(t, r, http.StatusBadRequest, tc.want)
		})
	}
}

// TestClientRegistrationAsDescribed: /oauth/register accepts exactly the
// bodies its served schema (ClientRegistration) accepts, so a client that
// validates its request before sending it, or a tester generating requests
// from the schema, is never surprised. The one rule no JSON Schema can
// state, at most 1024 bytes of redirect URIs together, is checked apart.
func TestClientRegistrationAsDescribed(t *testing.T) {
	s := startCaddy(t, sampleSite)
	uris := func(u ...string) string {
		b, _ := json.Marshal(map[string][]string{"redirect_uris": u})
		return string(b)
	}
	long := "https://app.example/" + strings.Repeat("a", 600)
	for _, body := range []string{
		uris("https://app.example/cb"),
		uris("https://app.example"),
		uris("https://app.example:8443/cb?x=1"),
		uris("https://[2001:db8::1]/cb"),
		uris("HTTPS://App.Example/cb"),
		uris("http://127.0.0.1:8765/callback"),
		uris("http://127.255.0.1/cb"),
		uris("http://localhost/cb"),
		uris("http://LocalHost:6274/oauth/callback"),
		uris("http://[::1]:8765/cb"),
		uris("com.example.app:/callback"),
		uris("com.example.app://callback/path"),
		uris("cursor://anysphere.cursor-mcp/oauth/callback"),
		uris("https://a.example/1", "https://a.example/2", "https://a.example/3", "https://a.example/4"),
		uris("https://a.example/1", "https://a.example/1"),
		`{"redirect_uris":["https://a.example/cb"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`,
		`{"redirect_uris":["https://a.example/cb"],"grant_types":null,"response_types":null,"scope":null,"token_endpoint_auth_method":null}`,
		`{"redirect_uris":["https://a.example/cb"],"client_name":"x","scope":"public:read","token_endpoint_auth_method":"client_secret_basic"}`,

		uris(),
		uris("https://a.example/1", "https://a.example/2", "https://a.example/3", "https://a.example/4", "https://a.example/5"),
		uris("https://a.example/1", "https://a.example/1", "https://a.example/1", "https://a.example/1", "https://a.example/1"),
		uris("http://app.example/cb"),
		uris("http://127.0.0.01/cb"),
		uris("http://[::ffff:127.0.0.1]/cb"),
		uris("http://localhost.example/cb"),
		uris("https://app.example/cb#x"),
		uris("https://user@app.example/cb"),
		uris("https:///cb"),
		uris("https://:443/cb"),
		uris("https://app.example/a b"),
		uris("https://app.example/a\\b"),
		uris("https://app.example/caf\u00e9"),
		uris("https://app.example:80x/cb"),
		uris("ftp://files.example/cb"),
		uris("ms-settings:privacy"),
		uris("chrome-extension://abcdefghijklmnop/cb"),
		uris("javascript:alert(1)"),
		uris("com.example.app://user@host/cb"),
		uris("com..app:/cb"),
		uris("/cb"),
		uris(""),
		`{"redirect_uris":null}`,
		`{"redirect_uris":"https://a.example/1"}`,
		`{"redirect_uris":[1]}`,
		`{"client_name":"x"}`,
		`{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}`,
		`{"redirect_uris":["https://a.example/cb"],"grant_types":[]}`,
		`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`,
		`{"redirect_uris":["https://a.example/cb"],"scope":1}`,
		`[]`,
		`{"redirect_uris":`,
	} {
		s.postAsDescribed("/oauth/register", "ClientRegistration", body, http.StatusCreated)
	}

	// Each URI fits the schema (at most 1024 bytes), two together do not.
	body := uris(long, long+"b")
	if !s.schemaAccepts("ClientRegistration", body) {
		t.Error("the schema refuses two URIs of 620 bytes each")
	}
	r := s.do(http.MethodPost, base+"/oauth/register", strings.NewReader(body), "Content-Type", "application/json")
	wantOAuthError(t, r, http.StatusBadRequest, "invalid_redirect_uri")
	if !strings.Contains(componentDescription(t, s, "ClientRegistration", "redirect_uris"), "1024 bytes together") {
		t.Error("the description of redirect_uris does not state the limit on their length together")
	}
}

// componentDescription is the description of a property of a schema
// component of the served /openapi.json.
func componentDescription(t *testing.T, s *server, component, property string) string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct{ Description string }
			}
		}
	}
	if err := json.Unmarshal(s.get("/openapi.json").body, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas[component].Properties[property].Description
}

func TestOAuthMetadata(t *testing.T) {
	s := startCaddy(t, sampleSite)
	r := s.get("/.well-known/oauth-authorization-server")
	s.validate(r)
	asm := r.json(t)
	for key, want := range map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + "/oauth/authorize",
		"token_endpoint":                                 base + "/oauth/token",
		"registration_endpoint":                          base + "/oauth/register",
		"response_types_supported":                       []any{"code"},
		"code_challenge_methods_supported":               []any{"S256"},
		"token_endpoint_auth_methods_supported":          []any{"none"},
		"scopes_supported":                               []any{"public:read"},
		"grant_types_supported":                          []any{"authorization_code", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		"service_documentation":                          base + "/auth.md",
		"authorization_response_iss_parameter_supported": true,
	} {
		got, _ := json.Marshal(asm[key])
		w, _ := json.Marshal(want)
		if string(got) != string(w) {
			t.Errorf("%s: %s, want %s", key, got, w)
		}
	}
	for path, resource := range map[string]string{
		"/.well-known/oauth-protected-resource":     base,
		"/.well-known/oauth-protected-resource/mcp": base + "/mcp",
	} {
		r := s.get(path)
		s.validate(r)
		prm := r.json(t)
		if prm["resource"] != resource || prm["authorization_servers"].([]any)[0] != base {
			t.Errorf("%s: %v", path, prm)
		}
	}
}

// TestEveryUnauthorizedCarriesTheChallenge sends a stale token to every
// route that checks bearer tokens: each 401 names the protected resource
// metadata (/mcp its own), so that an OAuth client can recover.
func TestEveryUnauthorizedCarriesTheChallenge(t *testing.T) {
	s := startCaddy(t, sampleSite)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(s.get("/openapi.json").body, &doc); err != nil {
		t.Fatal(err)
	}
	slug := s.get("/api/v1/insights").json(t)["items"].([]any)[0].(map[string]any)["slug"].(string)
	checked := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.Responses["401"] == nil {
				continue
			}
			checked++
			var body *strings.Reader
			headers := []string{"Authorization", "Bearer dsc_stale-token"}
			if method == "post" {
				body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				headers = append(headers, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
			}
			target := base + strings.Replace(path, "{slug}", slug, 1)
			var r *response
			if body != nil {
				r = s.do(strings.ToUpper(method), target, body, headers...)
			} else {
				r = s.do(strings.ToUpper(method), target, nil, headers...)
			}
			s.validateProblem(r, http.StatusUnauthorized, "invalid_token")
			s.validate(r)
			want := `Bearer error="invalid_token", scope="public:read", resource_metadata="` + prmURL + `"`
			if path == "/mcp" {
				want = `Bearer error="invalid_token", scope="public:read", resource_metadata="` + prmMCPURL + `"`
			}
			if got := r.Header.Get("WWW-Authenticate"); got != want {
				t.Errorf("%s %s: WWW-Authenticate %q, want %q", method, path, got, want)
			}
		}
	}
	if checked < 6 {
		t.Errorf("only %d operations declare a 401", checked)
	}
}

// TestRFC6750Details checks the points of RFC 6750 that clients trip on.
func TestRFC6750Details(t *testing.T) {
	s := startCaddy(t, sampleSite)
	valid := s.register()
	for name, header := range map[string]string{
		"Basic": "Basic dXNlcjpwYXNz",
		"DPoP":  "DPoP " + valid,
	} {
		r := s.get("/api/v1/profile", "Authorization", header)
		if r.StatusCode != http.StatusOK || r.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("%s: %d, WWW-Authenticate %q; another scheme is not this site's business", name, r.StatusCode, r.Header.Get("WWW-Authenticate"))
		}
	}

	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/profile", nil)
	req.Header.Add("Authorization", "Bearer "+valid)
	req.Header.Add("Authorization", "Bearer "+valid)
	r := s.send(req)
	s.validateProblem(r, http.StatusBadRequest, "bad_request")
	if got := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer error="invalid_request"`) || !strings.Contains(got, prmURL) {
		t.Errorf("two Authorization headers: WWW-Authenticate %q", got)
	}

	// The token is checked before the slug: a forged token on an unknown
	// insight is a 401, not a 404 that reveals nothing useful.
	r = s.get("/api/v1/insights/no-such-insight", "Authorization", "Bearer dsc_forged")
	s.validateProblem(r, http.StatusUnauthorized, "invalid_token")

	// RFC 6749: a token request that is not form-encoded is invalid_request.
	for _, ct := range []string{"application/json", "text/plain", "multipart/form-data; boundary=x"} {
		r := s.do(http.MethodPost, base+"/oauth/token", strings.NewReader(`{"grant_type":"client_credentials"}`), "Content-Type", ct)
		s.validate(r)
		wantOAuthError(t, r, http.StatusBadRequest, "invalid_request")
	}
}

// TestCodesAreSingleUseAcrossInstances redeems one code at two Caddy
// processes that share storage, at the same time and one after the other:
// exactly one token comes out.
func TestCodesAreSingleUseAcrossInstances(t *testing.T) {
	storage := t.TempDir()
	config := func(port int) string { return processCaddyfile(port, storage, "rate_limit 1000 60s") }
	a := startProcess(t, "instance A", "http://localhost:9231", config(9231))
	b := startProcess(t, "instance B", "http://localhost:9232", config(9232))
	post := func(target, contentType, body string) (int, map[string]any) {
		resp, err := http.Post(target, contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	_, info := post(a.url+"/oauth/register", "application/json", `{"redirect_uris":["`+loopbackRedirect+`"]}`)
	client, _ := info["client_id"].(string)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for round := range 3 {
		verifier, challenge := newPKCE()
		// The code comes from B, which accepts A's client.
		query := authorizationQuery(client, loopbackRedirect, challenge)
		query.Del("resource") // names the in-process server
		resp, err := noFollow.Get(b.url + "/oauth/authorize?" + query.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		code := loc.Query().Get("code")
		if code == "" {
			t.Fatalf("no code: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "client_id": {client}}.Encode()
		var wg sync.WaitGroup
		statuses := make([]int, 4)
		for i := range statuses {
			wg.Go(func() {
				target := []*process{a, b}[i%2].url + "/oauth/token"
				statuses[i], _ = post(target, formType, form)
			})
		}
		wg.Wait()
		ok := 0
		for _, st := range statuses {
			if st == http.StatusOK {
				ok++
			} else if st != http.StatusBadRequest {
				t.Errorf("round %d: status %d", round, st)
			}
		}
		if ok != 1 {
			t.Errorf("round %d: %d of 4 concurrent redemptions on two instances succeeded (%v), want 1", round, ok, statuses)
		}
		if st, e := post(a.url+"/oauth/token", formType, form); st != http.StatusBadRequest || e["error"] != "invalid_grant" {
			t.Errorf("round %d: a later redemption: %d %v", round, st, e)
		}
	}
}
