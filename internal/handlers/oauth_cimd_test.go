package handlers

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/internal/cimd"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

const testVerifier = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"

func testChallenge() string {
	sum := sha256.Sum256([]byte(testVerifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// clientOrigin is a client's https server on loopback, publishing its
// metadata documents.
func clientOrigin(t *testing.T) (*httptest.Server, *cimd.Resolver) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := "https://" + r.Host + r.URL.Path
		redirect := "http://127.0.0.1:9999/cb"
		switch r.URL.Path {
		case "/web.json":
			redirect = "https://app.example/cb"
		case "/ftp.json":
			redirect = "ftp://app.example/cb"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Test app","redirect_uris":[%q]}`, id, redirect)
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	resolver, err := cimd.New(cimd.Options{AllowPrivate: true, RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resolver.Close)
	return srv, resolver
}

type oauthHarness struct {
	t *testing.T
	s *Service
}

func (h oauthHarness) do(method, target, body string, headers ...string) *httptest.ResponseRecorder {
	h.t.Helper()
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", respond.MediaForm)
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.s.ServeHTTP(rec, req)
	return rec
}

// authorize returns the code of a valid authorization request.
func (h oauthHarness) authorize(clientID, redirect string, resources ...string) string {
	h.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {testChallenge()}, "code_challenge_method": {"S256"}, "resource": resources}
	rec := h.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "")
	if rec.Code != http.StatusFound {
		h.t.Fatalf("authorize: %d %s", rec.Code, rec.Body)
	}
	loc, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), redirect+"?") {
		h.t.Fatalf("authorize: Location %q", rec.Header().Get("Location"))
	}
	return loc.Query().Get("code")
}

// token posts a token request and returns the status and the decoded body.
func (h oauthHarness) token(form url.Values) (int, map[string]any) {
	h.t.Helper()
	rec := h.do(http.MethodPost, "/oauth/token", form.Encode())
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		h.t.Fatalf("token: %v: %s", err, rec.Body)
	}
	return rec.Code, body
}

func (h oauthHarness) exchange(code, clientID, redirect string, resources ...string) (int, map[string]any) {
	h.t.Helper()
	return h.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID},
		"redirect_uri": {redirect}, "code_verifier": {testVerifier}, "resource": resources})
}

func TestClientIDMetadataDocumentFlow(t *testing.T) {
	origin, resolver := clientOrigin(t)
	h := oauthHarness{t, newTestService(t, Config{BaseURL: "https://example.com", ClientMetadata: resolver})}
	clientID := origin.URL + "/client.json"
	const redirect = "http://127.0.0.1:9999/cb"

	code := h.authorize(clientID, redirect)
	status, tok := h.exchange(code, clientID, redirect)
	if status != http.StatusOK || tok["scope"] != "public:read" {
		t.Fatalf("token: %d %v", status, tok)
	}
	if rec := h.do(http.MethodGet, "/api/v1/profile", "", "Authorization", "Bearer "+tok["access_token"].(string)); rec.Code != http.StatusOK {
		t.Errorf("the token at the API: %d %s", rec.Code, rec.Body)
	}

	// Loopback: any port (RFC 8252); the redirect_uri may be left out at
	// the token endpoint when the document lists one.
	code = h.authorize(clientID, "http://127.0.0.1:5555/cb")
	if status, body := h.exchange(code, clientID, "http://127.0.0.1:5555/cb"); status != http.StatusOK {
		t.Errorf("another loopback port: %d %v", status, body)
	}
	code = h.authorize(clientID, redirect)
	if status, body := h.exchange(code, clientID, ""); status != http.StatusOK {
		t.Errorf("no redirect_uri at the token endpoint: %d %v", status, body)
	}

	// An https redirect URI gets the page that names the host.
	q := url.Values{"response_type": {"code"}, "client_id": {origin.URL + "/web.json"}, "redirect_uri": {"https://app.example/cb"},
		"code_challenge": {testChallenge()}, "code_challenge_method": {"S256"}}
	rec := h.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "")
	page := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(page, "<h1>Continue to app.example?</h1>") ||
		!strings.Contains(page, "<strong>Test app</strong>, described by <strong>"+strings.TrimPrefix(origin.URL, "https://")+"</strong>") {
		t.Errorf("https redirect URI: the page names neither the destination nor the client's document: %d %s", rec.Code, page)
	}

	for name, tc := range map[string]struct {
		clientID, redirect, want string
	}{
		"an unlisted redirect URI":      {clientID, "http://127.0.0.1:9999/other", "not registered"},
		"a listed ftp redirect URI":     {origin.URL + "/ftp.json", "ftp://app.example/cb", "ftp scheme"},
		"an http client_id":             {"http://" + strings.TrimPrefix(origin.URL, "https://") + "/client.json", redirect, "must use https"},
		"a client_id without a path":    {origin.URL, redirect, "no path"},
		"another client's code binding": {origin.URL + "/other.json", "http://127.0.0.1:9999/elsewhere", "not registered"},
	} {
		q := url.Values{"response_type": {"code"}, "client_id": {tc.clientID}, "redirect_uri": {tc.redirect},
			"code_challenge": {testChallenge()}, "code_challenge_method": {"S256"}}
		rec := h.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "")
		if rec.Code != http.StatusBadRequest || rec.Header().Get("Location") != "" || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %q %s", name, rec.Code, rec.Header().Get("Location"), rec.Body)
		}
	}

	// A code for one client is not another's.
	code = h.authorize(clientID, redirect)
	if status, body := h.exchange(code, origin.URL+"/other.json", redirect); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("another client's code: %d %v", status, body)
	}
	if status, body := h.exchange(code, "http://x.example/client.json", redirect); status != http.StatusBadRequest || body["error"] != "invalid_client" {
		t.Errorf("an http client_id at the token endpoint: %d %v", status, body)
	}
}

func TestClientIDMetadataDocumentsOff(t *testing.T) {
	h := oauthHarness{t, newTestService(t, Config{BaseURL: "https://example.com"})}
	rec := h.do(http.MethodGet, "/.well-known/oauth-authorization-server", "")
	if !strings.Contains(rec.Body.String(), `"client_id_metadata_document_supported":false`) {
		t.Errorf("metadata with documents off: %s", rec.Body)
	}
	q := url.Values{"response_type": {"code"}, "client_id": {"https://app.example/client.json"}, "redirect_uri": {"http://127.0.0.1/cb"},
		"code_challenge": {testChallenge()}, "code_challenge_method": {"S256"}}
	rec = h.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "does not use Client ID Metadata Documents") {
		t.Errorf("a URL client id with documents off: %d %s", rec.Code, rec.Body)
	}
	_, resolver := clientOrigin(t)
	h = oauthHarness{t, newTestService(t, Config{BaseURL: "https://example.com", ClientMetadata: resolver})}
	rec = h.do(http.MethodGet, "/.well-known/oauth-authorization-server", "")
	if !strings.Contains(rec.Body.String(), `"client_id_metadata_document_supported":true`) {
		t.Errorf("metadata with documents on: %s", rec.Body)
	}
}

func TestTokensBoundToResource(t *testing.T) {
	origin, resolver := clientOrigin(t)
	h := oauthHarness{t, newTestService(t, Config{BaseURL: "https://example.com", ClientMetadata: resolver})}
	clientID := origin.URL + "/client.json"
	const redirect = "http://127.0.0.1:9999/cb"
	const site, mcp, profile = "https://example.com", "https://example.com/mcp", "https://example.com/api/v1/profile"

	use := func(tok map[string]any, path string) *httptest.ResponseRecorder {
		t.Helper()
		return h.do(http.MethodGet, path, "", "Authorization", "Bearer "+tok["access_token"].(string))
	}
	issued := func(status int, tok map[string]any) map[string]any {
		t.Helper()
		if status != http.StatusOK {
			t.Fatalf("token: %d %v", status, tok)
		}
		return tok
	}

	// Asked for /mcp: refused at the API, with a 401 naming the resource.
	tok := issued(h.exchange(h.authorize(clientID, redirect, mcp), clientID, redirect))
	rec := use(tok, "/api/v1/profile")
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "another resource") ||
		!strings.Contains(rec.Header().Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("a /mcp token at the API: %d %s", rec.Code, rec.Body)
	}

	// Asked for the site: good on the API (and on /mcp, by the same check).
	tok = issued(h.exchange(h.authorize(clientID, redirect, site+"/"), clientID, redirect))
	if rec := use(tok, "/api/v1/profile"); rec.Code != http.StatusOK {
		t.Errorf("a site token at the API: %d %s", rec.Code, rec.Body)
	}

	// The token request may narrow the authorization's resources, not widen them.
	tok = issued(h.exchange(h.authorize(clientID, redirect, site), clientID, redirect, profile))
	if rec := use(tok, "/api/v1/profile"); rec.Code != http.StatusOK {
		t.Errorf("a narrowed token where it was asked for: %d", rec.Code)
	}
	if rec := use(tok, "/api/v1/health"); rec.Code != http.StatusUnauthorized {
		t.Errorf("a narrowed token elsewhere: %d", rec.Code)
	}
	status, body := h.exchange(h.authorize(clientID, redirect, mcp), clientID, redirect, site)
	if status != http.StatusBadRequest || body["error"] != "invalid_target" {
		t.Errorf("a token request wider than its authorization: %d %v", status, body)
	}

	// Without resource, as before: valid everywhere.
	tok = issued(h.exchange(h.authorize(clientID, redirect), clientID, redirect))
	for _, path := range []string{"/api/v1/profile", "/api/v1/health"} {
		if rec := use(tok, path); rec.Code != http.StatusOK {
			t.Errorf("an unbound token at %s: %d", path, rec.Code)
		}
	}

	// Other grants bind too; a foreign resource is invalid_target everywhere.
	tok = issued(h.token(url.Values{"grant_type": {"client_credentials"}, "resource": {mcp}}))
	if rec := use(tok, "/api/v1/profile"); rec.Code != http.StatusUnauthorized {
		t.Errorf("a client_credentials token for /mcp at the API: %d", rec.Code)
	}
	for name, form := range map[string]url.Values{
		"client_credentials": {"grant_type": {"client_credentials"}, "resource": {"https://evil.example"}},
		"five resources":     {"grant_type": {"client_credentials"}, "resource": {site, mcp, profile, site + "/api/v1/health", site + "/api/v1/insights"}},
		"authorization_code": {"grant_type": {"authorization_code"}, "code": {h.authorize(clientID, redirect)}, "client_id": {clientID},
			"redirect_uri": {redirect}, "code_verifier": {testVerifier}, "resource": {"https://example.com.evil/mcp"}},
	} {
		if status, body := h.token(form); status != http.StatusBadRequest || body["error"] != "invalid_target" {
			t.Errorf("%s with a foreign resource: %d %v", name, status, body)
		}
	}
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {testChallenge()}, "code_challenge_method": {"S256"}, "resource": {"https://evil.example/mcp"}}
	if rec := h.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), ""); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "invalid_target") {
		t.Errorf("authorize with a foreign resource: %d %s", rec.Code, rec.Body)
	}
}
