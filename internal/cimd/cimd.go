// Package cimd resolves OAuth Client ID Metadata Documents
// (draft-ietf-oauth-client-id-metadata-document, which MCP's 2026
// authorization specification builds on): a client_id that is an https URL
// names a JSON document of the client's metadata, published by the client
// at that very URL. The authorization server fetches it, with the module's
// one bounded fetcher, and uses its redirect_uris as a registration.
//
// The URL comes from the request, so the attacker picks it. The fetch speaks
// https only, to public addresses only (unless Options.AllowPrivate), follows
// no redirect (the draft forbids it), reads at most MaxDocumentBytes within
// Timeout, and keeps a document only as long as its Cache-Control allows, in
// a cache of at most MaxEntries documents shared by every request. A failure
// and a document found invalid are not kept (the draft's section 5.2).
//
// Imports from the module: internal/fetch.
package cimd

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
)

const (
	// MaxDocumentBytes is the largest document read: the draft's section
	// 8.7 recommends 5 kilobytes.
	MaxDocumentBytes = 5 << 10
	// Timeout bounds one fetch, from dialling to the last byte.
	Timeout = 3 * time.Second
	// Wait bounds how long Client waits for a document: the authorization
	// endpoint never holds a request longer on a client's server. A fetch
	// still under way then goes on in the background, within Timeout, and
	// a document it brings is at hand for the client's next attempt.
	Wait = 3 * time.Second
	// MaxEntries bounds the cache, in documents; with MaxDocumentBytes it
	// bounds its memory to 5 MiB.
	MaxEntries = 1000
	// MaxURLLen is the longest client_id URL accepted.
	MaxURLLen = 2048
)

// Options configures a Resolver.
type Options struct {
	// AllowPrivate lets the documents come from loopback and private
	// addresses (see fetch.Options.AllowPrivate), for tests and for an
	// intranet whose clients publish their documents there. Anyone who can
	// send an authorization request can then make the server fetch from
	// that network. Link-local addresses stay refused.
	AllowPrivate bool
	// RootCAs are the certificate authorities trusted for the documents'
	// https; nil means the system's.
	RootCAs *x509.CertPool
}

// Resolver fetches, checks and caches Client ID Metadata Documents. It is
// safe for concurrent use; Close releases it.
type Resolver struct {
	fetcher *fetch.Fetcher
	wait    time.Duration
}

// New returns a Resolver with the bounds of this package's constants.
func New(opts Options) (*Resolver, error) {
	f, err := fetch.New(fetch.Options{
		AllowPrivate: opts.AllowPrivate,
		RootCAs:      opts.RootCAs,
		MaxBytes:     MaxDocumentBytes,
		Timeout:      Timeout,
		MaxRedirects: fetch.NoRedirects,
		MinTTL:       fetch.None,
		FailureTTL:   fetch.None,
		MaxStale:     fetch.None,
		MaxEntries:   MaxEntries,
		Accept:       "application/json",
	})
	if err != nil {
		return nil, err
	}
	return &Resolver{fetcher: f, wait: Wait}, nil
}

// Close stops the fetches under way.
func (r *Resolver) Close() { r.fetcher.Close() }

// Client is what a valid document says of its client.
type Client struct {
	// ID is the client_id: the document's URL.
	ID string
	// Name is the document's client_name.
	Name string
	// RedirectURIs are the document's redirect_uris, as listed.
	RedirectURIs []string
}

// Error says why a client_id URL or its document was refused, in words fit
// for the client: it names the rule broken, never the network's details
// beyond what the client's own server did.
type Error struct{ reason string }

func (e *Error) Error() string { return e.reason }

func refuse(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// IsURL reports whether a client_id is meant as a Client Identifier URL:
// it begins with an http or https scheme. Such an id is either resolved or
// refused, never taken for another kind.
func IsURL(clientID string) bool {
	scheme, _, ok := strings.Cut(clientID, ":")
	return ok && (strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "http"))
}

// CheckURL says why clientID is not a Client Identifier URL (the draft's
// section 3), or nil: https, a host, a path other than "/" without "." or
// ".." segments, no user information, no fragment, printable ASCII.
func CheckURL(clientID string) error {
	if len(clientID) > MaxURLLen {
		return refuse("the client_id URL is longer than %d bytes", MaxURLLen)
	}
	if strings.ContainsFunc(clientID, func(c rune) bool { return c <= ' ' || c > '~' || c == '\\' }) {
		return refuse("the client_id URL contains whitespace, a control character, a backslash or a character outside printable ASCII")
	}
	u, err := url.Parse(clientID)
	switch {
	case err != nil:
		return refuse("the client_id is not a URL")
	case u.Scheme != "https":
		return refuse("the client_id URL uses %s: a Client Identifier URL must use https", u.Scheme)
	case !strings.HasPrefix(clientID, "https://"):
		// Compared as strings with the document's client_id, the URL has
		// one spelling: the scheme in lower case, with its "//".
		return refuse("the client_id URL must begin with https:// in lower case")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return refuse("the client_id URL has no host")
	case u.User != nil:
		return refuse("the client_id URL has user information, which a Client Identifier URL must not have")
	case strings.Contains(clientID, "#"):
		return refuse("the client_id URL has a fragment, which a Client Identifier URL must not have")
	case u.Path == "" || u.Path == "/":
		return refuse("the client_id URL has no path: the document is published at a path of its own, such as /oauth/client.json")
	case !validPort(u.Port()):
		return refuse("the client_id URL's port is not a number from 1 to 65535")
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if seg == "." || seg == ".." {
			return refuse("the client_id URL's path has a %q segment, which a Client Identifier URL must not have", seg)
		}
	}
	return nil
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

// Client returns the client the document at clientID describes, fetching
// it unless the cache holds it, and waiting at most Wait (or until ctx
// ends). Every refusal is an *Error.
func (r *Resolver) Client(ctx context.Context, clientID string) (*Client, error) {
	if err := CheckURL(clientID); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.wait)
	defer cancel()
	doc, err := r.fetcher.Get(ctx, clientID)
	if err != nil {
		return nil, fetchError(err, r.wait)
	}
	c, err := parse(clientID, doc)
	if err != nil {
		r.fetcher.Forget(clientID) // an invalid document must not be kept
		return nil, err
	}
	return c, nil
}

// fetchError says, coarsely, why the document could not be had: the
// category, not the network's details, so that the endpoint is no probe of
// other servers.
func fetchError(err error, wait time.Duration) error {
	var reason string
	switch {
	case errors.Is(err, fetch.ErrForbiddenAddress):
		reason = "its host is not at a public address"
	case errors.Is(err, fetch.ErrRedirect):
		reason = "it answered with a redirect, and a Client ID Metadata Document is fetched without following redirects"
	case errors.Is(err, fetch.ErrStatus):
		reason = "it did not answer 200 OK"
	case errors.Is(err, fetch.ErrTooLarge):
		reason = fmt.Sprintf("it is larger than %d bytes", MaxDocumentBytes)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		reason = fmt.Sprintf("it did not arrive within %s", wait)
	case errors.Is(err, fetch.ErrURL):
		reason = "its URL cannot be fetched"
	default:
		reason = "the connection or its TLS handshake failed"
	}
	return refuse("the client's metadata document could not be fetched: %s", reason)
}

// document is the part of a Client ID Metadata Document the server reads;
// the secret and key members are read only to refuse them.
type document struct {
	ClientID                *string         `json:"client_id"`
	ClientName              *string         `json:"client_name"`
	RedirectURIs            []string        `json:"redirect_uris"`
	GrantTypes              []string        `json:"grant_types"`
	ResponseTypes           []string        `json:"response_types"`
	TokenEndpointAuthMethod *string         `json:"token_endpoint_auth_method"`
	ClientSecret            json.RawMessage `json:"client_secret"`
	ClientSecretExpiresAt   json.RawMessage `json:"client_secret_expires_at"`
	JWKS                    *jwkSet         `json:"jwks"`
}

type jwkSet struct {
	Keys []map[string]json.RawMessage `json:"keys"`
}

// sharedSecretMethods are the token endpoint authentication methods that
// need a shared secret, which no document can establish (section 4.1).
var sharedSecretMethods = []string{"client_secret_post", "client_secret_basic", "client_secret_jwt"}

// privateKeyMembers are the JWK members that hold private key material.
var privateKeyMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// parse checks a fetched document and returns its client.
func parse(clientID string, doc *fetch.Document) (*Client, error) {
	if !isJSON(doc.ContentType) {
		return nil, refuse("the client's metadata document is served as %q, not as JSON (application/json)", doc.ContentType)
	}
	var d document
	if err := json.Unmarshal(doc.Body, &d); err != nil {
		return nil, refuse("the client's metadata document is not a JSON object of client metadata: %s", err.Error())
	}
	switch {
	case d.ClientID == nil:
		return nil, refuse("the client's metadata document has no client_id")
	case *d.ClientID != clientID:
		return nil, refuse("the client's metadata document names the client_id %q, not the URL it was fetched from", *d.ClientID)
	case d.ClientName == nil || strings.TrimSpace(*d.ClientName) == "":
		return nil, refuse("the client's metadata document has no client_name")
	case len(d.RedirectURIs) == 0:
		return nil, refuse("the client's metadata document lists no redirect_uris")
	case d.ClientSecret != nil || d.ClientSecretExpiresAt != nil:
		return nil, refuse("the client's metadata document has a client_secret, which a metadata document must not have")
	case d.GrantTypes != nil && !slices.Contains(d.GrantTypes, "authorization_code"):
		return nil, refuse("the client's metadata document's grant_types do not include authorization_code")
	case d.ResponseTypes != nil && !slices.Contains(d.ResponseTypes, "code"):
		return nil, refuse("the client's metadata document's response_types do not include code")
	}
	if m := d.TokenEndpointAuthMethod; m != nil && *m != "none" {
		if slices.Contains(sharedSecretMethods, *m) {
			return nil, refuse("the client's metadata document asks for %s, which needs a shared secret that a metadata document cannot establish", *m)
		}
		return nil, refuse("the client's metadata document asks for %s; this server's clients are public (token_endpoint_auth_method none) and prove themselves with PKCE", *m)
	}
	if d.JWKS != nil {
		for _, key := range d.JWKS.Keys {
			for _, member := range privateKeyMembers {
				if _, ok := key[member]; ok {
					return nil, refuse("the client's metadata document publishes private key material (%q in jwks)", member)
				}
			}
		}
	}
	return &Client{ID: clientID, Name: *d.ClientName, RedirectURIs: d.RedirectURIs}, nil
}

// isJSON reports whether a media type is JSON: application/json, or a
// structured syntax suffix +json (the draft's section 4).
func isJSON(mediaType string) bool {
	if _, _, err := mime.ParseMediaType(mediaType); err != nil {
		return false
	}
	return mediaType == "application/json" || strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json")
}
