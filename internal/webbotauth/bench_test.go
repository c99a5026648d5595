package webbotauth

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

// BenchmarkVerify measures Verify once the agent's directory is cached by a
// real fetcher: parsing the fields, building the base, one Ed25519
// verification.
func BenchmarkVerify(b *testing.B) {
	key := testKey(b)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", DirectoryMediaType)
		w.Write(jwks(`,"use":"sig"`, key.Public().(ed25519.PublicKey)))
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	f, err := fetch.New(fetch.Options{AllowPrivate: true, RootCAs: pool})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Get(context.Background(), srv.URL+DirectoryPath); err != nil {
		b.Fatal(err)
	}
	v := New(f, nil)
	now := time.Now().Unix()
	params := fmt.Sprintf(`;created=%d;keyid=%q;alg="ed25519";expires=%d;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"`,
		now, testKeyID, now+3600)

	for _, bc := range []struct{ name, components string }{
		{"minimal", `"@authority" "signature-agent";key="sig1"`},
		{"eight components", `"@method" "@authority" "@path" "@query" "@target-uri" "@scheme" "user-agent" "signature-agent";key="sig1"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := readRequest(b, "GET /articles/one?lang=en HTTP/1.1\nHost: www.example.com\nUser-Agent: bench/1.0\n"+
				"Signature-Agent: sig1=\""+srv.URL+"\"\n\n", true)
			sign(b, r, signature{label: "sig1", components: bc.components, params: params, key: key})
			if res := v.Verify(r); !res.Verified {
				b.Fatalf("Verify = %+v", res)
			}
			b.ReportAllocs()
			for b.Loop() {
				if !v.Verify(r).Verified {
					b.Fatal("not verified")
				}
			}
		})
	}
}

// hostileRequest is a request that signs four times over 30 @query-param
// components of a 16 KB query each, with the agent's real keyid and
// signatures that do not verify: all the work Verify can be made to do
// for a request it will not verify.
func hostileRequest(b testing.TB, agent string, keyID string) *http.Request {
	var query strings.Builder
	for i := 0; query.Len() < 16<<10; i++ {
		fmt.Fprintf(&query, "p%d=v&", i)
	}
	r := readRequest(b, "GET /page?"+query.String()+" HTTP/1.1\nHost: www.example.com\nSignature-Agent: sig1=\""+agent+"\"\n\n", true)
	now := time.Now().Unix()
	for s := range 4 {
		var components strings.Builder
		components.WriteString(`"@authority" "signature-agent";key="sig1"`)
		for i := range 28 {
			fmt.Fprintf(&components, ` "@query-param";name="p%d"`, i*13+s)
		}
		label := fmt.Sprintf("s%d", s)
		r.Header.Add("Signature-Input", fmt.Sprintf(`%s=(%s);created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, label, components.String(), now, now+60, keyID))
		r.Header.Add("Signature", label+"=:"+base64.StdEncoding.EncodeToString(make([]byte, ed25519.SignatureSize))+":")
	}
	return r
}

// BenchmarkVerifyUnverifiable is Verify of hostileRequest, with the keyid
// the agent's directory holds and with one it does not.
func BenchmarkVerifyUnverifiable(b *testing.B) {
	key := testKey(b)
	v, _ := newTestVerifier(b, map[string]*fetch.Document{
		agentDir: directoryDoc(agentDir, jwks(`,"use":"sig"`, key.Public().(ed25519.PublicKey))),
	})
	v.now = time.Now
	for _, bc := range []struct{ name, keyID string }{{"known keyid", testKeyID}, {"unknown keyid", "unknown"}} {
		b.Run(bc.name, func(b *testing.B) {
			r := hostileRequest(b, "https://agent.example", bc.keyID)
			if res := v.Verify(r); res.Verified || !res.Signed {
				b.Fatalf("Verify = %+v", res)
			}
			b.ReportAllocs()
			for b.Loop() {
				v.Verify(r)
			}
		})
	}
}
