// Package oauth is the site's anonymous OAuth 2.1 authorization server:
// the authorization code flow, with clients identified by
// dynamic client registration (RFC 7591) or by a Client ID Metadata Document
// (a client_id that is the https URL of the client's metadata), the
// authorization endpoint (RFC 6749 section 4.1 with PKCE, RFC 7636, S256
// only) and the authorization_code grant, with RFC 8707 resource
// indicators. There is no login and no consent screen: the only scope is public:read, which grants
// nothing beyond unauthenticated access, so there is nobody to identify and
// nothing to consent to. The flow exists because MCP clients recover from a
// stale token through it.
//
// The anonymous tokens of /agent/register and the identity assertions of
// /agent/identity (the auth.md flow) are issued here too, and CheckBearer
// checks the bearer tokens the API's requests carry.
//
// Imports from the module: internal/body, internal/cimd, internal/metrics, internal/origin, internal/problem, internal/respond, internal/token.
package oauth

import (
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/cimd"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// Grant types.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// Config is what the server needs of the module.
type Config struct {
	// Verifier checks access tokens, and issues and checks client ids and
	// authorization codes: none of them names a base URL.
	Verifier *token.Issuer
	// Ledger records redeemed authorization codes; nil is this process's
	// memory.
	Ledger CodeLedger
	// ClientMetadata resolves client ids that are URLs of Client ID
	// Metadata Documents; nil when they are not used.
	ClientMetadata *cimd.Resolver
	// Now is the clock.
	Now func() time.Time
	// BodyTimeout bounds the reading of a request body.
	BodyTimeout time.Duration
	// Owns reports whether the module answers a path: a resource
	// indicator may name it.
	Owns func(path string) bool
	// Paths are the site's addresses the answers name.
	Paths Paths
	// SiteName names the site on the consent page; PageStyle is the page's
	// inline style, and PageCSP the policy that allows it.
	SiteName, PageStyle, PageCSP string
	// Metrics counts the tokens issued; nil counts nothing.
	Metrics *metrics.Site
}

// Paths are the addresses of the site that the server's answers name.
type Paths struct {
	Auth, ClientRegistration, Identity, Register, MCP, PRM, PRMMCP string
}

// At is what the answers under one base URL name, made once per base
// URL: the base URL, the issuer of tokens naming it, and the address of
// the site's home page, which the consent page links.
type At struct {
	Base, Home string
	Tokens     *token.Issuer
}

// Server answers the OAuth and identity endpoints.
type Server struct {
	cfg    Config
	ledger CodeLedger
}

// New returns the server of cfg.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, ledger: cfg.Ledger}
	if s.ledger == nil {
		s.ledger = newMemoryLedger(cfg.Now)
	}
	return s
}
