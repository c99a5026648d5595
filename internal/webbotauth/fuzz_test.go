package webbotauth

import (
	"net/http"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

// FuzzParseDictionary checks that whatever httpsfv parses serializes to a
// form that parses to the same serialization: the canonical form a
// signature base relies on is stable.
func FuzzParseDictionary(f *testing.F) {
	for _, s := range []string{
		`sig1=("@authority" "signature-agent";key="sig1");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;tag="web-bot-auth"`,
		`sig1=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:`,
		`a=1.5, b=?0, c=@12, d=%"%c3%bc", e=tok/en:x, f;p`,
		`agent2="https://signature-agent.test"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := httpsfv.UnmarshalDictionary([]string{s})
		if err != nil {
			return
		}
		first := serializeDict(d)
		d2, err := httpsfv.UnmarshalDictionary([]string{first})
		if err != nil {
			t.Fatalf("serialization %q of %q does not parse: %v", first, s, err)
		}
		if second := serializeDict(d2); second != first {
			t.Fatalf("serialization not stable: %q then %q", first, second)
		}
	})
}

// FuzzVerify checks that no combination of the signature fields makes
// Verify panic.
func FuzzVerify(f *testing.F) {
	f.Add(`sig1=("@authority" "signature-agent";key="sig1" "@query-param";name="a" "x";key="k");created=1767225590;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";expires=1767225900;tag="web-bot-auth"`,
		`sig1=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:`,
		`sig1="https://agent.example"`, "/p?a=1&b=%zz+")
	f.Add(`sig2=("@authority" "signature-agent");created=1767225590;keyid="k";expires=1767225900;tag="web-bot-auth"`,
		`sig2=::`, `"https://agent.example/.well-known/http-message-signatures-directory"`, "/")
	f.Fuzz(func(t *testing.T, input, signature, agent, target string) {
		v, _ := newTestVerifier(t, map[string]*fetch.Document{
			agentDir: directoryDoc(agentDir, []byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"`+testKeyX+`"}]}`)),
		})
		r, err := http.NewRequest("GET", "https://www.example.com/", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.RequestURI = target
		r.Header.Set("Signature-Input", input)
		r.Header.Set("Signature", signature)
		r.Header.Set("Signature-Agent", agent)
		r.Header.Set("X", "k=1")
		v.Verify(r)
	})
}
