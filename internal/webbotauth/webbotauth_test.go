package webbotauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

// fakeSource stands in for the fetcher: a fixed cache, and a record of
// what was asked for.
type fakeSource struct {
	mu         sync.Mutex
	docs       map[string]*fetch.Document
	prefetched []string
}

func (s *fakeSource) Cached(u string) (*fetch.Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	return d, ok
}

func (s *fakeSource) Prefetch(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prefetched = append(s.prefetched, u)
}

const agentDir = "https://agent.example" + DirectoryPath

// jwks returns a directory holding the public keys, with extra JWK
// members.
func jwks(extra string, keys ...ed25519.PublicKey) []byte {
	var b strings.Builder
	b.WriteString(`{"keys":[`)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kty":"OKP","crv":"Ed25519","x":%q%s}`, base64.RawURLEncoding.EncodeToString(k), extra)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func directoryDoc(u string, body []byte) *fetch.Document {
	return &fetch.Document{URL: u, ContentType: DirectoryMediaType, Body: body}
}

var testNow = time.Unix(1_767_225_600, 0) // 2026-01-01

func newTestVerifier(t testing.TB, docs map[string]*fetch.Document) (*Verifier, *fakeSource) {
	t.Helper()
	src := &fakeSource{docs: docs}
	v := New(nil, func() time.Time { return testNow })
	v.source = src
	return v, src
}

// signature describes a signature for sign to add to a request.
type signature struct {
	label      string
	components string // the inner list's contents, as in Signature-Input
	params     string // after the inner list, as in Signature-Input
	key        ed25519.PrivateKey
}

// defaultParams are valid parameters for the test key at testNow.
func defaultParams() string {
	return fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`,
		testNow.Unix()-10, testNow.Unix()+300, testKeyID)
}

// sign adds the signature to r, computing its base as Verify will.
func sign(t testing.TB, r *http.Request, s signature) {
	t.Helper()
	input := s.label + "=(" + s.components + ")" + s.params
	d, err := httpsfv.UnmarshalDictionary([]string{input})
	if err != nil {
		t.Fatalf("signature-input %s: %v", input, err)
	}
	m, _ := d.Get(s.label)
	base, err := signatureBase(r, m)
	if err != nil {
		t.Fatalf("signature base: %v", err)
	}
	r.Header.Add("Signature-Input", input)
	r.Header.Add("Signature", s.label+"=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, base))+":")
}

func agentRequest(t testing.TB, target string) *http.Request {
	t.Helper()
	r := readRequest(t, "GET "+target+" HTTP/1.1\nHost: www.example.com\nSignature-Agent: sig1=\"https://agent.example\"\n\n", true)
	return r
}

func TestVerify(t *testing.T) {
	key := testKey(t)
	other := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	otherID := Thumbprint(other.Public().(ed25519.PublicKey))
	pub := key.Public().(ed25519.PublicKey)
	now := testNow.Unix()
	valid := signature{label: "sig1", components: `"@authority" "signature-agent";key="sig1"`, params: defaultParams(), key: key}
	withParams := func(p string) signature {
		s := valid
		s.params = p
		return s
	}
	withComponents := func(c string) signature {
		s := valid
		s.components = c
		return s
	}

	tests := []struct {
		name   string
		sign   []signature
		change func(r *http.Request) // after signing
		docs   map[string]*fetch.Document
		want   Result // Reason is matched as a prefix
	}{
		{name: "valid", sign: []signature{valid},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "more components", sign: []signature{withComponents(`"@method" "@authority" "@path" "@query" "@target-uri" "@scheme" "@request-target" "signature-agent";key="sig1" "user-agent"`)},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "target-uri instead of authority", sign: []signature{withComponents(`"@target-uri" "signature-agent";key="sig1"`)},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "alg and nonce", sign: []signature{withParams(defaultParams() + `;alg="ed25519";nonce="abc"`)},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "within clock skew", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now+50, now+300, testKeyID))},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "expired within clock skew", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-600, now-50, testKeyID))},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "second signature verifies", sign: []signature{
			{label: "bad", components: `"@authority" "signature-agent";key="sig1"`, params: fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-10, now+300, "not-in-the-directory"), key: other},
			valid,
		}, want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},
		{name: "one signature checked in full, no more", sign: []signature{
			{label: "bad", components: `"@authority" "signature-agent";key="sig1"`, params: defaultParams(), key: other},
			valid,
		}, want: Result{Signed: true, Reason: "signature does not verify"}},
		{name: "label differs from member key", sign: []signature{{label: "sig2", components: `"@authority" "signature-agent";key="sig1"`, params: defaultParams(), key: key}},
			want: Result{Signed: true, Verified: true, Agent: "agent.example", Directory: agentDir, KeyID: testKeyID}},

		{name: "unsigned", want: Result{}},
		{name: "forged", sign: []signature{valid}, change: func(r *http.Request) {
			sig := r.Header.Get("Signature")
			r.Header.Set("Signature", sig[:10]+flipBase64(sig[10])+sig[11:])
		}, want: Result{Signed: true, Reason: "signature does not verify"}},
		{name: "expired", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-600, now-61, testKeyID))},
			want: Result{Signed: true, Reason: "expired"}},
		{name: "created in the future", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now+61, now+300, testKeyID))},
			want: Result{Signed: true, Reason: "created in the future"}},
		{name: "validity too long", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now, now+25*3600, testKeyID))},
			want: Result{Signed: true, Reason: "validity longer than"}},
		{name: "expires before created", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now, now-1, testKeyID))},
			want: Result{Signed: true, Reason: "expires before created"}},
		{name: "no expires", sign: []signature{withParams(fmt.Sprintf(`;created=%d;keyid=%q;tag="web-bot-auth"`, now, testKeyID))},
			want: Result{Signed: true, Reason: "no valid expires"}},
		{name: "created not an integer", sign: []signature{withParams(fmt.Sprintf(`;created="%d";expires=%d;keyid=%q;tag="web-bot-auth"`, now, now+60, testKeyID))},
			want: Result{Signed: true, Reason: "no valid created"}},
		{name: "no keyid", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;tag="web-bot-auth"`, now, now+60))},
			want: Result{Signed: true, Reason: "no valid keyid"}},
		{name: "other algorithm", sign: []signature{withParams(defaultParams() + `;alg="rsa-pss-sha512"`)},
			want: Result{Signed: true, Reason: "alg is not ed25519"}},
		{name: "wrong tag", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="other"`, now, now+60, testKeyID))},
			want: Result{Reason: "no web-bot-auth signature"}},
		{name: "no tag", sign: []signature{withParams(fmt.Sprintf(`;created=%d;expires=%d;keyid=%q`, now, now+60, testKeyID))},
			want: Result{Reason: "no web-bot-auth signature"}},
		{name: "signed by another key", sign: []signature{{label: "sig1", components: valid.components, params: defaultParams(), key: other}},
			want: Result{Signed: true, Reason: "signature does not verify"}},
		{name: "key not in directory", sign: []signature{{label: "sig1", components: valid.components, key: other,
			params: fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now, now+60, otherID)}},
			docs: map[string]*fetch.Document{agentDir: directoryDoc(agentDir, jwks("", pub))},
			want: Result{Signed: true, Reason: "key not in the agent's directory"}},
		{name: "wrong authority", sign: []signature{valid}, change: func(r *http.Request) { r.Host = "other.example.com" },
			want: Result{Signed: true, Reason: "signature does not verify"}},
		{name: "tampered path", sign: []signature{withComponents(`"@authority" "@path" "signature-agent";key="sig1"`)},
			change: func(r *http.Request) { r.RequestURI = "/admin" },
			want:   Result{Signed: true, Reason: "signature does not verify"}},
		{name: "tampered header", sign: []signature{withComponents(`"@authority" "user-agent" "signature-agent";key="sig1"`)},
			change: func(r *http.Request) { r.Header.Set("User-Agent", "other") },
			want:   Result{Signed: true, Reason: "signature does not verify"}},
		{name: "tampered signature-agent", sign: []signature{valid},
			change: func(r *http.Request) { r.Header.Set("Signature-Agent", `sig1="https://evil.example"`) },
			want:   Result{Signed: true, Reason: "key directory not fetched yet"}},
		{name: "tampered parameters", sign: []signature{valid}, change: func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `tag="web-bot-auth"`, `tag="web-bot-auth";nonce="x"`, 1))
		}, want: Result{Signed: true, Reason: "signature does not verify"}},
		{name: "covered header missing", sign: []signature{withComponents(`"@authority" "x-purpose" "signature-agent";key="sig1"`)},
			change: func(r *http.Request) { r.Header.Del("X-Purpose") },
			want:   Result{Signed: true, Reason: "covered field x-purpose is missing"}},
		{name: "signature-agent not covered", sign: []signature{withComponents(`"@authority"`)},
			want: Result{Signed: true, Reason: "signature-agent not covered"}},
		{name: "no signature-agent", sign: []signature{valid}, change: func(r *http.Request) { r.Header.Del("Signature-Agent") },
			want: Result{Signed: true, Reason: "no signature-agent"}},
		{name: "authority not covered", sign: []signature{withComponents(`"@method" "signature-agent";key="sig1"`)},
			want: Result{Signed: true, Reason: "neither @authority nor @target-uri covered"}},
		{name: "component covered twice", sign: []signature{withComponents(`"@authority" "signature-agent";key="sig1"`)},
			change: func(r *http.Request) {
				r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `("@authority"`, `("@authority" "@authority"`, 1))
			}, want: Result{Signed: true, Reason: `component "@authority" covered twice`}},
		{name: "too many components", sign: []signature{valid}, change: func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `("@authority"`, "("+strings.Repeat(`"@authority" `, MaxComponents), 1))
		}, want: Result{Signed: true, Reason: "more than 32 covered components"}},
		{name: "no signature for label", sign: []signature{valid}, change: func(r *http.Request) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=", "sig9=", 1))
		}, want: Result{Signed: true, Reason: "no signature for sig1"}},
		{name: "no signature field", sign: []signature{valid}, change: func(r *http.Request) { r.Header.Del("Signature") },
			want: Result{Signed: true, Reason: "no signature field"}},
		// RFC 9651, 4.2.7, lets a parser that cannot be told otherwise
		// refuse a Byte Sequence without its padding, and httpsfv does.
		{name: "signature without its padding", sign: []signature{valid}, change: func(r *http.Request) {
			r.Header.Set("Signature", strings.TrimSuffix(r.Header.Get("Signature"), "==:")+":")
		}, want: Result{Signed: true, Reason: "malformed signature"}},
		{name: "short signature", sign: []signature{valid}, change: func(r *http.Request) { r.Header.Set("Signature", "sig1=:AAAA:") },
			want: Result{Signed: true, Reason: "signature is not an ed25519 signature"}},
		{name: "malformed signature-input", change: func(r *http.Request) { r.Header.Set("Signature-Input", `sig1=("@authority";tag="web-bot-auth"`) },
			want: Result{Signed: true, Reason: "malformed signature-input"}},
		{name: "signature-input too long", change: func(r *http.Request) {
			r.Header.Set("Signature-Input", `sig1=("`+strings.Repeat("a", MaxFieldLen)+`")`)
		}, want: Result{Signed: true, Reason: "signature-input too long"}},
		{name: "signature without input", change: func(r *http.Request) { r.Header.Set("Signature", "sig1=:AAAA:") },
			want: Result{Reason: "signature without signature-input"}},
		{name: "agent not https", sign: []signature{valid},
			change: func(r *http.Request) { r.Header.Set("Signature-Agent", `sig1="http://agent.example"`) },
			want:   Result{Signed: true, Reason: "signature-agent is not an https URL"}},
		{name: "agent with a path", sign: []signature{valid},
			change: func(r *http.Request) { r.Header.Set("Signature-Agent", `sig1="https://agent.example/jwks.json"`) },
			want:   Result{Signed: true, Reason: "signature-agent is neither an origin nor its key directory"}},
		{name: "agent member with parameters", sign: []signature{valid},
			change: func(r *http.Request) { r.Header.Set("Signature-Agent", `sig1="https://agent.example";type=directory`) },
			want:   Result{Signed: true, Reason: "signature-agent member has parameters"}},
		{name: "agent member not a string", sign: []signature{valid},
			change: func(r *http.Request) { r.Header.Set("Signature-Agent", `sig1=agent`) },
			want:   Result{Signed: true, Reason: "signature-agent member is not a string"}},
		{name: "directory unknown", sign: []signature{valid}, docs: map[string]*fetch.Document{},
			want: Result{Signed: true, Reason: "key directory not fetched yet"}},
		{name: "directory redirected", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: {URL: "https://elsewhere.example/keys", ContentType: DirectoryMediaType, Body: jwks("", pub)},
		}, want: Result{Signed: true, Reason: "key directory redirected"}},
		{name: "directory media type", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: {URL: agentDir, ContentType: "text/html", Body: jwks("", pub)},
		}, want: Result{Signed: true, Reason: `key directory served as "text/html"`}},
		{name: "directory not json", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: directoryDoc(agentDir, []byte("<html>")),
		}, want: Result{Signed: true, Reason: "key directory is not a JWK Set"}},
		{name: "key expired in directory", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: directoryDoc(agentDir, jwks(fmt.Sprintf(`,"exp":%d`, now-1), pub)),
		}, want: Result{Signed: true, Reason: "key not valid now"}},
		{name: "key not yet valid in directory", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: directoryDoc(agentDir, jwks(fmt.Sprintf(`,"nbf":%d`, now+60), pub)),
		}, want: Result{Signed: true, Reason: "key not valid now"}},
		{name: "kid not the thumbprint", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: directoryDoc(agentDir, jwks(`,"kid":"test-key-ed25519"`, pub)),
		}, want: Result{Signed: true, Reason: "key not in the agent's directory"}},
		{name: "key for encryption", sign: []signature{valid}, docs: map[string]*fetch.Document{
			agentDir: directoryDoc(agentDir, jwks(`,"use":"enc"`, pub)),
		}, want: Result{Signed: true, Reason: "key not in the agent's directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := tt.docs
			if docs == nil {
				docs = map[string]*fetch.Document{
					agentDir: directoryDoc(agentDir, jwks(`,"use":"sig"`, other.Public().(ed25519.PublicKey), pub)),
				}
			}
			v, _ := newTestVerifier(t, docs)
			r := agentRequest(t, "/path?q=1")
			r.Header.Set("User-Agent", "test-agent/1.0")
			r.Header.Set("X-Purpose", "testing")
			for _, s := range tt.sign {
				sign(t, r, s)
			}
			if tt.change != nil {
				tt.change(r)
			}
			got := v.Verify(r)
			reason := got.Reason
			if tt.want.Reason != "" && strings.HasPrefix(reason, tt.want.Reason) {
				got.Reason = tt.want.Reason
			}
			if got != tt.want {
				t.Errorf("Verify = %+v (reason %q), want %+v", got, reason, tt.want)
			}
		})
	}
}

func flipBase64(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestVerifyPrefetchesUnknownDirectories(t *testing.T) {
	key := testKey(t)
	v, src := newTestVerifier(t, map[string]*fetch.Document{})
	r := agentRequest(t, "/")
	sign(t, r, signature{label: "sig1", components: `"@authority" "signature-agent";key="sig1"`, params: defaultParams(), key: key})
	if res := v.Verify(r); res.Verified || res.Reason != errNotFetched.Error() {
		t.Fatalf("Verify = %+v", res)
	}
	if len(src.prefetched) != 1 || src.prefetched[0] != agentDir {
		t.Fatalf("prefetched %v, want [%s]", src.prefetched, agentDir)
	}
	// Once the fetcher has it, the same request verifies.
	src.mu.Lock()
	src.docs[agentDir] = directoryDoc(agentDir, jwks("", key.Public().(ed25519.PublicKey)))
	src.mu.Unlock()
	if res := v.Verify(r); !res.Verified {
		t.Fatalf("Verify after the fetch = %+v", res)
	}

	// A request that fails the cheap checks makes nothing be fetched.
	bad := agentRequest(t, "/")
	bad.Header.Set("Signature-Agent", `sig1="https://unknown.example"`)
	sign(t, bad, signature{label: "sig1", components: `"@authority" "signature-agent";key="sig1"`, key: key,
		params: fmt.Sprintf(`;created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, testNow.Unix()-7200, testNow.Unix()-3600, testKeyID)})
	v.Verify(bad)
	if len(src.prefetched) != 1 {
		t.Errorf("an expired signature made the verifier fetch %v", src.prefetched[1:])
	}
}

// TestVerifyDraftVectorLegacy verifies the legacy vector of the draft
// whole, at a time within its window, against the draft's directory.
func TestVerifyDraftVectorLegacy(t *testing.T) {
	dir := "https://signature-agent.test" + DirectoryPath
	v, _ := newTestVerifier(t, map[string]*fetch.Document{
		dir: directoryDoc(dir, []byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}`)),
	})
	v.now = func() time.Time { return time.Unix(1735690000, 0) }
	r := readRequest(t, unwrap(`GET / HTTP/1.1
Host: example.com
Signature-Agent: "https://signature-agent.test"
Signature-Input: sig2=("@authority" "signature-agent")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=1735693200\
 ;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=="\
 ;tag="web-bot-auth"
Signature: sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:

`), true)
	want := Result{Signed: true, Verified: true, Agent: "signature-agent.test", Directory: dir, KeyID: testKeyID}
	if got := v.Verify(r); got != want {
		t.Errorf("Verify = %+v, want %+v", got, want)
	}
	v.now = func() time.Time { return time.Unix(1735693200+61, 0) }
	if got := v.Verify(r); got.Verified || got.Reason != "expired" {
		t.Errorf("after expiry: %+v", got)
	}
}

func TestDirectoryURL(t *testing.T) {
	tests := []struct{ agent, dir, host string }{
		{"https://agent.example", agentDir, "agent.example"},
		{"https://agent.example/", agentDir, "agent.example"},
		{"https://Agent.Example:443", agentDir, "agent.example"},
		{"https://agent.example:8443", "https://agent.example:8443" + DirectoryPath, "agent.example:8443"},
		{"https://agent.example" + DirectoryPath, agentDir, "agent.example"},
		{"http://agent.example", "", ""},
		{"https://user@agent.example", "", ""},
		{"https://agent.example/?x=1", "", ""},
		{"https://agent.example/#top", "", ""},
		{"https://agent.example/keys.json", "", ""},
		{"https:agent.example", "", ""},
		{"agent.example", "", ""},
		{"", "", ""},
		// Spellings of one origin: one directory.
		{"https://agent.example:0443", agentDir, "agent.example"},
		{"https://agent.example:000000443/", agentDir, "agent.example"},
		{"HTTPS://AGENT.EXAMPLE.", agentDir, "agent.example"},
		{"https://ag%65nt.example", "", ""},
		{"https://agent.example:08443", "https://agent.example:8443" + DirectoryPath, "agent.example:8443"},
		{"https://bücher.example", "https://xn--bcher-kva.example" + DirectoryPath, "xn--bcher-kva.example"},
		{"https://BÜCHER.example", "https://xn--bcher-kva.example" + DirectoryPath, "xn--bcher-kva.example"},
		{"https://[2001:DB8:0::1]:443", "https://[2001:db8::1]" + DirectoryPath, "[2001:db8::1]"},
		// Malformed ones, refused before anything is asked of the fetcher.
		{"https://agent.example:99999", "", ""},
		{"https://agent.example:0", "", ""},
		{"https://[2001:db8::1%25eth0]", "", ""},
		{"https://[::ffff:192.0.2.1]", "https://[::ffff:192.0.2.1]" + DirectoryPath, "[::ffff:192.0.2.1]"},
		{"https://" + strings.Repeat("a", 64) + ".example", "", ""},
		{"https://a..example", "", ""},
	}
	for _, tt := range tests {
		dir, host, err := directoryURL(tt.agent, false)
		if dir != tt.dir || host != tt.host || (err == nil) != (tt.dir != "") {
			t.Errorf("directoryURL(%q) = %q, %q, %v; want %q, %q", tt.agent, dir, host, err, tt.dir, tt.host)
		}
	}
}

// A thousand spellings of one agent's origin are one directory: one
// fetch, and one entry in the fetcher's cache and the verifier's.
func TestVerifyOneDirectoryPerOrigin(t *testing.T) {
	key := testKey(t)
	v, src := newTestVerifier(t, map[string]*fetch.Document{})
	for i := range 1000 {
		spelling := fmt.Sprintf("https://agent.example:%0*d", 3+i%8, 443)
		switch i % 4 {
		case 1:
			spelling = fmt.Sprintf("HTTPS://AGENT.example:%0*d/", 3+i%8, 443)
		case 2:
			spelling = "https://agent.example."
		}
		r := agentRequest(t, "/")
		r.Header.Set("Signature-Agent", `sig1="`+spelling+`"`)
		sign(t, r, signature{label: "sig1", components: `"@authority" "signature-agent";key="sig1"`, params: defaultParams(), key: key})
		if res := v.Verify(r); res.Reason != errNotFetched.Error() {
			t.Fatalf("%s: %+v", spelling, res)
		}
	}
	distinct := map[string]bool{}
	for _, u := range src.prefetched {
		distinct[u] = true
	}
	if len(distinct) != 1 || !distinct[agentDir] {
		t.Errorf("1 000 spellings asked for %d directories, want 1: %.300v", len(distinct), src.prefetched)
	}
}

// What a request that does not verify can make Verify do is bounded
// before anything is hashed: the checks that need no signature base come
// first (a signature whose key the directory lacks fails on that, however
// its components are written); a base is at most MaxBase bytes, and a
// query longer than that is not read for @query-param; once a signature
// has been checked in full, the others are not.
func TestVerifyBoundsTheWork(t *testing.T) {
	key := testKey(t)
	v, _ := newTestVerifier(t, map[string]*fetch.Document{
		agentDir: directoryDoc(agentDir, jwks("", key.Public().(ed25519.PublicKey))),
	})
	v.now = time.Now
	long := strings.Repeat("x", MaxBase)
	for _, tt := range []struct {
		name, target, components, keyID, want string
	}{
		{"an unknown key, before its components are read", "/", `"@authority" "signature-agent";key="sig1" "@query-param"`, "unknown", "key not in the agent's directory"},
		{"a base over MaxBase", "/", `"@authority" "signature-agent";key="sig1" "x-long"`, testKeyID, fmt.Sprintf("signature base longer than %d bytes", MaxBase)},
		{"@query-param over a long query", "/?q=1&x=" + long, `"@authority" "signature-agent";key="sig1" "@query-param";name="q"`, testKeyID, fmt.Sprintf("query longer than %d bytes for @query-param", MaxBase)},
		{"@query-param over a short query", "/?q=1&x=2", `"@authority" "signature-agent";key="sig1" "@query-param";name="q"`, testKeyID, "signature does not verify"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := agentRequest(t, tt.target)
			r.Header.Set("X-Long", long)
			now := time.Now().Unix()
			r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=(%s);created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, tt.components, now, now+60, tt.keyID))
			r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(make([]byte, ed25519.SignatureSize))+":")
			if res := v.Verify(r); res.Verified || res.Reason != tt.want {
				t.Errorf("Verify = %+v, want the reason %q", res, tt.want)
			}
		})
	}
	r := hostileRequest(t, "https://agent.example", testKeyID)
	if res := v.Verify(r); res.Verified || res.Reason != fmt.Sprintf("query longer than %d bytes for @query-param", MaxBase) {
		t.Errorf("four signatures over a 16 KB query: %+v", res)
	}
}

func TestParseDirectoryRefuses(t *testing.T) {
	many := `{"keys":[` + strings.TrimSuffix(strings.Repeat(`{"kty":"RSA"},`, MaxKeys+1), ",") + `]}`
	for _, body := range []string{`[]`, `{}`, `{"keys":{}}`, many, ``} {
		if _, err := parseDirectory([]byte(body)); err == nil {
			t.Errorf("parseDirectory(%.40q) succeeded", body)
		}
	}
	keys, err := parseDirectory([]byte(`{"keys":[{"kty":"RSA","n":"x","e":"AQAB"},{"kty":"OKP","crv":"X25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"},{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs="},{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","key_ops":["sign"]},{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","alg":"RS256"}]}`))
	if err != nil || len(keys) != 0 {
		t.Errorf("unusable keys were taken: %v, %v", keys, err)
	}
}
