package token

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The credentials of the anonymous authorization code flow: client ids from
// dynamic client registration (RFC 7591) and authorization codes. Like the
// access tokens they are stateless, authenticated with HMAC-SHA256 under
// keys of their own derived from the secret, so every instance sharing the
// secret accepts what any of them issued. What cannot be stateless, that a
// code is redeemed only once, is the caller's (see Code.ID).

// ErrVerifier means a genuine authorization code was presented with a PKCE
// code verifier that does not match its challenge.
var ErrVerifier = errors.New("token: code verifier does not match the challenge")

const (
	clientPrefix     = "dcl_"
	clientVersion    = 1
	codePrefix       = "dac_"
	codeVersion      = 1           // a code for every resource
	boundCodeVersion = 2           // a code bound to resources (RFC 8707)
	challengeLen     = sha256.Size // an S256 challenge, decoded
	fixedCodeLen     = 1 + 8 + nonceLen + sha256.Size + challengeLen + sha256.Size
	maxClientIDLen   = 4096 // longest client id VerifyClient reads

	// MaxRedirectURIs is the most redirect URIs one client can register.
	MaxRedirectURIs = 4
	// MaxRedirectURIsLen is the most bytes the redirect URIs of one
	// client can have together: they are the client id, which travels in
	// the authorization request's URL.
	MaxRedirectURIsLen = 1024
	// DefaultCodeTTL is the lifetime of authorization codes unless
	// configured: long enough for a client to follow a redirect and post
	// the code, short enough that a leaked one is useless soon.
	DefaultCodeTTL = 60 * time.Second
)

// RegisterClient returns the client id of a client with these redirect URIs:
// "dcl_" and the unpadded base64url of version 1, the number of URIs, each
// URI with its length as two big-endian bytes, and an HMAC-SHA256 of all of
// that. The id is the registration: nothing is stored, and the same URIs
// always give the same id. The caller validates the URIs; RegisterClient
// only refuses more than MaxRedirectURIs or MaxRedirectURIsLen bytes.
func (i *Issuer) RegisterClient(redirectURIs []string) (clientID string, err error) {
	total := 0
	for _, u := range redirectURIs {
		total += len(u)
	}
	if len(redirectURIs) == 0 || len(redirectURIs) > MaxRedirectURIs || total > MaxRedirectURIsLen {
		return "", fmt.Errorf("1 to %d redirect URIs of at most %d bytes together", MaxRedirectURIs, MaxRedirectURIsLen)
	}
	b := make([]byte, 0, 2+2*len(redirectURIs)+total+sha256.Size)
	b = append(b, clientVersion, byte(len(redirectURIs)))
	for _, u := range redirectURIs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(u)))
		b = append(b, u...)
	}
	b = append(b, sign(i.clientKey, b)...)
	return clientPrefix + b64.EncodeToString(b), nil
}

// VerifyClient checks a client id and returns the redirect URIs it was
// registered with. It never panics.
func (i *Issuer) VerifyClient(clientID string) (redirectURIs []string, err error) {
	if len(clientID) > maxClientIDLen || !strings.HasPrefix(clientID, clientPrefix) ||
		!isBase64URL(clientID[len(clientPrefix):]) {
		return nil, ErrMalformed
	}
	b, err := b64.DecodeString(clientID[len(clientPrefix):])
	if err != nil || len(b) < 2+sha256.Size || b[0] != clientVersion {
		return nil, ErrMalformed
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(sign(i.clientKey, body), sum) {
		return nil, ErrSignature
	}
	n, rest := int(body[1]), body[2:]
	for range n {
		if len(rest) < 2 {
			return nil, ErrMalformed
		}
		l := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+l {
			return nil, ErrMalformed
		}
		redirectURIs = append(redirectURIs, string(rest[2:2+l]))
		rest = rest[2+l:]
	}
	if len(rest) != 0 || n == 0 {
		return nil, ErrMalformed
	}
	return redirectURIs, nil
}

// Code is what a verified authorization code says.
type Code struct {
	// ID names the code for its single use: the caller records it as
	// redeemed until Expires and refuses it the second time.
	ID      string
	Expires time.Time
	// Resources are the RFC 8707 resources of the authorization request,
	// which the token may be bound to; none when it named none.
	Resources []string
}

// IssueCode returns an authorization code for the client, the redirect URI
// the authorization response goes to, the S256 code challenge (decoded,
// 32 bytes) and the RFC 8707 resources of the request (checked by
// CheckResources; none for a request that named none). The code is "dac_"
// and the unpadded base64url of version 1 (2 with resources), the expiry
// as big-endian Unix seconds, 16 random bytes, a SHA-256 of the client id
// and redirect URI, the challenge, with version 2 the resources encoded as
// in an access token, and an HMAC-SHA256 of all of that.
func (i *Issuer) IssueCode(clientID, redirectURI string, challenge []byte, resources []string) (string, error) {
	if len(challenge) != challengeLen {
		return "", fmt.Errorf("the challenge must be %d bytes, got %d", challengeLen, len(challenge))
	}
	if err := CheckResources(resources); err != nil {
		return "", err
	}
	version := byte(codeVersion)
	if len(resources) > 0 {
		version = boundCodeVersion
	}
	b := make([]byte, 0, fixedCodeLen+1+MaxResources+MaxResourcesLen)
	b = append(b, version)
	b = binary.BigEndian.AppendUint64(b, uint64(i.now().Add(i.codeTTL).Unix()))
	b = b[:len(b)+nonceLen]
	if _, err := rand.Read(b[len(b)-nonceLen:]); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	binding := codeBinding(clientID, redirectURI)
	b = append(b, binding[:]...)
	b = append(b, challenge...)
	if version == boundCodeVersion {
		b = appendResources(b, resources)
	}
	b = append(b, sign(i.codeKey, b)...)
	return codePrefix + b64.EncodeToString(b), nil
}

// RedeemCode checks an authorization code against the token request: the
// MAC first, then expiry, then that the client id and redirect URI are those
// it was issued for (ErrForeign), then the PKCE verifier (ErrVerifier, RFC
// 7636 S256). It does not record the use: that is the caller's, with the
// returned ID. It never panics.
func (i *Issuer) RedeemCode(code, clientID, redirectURI, verifier string) (Code, error) {
	if len(code) > 2*(fixedCodeLen+1+MaxResources+MaxResourcesLen) || !strings.HasPrefix(code, codePrefix) || !isBase64URL(code[len(codePrefix):]) {
		return Code{}, ErrMalformed
	}
	b, err := b64.DecodeString(code[len(codePrefix):])
	if err != nil || !(len(b) == fixedCodeLen && b[0] == codeVersion || len(b) > fixedCodeLen && b[0] == boundCodeVersion) {
		return Code{}, ErrMalformed
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(sign(i.codeKey, body), sum) {
		return Code{}, ErrSignature
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(body[1:9])), 0)
	if !i.now().Before(expires) {
		return Code{}, ErrExpired
	}
	nonce := body[9 : 9+nonceLen]
	binding := body[9+nonceLen : 9+nonceLen+sha256.Size]
	challenge := body[9+nonceLen+sha256.Size : 9+nonceLen+sha256.Size+challengeLen]
	var resources []string
	if b[0] == boundCodeVersion {
		var ok bool
		if resources, ok = readResources(body[9+nonceLen+sha256.Size+challengeLen:]); !ok {
			return Code{}, ErrMalformed
		}
	}
	want := codeBinding(clientID, redirectURI)
	if subtle.ConstantTimeCompare(binding, want[:]) != 1 {
		return Code{}, ErrForeign
	}
	got := sha256.Sum256([]byte(verifier))
	if subtle.ConstantTimeCompare(challenge, got[:]) != 1 {
		return Code{}, ErrVerifier
	}
	return Code{ID: b64.EncodeToString(nonce), Expires: expires, Resources: resources}, nil
}

// codeBinding ties a code to its client and redirect URI; neither contains
// a NUL byte, so the pair has one encoding.
func codeBinding(clientID, redirectURI string) [sha256.Size]byte {
	return sha256.Sum256([]byte(clientID + "\x00" + redirectURI))
}

// sign is the HMAC-SHA256 of msg under key.
func sign(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
