package oauth

import (
	"errors"
	"net/http"

	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// CheckBearer verifies a bearer token when the request carries one.
// Only Bearer credentials are the module's business: no Authorization, or
// one of another scheme (Basic for a basic_auth in front, Digest, DPoP …),
// passes untouched, with no error code (RFC 6750 section 3.1). A valid
// bearer passes too; an invalid one is a 401 invalid_token problem, and two
// Authorization headers a 400 (RFC 6750's invalid_request), written here
// (ok false). Both carry WWW-Authenticate with the address of the
// protected resource metadata of the resource at path (RFC 9728 section
// 5.1), so that an OAuth client can recover by itself.
func (s *Server) CheckBearer(w http.ResponseWriter, r *http.Request, base, path string) (ok bool) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return true
	}
	challenge := func(code string) {
		w.Header()[respond.HeaderWWWAuth] = []string{s.cfg.Paths.BearerChallenge(base, path, code)}
	}
	if len(values) > 1 {
		challenge("invalid_request")
		p := problem.New(base, problem.BadRequest, r, "The request has more than one Authorization header.")
		p.Hint = "Send at most one Authorization header (RFC 9110 allows one credential per request)."
		respond.Problem(w, r, p)
		return false
	}
	tok, err := token.ParseAuthorization(values[0])
	if errors.Is(err, token.ErrNotBearer) {
		return true
	}
	detail := "The bearer token is malformed."
	if err == nil {
		_, err = s.cfg.Verifier.VerifyAccessTokenAt(tok, base, r.URL.Path)
		switch {
		case err == nil:
			return true
		case errors.Is(err, token.ErrExpired):
			detail = "The bearer token has expired."
		case errors.Is(err, token.ErrForeign):
			detail = "The bearer token was issued for another resource (RFC 8707): ask for one for " + base + s.cfg.Paths.resource(path) + "."
		case errors.Is(err, token.ErrSignature):
			detail = "The bearer token was not issued by this service, or was altered."
		}
	}
	challenge("invalid_token")
	respond.Problem(w, r, s.cfg.Paths.InvalidToken(base, r, path, detail))
	return false
}

// BearerChallenge is the WWW-Authenticate value of a refused bearer at
// path, naming its protected resource metadata.
func (p Paths) BearerChallenge(base, path, code string) string {
	return `Bearer error="` + code + `", scope="` + token.Scope + `", resource_metadata="` + base + p.metadata(path) + `"`
}

// InvalidToken is the 401 problem of a refused bearer at path.
func (p Paths) InvalidToken(base string, r *http.Request, path, detail string) *problem.Problem {
	pr := problem.New(base, problem.InvalidToken, r, detail)
	pr.Hint = "Omit the Authorization header (no token is needed), or get a new token with POST " + base + p.Register +
		" or the OAuth flow the metadata at " + base + p.metadata(path) + " describes."
	return pr
}

// resource is the path of the resource identifier of the resource at
// path, after the base URL: its protected resource metadata's resource.
func (p Paths) resource(path string) string {
	if path == p.MCP {
		return p.MCP
	}
	return ""
}

// metadata is the address of the RFC 9728 metadata of the resource at
// path: the MCP endpoint has its own, at the path-suffixed well-known
// address (RFC 9728 section 3.1), the rest is the site's.
func (p Paths) metadata(path string) string {
	if path == p.MCP {
		return p.PRMMCP
	}
	return p.PRM
}
