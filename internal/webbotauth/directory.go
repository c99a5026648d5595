package webbotauth

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
	"golang.org/x/net/idna"
)

// Key directories: where an agent's Signature-Agent points, and the JSON Web
// Key Set found there.

// directoryURL returns the key directory named by a Signature-Agent value,
// and the agent's host. The value must be an https origin, whose directory
// is at the well-known path, or that well-known URL itself. Other URLs,
// which draft-ietf-webbotauth-httpsig-protocol-01 would fetch as a JWK Set
// directly, are refused: only the well-known path binds a key set to the
// host, and the host is what a verified request is attributed to. With
// allowHTTP, an http origin is taken too (an agent on the operator's own
// network; see Verifier.AllowHTTP).
func directoryURL(agent string, allowHTTP bool) (dir, host string, err error) {
	u, err := url.Parse(agent)
	if err != nil || !(u.Scheme == "https" || allowHTTP && u.Scheme == "http") || u.Host == "" || u.Opaque != "" {
		return "", "", errors.New("signature-agent is not an https URL")
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(agent, "#") {
		return "", "", errors.New("signature-agent is not an origin")
	}
	switch u.EscapedPath() {
	case "", "/", DirectoryPath:
	default:
		return "", "", errors.New("signature-agent is neither an origin nor its key directory")
	}
	if host, err = canonicalHost(u.Scheme, u.Host); err != nil {
		return "", "", err
	}
	return u.Scheme + "://" + host + DirectoryPath, host, nil
}

// hostNames reads host names as a resolver would look them up, and
// refuses the names DNS cannot hold (empty labels, labels over 63 bytes).
var hostNames = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.VerifyDNSLength(true))

// canonicalHost is the host and port of an origin spelt one way, so that
// the spellings of one origin share one directory (one fetch, one entry of
// the cache): the name in lowercase ASCII (IDNA) without a trailing dot,
// an IPv6 address in its RFC 5952 form, the port in decimal without
// leading zeros and left out when it is the scheme's default. A malformed
// host or port is an error.
func canonicalHost(scheme, hostport string) (string, error) {
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && i > strings.LastIndexByte(hostport, ']') {
		host, port = hostport[:i], hostport[i+1:]
	}
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return "", errors.New("signature-agent has a malformed port")
		}
		port = strconv.FormatUint(n, 10)
		if scheme == "https" && n == 443 || scheme == "http" && n == 80 {
			port = ""
		}
	}
	if inner, ok := strings.CutPrefix(host, "["); ok {
		addr, err := netip.ParseAddr(strings.TrimSuffix(inner, "]"))
		if err != nil || !addr.Is6() || addr.Zone() != "" || !strings.HasSuffix(inner, "]") {
			return "", errors.New("signature-agent has a malformed IPv6 address")
		}
		host = "[" + addr.String() + "]"
	} else {
		ascii, err := hostNames.ToASCII(strings.TrimSuffix(host, "."))
		if err != nil || ascii == "" || len(ascii) > 253 {
			return "", errors.New("signature-agent has a malformed host name")
		}
		host = ascii
	}
	if port != "" {
		host += ":" + port
	}
	return host, nil
}

// signatureAgent returns the Signature-Agent value the signature covers.
// The field is a Dictionary whose member the signature covers as
// "signature-agent";key="…", or, in the legacy form of the earlier drafts,
// a single String covered whole.
func signatureAgent(h http.Header, label string, covered httpsfv.InnerList) (string, error) {
	field, ok := fieldValue(h, "signature-agent")
	if !ok {
		return "", errors.New("no signature-agent")
	}
	if len(field) > MaxFieldLen {
		return "", fmt.Errorf("signature-agent longer than %d bytes", MaxFieldLen)
	}
	var keys []string
	whole := false
	for _, c := range covered.Items {
		if name, _ := c.Value.(string); name != "signature-agent" {
			continue
		}
		if k, ok := stringParam(c.Params, "key"); ok {
			keys = append(keys, k)
		} else if len(c.Params.Names()) == 0 {
			whole = true
		}
	}
	if strings.HasPrefix(field, `"`) { // legacy: a String
		if !whole {
			return "", errors.New("signature-agent not covered")
		}
		it, err := httpsfv.UnmarshalItem([]string{field})
		agent, isString := it.Value.(string)
		if err != nil || !isString || len(it.Params.Names()) > 0 {
			return "", errors.New("malformed signature-agent")
		}
		return agent, nil
	}
	d, err := httpsfv.UnmarshalDictionary([]string{field})
	if err != nil {
		return "", errors.New("malformed signature-agent")
	}
	var key string
	switch {
	case len(keys) == 1:
		key = keys[0]
	case len(keys) > 1:
		// A signature may cover other signers' members; its own is the one
		// keyed by its label.
		for _, k := range keys {
			if k == label {
				key = k
			}
		}
		if key == "" {
			return "", errors.New("signature covers several signature-agent members, none its own")
		}
	case whole && len(d.Names()) == 1:
		key = d.Names()[0]
	default:
		return "", errors.New("signature-agent not covered")
	}
	m, ok := d.Get(key)
	if !ok {
		return "", fmt.Errorf("signature-agent has no member %q", key)
	}
	it, _ := m.(httpsfv.Item)
	agent, isString := it.Value.(string)
	if !isString {
		return "", errors.New("signature-agent member is not a string")
	}
	if len(it.Params.Names()) > 0 {
		// draft-ietf-webbotauth-httpsig-protocol-01: members carry no
		// parameters, and one that does is ignored.
		return "", errors.New("signature-agent member has parameters")
	}
	return agent, nil
}

// publicKey is one usable key of a directory.
type publicKey struct {
	key       ed25519.PublicKey
	notBefore int64 // Unix seconds; 0 when unset
	expires   int64 // Unix seconds; 0 when unset
}

func (k publicKey) validAt(now time.Time) bool {
	s := now.Unix()
	return (k.notBefore == 0 || s >= k.notBefore) && (k.expires == 0 || s < k.expires)
}

// jwk holds the members of a JSON Web Key this package reads.
type jwk struct {
	Kty    string      `json:"kty"`
	Crv    string      `json:"crv"`
	X      string      `json:"x"`
	Kid    *string     `json:"kid"`
	Use    string      `json:"use"`
	Alg    string      `json:"alg"`
	KeyOps []string    `json:"key_ops"`
	Nbf    json.Number `json:"nbf"`
	Exp    json.Number `json:"exp"`
}

// parseDirectory reads a key directory: a JWK Set whose Ed25519 keys are
// indexed by their RFC 7638 thumbprint, the keyid a signature names. Keys
// of other types, keys restricted to other uses, and keys whose kid is not
// their thumbprint (the directory draft requires it to be) are skipped; a
// set that is not JSON, has no keys member, or has more than MaxKeys keys
// is refused.
func parseDirectory(body []byte) (map[string]publicKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&set); err != nil {
		return nil, errors.New("key directory is not a JWK Set")
	}
	if set.Keys == nil {
		return nil, errors.New("key directory has no keys member")
	}
	if len(set.Keys) > MaxKeys {
		return nil, fmt.Errorf("key directory has more than %d keys", MaxKeys)
	}
	keys := make(map[string]publicKey, len(set.Keys))
	for _, raw := range set.Keys {
		var k jwk
		if err := json.Unmarshal(raw, &k); err != nil {
			continue
		}
		thumbprint, pk, ok := k.ed25519()
		if ok {
			keys[thumbprint] = pk
		}
	}
	return keys, nil
}

// ed25519 returns the key's thumbprint and public key when it is a usable
// Ed25519 signature key.
func (k jwk) ed25519() (string, publicKey, bool) {
	if k.Kty != "OKP" || k.Crv != "Ed25519" {
		return "", publicKey{}, false
	}
	if k.Use != "" && k.Use != "sig" {
		return "", publicKey{}, false
	}
	if k.Alg != "" && k.Alg != "ed25519" && k.Alg != "EdDSA" && k.Alg != "Ed25519" {
		return "", publicKey{}, false
	}
	if k.KeyOps != nil && !slices.Contains(k.KeyOps, "verify") {
		return "", publicKey{}, false
	}
	x, err := base64.RawURLEncoding.Strict().DecodeString(k.X)
	if err != nil || len(x) != ed25519.PublicKeySize {
		return "", publicKey{}, false
	}
	thumbprint := Thumbprint(x)
	if k.Kid != nil && *k.Kid != thumbprint {
		return "", publicKey{}, false
	}
	pk := publicKey{key: ed25519.PublicKey(x)}
	if pk.notBefore, err = optionalInt(k.Nbf); err != nil {
		return "", publicKey{}, false
	}
	if pk.expires, err = optionalInt(k.Exp); err != nil {
		return "", publicKey{}, false
	}
	return thumbprint, pk, true
}

// Thumbprint returns the JWK SHA-256 thumbprint (RFC 7638, with the
// members RFC 8037 gives an OKP key) of an Ed25519 public key, base64url
// without padding: the keyid of a Web Bot Auth signature made with it.
func Thumbprint(key ed25519.PublicKey) string {
	canonical := `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(key) + `"}`
	sum := sha256.Sum256([]byte(canonical))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func optionalInt(n json.Number) (int64, error) {
	if n == "" {
		return 0, nil
	}
	return n.Int64()
}
