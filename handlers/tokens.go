package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/handlers/token"
)

// MaxBodySize caps the body of every POST endpoint.
const MaxBodySize = 64 << 10

// tokenResponse is RFC 6749 section 5.1's successful response.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// oauthError is RFC 6749 section 5.2's error response.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

type identityResponse struct {
	RegistrationID             string `json:"registration_id"`
	RegistrationType           string `json:"registration_type"`
	IdentityAssertion          string `json:"identity_assertion"`
	IdentityAssertionExpiresAt string `json:"identity_assertion_expires_at"`
	ClaimToken                 string `json:"claim_token"`
	ClaimTokenExpiresAt        string `json:"claim_token_expires_at"`
	Scope                      string `json:"scope"`
}

type claimResponse struct {
	ClaimRequired bool   `json:"claim_required"`
	Scope         string `json:"scope"`
	Message       string `json:"message"`
}

// writeJSON writes v with status; token responses are never stored
// (RFC 6749 section 5.1).
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err) // structs of strings, ints and bools
	}
	h := w.Header()
	h.Set("Content-Type", mediaJSON)
	h.Set("Cache-Control", cacheNever)
	h.Set("Pragma", "no-cache")
	writeBody(w, r, status, body)
}

// readBody reads a POST body of at most MaxBodySize bytes, of media type
// want when want is not empty. It writes the problem and returns ok false
// when the body is too large or of another type.
func readBody(w http.ResponseWriter, r *http.Request, rd *rendition, want string) (body []byte, ok bool) {
	if r.ContentLength > MaxBodySize {
		WriteProblem(w, r, NewProblem(rd.base, CodePayloadTooLarge, r, fmt.Sprintf("The body is %d bytes; this endpoint accepts at most %d.", r.ContentLength, MaxBodySize)))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodySize))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		WriteProblem(w, r, NewProblem(rd.base, CodePayloadTooLarge, r, fmt.Sprintf("The body is larger than %d bytes.", MaxBodySize)))
		return nil, false
	case err != nil:
		p := NewProblem(rd.base, CodeBadRequest, r, "The body could not be read completely.")
		WriteProblem(w, r, p)
		return nil, false
	}
	if len(r.Header["Content-Type"]) > 1 {
		WriteProblem(w, r, NewProblem(rd.base, CodeBadRequest, r, "The request has more than one Content-Type header."))
		return nil, false
	}
	if want != "" && (len(body) > 0 || r.Header.Get("Content-Type") != "") {
		mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mediaType != want {
			p := NewProblem(rd.base, CodeUnsupportedMediaType, r, "The body's Content-Type is "+quote(r.Header.Get("Content-Type"))+"; this endpoint accepts "+want+".")
			p.Hint = "Send the body as " + want + "."
			WriteProblem(w, r, p)
			return nil, false
		}
	}
	return body, true
}

// serveRegister issues an anonymous public:read token to anyone who asks.
func (s *Service) serveRegister(w http.ResponseWriter, r *http.Request, rd *rendition) {
	if _, ok := readBody(w, r, rd, ""); !ok {
		return
	}
	s.issueToken(w, r, rd)
}

func (s *Service) issueToken(w http.ResponseWriter, r *http.Request, rd *rendition) {
	tok, expiresIn, err := rd.tokens.IssueAccessToken()
	if err != nil {
		panic(err) // the system's random source failed
	}
	writeJSON(w, r, http.StatusOK, tokenResponse{tok, "Bearer", expiresIn, token.Scope})
}

// serveIdentity registers an anonymous agent identity (the auth.md flow).
func (s *Service) serveIdentity(w http.ResponseWriter, r *http.Request, rd *rendition) {
	body, ok := readBody(w, r, rd, mediaJSON)
	if !ok {
		return
	}
	var req struct {
		Type *string `json:"type"`
	}
	bad := func(detail string) {
		p := NewProblem(rd.base, CodeBadRequest, r, detail)
		p.Hint = `Send the JSON object {"type":"anonymous"}; anonymous is the only identity type this site supports.`
		WriteProblem(w, r, p)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		bad("The body is not a JSON object: " + quote(err.Error()) + ".")
		return
	}
	switch {
	case req.Type == nil:
		bad(`The body has no "type" member.`)
		return
	case *req.Type != "anonymous":
		bad(`The identity type ` + quote(*req.Type) + ` is not supported; the only type is "anonymous".`)
		return
	}
	id, err := rd.tokens.NewAnonymousIdentity()
	if err != nil {
		panic(err)
	}
	writeJSON(w, r, http.StatusOK, identityResponse{
		RegistrationID:             id.RegistrationID,
		RegistrationType:           id.RegistrationType,
		IdentityAssertion:          id.Assertion,
		IdentityAssertionExpiresAt: id.AssertionExpires.UTC().Format(time.RFC3339),
		ClaimToken:                 id.ClaimToken,
		ClaimTokenExpiresAt:        id.ClaimTokenExpires.UTC().Format(time.RFC3339),
		Scope:                      token.Scope,
	})
}

// serveClaim explains that there is nothing to claim.
func (s *Service) serveClaim(w http.ResponseWriter, r *http.Request, rd *rendition) {
	if _, ok := readBody(w, r, rd, ""); !ok {
		return
	}
	writeJSON(w, r, http.StatusOK, claimResponse{
		ClaimRequired: false,
		Scope:         token.Scope,
		Message: "Claiming is not required for this site: every identity and token already has the only scope there is, " +
			token.Scope + ", which grants nothing beyond unauthenticated access. Use the identity assertion or the access token as they are.",
	})
}

// serveToken is the OAuth token endpoint: the client_credentials grant with
// no client authentication, and the JWT-bearer grant with an identity
// assertion from this service. Errors follow RFC 6749 section 5.2.
func (s *Service) serveToken(w http.ResponseWriter, r *http.Request, rd *rendition) {
	body, ok := readBody(w, r, rd, "application/x-www-form-urlencoded")
	if !ok {
		return
	}
	fail := func(code, description string) {
		writeJSON(w, r, http.StatusBadRequest, oauthError{code, description})
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		fail("invalid_request", "The body is not a valid form encoding.")
		return
	}
	for name, values := range form {
		if len(values) > 1 {
			fail("invalid_request", "The parameter "+quote(name)+" is repeated.")
			return
		}
	}
	if scope := form.Get("scope"); scope != "" {
		for _, sc := range strings.Fields(scope) {
			if sc != token.Scope {
				fail("invalid_scope", "The only scope is "+token.Scope+".")
				return
			}
		}
	}
	switch grant := form.Get("grant_type"); grant {
	case "":
		fail("invalid_request", "The grant_type parameter is missing.")
	case grantClientCredentials:
		s.issueToken(w, r, rd)
	case grantJWTBearer:
		assertion := form.Get("assertion")
		if assertion == "" {
			fail("invalid_request", "The assertion parameter is missing.")
			return
		}
		if _, err := rd.tokens.VerifyAssertion(assertion); err != nil {
			fail("invalid_grant", assertionError(err))
			return
		}
		s.issueToken(w, r, rd)
	default:
		fail("unsupported_grant_type", "The grant type "+quote(grant)+" is not supported; use "+grantClientCredentials+" or "+grantJWTBearer+".")
	}
}

func assertionError(err error) string {
	switch {
	case errors.Is(err, token.ErrExpired):
		return "The assertion has expired; get a new one from " + pathIdentity + "."
	case errors.Is(err, token.ErrForeign):
		return "The assertion was not issued by this service for its token endpoint."
	case errors.Is(err, token.ErrSignature):
		return "The assertion's signature is not valid."
	}
	return "The assertion is not a well-formed identity assertion of this service."
}

// checkAuthorization verifies an Authorization header when there is one.
// No header is fine and a valid bearer is fine; anything else is a 401
// invalid_token problem, written here (ok false).
func (s *Service) checkAuthorization(w http.ResponseWriter, r *http.Request, base string) (ok bool) {
	header := r.Header.Get("Authorization")
	if header == "" && len(r.Header["Authorization"]) == 0 {
		return true
	}
	detail := "The Authorization header is not a bearer token of this service."
	if len(r.Header["Authorization"]) > 1 {
		detail = "The request has more than one Authorization header."
	} else if tok, err := token.ParseAuthorization(header); err == nil {
		_, err = s.verifier.VerifyAccessToken(tok)
		switch {
		case err == nil:
			return true
		case errors.Is(err, token.ErrExpired):
			detail = "The bearer token has expired."
		case errors.Is(err, token.ErrSignature):
			detail = "The bearer token was not issued by this service, or was altered."
		default:
			detail = "The bearer token is malformed."
		}
	} else if errors.Is(err, token.ErrNotBearer) {
		detail = "The Authorization scheme is not Bearer."
	}
	w.Header()["WWW-Authenticate"] = []string{`Bearer error="invalid_token", resource_metadata="` + base + pathPRM + `"`}
	p := NewProblem(base, CodeInvalidToken, r, detail)
	p.Hint = "Omit the Authorization header (no token is needed), or get a new token with POST " + base + pathRegister + "."
	WriteProblem(w, r, p)
	return false
}
