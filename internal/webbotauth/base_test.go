package webbotauth

import (
	"bufio"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// The Ed25519 test key of RFC 9421, appendix B.1.4, as a JWK (the seed d and
// the public key x). The drafts' test vectors use it too.
const (
	testKeyD = "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU"
	testKeyX = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"
	// testKeyID is its thumbprint, as the drafts' vectors give it.
	testKeyID = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"
)

func testKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	seed, err := base64.RawURLEncoding.DecodeString(testKeyD)
	if err != nil {
		t.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(seed)
	if x := base64.RawURLEncoding.EncodeToString(key.Public().(ed25519.PublicKey)); x != testKeyX {
		t.Fatalf("public key %s, want %s", x, testKeyX)
	}
	return key
}

// readRequest parses a request as a server reads it off the wire; tls
// marks it as received over https.
func readRequest(t testing.TB, raw string, tls bool) *http.Request {
	t.Helper()
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(strings.ReplaceAll(raw, "\n", "\r\n"))))
	if err != nil {
		t.Fatal(err)
	}
	if tls {
		r.TLS = tlsState
	}
	return r
}

var tlsState = &tls.ConnectionState{HandshakeComplete: true}

// unwrap undoes the line wrapping of RFC 8792 in a vector: a backslash at
// the end of a line joins it with the next, without the next one's leading
// spaces.
func unwrap(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + strings.TrimLeft(lines[i], " ")
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

func inputMember(t testing.TB, r *http.Request, label string) httpsfv.Member {
	t.Helper()
	d, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Input"))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := d.Get(label)
	if !ok {
		t.Fatalf("no signature-input member %s", label)
	}
	return m
}

func signatureBytes(t testing.TB, r *http.Request, label string) []byte {
	t.Helper()
	d, err := signatures(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := d.Get(label)
	it, _ := m.(httpsfv.Item)
	sig, ok := it.Value.([]byte)
	if !ok {
		t.Fatalf("no signature %s", label)
	}
	return sig
}

// TestRFC9421Ed25519Vector checks the signature base and signature of RFC
// 9421, appendix B.2.6, on the test request of appendix B.2.
func TestRFC9421Ed25519Vector(t *testing.T) {
	r := readRequest(t, `POST /foo?param=Value&Pet=dog HTTP/1.1
Host: example.com
Date: Tue, 20 Apr 2021 02:07:55 GMT
Content-Type: application/json
Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
Content-Length: 18
Signature-Input: sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"
Signature: sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:

{"hello": "world"}`, false)
	want := unwrap(`"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" \
  "content-type" "content-length");created=1618884473\
  ;keyid="test-key-ed25519"`)
	base, err := signatureBase(r, inputMember(t, r, "sig-b26"))
	if err != nil {
		t.Fatal(err)
	}
	if string(base) != want {
		t.Fatalf("signature base:\n%s\nwant:\n%s", base, want)
	}
	key := testKey(t)
	sig := signatureBytes(t, r, "sig-b26")
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), base, sig) {
		t.Error("the RFC's signature does not verify over the base")
	}
	// Ed25519 is deterministic: signing the base must give the RFC's bytes.
	if got := ed25519.Sign(key, base); string(got) != string(sig) {
		t.Error("signing the base does not give the RFC's signature")
	}
}

// TestDraftVectors checks the Ed25519 vectors of
// draft-ietf-webbotauth-httpsig-protocol (appendix E.2): the dictionary
// form of Signature-Agent, covered by a key other than the signature's
// label, and the legacy String form.
func TestDraftVectors(t *testing.T) {
	tests := []struct {
		name, agent, input, signature, base, wantAgent string
	}{
		{
			name:  "dictionary",
			agent: `agent2="https://signature-agent.test"`,
			input: unwrap(`sig2=("@authority" "signature-agent";key="agent2")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=4889289600\
 ;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=="\
 ;tag="web-bot-auth"`),
			signature: "sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:",
			base: unwrap(`"@authority": example.com
"signature-agent";key="agent2": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent";key="agent2")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=4889289600\
 ;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=="\
 ;tag="web-bot-auth"`),
			wantAgent: "https://signature-agent.test",
		},
		{
			name:  "legacy string",
			agent: `"https://signature-agent.test"`,
			input: unwrap(`sig2=("@authority" "signature-agent")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=1735693200\
 ;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=="\
 ;tag="web-bot-auth"`),
			signature: "sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:",
			base: unwrap(`"@authority": example.com
"signature-agent": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=1735693200\
 ;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=="\
 ;tag="web-bot-auth"`),
			wantAgent: "https://signature-agent.test",
		},
	}
	key := testKey(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readRequest(t, "GET / HTTP/1.1\nHost: example.com\n"+
				"Signature-Agent: "+tt.agent+"\n"+
				"Signature-Input: "+tt.input+"\n"+
				"Signature: "+tt.signature+"\n\n", true)
			covered := inputMember(t, r, "sig2")
			base, err := signatureBase(r, covered)
			if err != nil {
				t.Fatal(err)
			}
			if string(base) != tt.base {
				t.Fatalf("signature base:\n%s\nwant:\n%s", base, tt.base)
			}
			if !ed25519.Verify(key.Public().(ed25519.PublicKey), base, signatureBytes(t, r, "sig2")) {
				t.Error("the draft's signature does not verify")
			}
			agent, err := signatureAgent(r.Header, "sig2", covered.(httpsfv.InnerList))
			if err != nil || agent != tt.wantAgent {
				t.Errorf("signatureAgent = %q, %v; want %q", agent, err, tt.wantAgent)
			}
		})
	}

	// The directory the vectors' agent serves (appendix E.2.3), and the
	// thumbprint the vectors name the key by.
	keys, err := parseDirectory([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := keys[testKeyID]; !ok || !k.key.Equal(key.Public()) {
		t.Errorf("directory keys %v, want the test key under %s", keys, testKeyID)
	}
	if got := Thumbprint(key.Public().(ed25519.PublicKey)); got != testKeyID {
		t.Errorf("Thumbprint = %s, want %s", got, testKeyID)
	}
}

func TestDerivedComponents(t *testing.T) {
	tests := []struct {
		name, request string
		tls           bool
		component     string // as in a Signature-Input
		want          string // "ERR" for an error
	}{
		// RFC 9421, 2.2.
		{"method", "POST /path?param=value HTTP/1.1\nHost: www.example.com", true, `"@method"`, "POST"},
		{"target-uri", "POST /path?param=value HTTP/1.1\nHost: www.example.com", true, `"@target-uri"`, "https://www.example.com/path?param=value"},
		{"authority", "POST /path?param=value HTTP/1.1\nHost: www.example.com", true, `"@authority"`, "www.example.com"},
		{"scheme", "POST /path?param=value HTTP/1.1\nHost: www.example.com", true, `"@scheme"`, "https"},
		{"scheme http", "POST /path HTTP/1.1\nHost: www.example.com", false, `"@scheme"`, "http"},
		{"request-target", "POST /path?param=value HTTP/1.1\nHost: www.example.com", true, `"@request-target"`, "/path?param=value"},
		{"path", "POST /path?param=value HTTP/1.1\nHost: www.example.com", true, `"@path"`, "/path"},
		{"path kept encoded", "GET /a%2Fb%41 HTTP/1.1\nHost: www.example.com", true, `"@path"`, "/a%2Fb%41"},
		{"query", "POST /path?param=value&foo=bar&baz=batman HTTP/1.1\nHost: www.example.com", true, `"@query"`, "?param=value&foo=bar&baz=batman"},
		{"query string", "GET /path?queryString HTTP/1.1\nHost: www.example.com", true, `"@query"`, "?queryString"},
		{"no query", "GET /path HTTP/1.1\nHost: www.example.com", true, `"@query"`, "?"},
		{"query-param", "GET /path?param=value&foo=bar&baz=batman&qux= HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="baz"`, "batman"},
		{"query-param empty", "GET /path?param=value&foo=bar&baz=batman&qux= HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="qux"`, ""},
		{"query-param encoded", "GET /path?var=this%20is%20a%20big%0Avalue&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="var"`, "this%20is%20a%20big%0Avalue"},
		{"query-param plus", "GET /path?var=this%20is%20a%20big%0Avalue&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="bar"`, "with%20plus%20whitespace"},
		{"query-param encoded name", "GET /path?var=this%20is%20a%20big%0Avalue&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="fa%C3%A7ade%22%3A%20"`, "something"},
		{"query-param missing", "GET /path?a=1 HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="b"`, "ERR"},
		{"query-param repeated", "GET /path?a=1&a=2 HTTP/1.1\nHost: www.example.com", true, `"@query-param";name="a"`, "ERR"},
		{"query-param without name", "GET /path?a=1 HTTP/1.1\nHost: www.example.com", true, `"@query-param"`, "ERR"},
		{"authority lowercased, default port dropped", "GET / HTTP/1.1\nHost: WWW.Example.COM:443", true, `"@authority"`, "www.example.com"},
		{"authority keeps another port", "GET / HTTP/1.1\nHost: www.example.com:8443", true, `"@authority"`, "www.example.com:8443"},
		{"authority http default port", "GET / HTTP/1.1\nHost: www.example.com:80", false, `"@authority"`, "www.example.com"},
		{"authority ipv6", "GET / HTTP/1.1\nHost: [::1]:443", true, `"@authority"`, "[::1]"},
		{"target-uri without query", "GET /p HTTP/1.1\nHost: www.example.com:443", true, `"@target-uri"`, "https://www.example.com/p"},
		{"status is for responses", "GET / HTTP/1.1\nHost: www.example.com", true, `"@status"`, "ERR"},
		{"req parameter", "GET / HTTP/1.1\nHost: www.example.com", true, `"@authority";req`, "ERR"},
		{"unknown derived component", "GET / HTTP/1.1\nHost: www.example.com", true, `"@fragment"`, "ERR"},
		{"uppercase name", "GET / HTTP/1.1\nHost: www.example.com", true, `"@Method"`, "ERR"},
		// Fields (RFC 9421, 2.1).
		{"field", "GET / HTTP/1.1\nHost: h\nX-Example:   Value, with some whitespace   ", true, `"x-example"`, "Value, with some whitespace"},
		{"field lines combined", "GET / HTTP/1.1\nHost: h\nX-Multi: a\nX-Multi: b ", true, `"x-multi"`, "a, b"},
		{"field empty", "GET / HTTP/1.1\nHost: h\nX-Empty: ", true, `"x-empty"`, ""},
		{"field missing", "GET / HTTP/1.1\nHost: h", true, `"x-missing"`, "ERR"},
		{"dictionary member", "GET / HTTP/1.1\nHost: h\nExample-Dict:  a=1,    b=2;x=1;y=2,   c=(a   b   c), d", true, `"example-dict";key="a"`, "1"},
		{"dictionary member with params", "GET / HTTP/1.1\nHost: h\nExample-Dict:  a=1,    b=2;x=1;y=2,   c=(a   b   c), d", true, `"example-dict";key="b"`, "2;x=1;y=2"},
		{"dictionary inner list", "GET / HTTP/1.1\nHost: h\nExample-Dict:  a=1,    b=2;x=1;y=2,   c=(a   b   c), d", true, `"example-dict";key="c"`, "(a b c)"},
		{"dictionary true", "GET / HTTP/1.1\nHost: h\nExample-Dict:  a=1,    b=2;x=1;y=2,   c=(a   b   c), d", true, `"example-dict";key="d"`, "?1"},
		{"dictionary member missing", "GET / HTTP/1.1\nHost: h\nExample-Dict: a=1", true, `"example-dict";key="z"`, "ERR"},
		{"not a dictionary", "GET / HTTP/1.1\nHost: h\nExample-Dict: a=1,", true, `"example-dict";key="a"`, "ERR"},
		{"sf parameter unsupported", "GET / HTTP/1.1\nHost: h\nExample-Dict: a=1", true, `"example-dict";sf`, "ERR"},
		{"bs parameter unsupported", "GET / HTTP/1.1\nHost: h\nExample-Dict: a=1", true, `"example-dict";bs`, "ERR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readRequest(t, tt.request+"\n\n", tt.tls)
			d, err := httpsfv.UnmarshalDictionary([]string{"sig=(" + tt.component + ")"})
			if err != nil {
				t.Fatal(err)
			}
			m, _ := d.Get("sig")
			tgt := newTarget(r)
			got, err := componentValue(r, &tgt, m.(httpsfv.InnerList).Items[0])
			if tt.want == "ERR" {
				if err == nil {
					t.Errorf("got %q, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestSignatureBaseRefuses(t *testing.T) {
	r := readRequest(t, "GET / HTTP/1.1\nHost: h\nX: a=1\n\n", true)
	many := strings.Repeat(`"@method" `, MaxComponents) + `"@path"`
	for _, in := range []string{
		`sig=("@method" "@method")`,
		`sig=("x";key="a" "x";key="a")`,
		`sig=(method)`,
		`sig=("@method" 1)`,
		"sig=(" + many + ")",
	} {
		d, err := httpsfv.UnmarshalDictionary([]string{in})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := d.Get("sig")
		if base, err := signatureBase(r, m); err == nil {
			t.Errorf("%s: base %q, want an error", in, base)
		}
	}
}
