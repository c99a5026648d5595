// Package webbotauth verifies Web Bot Auth requests: HTTP Message Signatures
// (RFC 9421) that automated agents make with Ed25519 keys published in a key
// directory at their origin, as draft-meunier-web-bot-auth-architecture-05
// and its successor draft-ietf-webbotauth-httpsig-protocol-01 specify, the
// latter having taken in the directory draft
// (draft-meunier-webbotauth-httpsig-directory).
//
// It owns reading the Signature-Input, Signature and Signature-Agent fields
// (Structured Fields, RFC 9651, parsed and serialized with httpsfv), the
// signature base, the key directory's format, and the rules on freshness
// and coverage. Fetching a directory is internal/fetch's job: Verify only
// reads what the fetcher has cached and, when a directory is missing, asks
// for it in the background, so verifying never waits on the network and,
// once the directory is cached, costs a bounded amount of CPU.
//
// Imports from the module: internal/cache, internal/fetch.
package webbotauth

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/caddy-discovery/caddy-discovery/internal/cache"
	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

// Protocol constants.
const (
	// Tag is the tag parameter of a Web Bot Auth signature; signatures
	// with other tags are not this package's.
	Tag = "web-bot-auth"
	// DirectoryPath is the well-known path of an agent's key directory.
	DirectoryPath = "/.well-known/http-message-signatures-directory"
	// DirectoryMediaType is the media type a key directory is served with.
	DirectoryMediaType = "application/http-message-signatures-directory+json"
)

// Limits on what Verify accepts and examines.
const (
	// ClockSkew is how far created may lie in the future, and expires in
	// the past, for clocks that disagree.
	ClockSkew = 60 * time.Second
	// MaxValidity is the longest validity window (expires - created)
	// accepted: the drafts recommend no more than 24 hours, since a
	// signature can be replayed until it expires.
	MaxValidity = 24 * time.Hour
	// MaxFieldLen bounds each of Signature-Input, Signature and
	// Signature-Agent, all lines together, in bytes.
	MaxFieldLen = 4096
	// MaxSignatures is how many web-bot-auth signatures of one request
	// are examined; the rest are ignored.
	MaxSignatures = 4
	// MaxComponents bounds the components one signature covers.
	MaxComponents = 32
	// MaxBase bounds a signature base, in bytes: what one signature's
	// covered components may make the verifier hash.
	MaxBase = 8 << 10
	// MaxKeys bounds the keys of a directory; a larger one is refused.
	MaxKeys = 64
	// maxDirectories bounds the parsed directories the Verifier keeps.
	maxDirectories = fetch.DefaultMaxEntries
)

// Result is what Verify found out about a request.
type Result struct {
	// Signed reports that the request carries a web-bot-auth signature,
	// or a Signature-Input too malformed to tell.
	Signed bool
	// Verified reports that one of its web-bot-auth signatures is valid
	// now, made with a key its agent's directory publishes, over the
	// components this package requires (@authority or @target-uri, and
	// the agent's Signature-Agent member).
	Verified bool
	// Agent is who a verified request is attributed to: the host of its
	// Signature-Agent origin, lowercase, with the port when not 443.
	Agent string
	// Directory is the URL of the key directory that held the key, the
	// agent's identifier in the drafts' terms. Set only when Verified.
	Directory string
	// KeyID is the thumbprint of the key that verified the request. Set
	// only when Verified.
	KeyID string
	// Reason says in a few words why the request is not verified. It is
	// "key directory not fetched yet" while the agent's directory is being
	// fetched: the same request verifies later.
	Reason string
}

// Verifier verifies requests against the key directories a Fetcher brings
// in. It is safe for concurrent use.
type Verifier struct {
	// AllowHTTP accepts agents whose Signature-Agent is a plain http
	// origin, for agents on the operator's own network and for tests;
	// the fetcher must allow http too. Set it before the first Verify.
	AllowHTTP bool

	source      directorySource
	now         func() time.Time
	clockSkew   time.Duration
	maxValidity time.Duration

	// dirs are the parsed key sets by directory URL, at most
	// maxDirectories of them; the fetcher holds the documents.
	dirs *cache.Cache[string, *directory]
}

// directorySource is the part of *fetch.Fetcher a Verifier uses: the cache
// and background fetching, never a blocking fetch.
type directorySource interface {
	Cached(rawURL string) (*fetch.Document, bool)
	Prefetch(rawURL string)
}

// directory is a key directory as parsed from one fetched document.
type directory struct {
	doc  *fetch.Document
	keys map[string]publicKey
	err  error
}

// New returns a Verifier that reads key directories through fetcher and
// takes the time from now (time.Now when nil).
func New(fetcher *fetch.Fetcher, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	var source directorySource
	if fetcher != nil {
		source = fetcher
	}
	return &Verifier{
		source:      source,
		now:         now,
		clockSkew:   ClockSkew,
		maxValidity: MaxValidity,
		dirs:        cache.New[string, *directory](maxDirectories, 0),
	}
}

// Verify checks the request's web-bot-auth signatures, at most
// MaxSignatures of them, and reports the first that verifies, or why the
// first examined did not. It never waits on the network: an agent whose
// directory is not cached yet is not verified, and its directory is
// fetched in the background for the requests that follow. What a request
// can make it do is bounded before anything is hashed: every check that
// needs no signature base (the parameters, the coverage, the agent, its
// directory in the cache and the key in it) runs first, and only the first
// signature that passes them all has its base built (at most MaxBase
// bytes) and checked: a request that one valid signature does not verify
// costs one Ed25519 verification at most.
func (v *Verifier) Verify(r *http.Request) Result {
	input, ok := fieldValue(r.Header, "signature-input")
	if !ok {
		if _, ok := r.Header["Signature"]; ok {
			return Result{Reason: "signature without signature-input"}
		}
		return Result{}
	}
	if len(input) > MaxFieldLen {
		return Result{Signed: true, Reason: "signature-input too long"}
	}
	inputs, err := httpsfv.UnmarshalDictionary([]string{input})
	if err != nil {
		return Result{Signed: true, Reason: "malformed signature-input"}
	}
	var sigs *httpsfv.Dictionary
	first := Result{Reason: "no web-bot-auth signature"}
	examined := 0
	t := newTarget(r)
	for _, label := range inputs.Names() {
		m, _ := inputs.Get(label)
		if tag, ok := stringParam(paramsOf(m), "tag"); !ok || tag != Tag {
			continue
		}
		if examined == MaxSignatures {
			break
		}
		if examined == 0 {
			if sigs, err = signatures(r.Header); err != nil {
				return Result{Signed: true, Reason: err.Error()}
			}
		}
		examined++
		res, hashed := v.verifyOne(r, &t, label, m, sigs)
		if res.Verified {
			return res
		}
		if examined == 1 {
			first = res
		}
		if hashed {
			break // one signature checked in full: no more work for this request
		}
	}
	return first
}

// paramsOf returns the parameters of a Dictionary member.
func paramsOf(m httpsfv.Member) *httpsfv.Params {
	switch m := m.(type) {
	case httpsfv.Item:
		return m.Params
	case httpsfv.InnerList:
		return m.Params
	}
	return httpsfv.NewParams()
}

// signatures parses the Signature field.
func signatures(h http.Header) (*httpsfv.Dictionary, error) {
	field, ok := fieldValue(h, "signature")
	if !ok {
		return nil, errors.New("no signature field")
	}
	if len(field) > MaxFieldLen {
		return nil, errors.New("signature too long")
	}
	d, err := httpsfv.UnmarshalDictionary([]string{field})
	if err != nil {
		return nil, errors.New("malformed signature")
	}
	return d, nil
}

// sigParams are the signature parameters a Web Bot Auth signature must
// carry.
type sigParams struct {
	created, expires int64
	keyid            string
}

func readParams(ps *httpsfv.Params) (sigParams, error) {
	var p sigParams
	var seen struct{ created, expires, keyid bool }
	for _, key := range ps.Names() {
		v, _ := ps.Get(key)
		n, isInteger := v.(int64)
		s, isString := v.(string)
		switch key {
		case "created":
			p.created, seen.created = n, isInteger && n >= 0
		case "expires":
			p.expires, seen.expires = n, isInteger && n >= 0
		case "keyid":
			p.keyid, seen.keyid = s, isString && s != ""
		case "alg":
			if !isString || s != "ed25519" {
				return p, errors.New("alg is not ed25519")
			}
		case "nonce":
			if !isString {
				return p, errors.New("nonce is not a string")
			}
		}
	}
	switch {
	case !seen.created:
		return p, errors.New("no valid created")
	case !seen.expires:
		return p, errors.New("no valid expires")
	case !seen.keyid:
		return p, errors.New("no valid keyid")
	}
	return p, nil
}

// verifyOne verifies the signature labelled label, whose Signature-Input
// member is covered, reporting whether it got as far as building the
// signature base and hashing it. The checks run cheapest first, so that a
// request fails before it can make the fetcher fetch anything, and before
// anything is hashed.
func (v *Verifier) verifyOne(r *http.Request, t *target, label string, covered httpsfv.Member, sigs *httpsfv.Dictionary) (res Result, hashed bool) {
	fail := func(format string, args ...any) Result {
		return Result{Signed: true, Reason: fmt.Sprintf(format, args...)}
	}
	list, ok := covered.(httpsfv.InnerList)
	if !ok {
		return fail("signature-input member is not an inner list"), false
	}
	if len(list.Items) > MaxComponents {
		return fail("more than %d covered components", MaxComponents), false
	}
	p, err := readParams(list.Params)
	if err != nil {
		return fail("%v", err), false
	}
	nowTime := v.now()
	now := nowTime.Unix()
	skew := int64(v.clockSkew / time.Second)
	switch {
	case p.created > now+skew:
		return fail("created in the future"), false
	case p.expires < now-skew:
		return fail("expired"), false
	case p.expires < p.created:
		return fail("expires before created"), false
	case p.expires-p.created > int64(v.maxValidity/time.Second):
		return fail("validity longer than %s", v.maxValidity), false
	}
	if !coversTarget(list) {
		return fail("neither @authority nor @target-uri covered"), false
	}
	agent, err := signatureAgent(r.Header, label, list)
	if err != nil {
		return fail("%v", err), false
	}
	dirURL, host, err := directoryURL(agent, v.AllowHTTP)
	if err != nil {
		return fail("%v", err), false
	}
	m, _ := sigs.Get(label)
	sigItem, _ := m.(httpsfv.Item)
	sig, ok := sigItem.Value.([]byte)
	if !ok {
		return fail("no signature for %s", label), false
	}
	if len(sig) != ed25519.SignatureSize {
		return fail("signature is not an ed25519 signature"), false
	}
	keys, err := v.directory(dirURL)
	if err != nil {
		return fail("%v", err), false
	}
	key, ok := keys[p.keyid]
	if !ok {
		return fail("key not in the agent's directory"), false
	}
	if !key.validAt(nowTime) {
		return fail("key not valid now"), false
	}
	base, err := t.signatureBase(r, covered)
	if err != nil {
		return fail("%v", err), true
	}
	if !ed25519.Verify(key.key, base, sig) {
		return fail("signature does not verify"), true
	}
	return Result{Signed: true, Verified: true, Agent: host, Directory: dirURL, KeyID: p.keyid}, true
}

func coversTarget(covered httpsfv.InnerList) bool {
	for _, c := range covered.Items {
		if name, _ := c.Value.(string); name == "@authority" || name == "@target-uri" {
			return true
		}
	}
	return false
}

// errNotFetched is the reason while a directory is being fetched.
var errNotFetched = errors.New("key directory not fetched yet")

// directory returns the keys of the directory at dirURL from the fetcher's
// cache, parsing each fetched document once. When nothing is cached it
// asks the fetcher to fetch the directory in the background.
func (v *Verifier) directory(dirURL string) (map[string]publicKey, error) {
	if v.source == nil {
		return nil, errors.New("no fetcher for key directories")
	}
	doc, ok := v.source.Cached(dirURL)
	if !ok {
		v.source.Prefetch(dirURL)
		return nil, errNotFetched
	}
	d, _ := v.dirs.Get(dirURL)
	if d != nil && d.doc == doc {
		return d.keys, d.err
	}
	d = &directory{doc: doc}
	switch {
	case doc.URL != dirURL:
		// The drafts forbid following redirects for a directory: the key
		// set must come from the URL it is attributed to.
		d.err = errors.New("key directory redirected")
	case doc.ContentType != DirectoryMediaType && doc.ContentType != "application/jwk-set+json":
		d.err = fmt.Errorf("key directory served as %q", doc.ContentType)
	default:
		d.keys, d.err = parseDirectory(doc.Body)
	}
	v.dirs.Add(dirURL, d, 0)
	return d.keys, d.err
}

// The fetcher is the directory source in production.
var _ directorySource = (*fetch.Fetcher)(nil)
