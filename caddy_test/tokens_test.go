package caddytest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

const (
	formType = "application/x-www-form-urlencoded"
	wwwAuth  = `Bearer error="invalid_token", scope="public:read", resource_metadata="` + base + `/.well-known/oauth-protected-resource"`
)

func (s *server) register() string {
	s.t.Helper()
	r := s.do(http.MethodPost, base+"/agent/register", nil)
	if r.StatusCode != http.StatusOK {
		s.t.Fatalf("register: %d %s", r.StatusCode, r.body)
	}
	return r.json(s.t)["access_token"].(string)
}

func TestRegisterAndUseToken(t *testing.T) {
	s := startCaddy(t, sampleSite)
	r := s.do(http.MethodPost, base+"/agent/register", nil)
	s.validate(r)
	tok := r.json(t)
	if tok["token_type"] != "Bearer" || tok["expires_in"] != 86400.0 || tok["scope"] != "public:read" ||
		r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token response %v, Cache-Control %q", tok, r.Header.Get("Cache-Control"))
	}
	access := tok["access_token"].(string)
	if strings.Count(access, ".") == 2 {
		t.Errorf("the token %q looks like a JWT; it must be opaque", access)
	}
	if other := s.register(); other == access {
		t.Error("two registrations gave the same token")
	}
	for _, path := range append(apiPaths, "/llms.txt", "/openapi.json") {
		r := s.get(path, "Authorization", "Bearer "+access)
		if r.StatusCode != http.StatusOK {
			t.Errorf("%s with a valid token: %d %s", path, r.StatusCode, r.body)
		}
	}
}

func TestInvalidTokensAreRefused(t *testing.T) {
	s := startCaddy(t, sampleSite)
	valid := s.register()
	flipped := []byte(valid)
	flipped[len(flipped)/2] ^= 1
	for name, header := range map[string]string{
		"tampered":       "Bearer " + string(flipped),
		"truncated":      "Bearer " + valid[:len(valid)-3],
		"garbage":        "Bearer not-a-token",
		"a JWT":          "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
		"no token":       "Bearer",
		"two tokens":     "Bearer " + valid + " " + valid,
		"oversized":      "Bearer " + strings.Repeat("A", 6000),
		"trailing space": "Bearer " + valid + "\t=",
	} {
		t.Run(name, func(t *testing.T) {
			r := s.get("/api/v1/profile", "Authorization", header)
			p := s.validateProblem(r, http.StatusUnauthorized, "invalid_token")
			s.validate(r)
			if r.Header.Get("WWW-Authenticate") != wwwAuth {
				t.Errorf("WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
			}
			if hint := p["hint"].(string); !strings.Contains(hint, "Omit the Authorization header") || !strings.Contains(hint, "/agent/register") {
				t.Errorf("hint %q", hint)
			}
			if strings.Contains(string(r.body), valid) {
				t.Error("the problem repeats the token")
			}
		})
	}
}

func TestTokenExpires(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		rate_limit 1500 60s
		token_ttl 1s
	}
}
`)
	r := s.do(http.MethodPost, base+"/agent/register", nil)
	if ttl := r.json(t)["expires_in"]; ttl != 1.0 {
		t.Fatalf("expires_in %v", ttl)
	}
	tok := r.json(t)["access_token"].(string)
	if r := s.get("/api/v1", "Authorization", "Bearer "+tok); r.StatusCode != http.StatusOK {
		t.Fatalf("fresh token: %d", r.StatusCode)
	}
	time.Sleep(2100 * time.Millisecond)
	r = s.get("/api/v1", "Authorization", "Bearer "+tok)
	if p := s.validateProblem(r, http.StatusUnauthorized, "invalid_token"); !strings.Contains(p["detail"].(string), "expired") {
		t.Errorf("detail %q", p["detail"])
	}
}

func TestIdentityFlow(t *testing.T) {
	s := startCaddy(t, sampleSite)
	r := s.do(http.MethodPost, base+"/agent/identity", strings.NewReader(`{"type":"anonymous"}`), "Content-Type", "application/json")
	s.validate(r)
	id := r.json(t)
	if id["registration_type"] != "anonymous" || !strings.HasPrefix(id["registration_id"].(string), "anon_") ||
		id["claim_token"] == "" || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("identity %v", id)
	}
	assertion := id["identity_assertion"].(string)

	claim := s.do(http.MethodPost, base+"/agent/identity/claim", strings.NewReader(`{"claim_token":"`+id["claim_token"].(string)+`"}`), "Content-Type", "application/json")
	s.validate(claim)
	if c := claim.json(t); c["claim_required"] != false || !strings.Contains(c["message"].(string), "not required") {
		t.Errorf("claim %v", c)
	}

	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}, "scope": {"public:read"}}
	r = s.do(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()), "Content-Type", formType)
	s.validate(r)
	tok := r.json(t)
	if tok["token_type"] != "Bearer" || tok["scope"] != "public:read" {
		t.Fatalf("token %v", tok)
	}
	if r := s.get("/api/v1/insights", "Authorization", "Bearer "+tok["access_token"].(string)); r.StatusCode != http.StatusOK {
		t.Errorf("exchanged token: %d", r.StatusCode)
	}
}

func TestTokenEndpointErrors(t *testing.T) {
	s := startCaddy(t, sampleSite)
	tampered := func() string {
		r := s.do(http.MethodPost, base+"/agent/identity", strings.NewReader(`{"type":"anonymous"}`), "Content-Type", "application/json")
		a := r.json(t)["identity_assertion"].(string)
		return a[:len(a)-4] + "AAAA"
	}()
	for _, tc := range []struct{ name, body, want string }{
		{"no grant", "", "invalid_request"},
		{"unknown grant", "grant_type=password&username=a&password=b", "unsupported_grant_type"},
		{"authorization code without a client", "grant_type=authorization_code&code=x", "invalid_request"},
		{"jwt-bearer without assertion", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", "invalid_request"},
		{"tampered assertion", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" + tampered, "invalid_grant"},
		{"garbage assertion", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=abc", "invalid_grant"},
		{"unsigned JWT", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbm9uX3gifQ.", "invalid_grant"},
		{"another scope", "grant_type=client_credentials&scope=admin", "invalid_scope"},
		{"a second scope", "grant_type=client_credentials&scope=public:read%20public:write", "invalid_scope"},
		{"repeated grant", "grant_type=client_credentials&grant_type=client_credentials", "invalid_request"},
		{"broken encoding", "grant_type=%zz", "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(http.MethodPost, base+"/oauth/token", strings.NewReader(tc.body), "Content-Type", formType)
			s.validate(r)
			var e map[string]any
			if err := json.Unmarshal(r.body, &e); err != nil || r.StatusCode != http.StatusBadRequest || e["error"] != tc.want ||
				e["error_description"] == "" || r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%d %s, want 400 %s", r.StatusCode, r.body, tc.want)
			}
		})
	}
}

func TestAuthEndpointProblems(t *testing.T) {
	s := startCaddy(t, sampleSite)
	big := strings.Repeat("x", 64<<10+1)
	for _, tc := range []struct {
		name, method, path, contentType, body string
		status                                int
		code                                  string
	}{
		{"GET register", http.MethodGet, "/agent/register", "", "", 405, "method_not_allowed"},
		{"GET token", http.MethodGet, "/oauth/token", "", "", 405, "method_not_allowed"},
		{"PUT identity", http.MethodPut, "/agent/identity", "", "", 405, "method_not_allowed"},
		{"identity of another type", http.MethodPost, "/agent/identity", "application/json", `{"type":"person"}`, 400, "bad_request"},
		{"identity without a type", http.MethodPost, "/agent/identity", "application/json", `{}`, 400, "bad_request"},
		{"identity not JSON", http.MethodPost, "/agent/identity", "application/json", `{"type":`, 400, "bad_request"},
		{"identity as a form", http.MethodPost, "/agent/identity", formType, "type=anonymous", 415, "unsupported_media_type"},
		{"huge token request", http.MethodPost, "/oauth/token", formType, big, 413, "payload_too_large"},
		{"huge registration", http.MethodPost, "/agent/register", "", big, 413, "payload_too_large"},
		{"huge identity", http.MethodPost, "/agent/identity", "application/json", big, 413, "payload_too_large"},
		{"huge claim", http.MethodPost, "/agent/identity/claim", "application/json", big, 413, "payload_too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.contentType != "" {
				headers = []string{"Content-Type", tc.contentType}
			}
			r := s.do(tc.method, base+tc.path, strings.NewReader(tc.body), headers...)
			p := s.validateProblem(r, tc.status, tc.code)
			if tc.method == http.MethodPost {
				s.validate(r)
			}
			if detail := p["detail"].(string); tc.code == "bad_request" && !strings.Contains(detail, "type") && !strings.Contains(detail, "JSON") {
				t.Errorf("the detail does not say what is wrong: %q", p["detail"])
			}
			if tc.status == 405 && r.Header.Get("Allow") != "POST, OPTIONS" {
				t.Errorf("Allow %q", r.Header.Get("Allow"))
			}
		})
	}
}

// TestIdentityRequestAsDescribed: /agent/identity takes exactly the body
// its served schema (IdentityRequest, no extra properties, as the
// specification says of every object) accepts, and refuses every other
// with the described 400 problem.
func TestIdentityRequestAsDescribed(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, body := range []string{
		`{"type":"anonymous"}`,
		` { "type" : "anonymous" } `,
		`{"type":"anonymous","name":"my agent"}`,
		`{"type":"anonymous","type2":null}`,
		`{"type":"anonymous","Type":"anonymous"}`,
		`{"type":"person"}`,
		`{"type":"Anonymous"}`,
		`{"type":null}`,
		`{"type":1}`,
		`{}`,
		`[]`,
		`null`,
		`"anonymous"`,
		`{"type":"anonymous"`,
	} {
		if r := s.postAsDescribed("/agent/identity", "IdentityRequest", body, http.StatusOK); r.StatusCode == http.StatusBadRequest {
			s.validateProblem(r, http.StatusBadRequest, "bad_request")
		}
	}
}

// postAsDescribed POSTs a JSON body to path and checks that the endpoint
// accepts it (with status ok) exactly when the served description's schema
// component does, else answers 400; the answer validates against the served
// description. It returns the answer.
func (s *server) postAsDescribed(path, component, body string, ok int) *response {
	s.t.Helper()
	r := s.do(http.MethodPost, base+path, strings.NewReader(body), "Content-Type", "application/json")
	described := s.schemaAccepts(component, body)
	switch {
	case described && r.StatusCode != ok:
		s.t.Errorf("%s: the schema accepts it, the endpoint answers %d: %s", body, r.StatusCode, r.body)
	case !described && r.StatusCode != http.StatusBadRequest:
		s.t.Errorf("%s: the schema refuses it, the endpoint answers %d", body, r.StatusCode)
	}
	s.validate(r)
	return r
}

// TestOAuthClientLibrary gets a token with a real OAuth 2.0 client library
// (client credentials, no client secret) and calls the API with it.
func TestOAuthClientLibrary(t *testing.T) {
	s := startCaddy(t, sampleSite)
	cfg := clientcredentials.Config{
		TokenURL:  base + "/oauth/token",
		Scopes:    []string{"public:read"},
		AuthStyle: oauth2.AuthStyleInParams,
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.Client)
	tok, err := cfg.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.Expiry.Before(time.Now().Add(23*time.Hour)) {
		t.Errorf("token %+v", tok)
	}
	resp, err := cfg.Client(ctx).Get(base + "/api/v1/profile")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name"`) {
		t.Errorf("API call with the library's token: %d %s", resp.StatusCode, body)
	}
}

func TestTokenEndpointsAreRateLimited(t *testing.T) {
	s := startCaddy(t, limitedSite("tokens", "rate_limit 3 60s"))
	for range 3 {
		s.register()
	}
	r := s.do(http.MethodPost, base+"/agent/register", nil)
	s.validateProblem(r, http.StatusTooManyRequests, "rate_limited")
	s.validate(r)
}

// TestTokensAcrossInstancesAndRestarts runs two Caddy processes that share
// file-system storage: each accepts the other's tokens, and an instance
// started again accepts the tokens it issued before.
func TestTokensAcrossInstancesAndRestarts(t *testing.T) {
	storage := t.TempDir()
	config := func(port int) string { return processCaddyfile(port, storage, "rate_limit 1000 60s") }
	a := startProcess(t, "instance A", "http://localhost:9183", config(9183))
	b := startProcess(t, "instance B", "http://localhost:9184", config(9184))
	register := func(p *process) string {
		resp, err := http.Post(p.url+"/agent/register", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
			t.Fatalf("register at %s: %d %v", p.url, resp.StatusCode, err)
		}
		return tok.AccessToken
	}
	use := func(p *process, tok string) int {
		req, _ := http.NewRequest(http.MethodGet, p.url+"/api/v1/profile", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	fromA, fromB := register(a), register(b)
	if use(b, fromA) != http.StatusOK || use(a, fromB) != http.StatusOK {
		t.Fatal("the instances do not accept each other's tokens")
	}
	_ = a.cmd.Process.Kill()
	_ = a.cmd.Wait()
	a = startProcess(t, "instance A, restarted", "http://localhost:9183", config(9183))
	if use(a, fromA) != http.StatusOK || use(a, fromB) != http.StatusOK {
		t.Error("the restarted instance refuses tokens issued before")
	}
}
