package cimd

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

func TestIsURL(t *testing.T) {
	for id, want := range map[string]bool{
		"https://app.example/client.json": true,
		"HTTPS://app.example/client.json": true,
		"http://app.example/client.json":  true,
		"dcl_AQEAFGh0dHA":                 false,
		"app.example/client.json":         false,
		"":                                false,
		"urn:example:client":              false,
	} {
		if got := IsURL(id); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		id, want string // want: "" or a part of the reason
	}{
		{"https://app.example/client.json", ""},
		{"https://app.example:8443/oauth/client?v=2", ""},
		{"https://127.0.0.1/client.json", ""}, // the address is the fetcher's business
		{"http://app.example/client.json", "must use https"},
		{"HTTPS://app.example/client.json", "in lower case"},
		{"ftp://app.example/client.json", "must use https"},
		{"https:///client.json", "no host"},
		{"https:app.example", "in lower case"},
		{"https://user:pw@app.example/client.json", "user information"},
		{"https://app.example/client.json#x", "fragment"},
		{"https://app.example", "no path"},
		{"https://app.example/", "no path"},
		{"https://app.example/a/../client.json", `".." segment`},
		{"https://app.example/a/%2e%2E/client.json", `".." segment`},
		{"https://app.example/./client.json", `"." segment`},
		{"https://app.example:0/client.json", "port"},
		{"https://app.example:99999/client.json", "port"},
		{"https://app.example/client json", "whitespace"},
		{"https://app.example/clïent.json", "printable ASCII"},
		{"https://app.example/" + strings.Repeat("a", MaxURLLen), "longer than"},
	} {
		err := CheckURL(tc.id)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v, want nil", tc.id, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckURL(%q) = %v, want an error about %q", tc.id, err, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	const id = "https://app.example/client.json"
	valid := `{"client_id":"` + id + `","client_name":"App","redirect_uris":["http://127.0.0.1/cb"]`
	for _, tc := range []struct {
		name, contentType, body, want string
	}{
		{"minimal", "application/json", valid + `}`, ""},
		{"suffix media type", "application/oauth-client+json", valid + `}`, ""},
		{"every usual member", "application/json", valid + `,"grant_types":["authorization_code","refresh_token"],"response_types":["code"],` +
			`"token_endpoint_auth_method":"none","logo_uri":"https://app.example/logo.png","jwks":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"abc"}]}}`, ""},
		{"HTML", "text/html", valid + `}`, "not as JSON"},
		{"no media type", "", valid + `}`, "not as JSON"},
		{"not JSON", "application/json", `<html>`, "not a JSON object"},
		{"an array", "application/json", `[]`, "not a JSON object"},
		{"wrong types", "application/json", `{"client_id":1}`, "not a JSON object"},
		{"null", "application/json", `null`, "no client_id"},
		{"no client_id", "application/json", `{"client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}`, "no client_id"},
		{"another client_id", "application/json", `{"client_id":"https://app.example/other.json","client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}`, "not the URL"},
		{"client_id differing in case", "application/json", `{"client_id":"https://APP.example/client.json","client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}`, "not the URL"},
		{"no client_name", "application/json", `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"]}`, "no client_name"},
		{"blank client_name", "application/json", `{"client_id":"` + id + `","client_name":" ","redirect_uris":["http://127.0.0.1/cb"]}`, "no client_name"},
		{"no redirect_uris", "application/json", `{"client_id":"` + id + `","client_name":"App"}`, "no redirect_uris"},
		{"empty redirect_uris", "application/json", `{"client_id":"` + id + `","client_name":"App","redirect_uris":[]}`, "no redirect_uris"},
		{"a client secret", "application/json", valid + `,"client_secret":"s3cret"}`, "client_secret"},
		{"a secret's expiry", "application/json", valid + `,"client_secret_expires_at":0}`, "client_secret"},
		{"a shared-secret method", "application/json", valid + `,"token_endpoint_auth_method":"client_secret_basic"}`, "shared secret"},
		{"private_key_jwt", "application/json", valid + `,"token_endpoint_auth_method":"private_key_jwt"}`, "public"},
		{"a private key", "application/json", valid + `,"jwks":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"abc","d":"secret"}]}}`, "private key"},
		{"no code grant", "application/json", valid + `,"grant_types":["client_credentials"]}`, "authorization_code"},
		{"no code response", "application/json", valid + `,"response_types":["token"]}`, "include code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parse(id, &fetch.Document{URL: id, ContentType: tc.contentType, Body: []byte(tc.body)})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("parse = %v, want a client", err)
			case tc.want == "":
				if c.ID != id || c.Name != "App" || len(c.RedirectURIs) != 1 {
					t.Errorf("parse = %+v", c)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Errorf("parse = %v, want an error about %q", err, tc.want)
			}
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Errorf("%v is not an *Error", err)
			}
		})
	}
}

// origin is a client's https server on loopback: it serves a valid document
// for every path, unless the path asks for something else, and counts the
// fetches.
type origin struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newOrigin(t *testing.T) *origin {
	t.Helper()
	o := &origin{hits: make(map[string]int)}
	o.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.hits[r.URL.Path]++
		o.mu.Unlock()
		id := "https://" + r.Host + r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/redirect.json":
			http.Redirect(w, r, "/client.json", http.StatusFound)
			return
		case "/missing.json":
			http.NotFound(w, r)
			return
		case "/large.json":
			fmt.Fprintf(w, `{"client_id":%q,"client_name":%q,"redirect_uris":["http://127.0.0.1/cb"]}`, id, strings.Repeat("x", MaxDocumentBytes))
			return
		case "/slow.json":
			select {
			case <-time.After(Timeout + 2*time.Second):
			case <-r.Context().Done():
			}
			return
		case "/other.json":
			id = "https://" + r.Host + "/client.json"
		case "/cached.json":
			w.Header().Set("Cache-Control", "max-age=600")
		case "/no-store.json":
			w.Header().Set("Cache-Control", "no-store")
		}
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}`, id)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *origin) Hits(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path]
}

func (o *origin) resolver(t *testing.T, allowPrivate bool) *Resolver {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(o.Certificate())
	r, err := New(Options{AllowPrivate: allowPrivate, RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func TestResolver(t *testing.T) {
	o := newOrigin(t)
	r := o.resolver(t, true)
	ctx := context.Background()
	for _, tc := range []struct{ path, want string }{
		{"/client.json", ""},
		{"/redirect.json", "without following redirects"},
		{"/missing.json", "did not answer 200 OK"},
		{"/large.json", "larger than 5120 bytes"},
		{"/other.json", "not the URL it was fetched from"},
	} {
		c, err := r.Client(ctx, o.URL+tc.path)
		switch {
		case tc.want == "" && (err != nil || c.RedirectURIs[0] != "http://127.0.0.1/cb"):
			t.Errorf("%s: %+v, %v", tc.path, c, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error about %q", tc.path, err, tc.want)
		}
	}
	if n := o.Hits("/client.json"); n != 1 {
		t.Errorf("the redirect was followed: /client.json fetched %d times, want 1", n)
	}

	// Cache-Control is honoured; failures and invalid documents are not kept.
	for range 3 {
		for _, p := range []string{"/cached.json", "/no-store.json", "/missing.json", "/other.json"} {
			_, _ = r.Client(ctx, o.URL+p)
		}
	}
	for path, want := range map[string]int{"/cached.json": 1, "/no-store.json": 3, "/missing.json": 4, "/other.json": 4} {
		if n := o.Hits(path); n != want {
			t.Errorf("%s fetched %d times, want %d", path, n, want)
		}
	}
}

func TestResolverWaitIsBounded(t *testing.T) {
	o := newOrigin(t)
	r := o.resolver(t, true)
	r.wait = 300 * time.Millisecond
	start := time.Now()
	_, err := r.Client(context.Background(), o.URL+"/slow.json")
	if err == nil || !strings.Contains(err.Error(), "did not arrive within 300ms") {
		t.Errorf("slow server: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Client waited %s for a slow server, bound 300ms", took)
	}
}

func TestResolverRefusesPrivateAddresses(t *testing.T) {
	o := newOrigin(t)
	r := o.resolver(t, false)
	_, err := r.Client(context.Background(), o.URL+"/client.json")
	if err == nil || !strings.Contains(err.Error(), "not at a public address") {
		t.Errorf("loopback without AllowPrivate: %v", err)
	}
	if n := o.Hits("/client.json"); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
	if _, err := r.Client(context.Background(), "http://"+strings.TrimPrefix(o.URL, "https://")+"/client.json"); err == nil || !strings.Contains(err.Error(), "must use https") {
		t.Errorf("http client_id: %v", err)
	}
}

// FuzzDocument: no client_id and no document, however malformed, makes the
// checks panic, and whatever they accept keeps the rules.
func FuzzDocument(f *testing.F) {
	const id = "https://app.example/client.json"
	f.Add(id, "application/json", []byte(`{"client_id":"`+id+`","client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}`))
	f.Add(id, "application/json", []byte(`{"client_id":"`+id+`","client_name":"App","redirect_uris":["x"],"jwks":{"keys":[{"d":1}]}}`))
	f.Add(id, "application/json", []byte(`{"client_id":null,"jwks":{"keys":null},"token_endpoint_auth_method":7}`))
	f.Add("https://a.example/%2e%2e", "application/x+json", []byte(`[]`))
	f.Add("https://[::1]:0/x", "text/html", []byte(`null`))
	f.Fuzz(func(t *testing.T, clientID, contentType string, body []byte) {
		if CheckURL(clientID) == nil && (!strings.HasPrefix(clientID, "https://") || strings.Contains(clientID, "#") || len(clientID) > MaxURLLen) {
			t.Fatalf("CheckURL accepted %q", clientID)
		}
		c, err := parse(clientID, &fetch.Document{URL: clientID, ContentType: contentType, Body: body})
		if err == nil && (c.ID != clientID || strings.TrimSpace(c.Name) == "" || len(c.RedirectURIs) == 0 || !isJSON(contentType)) {
			t.Fatalf("parse accepted %q as %+v", body, c)
		}
	})
}
