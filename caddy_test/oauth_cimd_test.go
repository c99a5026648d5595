package caddytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Client ID Metadata Documents over real HTTPS: a client's origin on
// loopback, with a certificate from a test CA that Caddy trusts through
// client_id_metadata_ca, and client_id_metadata private to reach loopback.

// clientOrigin is a client's https server: it publishes metadata documents
// and misbehaves on request, and counts every request by path.
type clientOrigin struct {
	*httptest.Server
	caFile string
	mu     sync.Mutex
	hits   map[string]int
}

// The redirect URIs of the node clients' documents.
const (
	sdkRedirect          = "http://127.0.0.1:33418/callback"
	oauth4webapiRedirect = "http://127.0.0.1:43110/callback"
	inspectorRedirect    = "http://127.0.0.1:9236/oauth/callback"
)

func newClientOrigin(t *testing.T) *clientOrigin {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "caddy-discovery test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "client origin"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	o := &clientOrigin{hits: make(map[string]int), caFile: filepath.Join(t.TempDir(), "ca.pem")}
	if err := os.WriteFile(o.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Server = httptest.NewUnstartedServer(http.HandlerFunc(o.serve))
	o.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}
	o.StartTLS()
	t.Cleanup(o.Close)
	return o
}

// serve answers by path:
//
//	/clients/{sdk,oauth4webapi,inspector}.json  the node clients' documents
//	/many/<n>.json      a valid document, one per n, kept 10 minutes
//	/no-store.json      a valid document that may not be kept
//	/redirect/<n>.json  a redirect to /redirect/<n-1>.json, and /redirect/0.json to a document
//	/large.json         a valid document of 6 KiB
//	/slow.json          nothing for 10 s
//	/other.json         a document naming another client_id
//	/html.json          a valid document served as text/html
func (o *clientOrigin) serve(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.hits[r.URL.Path]++
	o.mu.Unlock()
	id := o.URL + r.URL.Path
	name, redirects := "caddy-discovery test client", []string{loopbackRedirect}
	w.Header().Set("Content-Type", "application/json")
	switch p := r.URL.Path; {
	case p == "/clients/sdk.json":
		redirects = []string{sdkRedirect}
	case p == "/clients/oauth4webapi.json":
		redirects = []string{oauth4webapiRedirect}
	case p == "/clients/inspector.json":
		redirects = []string{inspectorRedirect}
	case strings.HasPrefix(p, "/many/"):
		w.Header().Set("Cache-Control", "max-age=600")
	case p == "/no-store.json":
		w.Header().Set("Cache-Control", "no-store")
	case strings.HasPrefix(p, "/redirect/"):
		var n int
		if _, err := fmt.Sscanf(p, "/redirect/%d.json", &n); err != nil {
			http.NotFound(w, r)
			return
		}
		target := fmt.Sprintf("/redirect/%d.json", n-1)
		if n == 0 {
			target = "/many/0.json"
		}
		http.Redirect(w, r, target, http.StatusFound)
		return
	case p == "/large.json":
		name = strings.Repeat("x", 6<<10)
	case p == "/slow.json":
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
		return
	case p == "/other.json":
		id = o.URL + "/clients/sdk.json"
	case p == "/html.json":
		w.Header().Set("Content-Type", "text/html")
	default:
		http.NotFound(w, r)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"client_id": id, "client_name": name, "redirect_uris": redirects,
		"grant_types": []string{"authorization_code"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none",
	})
}

func (o *clientOrigin) Hits(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path]
}

// site is a site block for the origin's documents, with client_id_metadata
// set to mode and the test CA trusted.
func (o *clientOrigin) site(mode string) string {
	return `
http://localhost:9080 {
	discovery {
		content sample
		rate_limit off
		client_id_metadata ` + mode + `
		client_id_metadata_ca ` + o.caFile + `
	}
	respond "next handler" 200
}
`
}

// authorizeCIMD asks for a code for a URL client id with the loopback
// redirect URI.
func (s *server) authorizeCIMD(clientID string) (*response, string) {
	s.t.Helper()
	verifier, challenge := newPKCE()
	query := authorizationQuery(clientID, loopbackRedirect, challenge)
	query.Del("resource")
	r := s.authorize(query)
	s.validate(r)
	return r, verifier
}

func TestClientIDMetadataDocument(t *testing.T) {
	o := newClientOrigin(t)
	s := startCaddy(t, o.site("private"))
	r := s.get("/.well-known/oauth-authorization-server")
	s.validate(r)
	if r.json(t)["client_id_metadata_document_supported"] != true {
		t.Fatalf("the metadata does not advertise Client ID Metadata Documents: %s", r.body)
	}

	clientID := o.URL + "/many/flow.json"
	r, verifier := s.authorizeCIMD(clientID)
	q := redirected(t, r, loopbackRedirect)
	tr := s.exchange(map[string][]string{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "code_verifier": {verifier},
		"client_id": {clientID}, "redirect_uri": {loopbackRedirect}})
	tok := tr.json(t)
	if tr.StatusCode != http.StatusOK || tok["scope"] != "public:read" {
		t.Fatalf("token: %d %s", tr.StatusCode, tr.body)
	}
	if r := s.get("/api/v1/profile", "Authorization", "Bearer "+tok["access_token"].(string)); r.StatusCode != http.StatusOK {
		t.Errorf("the token at the API: %d", r.StatusCode)
	}

	// Cache-Control is honoured: max-age keeps the document, no-store not.
	for range 2 {
		r, _ := s.authorizeCIMD(clientID)
		redirected(t, r, loopbackRedirect)
		r, _ = s.authorizeCIMD(o.URL + "/no-store.json")
		redirected(t, r, loopbackRedirect)
	}
	if n := o.Hits("/many/flow.json"); n != 1 {
		t.Errorf("a document kept 10 minutes was fetched %d times, want 1", n)
	}
	if n := o.Hits("/no-store.json"); n != 2 {
		t.Errorf("a no-store document was fetched %d times for 2 requests, want 2", n)
	}
}

// TestClientIDMetadataDocumentAttacks: each hostile client_id gets the
// authorization endpoint's 400 page, never a redirect, within the bound of
// its wait, and costs the server no more than the bounds allow.
func TestClientIDMetadataDocumentAttacks(t *testing.T) {
	o := newClientOrigin(t)
	s := startCaddy(t, o.site("private"))
	refused := func(clientID, why string) time.Duration {
		t.Helper()
		start := time.Now()
		r, _ := s.authorizeCIMD(clientID)
		took := time.Since(start)
		p := s.validateProblem(r, http.StatusBadRequest, "bad_request")
		if r.Header.Get("Location") != "" || !strings.Contains(p["detail"].(string), why) {
			t.Errorf("%s: Location %q, detail %q; want a 400 about %q", clientID, r.Header.Get("Location"), p["detail"], why)
		}
		return took
	}

	refused(o.URL+"/redirect/0.json", "without following redirects")
	refused(o.URL+"/redirect/3.json", "without following redirects")
	if n := o.Hits("/redirect/2.json") + o.Hits("/many/0.json"); n != 0 {
		t.Errorf("a redirect was followed: %d requests to its targets", n)
	}
	refused(o.URL+"/large.json", "larger than 5120 bytes")
	refused(o.URL+"/other.json", "names the client_id")
	refused(o.URL+"/html.json", "not as JSON")
	refused(o.URL+"/missing.json", "did not answer 200 OK")
	if took := refused(o.URL+"/slow.json", "did not arrive within 3s"); took > 4*time.Second {
		t.Errorf("a slow server held the authorization request %s; the wait is bounded at 3s", took)
	}
	// An invalid document is not kept: asked again, it is fetched again.
	refused(o.URL+"/other.json", "names the client_id")
	if n := o.Hits("/other.json"); n != 2 {
		t.Errorf("an invalid document was fetched %d times for 2 requests, want 2 (not kept)", n)
	}

	// http:// is refused before any fetch.
	plain := httptest.NewServer(http.HandlerFunc(o.serve))
	defer plain.Close()
	before := o.Hits("/many/plain.json")
	refused(plain.URL+"/many/plain.json", "must use https")
	refused(o.URL, "no path")
	refused(o.URL+"/many/x.json#frag", "fragment")
	if n := o.Hits("/many/plain.json") - before; n != 0 {
		t.Errorf("an http client_id was fetched %d times", n)
	}

	// The shared cache holds 1000 documents, and no more: after 1000 other
	// client ids, the first is fetched again and the latest is not.
	const budget = 1000
	for i := range budget + 1 {
		r, _ := s.authorizeCIMD(fmt.Sprintf("%s/many/%d.json", o.URL, i))
		if r.StatusCode != http.StatusFound {
			t.Fatalf("client %d: %d %s", i, r.StatusCode, r.body)
		}
	}
	for _, i := range []int{0, budget} {
		r, _ := s.authorizeCIMD(fmt.Sprintf("%s/many/%d.json", o.URL, i))
		redirected(t, r, loopbackRedirect)
	}
	if n := o.Hits("/many/0.json"); n != 2 {
		t.Errorf("the least recently used document was fetched %d times, want 2 (dropped from the cache)", n)
	}
	if n := o.Hits(fmt.Sprintf("/many/%d.json", budget)); n != 1 {
		t.Errorf("the latest document was fetched %d times, want 1 (kept)", n)
	}
}

// TestClientIDMetadataDocumentPrivateAddress: without the switch, a
// client_id on a private address is refused and never reached.
func TestClientIDMetadataDocumentPrivateAddress(t *testing.T) {
	o := newClientOrigin(t)
	s := startCaddy(t, o.site("on"))
	r, _ := s.authorizeCIMD(o.URL + "/many/private.json")
	p := s.validateProblem(r, http.StatusBadRequest, "bad_request")
	if r.Header.Get("Location") != "" || !strings.Contains(p["detail"].(string), "not at a public address") {
		t.Errorf("a loopback client_id with client_id_metadata on: %q %v", r.Header.Get("Location"), p["detail"])
	}
	localhost := strings.Replace(o.URL, "127.0.0.1", "localhost", 1) + "/many/private.json"
	r, _ = s.authorizeCIMD(localhost)
	s.validateProblem(r, http.StatusBadRequest, "bad_request")
	if n := o.Hits("/many/private.json"); n != 0 {
		t.Errorf("the loopback origin was reached %d times", n)
	}
	r = s.get("/.well-known/oauth-authorization-server")
	if r.json(t)["client_id_metadata_document_supported"] != true {
		t.Errorf("client_id_metadata on does not advertise the documents")
	}
}

// TestClientIDMetadataDocumentOff: off refuses URL client ids and says so
// in the metadata; registration goes on.
func TestClientIDMetadataDocumentOff(t *testing.T) {
	o := newClientOrigin(t)
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		client_id_metadata off
	}
}
`)
	r := s.get("/.well-known/oauth-authorization-server")
	s.validate(r)
	if r.json(t)["client_id_metadata_document_supported"] != false {
		t.Errorf("client_id_metadata off still advertises the documents: %s", r.body)
	}
	r, _ = s.authorizeCIMD(o.URL + "/many/off.json")
	s.validateProblem(r, http.StatusBadRequest, "bad_request")
	if o.Hits("/many/off.json") != 0 {
		t.Error("a document was fetched with client_id_metadata off")
	}
	client := s.registerClient(loopbackRedirect)
	_, challenge := newPKCE()
	redirected(t, s.authorize(authorizationQuery(client, loopbackRedirect, challenge)), loopbackRedirect)
}

func TestClientIDMetadataBadConfigurations(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	writeFile(t, notPEM, "not a certificate\n")
	assertConfigsFailToLoad(t, []configCase{
		{"an unknown mode", "client_id_metadata loopback", "client_id_metadata: must be on, off or private"},
		{"a missing CA file", "client_id_metadata_ca " + filepath.Join(dir, "none.pem"), "client_id_metadata_ca: "},
		{"a CA file without a certificate", "client_id_metadata_ca " + notPEM, "holds no PEM certificate"},
		{"a CA with the documents off", "client_id_metadata off\n\t\tclient_id_metadata_ca " + notPEM, "client_id_metadata is off"},
		{"a CA from an unset variable", "client_id_metadata_ca {env.DISCOVERY_TEST_UNSET_VARIABLE}", "client_id_metadata_ca: {env.DISCOVERY_TEST_UNSET_VARIABLE} is empty"},
	})
}
