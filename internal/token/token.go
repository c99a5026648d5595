// Package token issues and verifies the service's stateless credentials: opaque
// access tokens, the short-lived identity assertions of the auth.md agent
// registration flow (HS256 JSON Web Tokens, signed and verified with
// go-jose), and the client ids and authorization codes of the anonymous
// authorization code flow. All are authenticated with HMAC-SHA256 under keys
// derived from one secret, so every instance sharing the secret accepts
// every other instance's tokens without a database.
//
// Imports from the module: none.
package token

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Scope is the only scope the service grants: read access to the public API.
const Scope = "public:read"

// MinSecretLen is the minimum secret length in bytes: the full strength of
// HMAC-SHA256's 256-bit key.
const MinSecretLen = 32

// The sentinel errors, for errors.Is. None of them carries token bytes, so
// they are safe to log and to show to clients.
var (
	// ErrMalformed means the input is not a well-formed token, header or
	// assertion of a version this package understands.
	ErrMalformed = errors.New("token: malformed")
	// ErrSignature means the MAC does not match: forged, tampered with, or
	// issued under another secret.
	ErrSignature = errors.New("token: invalid signature")
	// ErrExpired means the token was genuine but its lifetime has ended.
	ErrExpired = errors.New("token: expired")
	// ErrForeign means a genuinely signed assertion is meant for another
	// issuer or audience, or is not an anonymous registration; or that a
	// genuine access token was issued for another resource (RFC 8707).
	ErrForeign = errors.New("token: issued for another audience or type")
	// ErrNotBearer means the Authorization header uses another scheme.
	ErrNotBearer = errors.New("token: authorization scheme is not Bearer")
)

const (
	accessPrefix    = "dsc_"
	accessVersion   = 1    // a token valid for every resource
	boundVersion    = 2    // a token bound to its resources (RFC 8707)
	maxAccessLen    = 1024 // longest token string VerifyAccessToken reads
	maxHeaderLen    = 4096 // longest Authorization header or assertion read
	nonceLen        = 16
	fixedAccessLen  = 1 + 1 + 8 + nonceLen + sha256.Size // all but the scope
	registrationPfx = "anon_"
	claimPfx        = "clm_"
	anonymous       = "anonymous"
)

// b64 rejects non-canonical encodings (stray bits in the last character).
// With isBase64URL, which rejects the CR and LF the decoder would skip, a
// token has exactly one accepted spelling.
var b64 = base64.RawURLEncoding.Strict()

// isCanonicalBase64URL reports whether s is the one unpadded base64url
// spelling of the bytes it encodes: only the alphabet, no length a
// decoder cannot use, and no stray bits in the last character (which a
// lenient decoder ignores).
func isCanonicalBase64URL(s string) bool {
	if len(s)%4 == 1 || !isBase64URL(s) {
		return false
	}
	if len(s)%4 == 0 {
		return true
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	stray := byte(0x0f) // the last of three characters carries 4 bits too many
	if len(s)%4 == 3 {
		stray = 0x03 // the last of four carries 2
	}
	return byte(strings.IndexByte(alphabet, s[len(s)-1]))&stray == 0
}

// isBase64URL reports whether s uses only the unpadded base64url alphabet.
func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Config configures an Issuer.
type Config struct {
	// Secret keys every MAC; at least MinSecretLen bytes. Instances that must
	// accept each other's tokens share it. Keep it out of logs and config dumps.
	Secret []byte
	// TTL is the access token lifetime, at least one second; 0 means 24h.
	TTL time.Duration
	// AssertionTTL is the identity assertion lifetime, at least one second;
	// 0 means 10m. Short, because an assertion is only exchanged once.
	AssertionTTL time.Duration
	// CodeTTL is the authorization code lifetime, at least one second; 0
	// means DefaultCodeTTL.
	CodeTTL time.Duration
	// Issuer is the service's base URL, e.g. "https://example.com", without a
	// trailing slash, query or fragment. It is the iss of assertions, and
	// Issuer+"/oauth/token" is their aud.
	Issuer string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Issuer issues and verifies access tokens and identity assertions. It is
// safe for concurrent use.
type Issuer struct {
	issuer       string
	audience     string
	ttl          time.Duration
	assertionTTL time.Duration
	codeTTL      time.Duration
	now          func() time.Time
	assertionKey []byte
	// assertions signs identity assertions: HS256 under assertionKey, typ
	// JWT; made on first use, as an Issuer is made for every base URL and
	// few of them issue an assertion.
	assertions     jose.Signer
	assertionsErr  error
	assertionsOnce sync.Once
	clientKey      []byte
	codeKey        []byte
	access         sync.Pool // of *macState keyed for access tokens
}

// macState is a keyed HMAC with scratch space, pooled so that verifying a
// token does not allocate.
type macState struct {
	mac hash.Hash
	enc [maxAccessLen]byte         // the base64 text, copied from the string
	raw [maxAccessLen * 3 / 4]byte // the decoded token
	sum [sha256.Size]byte
}

// NewIssuer checks cfg, applies defaults and derives the keys. A separate key
// for each kind of credential means none can be passed off as another.
func NewIssuer(cfg Config) (*Issuer, error) {
	if len(cfg.Secret) < MinSecretLen {
		return nil, fmt.Errorf("secret must be at least %d bytes, got %d", MinSecretLen, len(cfg.Secret))
	}
	ttl, err := lifetime("ttl", cfg.TTL, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	assertionTTL, err := lifetime("assertion_ttl", cfg.AssertionTTL, 10*time.Minute)
	if err != nil {
		return nil, err
	}
	codeTTL, err := lifetime("code_ttl", cfg.CodeTTL, DefaultCodeTTL)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.Issuer)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.HasSuffix(cfg.Issuer, "/") ||
		strings.ContainsAny(cfg.Issuer, "?#") {
		return nil, fmt.Errorf("issuer %q must be an absolute URL without trailing slash, query or fragment", cfg.Issuer)
	}
	i := &Issuer{
		issuer:       cfg.Issuer,
		audience:     cfg.Issuer + "/oauth/token",
		ttl:          ttl,
		assertionTTL: assertionTTL,
		codeTTL:      codeTTL,
		now:          cfg.Now,
		assertionKey: deriveKey(cfg.Secret, "identity-assertion v1"),
		clientKey:    deriveKey(cfg.Secret, "oauth-client v1"),
		codeKey:      deriveKey(cfg.Secret, "authorization-code v1"),
	}
	if i.now == nil {
		i.now = time.Now
	}
	accessKey := deriveKey(cfg.Secret, "access-token v1")
	i.access.New = func() any { return &macState{mac: hmac.New(sha256.New, accessKey)} }
	return i, nil
}

func lifetime(name string, d, def time.Duration) (time.Duration, error) {
	switch {
	case d == 0:
		return def, nil
	case d < time.Second:
		return 0, fmt.Errorf("%s must be at least 1s, got %s", name, d)
	}
	return d, nil
}

func deriveKey(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// NewSecret returns MinSecretLen random bytes, for a secret generated once and
// kept in storage.
func NewSecret() ([]byte, error) {
	return randomBytes(MinSecretLen)
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("reading random bytes: %w", err)
	}
	return b, nil
}

func randomString(prefix string, n int) (string, error) {
	b, err := randomBytes(n)
	if err != nil {
		return "", err
	}
	return prefix + b64.EncodeToString(b), nil
}

// Claims is what a verified access token says.
type Claims struct {
	Scope   string
	Expires time.Time
}

// IssueAccessToken returns a new access token for Scope and its lifetime in
// whole seconds (expires_in). The token is "dsc_" and the unpadded base64url
// encoding of: version 1, scope length, scope, expiry as big-endian Unix
// seconds, 16 random bytes (so no two tokens are equal), and an HMAC-SHA256 of
// all of that. It is deliberately not a JWT: clients must treat it as opaque.
// It is valid for every resource of the service.
func (i *Issuer) IssueAccessToken() (token string, expiresIn int, err error) {
	return i.IssueAccessTokenFor(nil)
}

// IssueAccessTokenFor is IssueAccessToken for a token bound to resources
// (RFC 8707 resource indicators, absolute URLs checked by CheckResources):
// with none it is IssueAccessToken's token; with some, version 2, which
// carries them between the random bytes and the MAC (their number, then
// each with its length as one byte), and which VerifyAccessTokenAt accepts
// only on an address one of them covers (see Covers).
func (i *Issuer) IssueAccessTokenFor(resources []string) (token string, expiresIn int, err error) {
	if err := CheckResources(resources); err != nil {
		return "", 0, err
	}
	version := byte(accessVersion)
	if len(resources) > 0 {
		version = boundVersion
	}
	expires := i.now().Add(i.ttl).Unix()
	b := make([]byte, 0, fixedAccessLen+len(Scope)+1+MaxResources+MaxResourcesLen)
	b = append(b, version, byte(len(Scope)))
	b = append(b, Scope...)
	b = binary.BigEndian.AppendUint64(b, uint64(expires))
	b = b[:len(b)+nonceLen]
	if _, err := rand.Read(b[len(b)-nonceLen:]); err != nil {
		return "", 0, fmt.Errorf("reading random bytes: %w", err)
	}
	if version == boundVersion {
		b = appendResources(b, resources)
	}
	s := i.access.Get().(*macState)
	s.mac.Reset()
	s.mac.Write(b)
	b = s.mac.Sum(b)
	i.access.Put(s)
	return accessPrefix + b64.EncodeToString(b), int(i.ttl / time.Second), nil
}

// VerifyAccessToken checks a token and returns its claims, whatever
// resources it is bound to: for a caller that is every resource at once.
// VerifyAccessTokenAt is the check for one address.
func (i *Issuer) VerifyAccessToken(token string) (Claims, error) {
	return i.verifyAccess(token, "", "", false)
}

// VerifyAccessTokenAt checks a token presented at the address base+path
// (base a scheme and host, path absolute) and returns its claims. A token
// bound to resources is ErrForeign unless one of them covers the address.
// The MAC is checked, in constant time, before expiry, scope or resources
// are read, so unauthenticated bytes never influence anything but the
// ErrMalformed/ErrSignature outcome. It does not allocate on the success
// path and never panics.
func (i *Issuer) VerifyAccessTokenAt(token, base, path string) (Claims, error) {
	return i.verifyAccess(token, base, path, true)
}

func (i *Issuer) verifyAccess(token, base, path string, atAddress bool) (Claims, error) {
	if len(token) > maxAccessLen || !strings.HasPrefix(token, accessPrefix) ||
		!isBase64URL(token[len(accessPrefix):]) {
		return Claims{}, ErrMalformed
	}
	s := i.access.Get().(*macState)
	defer i.access.Put(s)
	// Decode from a copy in the pooled buffer: converting the string to a
	// byte slice would allocate.
	n, err := b64.Decode(s.raw[:], s.enc[:copy(s.enc[:], token[len(accessPrefix):])])
	if err != nil || n < fixedAccessLen {
		return Claims{}, ErrMalformed
	}
	b := s.raw[:n]
	scopeLen := int(b[1])
	switch {
	case b[0] == accessVersion && n == fixedAccessLen+scopeLen:
	case b[0] == boundVersion && n > fixedAccessLen+scopeLen:
	default:
		return Claims{}, ErrMalformed
	}
	body, mac := b[:n-sha256.Size], b[n-sha256.Size:]
	s.mac.Reset()
	s.mac.Write(body)
	if !hmac.Equal(s.mac.Sum(s.sum[:0]), mac) {
		return Claims{}, ErrSignature
	}
	// Only Scope is ever issued; a signed token naming another scope comes
	// from a newer version and is refused rather than guessed at.
	if string(body[2:2+scopeLen]) != Scope {
		return Claims{}, ErrMalformed
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(body[2+scopeLen:])), 0)
	if body[0] == boundVersion {
		resources := body[2+scopeLen+8+nonceLen:]
		covered, ok := coversAddress(resources, base, path)
		if !ok {
			return Claims{}, ErrMalformed
		}
		if atAddress && !covered {
			return Claims{}, ErrForeign
		}
	}
	if !i.now().Before(expires) {
		return Claims{}, ErrExpired
	}
	return Claims{Scope: Scope, Expires: expires}, nil
}

// ParseAuthorization extracts the token from an Authorization header value in
// the RFC 6750 §2.1 form "Bearer <token68>". The scheme is case-insensitive and
// surrounding spaces and tabs are tolerated; anything else is refused rather
// than repaired, so a mangled header is reported instead of half-used. The
// token is a substring of header (no allocation).
func ParseAuthorization(header string) (token string, err error) {
	if len(header) > maxHeaderLen {
		return "", ErrMalformed
	}
	h := strings.Trim(header, " \t")
	if h == "" {
		return "", ErrMalformed
	}
	scheme, rest := h, ""
	if sep := strings.IndexAny(h, " \t"); sep >= 0 {
		scheme, rest = h[:sep], strings.TrimLeft(h[sep:], " \t")
	}
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNotBearer
	}
	token = rest
	if !isToken68(token) {
		return "", ErrMalformed
	}
	return token, nil
}

// isToken68 reports whether s matches [A-Za-z0-9-._~+/]+=* (RFC 7235).
func isToken68(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// Identity is a fresh anonymous registration (auth.md "Register" step).
type Identity struct {
	// RegistrationID is "anon_" and 22 random base64url characters.
	RegistrationID   string
	RegistrationType string // always "anonymous"
	// Assertion is an HS256 JWT, header {"alg":"HS256","typ":"JWT"}, the
	// agent exchanges at the token endpoint with the jwt-bearer grant (RFC
	// 7523).
	Assertion        string
	AssertionExpires time.Time
	// ClaimToken is "clm_" and 32 random base64url characters. It is never
	// verified: claiming a registration is never required here.
	ClaimToken        string
	ClaimTokenExpires time.Time // same as AssertionExpires
}

// assertionClaims are the JWT claims of an identity assertion.
type assertionClaims struct {
	Iss              string `json:"iss"`
	Aud              string `json:"aud"`
	Sub              string `json:"sub"`
	Iat              int64  `json:"iat"`
	Exp              int64  `json:"exp"`
	Jti              string `json:"jti"`
	RegistrationType string `json:"registration_type"`
}

// NewAnonymousIdentity registers a new anonymous agent. Nothing is stored: the
// signed assertion is the registration.
func (i *Issuer) NewAnonymousIdentity() (Identity, error) {
	sub, err := randomString(registrationPfx, 16)
	if err != nil {
		return Identity{}, err
	}
	jti, err := randomString("", 16)
	if err != nil {
		return Identity{}, err
	}
	claim, err := randomString(claimPfx, 24)
	if err != nil {
		return Identity{}, err
	}
	now := i.now()
	expires := time.Unix(now.Add(i.assertionTTL).Unix(), 0)
	payload, err := json.Marshal(assertionClaims{
		Iss: i.issuer, Aud: i.audience, Sub: sub, Iat: now.Unix(), Exp: expires.Unix(),
		Jti: jti, RegistrationType: anonymous,
	})
	if err != nil {
		return Identity{}, fmt.Errorf("encoding assertion: %w", err)
	}
	signer, err := i.assertionSigner()
	if err != nil {
		return Identity{}, err
	}
	signed, err := signer.Sign(payload)
	if err != nil {
		return Identity{}, fmt.Errorf("signing assertion: %w", err)
	}
	assertion, err := signed.CompactSerialize()
	if err != nil {
		return Identity{}, fmt.Errorf("encoding assertion: %w", err)
	}
	return Identity{
		RegistrationID:    sub,
		RegistrationType:  anonymous,
		Assertion:         assertion,
		AssertionExpires:  expires,
		ClaimToken:        claim,
		ClaimTokenExpires: expires,
	}, nil
}

// assertionSigner returns the signer of identity assertions, made on
// first use.
func (i *Issuer) assertionSigner() (jose.Signer, error) {
	i.assertionsOnce.Do(func() {
		i.assertions, i.assertionsErr = jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: i.assertionKey},
			(&jose.SignerOptions{}).WithType("JWT"))
		if i.assertionsErr != nil {
			i.assertionsErr = fmt.Errorf("identity assertion signer: %w", i.assertionsErr)
		}
	})
	return i.assertions, i.assertionsErr
}

// hs256Len is the length of an HS256 signature in base64url.
var hs256Len = b64.EncodedLen(sha256.Size)

// VerifyAssertion checks an identity assertion this issuer made and returns
// its registration id. Only alg HS256 is accepted, whatever else the header
// claims ("none" and algorithm confusion are the classic JWT forgeries); a
// typ other than JWT and any crit are refused; the signature is checked in
// constant time (go-jose) before any claim is read. Each segment must be
// canonical base64url, as this issuer writes it, so that an assertion has
// one accepted spelling. It never panics.
func (i *Issuer) VerifyAssertion(jwt string) (registrationID string, err error) {
	if len(jwt) > maxHeaderLen || strings.Count(jwt, ".") != 2 {
		return "", ErrMalformed
	}
	headerSeg, rest, _ := strings.Cut(jwt, ".")
	payloadSeg, sigSeg, _ := strings.Cut(rest, ".")
	if !isCanonicalBase64URL(headerSeg) || !isCanonicalBase64URL(payloadSeg) ||
		len(sigSeg) != hs256Len || !isCanonicalBase64URL(sigSeg) {
		return "", ErrMalformed
	}
	signed, err := jose.ParseSignedCompact(jwt, []jose.SignatureAlgorithm{jose.HS256})
	if err != nil || len(signed.Signatures) != 1 {
		return "", ErrMalformed
	}
	header := signed.Signatures[0].Protected
	if typ, ok := header.ExtraHeaders[jose.HeaderType]; ok {
		if s, isString := typ.(string); !isString || !strings.EqualFold(s, "JWT") {
			return "", ErrMalformed
		}
	}
	if _, ok := header.ExtraHeaders["crit"]; ok {
		return "", ErrMalformed
	}
	payload, err := signed.Verify(i.assertionKey)
	if err != nil {
		return "", ErrSignature
	}
	var c assertionClaims
	if json.Unmarshal(payload, &c) != nil {
		return "", ErrMalformed
	}
	if c.Iss != i.issuer || c.Aud != i.audience || c.RegistrationType != anonymous ||
		!strings.HasPrefix(c.Sub, registrationPfx) {
		return "", ErrForeign
	}
	if !i.now().Before(time.Unix(c.Exp, 0)) {
		return "", ErrExpired
	}
	return c.Sub, nil
}
