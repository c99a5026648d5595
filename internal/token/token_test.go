package token

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const testIssuerURL = "https://example.com"

var (
	testSecret  = bytes.Repeat([]byte("k"), 32)
	otherSecret = bytes.Repeat([]byte("o"), 32)
	// t0 is a whole second, so expiries computed from it are exact.
	t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time             { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)            { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }

func newIssuer(t testing.TB, cfg Config) *Issuer {
	t.Helper()
	if cfg.Secret == nil {
		cfg.Secret = testSecret
	}
	if cfg.Issuer == "" {
		cfg.Issuer = testIssuerURL
	}
	i, err := NewIssuer(cfg)
	if err != nil {
		t.Fatalf("NewIssuer: %v", err)
	}
	return i
}

// key derives a key exactly as documented, independently of the package.
func key(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// mintAccess builds an access token by hand from the documented format, so
// tests pin the format and can sign payloads the issuer never would.
func mintAccess(secret []byte, version byte, scope string, expires time.Time, nonce byte, resources ...string) string {
	b := []byte{version, byte(len(scope))}
	b = append(b, scope...)
	b = binary.BigEndian.AppendUint64(b, uint64(expires.Unix()))
	b = append(b, bytes.Repeat([]byte{nonce}, 16)...)
	if len(resources) > 0 {
		b = appendResources(b, resources)
	}
	m := hmac.New(sha256.New, key(secret, "access-token v1"))
	m.Write(b)
	return "dsc_" + base64.RawURLEncoding.EncodeToString(m.Sum(b))
}

// signJWT builds an HS256-signed JWT by hand from raw header and claims JSON.
func signJWT(secret []byte, header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	in := enc([]byte(header)) + "." + enc([]byte(claims))
	m := hmac.New(sha256.New, key(secret, "identity-assertion v1"))
	m.Write([]byte(in))
	return in + "." + enc(m.Sum(nil))
}

const hs256 = `{"alg":"HS256","typ":"JWT"}`

// claimsJSON returns valid anonymous-assertion claims for issuer iss,
// expiring at exp, with the given overrides applied.
func claimsJSON(iss string, exp time.Time, override map[string]any) string {
	c := map[string]any{
		"iss": iss, "aud": iss + "/oauth/token", "sub": "anon_AAAAAAAAAAAAAAAAAAAAAA",
		"iat": exp.Add(-10 * time.Minute).Unix(), "exp": exp.Unix(), "jti": "j",
		"registration_type": "anonymous",
	}
	for k, v := range override {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// flip replaces the character at pos with a different base64url character.
func flip(s string, pos int) string {
	c := byte('A')
	if s[pos] == c {
		c = 'B'
	}
	return s[:pos] + string(c) + s[pos+1:]
}

// strayBits sets a bit of the last character of seg, an unpadded base64url
// encoding whose length is not a multiple of 4, that no decoded byte
// holds: a lenient decoder reads the same bytes from the result.
func strayBits(seg string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	if len(seg)%4 < 2 {
		panic("no stray bits in " + seg)
	}
	last := strings.IndexByte(alphabet, seg[len(seg)-1])
	return seg[:len(seg)-1] + string(alphabet[last|1])
}

func isRefusal(err error) bool {
	for _, e := range []error{ErrMalformed, ErrSignature, ErrExpired, ErrForeign} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func TestNewIssuer(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"defaults", Config{Secret: testSecret, Issuer: testIssuerURL}, false},
		{"issuer with path", Config{Secret: testSecret, Issuer: "https://example.com/api"}, false},
		{"short secret", Config{Secret: testSecret[:31], Issuer: testIssuerURL}, true},
		{"no secret", Config{Issuer: testIssuerURL}, true},
		{"negative ttl", Config{Secret: testSecret, Issuer: testIssuerURL, TTL: -time.Second}, true},
		{"sub-second ttl", Config{Secret: testSecret, Issuer: testIssuerURL, TTL: time.Millisecond}, true},
		{"sub-second assertion ttl", Config{Secret: testSecret, Issuer: testIssuerURL, AssertionTTL: time.Millisecond}, true},
		{"empty issuer", Config{Secret: testSecret}, true},
		{"relative issuer", Config{Secret: testSecret, Issuer: "example.com"}, true},
		{"trailing slash", Config{Secret: testSecret, Issuer: "https://example.com/"}, true},
		{"query", Config{Secret: testSecret, Issuer: "https://example.com?a=b"}, true},
		{"empty query", Config{Secret: testSecret, Issuer: "https://example.com?"}, true},
		{"fragment", Config{Secret: testSecret, Issuer: "https://example.com#x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewIssuer(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), string(testSecret)) {
				t.Errorf("error %q reveals the secret", err)
			}
		})
	}
}

func TestAccessTokenRoundTrip(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0)})
	seen := map[string]bool{}
	for n := range 100 {
		tok, expiresIn, err := iss.IssueAccessToken()
		if err != nil {
			t.Fatal(err)
		}
		if expiresIn != 86400 {
			t.Errorf("expiresIn = %d, want 86400", expiresIn)
		}
		if !strings.HasPrefix(tok, "dsc_") || strings.Contains(tok, ".") {
			t.Fatalf("token %q: want dsc_ prefix and no dots", tok)
		}
		if _, err := ParseAuthorization("Bearer " + tok); err != nil {
			t.Fatalf("token %d is not a valid bearer token68: %v", n, err)
		}
		if seen[tok] {
			t.Fatalf("token %d repeats an earlier one", n)
		}
		seen[tok] = true
		c, err := iss.VerifyAccessToken(tok)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		if want := (Claims{Scope: Scope, Expires: t0.Add(24 * time.Hour)}); !c.Expires.Equal(want.Expires) || c.Scope != want.Scope {
			t.Fatalf("claims = %+v, want %+v", c, want)
		}
	}
}

// TestAccessTokenFormat pins the documented wire format: tokens minted by hand
// are accepted, and validly signed tokens this version never issues are not.
func TestAccessTokenFormat(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0)})
	later := t0.Add(time.Hour)
	tests := []struct {
		name  string
		token string
		want  error
	}{
		{"hand-minted", mintAccess(testSecret, 1, Scope, later, 7), nil},
		{"other secret", mintAccess(otherSecret, 1, Scope, later, 7), ErrSignature},
		{"unknown version", mintAccess(testSecret, 2, Scope, later, 7), ErrMalformed},
		{"version zero", mintAccess(testSecret, 0, Scope, later, 7), ErrMalformed},
		{"unknown scope", mintAccess(testSecret, 1, "admin", later, 7), ErrMalformed},
		{"empty scope", mintAccess(testSecret, 1, "", later, 7), ErrMalformed},
		{"longest scope", mintAccess(testSecret, 1, strings.Repeat("s", 255), later, 7), ErrMalformed},
		{"expired", mintAccess(testSecret, 1, Scope, t0, 7), ErrExpired},
		{"expiry in 1970", mintAccess(testSecret, 1, Scope, time.Unix(0, 0), 7), ErrExpired},
		{"negative expiry", mintAccess(testSecret, 1, Scope, time.Unix(-1, 0), 7), ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := iss.VerifyAccessToken(tt.token)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err == nil && (c.Scope != Scope || !c.Expires.Equal(later)) {
				t.Fatalf("claims = %+v", c)
			}
		})
	}

	tok, _, _ := iss.IssueAccessToken()
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, "dsc_"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 1+1+len(Scope)+8+16+32 || raw[0] != 1 || int(raw[1]) != len(Scope) || string(raw[2:2+len(Scope)]) != Scope {
		t.Fatalf("issued token does not follow the documented layout: % x", raw)
	}
	if exp := int64(binary.BigEndian.Uint64(raw[2+len(Scope):])); exp != t0.Add(24*time.Hour).Unix() {
		t.Fatalf("expiry field = %d", exp)
	}
}

func TestVerifyAccessTokenMalformed(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0)})
	valid := mintAccess(testSecret, 1, Scope, t0.Add(time.Hour), 1)
	body := strings.TrimPrefix(valid, "dsc_")
	tests := []struct{ name, token string }{
		{"empty", ""},
		{"prefix only", "dsc_"},
		{"no prefix", body},
		{"wrong prefix", "dsx_" + body},
		{"upper-case prefix", "DSC_" + body},
		{"padded", valid + "=="},
		{"standard alphabet", "dsc_" + base64.RawStdEncoding.EncodeToString([]byte(strings.Repeat("\xff", 69)))},
		{"bad character", valid[:20] + "!" + valid[21:]},
		{"impossible length", valid[:len(valid)-1]},
		{"truncated", valid[:len(valid)-4]},
		{"extended", valid + "AAAA"},
		{"too short", "dsc_AAAA"},
		{"oversize", "dsc_" + strings.Repeat("A", 600)},
		{"oversize valid prefix", valid + strings.Repeat("A", 512)},
		{"jwt", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, t0.Add(time.Hour), nil))},
		{"bearer prefix", "Bearer " + valid},
		{"trailing newline", valid + "\n"},
		{"embedded CRLF", valid[:30] + "\r\n" + valid[30:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := iss.VerifyAccessToken(tt.token); !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

// TestAccessTokenTampering changes every byte of the decoded token and every
// character of its text; no variant may be accepted.
func TestAccessTokenTampering(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0)})
	tok, _, err := iss.IssueAccessToken()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok[4:])
	check := func(t *testing.T, variant string) {
		t.Helper()
		if variant == tok {
			return
		}
		_, err := iss.VerifyAccessToken(variant)
		if !errors.Is(err, ErrSignature) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("variant %q: err = %v, want ErrSignature or ErrMalformed", variant, err)
		}
	}
	t.Run("decoded bytes", func(t *testing.T) {
		for pos := range raw {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				b := bytes.Clone(raw)
				b[pos] ^= mask
				check(t, "dsc_"+base64.RawURLEncoding.EncodeToString(b))
			}
		}
	})
	t.Run("characters", func(t *testing.T) {
		alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.~ \x00\xff"
		for pos := range len(tok) {
			check(t, tok[:pos]+tok[pos+1:])
			check(t, tok[:pos]+"\n"+tok[pos:])
			check(t, tok[:pos]+"\r"+tok[pos:])
			for _, c := range []byte(alphabet) {
				check(t, tok[:pos]+string(c)+tok[pos+1:])
			}
		}
	})
}

func TestAccessTokenExpiry(t *testing.T) {
	tests := []struct {
		name string
		ttl  time.Duration
		want time.Duration // effective lifetime
	}{
		{"default", 0, 24 * time.Hour},
		{"two seconds", 2 * time.Second, 2 * time.Second},
		{"one hour", time.Hour, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: t0}
			iss := newIssuer(t, Config{TTL: tt.ttl, Now: clk.Now})
			tok, expiresIn, err := iss.IssueAccessToken()
			if err != nil {
				t.Fatal(err)
			}
			if expiresIn != int(tt.want/time.Second) {
				t.Errorf("expiresIn = %d, want %d", expiresIn, int(tt.want/time.Second))
			}
			for _, at := range []struct {
				offset time.Duration
				want   error
			}{
				{0, nil},
				{tt.want - time.Nanosecond, nil},
				{tt.want, ErrExpired},
				{tt.want + time.Nanosecond, ErrExpired},
				{tt.want + 365*24*time.Hour, ErrExpired},
			} {
				clk.Set(t0.Add(at.offset))
				if _, err := iss.VerifyAccessToken(tok); err != at.want {
					t.Errorf("at issue+%s: err = %v, want %v", at.offset, err, at.want)
				}
			}
		})
	}
	t.Run("fractional issue time rounds expiry down", func(t *testing.T) {
		iss := newIssuer(t, Config{TTL: 2 * time.Second, Now: fixedNow(t0.Add(900 * time.Millisecond))})
		tok, _, _ := iss.IssueAccessToken()
		c, err := iss.VerifyAccessToken(tok)
		if err != nil || !c.Expires.Equal(t0.Add(2*time.Second)) {
			t.Fatalf("claims %+v, err %v; want expiry %s", c, err, t0.Add(2*time.Second))
		}
	})
}

func TestAccessTokenOtherIssuer(t *testing.T) {
	mine := newIssuer(t, Config{Now: fixedNow(t0)})
	theirs := newIssuer(t, Config{Secret: otherSecret, Now: fixedNow(t0)})
	tok, _, _ := theirs.IssueAccessToken()
	if _, err := mine.VerifyAccessToken(tok); !errors.Is(err, ErrSignature) {
		t.Fatalf("err = %v, want ErrSignature", err)
	}
	// An assertion key never verifies an access token and vice versa: the
	// same secret yields independent keys.
	id, _ := mine.NewAnonymousIdentity()
	if _, err := mine.VerifyAccessToken(id.Assertion); err == nil {
		t.Fatal("assertion accepted as access token")
	}
	tok, _, _ = mine.IssueAccessToken()
	if _, err := mine.VerifyAssertion(tok); err == nil {
		t.Fatal("access token accepted as assertion")
	}
}

func TestErrorsDoNotRevealTokens(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0)})
	tok, _, _ := iss.IssueAccessToken()
	// The last character replaced by another one (a fixed replacement
	// would leave the token valid whenever it was already that character).
	last := "x"
	if strings.HasSuffix(tok, last) {
		last = "y"
	}
	for _, in := range []string{tok[:len(tok)-1] + last, tok + "!", "dsc_secretsecret"} {
		if _, err := iss.VerifyAccessToken(in); err == nil || strings.Contains(err.Error(), in[4:12]) {
			t.Errorf("error %v for %q reveals input or is nil", err, in)
		}
	}
}

func TestParseAuthorization(t *testing.T) {
	tests := []struct {
		name, header, want string
		err                error
	}{
		{"canonical", "Bearer abc", "abc", nil},
		{"lower-case scheme", "bearer abc", "abc", nil},
		{"upper-case scheme, two spaces", "BEARER  abc", "abc", nil},
		{"tab", "Bearer\tabc", "abc", nil},
		{"surrounding whitespace", " \tBearer abc \t", "abc", nil},
		{"token68 charset", "Bearer aZ09-._~+/==", "aZ09-._~+/==", nil},
		{"access token", "Bearer dsc_AAAA", "dsc_AAAA", nil},
		{"basic", "Basic abc", "", ErrNotBearer},
		{"token scheme", "Token abc", "", ErrNotBearer},
		{"scheme prefix", "Bearerabc", "", ErrNotBearer},
		{"bare other scheme", "Negotiate", "", ErrNotBearer},
		{"empty", "", "", ErrMalformed},
		{"blank", " \t ", "", ErrMalformed},
		{"scheme only", "Bearer", "", ErrMalformed},
		{"scheme and space", "Bearer ", "", ErrMalformed},
		{"two fields", "Bearer a b", "", ErrMalformed},
		{"comma list", "Bearer a, Basic b", "", ErrMalformed},
		{"nul byte", "Bearer a\x00", "", ErrMalformed},
		{"newline", "Bearer a\nb", "", ErrMalformed},
		{"only padding", "Bearer ==", "", ErrMalformed},
		{"padding inside", "Bearer a=b", "", ErrMalformed},
		{"non-ascii", "Bearer é", "", ErrMalformed},
		{"quoted", `Bearer "abc"`, "", ErrMalformed},
		{"longest", "Bearer " + strings.Repeat("a", 4096-7), strings.Repeat("a", 4096-7), nil},
		{"over-long", "Bearer " + strings.Repeat("a", 4096), "", ErrMalformed},
		{"over-long other scheme", "Basic " + strings.Repeat("a", 4096), "", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAuthorization(tt.header)
			if err != tt.err || got != tt.want {
				t.Fatalf("ParseAuthorization(%.40q) = %.40q, %v; want %.40q, %v", tt.header, got, err, tt.want, tt.err)
			}
		})
	}
}

func TestIdentityRoundTrip(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0.Add(300 * time.Millisecond))})
	id, err := iss.NewAnonymousIdentity()
	if err != nil {
		t.Fatal(err)
	}
	idPattern := regexp.MustCompile(`^anon_[A-Za-z0-9_-]{22}$`)
	claimPattern := regexp.MustCompile(`^clm_[A-Za-z0-9_-]{32}$`)
	wantExp := t0.Add(10 * time.Minute)
	switch {
	case !idPattern.MatchString(id.RegistrationID):
		t.Errorf("RegistrationID = %q", id.RegistrationID)
	case id.RegistrationType != "anonymous":
		t.Errorf("RegistrationType = %q", id.RegistrationType)
	case !claimPattern.MatchString(id.ClaimToken):
		t.Errorf("ClaimToken = %q", id.ClaimToken)
	case !id.AssertionExpires.Equal(wantExp) || !id.ClaimTokenExpires.Equal(wantExp):
		t.Errorf("expiries %s, %s; want %s", id.AssertionExpires, id.ClaimTokenExpires, wantExp)
	}

	seg := strings.Split(id.Assertion, ".")
	if len(seg) != 3 {
		t.Fatalf("assertion has %d segments", len(seg))
	}
	header, _ := base64.RawURLEncoding.DecodeString(seg[0])
	if string(header) != hs256 {
		t.Errorf("header = %s", header)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(seg[1])
	var c map[string]any
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"iss": testIssuerURL, "aud": testIssuerURL + "/oauth/token", "sub": id.RegistrationID,
		"iat": float64(t0.Unix()), "exp": float64(wantExp.Unix()), "registration_type": "anonymous",
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("claim %s = %v, want %v", k, c[k], v)
		}
	}
	if jti, _ := c["jti"].(string); len(jti) < 16 {
		t.Errorf("jti = %v", c["jti"])
	}

	got, err := iss.VerifyAssertion(id.Assertion)
	if err != nil || got != id.RegistrationID {
		t.Fatalf("VerifyAssertion = %q, %v; want %q", got, err, id.RegistrationID)
	}
	other, _ := iss.NewAnonymousIdentity()
	if other.RegistrationID == id.RegistrationID || other.ClaimToken == id.ClaimToken || other.Assertion == id.Assertion {
		t.Error("two identities share a value")
	}
}

func TestVerifyAssertion(t *testing.T) {
	clk := &clock{t: t0}
	iss := newIssuer(t, Config{Now: clk.Now})
	exp := t0.Add(10 * time.Minute)
	valid := signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, nil))
	seg := strings.Split(valid, ".")
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	issued, _ := iss.NewAnonymousIdentity()
	var strayPayload string // a valid assertion with stray bits in its payload's last character
	for _, jti := range []string{"j", "jj"} {
		if claims := claimsJSON(testIssuerURL, exp, map[string]any{"jti": jti}); len(claims)%3 != 0 {
			s := strings.Split(signJWT(testSecret, hs256, claims), ".")
			strayPayload = s[0] + "." + strayBits(s[1]) + "." + s[2]
		}
	}
	foreignIss := newIssuer(t, Config{Issuer: "https://other.example", Now: clk.Now})
	foreign, _ := foreignIss.NewAnonymousIdentity()
	otherKey := newIssuer(t, Config{Secret: otherSecret, Now: clk.Now})
	forged, _ := otherKey.NewAnonymousIdentity()

	tests := []struct {
		name, jwt string
		now       time.Time
		want      error
	}{
		{"issued", issued.Assertion, t0, nil},
		{"hand-built", valid, t0, nil},
		{"no typ", signJWT(testSecret, `{"alg":"HS256"}`, claimsJSON(testIssuerURL, exp, nil)), t0, nil},
		{"just before expiry", valid, exp.Add(-time.Nanosecond), nil},
		{"at expiry", valid, exp, ErrExpired},
		{"long expired", issued.Assertion, t0.Add(time.Hour), ErrExpired},
		{"another issuer URL", foreign.Assertion, t0, ErrForeign},
		{"another audience", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"aud": testIssuerURL})), t0, ErrForeign},
		{"audience array", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"aud": []string{testIssuerURL + "/oauth/token"}})), t0, ErrMalformed},
		{"wrong registration_type", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"registration_type": "claimed"})), t0, ErrForeign},
		{"no registration_type", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"registration_type": nil})), t0, ErrForeign},
		{"sub without anon_", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"sub": "user_1"})), t0, ErrForeign},
		{"no exp", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"exp": nil})), t0, ErrExpired},
		{"fractional exp", signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"exp": 1.5e9 + 0.5})), t0, ErrMalformed},
		{"another secret", forged.Assertion, t0, ErrSignature},
		{"alg none", enc(`{"alg":"none","typ":"JWT"}`) + "." + seg[1] + ".", t0, ErrMalformed},
		{"alg none, kept signature", enc(`{"alg":"none"}`) + "." + seg[1] + "." + seg[2], t0, ErrMalformed},
		{"alg None", signJWT(testSecret, `{"alg":"None"}`, claimsJSON(testIssuerURL, exp, nil)), t0, ErrMalformed},
		{"alg HS512", signJWT(testSecret, `{"alg":"HS512","typ":"JWT"}`, claimsJSON(testIssuerURL, exp, nil)), t0, ErrMalformed},
		{"alg RS256", signJWT(testSecret, `{"alg":"RS256","typ":"JWT"}`, claimsJSON(testIssuerURL, exp, nil)), t0, ErrMalformed},
		{"alg hs256", signJWT(testSecret, `{"alg":"hs256"}`, claimsJSON(testIssuerURL, exp, nil)), t0, ErrMalformed},
		{"typ JWE", signJWT(testSecret, `{"alg":"HS256","typ":"JWE"}`, claimsJSON(testIssuerURL, exp, nil)), t0, ErrMalformed},
		{"crit", signJWT(testSecret, `{"alg":"HS256","crit":["b64"],"b64":false}`, claimsJSON(testIssuerURL, exp, nil)), t0, ErrMalformed},
		{"tampered payload", seg[0] + "." + enc(claimsJSON(testIssuerURL, exp.Add(time.Hour), nil)) + "." + seg[2], t0, ErrSignature},
		{"tampered signature", seg[0] + "." + seg[1] + "." + enc(strings.Repeat("x", 32)), t0, ErrSignature},
		{"short signature", seg[0] + "." + seg[1] + "." + seg[2][:40], t0, ErrMalformed},
		{"padded signature", valid + "=", t0, ErrMalformed},
		{"stray bits in the signature", seg[0] + "." + seg[1] + "." + strayBits(seg[2]), t0, ErrMalformed},
		{"stray bits in the payload", strayPayload, t0, ErrMalformed},
		{"empty", "", t0, ErrMalformed},
		{"two segments", seg[0] + "." + seg[1], t0, ErrMalformed},
		{"four segments", valid + ".x", t0, ErrMalformed},
		{"bad base64", seg[0] + "." + seg[1] + "!." + seg[2], t0, ErrMalformed},
		{"newline in header", seg[0][:4] + "\n" + seg[0][4:] + "." + seg[1] + "." + seg[2], t0, ErrMalformed},
		{"newline in signature", valid + "\r\n", t0, ErrMalformed},
		{"header not json", enc("alg") + "." + seg[1] + "." + seg[2], t0, ErrMalformed},
		{"oversize", valid + strings.Repeat("A", 4096), t0, ErrMalformed},
		{"access token", mintAccess(testSecret, 1, Scope, exp, 1), t0, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.Set(tt.now)
			sub, err := iss.VerifyAssertion(tt.jwt)
			if err != tt.want {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err == nil && !strings.HasPrefix(sub, "anon_") {
				t.Fatalf("sub = %q", sub)
			}
			if err != nil && sub != "" {
				t.Fatalf("sub %q returned with error", sub)
			}
		})
	}
}

// TestAssertionTampering changes every character of an assertion; no variant
// may be accepted.
func TestAssertionTampering(t *testing.T) {
	iss := newIssuer(t, Config{Now: fixedNow(t0)})
	id, _ := iss.NewAnonymousIdentity()
	jwt := id.Assertion
	for pos := range len(jwt) {
		for _, inserted := range []string{"\n", "\r", "A", "."} {
			if _, err := iss.VerifyAssertion(jwt[:pos] + inserted + jwt[pos:]); !isRefusal(err) {
				t.Fatalf("%q inserted at %d: err = %v", inserted, pos, err)
			}
		}
		for _, c := range []byte("AQgw-_.=") {
			variant := jwt[:pos] + string(c) + jwt[pos+1:]
			if variant == jwt {
				continue
			}
			if _, err := iss.VerifyAssertion(variant); !isRefusal(err) {
				t.Fatalf("variant at %d (%q): err = %v", pos, c, err)
			}
		}
	}
}

func TestNewSecret(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSecret()
	if len(a) != 32 || bytes.Equal(a, b) {
		t.Fatalf("NewSecret: len %d, repeated %v", len(a), bytes.Equal(a, b))
	}
	if _, err := NewIssuer(Config{Secret: a, Issuer: testIssuerURL}); err != nil {
		t.Fatalf("NewSecret output refused: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	iss := newIssuer(t, Config{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				tok, _, err := iss.IssueAccessToken()
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := iss.VerifyAccessToken(tok); err != nil {
					t.Error(err)
					return
				}
				if _, err := iss.VerifyAccessToken(flip(tok, len(tok)/2)); err == nil {
					t.Error("tampered token accepted")
					return
				}
			}
		})
	}
	wg.Wait()
}

// fuzzAccessSeeds are deterministic valid tokens from a fixed secret, so every
// fuzz worker process agrees on the set the fuzzer is allowed to have accepted.
func fuzzAccessSeeds() []string {
	var seeds []string
	for n := range 4 {
		seeds = append(seeds, mintAccess(testSecret, 1, Scope, t0.Add(time.Duration(n+1)*time.Hour), byte(n)))
	}
	seeds = append(seeds,
		mintAccess(testSecret, 2, Scope, t0.Add(time.Hour), 5, fuzzBase+"/mcp"),
		mintAccess(testSecret, 2, Scope, t0.Add(time.Hour), 6, fuzzBase, "https://b.example/api"))
	return seeds
}

// fuzzBase is the address FuzzVerifyAccessToken verifies tokens at, with
// the path /mcp.
const fuzzBase = "https://a.example"

func FuzzVerifyAccessToken(f *testing.F) {
	iss := newIssuer(f, Config{Now: fixedNow(t0)})
	seeds := fuzzAccessSeeds()
	payload := map[string]bool{}
	for _, s := range seeds {
		raw, _ := base64.RawURLEncoding.DecodeString(s[4:])
		payload[string(raw)] = true
		f.Add(s)
		f.Add(s[:len(s)-1] + "A")
		f.Add(s[:10] + "x" + s[11:])
		f.Add(s + "A")
		f.Add(s[:len(s)-4])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		b := make([]byte, 69)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add("dsc_" + base64.RawURLEncoding.EncodeToString(b))
		f.Add(string(b))
	}
	f.Add("")
	f.Add("dsc_")
	f.Add(mintAccess(testSecret, 2, Scope, t0.Add(time.Hour), 9))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := iss.VerifyAccessToken(s)
		if _, errAt := iss.VerifyAccessTokenAt(s, fuzzBase, "/mcp"); errAt != nil && errAt != ErrForeign && errAt != err {
			t.Fatalf("VerifyAccessTokenAt: %v, VerifyAccessToken: %v", errAt, err)
		}
		if err != nil {
			if err != ErrMalformed && err != ErrSignature && err != ErrExpired {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		raw, derr := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s, "dsc_"))
		if derr != nil || !payload[string(raw)] || !strings.HasPrefix(s, "dsc_") {
			t.Fatalf("accepted a token that was never issued: %q", s)
		}
		if c.Scope != Scope {
			t.Fatalf("scope = %q", c.Scope)
		}
	})
}

var token68 = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]+=*$`)

func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer abc", "BEARER  abc", "Basic abc", "Bearer", "Bearer ",
		"Bearer a b", "Bearer a\x00", "Token abc", "", "\tBearer\t\tx==\t", "Bearer a=b", "Bearer =="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := ParseAuthorization(h)
		if err != nil {
			if err != ErrMalformed && err != ErrNotBearer || tok != "" {
				t.Fatalf("%q: %q, %v", h, tok, err)
			}
			return
		}
		trimmed := strings.Trim(h, " \t")
		if len(h) > 4096 || !token68.MatchString(tok) || !strings.HasSuffix(trimmed, tok) ||
			len(trimmed) < 7 || !strings.EqualFold(trimmed[:6], "bearer") ||
			strings.Trim(trimmed[6:len(trimmed)-len(tok)], " \t") != "" || trimmed[6] != ' ' && trimmed[6] != '\t' {
			t.Fatalf("%q accepted as %q", h, tok)
		}
		if again, err := ParseAuthorization("Bearer " + tok); err != nil || again != tok {
			t.Fatalf("round trip of %q: %q, %v", tok, again, err)
		}
	})
}

func FuzzVerifyAssertion(f *testing.F) {
	iss := newIssuer(f, Config{Now: fixedNow(t0)})
	exp := t0.Add(10 * time.Minute)
	valid := map[string]bool{}
	for _, sub := range []string{"anon_AAAAAAAAAAAAAAAAAAAAAA", "anon_x"} {
		s := signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"sub": sub}))
		valid[s] = true
		f.Add(s)
		f.Add(s[:len(s)-1] + "A")
		f.Add(strings.Replace(s, "J9", "J8", 1))
	}
	for _, s := range []string{
		signJWT(testSecret, `{"alg":"none"}`, claimsJSON(testIssuerURL, exp, nil)),
		signJWT(testSecret, `{"alg":"HS512"}`, claimsJSON(testIssuerURL, exp, nil)),
		signJWT(testSecret, hs256, claimsJSON("https://other.example", exp, nil)),
		signJWT(testSecret, hs256, claimsJSON(testIssuerURL, exp, map[string]any{"registration_type": "x"})),
		signJWT(testSecret, hs256, claimsJSON(testIssuerURL, t0, nil)),
		signJWT(otherSecret, hs256, claimsJSON(testIssuerURL, exp, nil)),
		"", "..", "a.b.c", "e30.e30.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sub, err := iss.VerifyAssertion(s)
		if err != nil {
			if !isRefusal(err) || sub != "" {
				t.Fatalf("unexpected %q, %v", sub, err)
			}
			return
		}
		if !strings.HasPrefix(sub, "anon_") || !valid[s] {
			t.Fatalf("accepted an assertion that was never issued: %q (sub %q)", s, sub)
		}
	})
}

func BenchmarkVerifyAccessToken(b *testing.B) {
	iss := newIssuer(b, Config{})
	tok, _, _ := iss.IssueAccessToken()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.VerifyAccessToken(tok); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIssueAccessToken(b *testing.B) {
	iss := newIssuer(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := iss.IssueAccessToken(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAuthorization(b *testing.B) {
	h := "Bearer " + mintAccess(testSecret, 1, Scope, t0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAuthorization(h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyAssertion(b *testing.B) {
	iss := newIssuer(b, Config{})
	id, _ := iss.NewAnonymousIdentity()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.VerifyAssertion(id.Assertion); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewAnonymousIdentity(b *testing.B) {
	iss := newIssuer(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.NewAnonymousIdentity(); err != nil {
			b.Fatal(err)
		}
	}
}
