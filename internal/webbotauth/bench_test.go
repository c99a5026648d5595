package webbotauth

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
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
