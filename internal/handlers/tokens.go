package handlers

import (
	"encoding/json"
	"errors"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// tokenResponse is RFC 6749 section 5.1's successful response.
type tokenResponse struct {
	AccessToken string `json:"access_token" jsonschema:"Opaque bearer token issued by this site."`
	TokenType   string `json:"token_type" schema:"enum=Bearer" jsonschema:"Send the token as Authorization: Bearer <token>."`
	ExpiresIn   int    `json:"expires_in" schema:"minimum=1" jsonschema:"Lifetime of the token in seconds."`
	Scope       string `json:"scope" schema:"enum=public:read" jsonschema:"The only scope: what anonymous callers may read anyway."`
}

// tokenRequest is the form the token endpoint reads.
type tokenRequest struct {
	GrantType    string `json:"grant_type" schema:"enum=authorization_code|client_credentials|urn:ietf:params:oauth:grant-type:jwt-bearer"`
	Code         string `json:"code,omitempty" jsonschema:"With the authorization_code grant: the code from the authorization endpoint, valid 60 seconds, usable once."`
	CodeVerifier string `json:"code_verifier,omitempty" schema:"pattern=^[A-Za-z0-9._~-]{43,128}$" jsonschema:"With the authorization_code grant: the PKCE verifier (RFC 7636)."`
	ClientID     string `json:"client_id,omitempty" jsonschema:"With the authorization_code grant: the client_id of the authorization request."`
	RedirectURI  string `json:"redirect_uri,omitempty" schema:"format=uri" jsonschema:"With the authorization_code grant: the redirect_uri of the authorization request; optional when the client registered one."`
	Assertion    string `json:"assertion,omitempty" jsonschema:"With the JWT-bearer grant: the identity_assertion from /agent/identity."`
	Scope        string `json:"scope,omitempty" schema:"enum=public:read"`
	Resource     string `json:"resource,omitempty" schema:"format=uri" jsonschema:"RFC 8707: this site or one of its addresses; the token is then valid there only (at that address and below it). With the authorization_code grant, one of the resources of the authorization request (by default all of them)."`
}

// oauthError is RFC 6749 section 5.2's error response.
type oauthError struct {
	Error       string `json:"error" schema:"enum=invalid_request|invalid_client|invalid_grant|unsupported_grant_type|invalid_scope|invalid_target"`
	Description string `json:"error_description"`
}

type identityRequest struct {
	Type string `json:"type" schema:"enum=anonymous"`
}

type identityResponse struct {
	RegistrationID             string `json:"registration_id" jsonschema:"Identifier of this anonymous registration."`
	RegistrationType           string `json:"registration_type" schema:"enum=anonymous" jsonschema:"The only identity type."`
	IdentityAssertion          string `json:"identity_assertion" jsonschema:"A short-lived JWT signed by this service; exchange it at the token endpoint."`
	IdentityAssertionExpiresAt string `json:"identity_assertion_expires_at" schema:"format=date-time" jsonschema:"When the assertion expires, 10 minutes after issue."`
	ClaimToken                 string `json:"claim_token" jsonschema:"A token for the claim endpoint; claiming is not required here."`
	ClaimTokenExpiresAt        string `json:"claim_token_expires_at" schema:"format=date-time" jsonschema:"When the claim token expires."`
	Scope                      string `json:"scope" schema:"enum=public:read" jsonschema:"The scope of the tokens the assertion yields."`
}

type claimResponse struct {
	ClaimRequired bool   `json:"claim_required" schema:"const=false" jsonschema:"Always false: nothing needs claiming."`
	Scope         string `json:"scope" schema:"enum=public:read" jsonschema:"The scope every identity already has."`
	Message       string `json:"message" jsonschema:"Why claiming is not required."`
}

// serveRegister issues an anonymous public:read token to anyone who asks.
func (s *Service) serveRegister(w http.ResponseWriter, r *http.Request, rd *rendition) {
	if _, ok := s.readBody(w, r, rd, ""); !ok {
		return
	}
	s.issueToken(w, r, rd, "register", nil)
}

// issueToken answers with a new access token, counted under grant (an
// OAuth grant type, or "register" for /agent/register), bound to resources
// (canonical, see ownResource) when there are any.
func (s *Service) issueToken(w http.ResponseWriter, r *http.Request, rd *rendition, grant string, resources []string) {
	tok, expiresIn, err := rd.tokens.IssueAccessTokenFor(resources)
	if err != nil {
		panic(err) // the system's random source failed
	}
	metrics.TokenIssued(grant)
	writeJSON(w, r, http.StatusOK, tokenResponse{tok, "Bearer", expiresIn, token.Scope})
}

// serveIdentity registers an anonymous agent identity (the auth.md flow).
func (s *Service) serveIdentity(w http.ResponseWriter, r *http.Request, rd *rendition) {
	body, ok := s.readBody(w, r, rd, mediaJSON)
	if !ok {
		return
	}
	bad := func(detail string) {
		p := problem.New(rd.base, problem.BadRequest, r, detail)
		p.Hint = `Send the JSON object {"type":"anonymous"}; anonymous is the only identity type this site supports.`
		writeProblem(w, r, p)
	}
	// The body is read member by member, names matched exactly: the
	// request schema (identityRequest) allows no other member, as the
	// specification says of every object.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		bad("The body is not a JSON object: " + problem.Quote(err.Error()) + ".")
		return
	}
	if members == nil {
		bad("The body is null, not a JSON object.")
		return
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if name != "type" {
			bad(`The body has the member ` + problem.Quote(name) + `; the only member is "type".`)
			return
		}
	}
	raw, ok := members["type"]
	var identityType string
	switch {
	case !ok:
		bad(`The body has no "type" member.`)
		return
	case string(raw) == "null" || json.Unmarshal(raw, &identityType) != nil:
		bad(`The "type" member is not a string; it must be "anonymous".`)
		return
	case identityType != "anonymous":
		bad(`The identity type ` + problem.Quote(identityType) + ` is not supported; the only type is "anonymous".`)
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
	if _, ok := s.readBody(w, r, rd, ""); !ok {
		return
	}
	writeJSON(w, r, http.StatusOK, claimAnswer)
}

// claimAnswer is what the claim endpoint says, always.
var claimAnswer = claimResponse{
	ClaimRequired: false,
	Scope:         token.Scope,
	Message: "Claiming is not required for this site: every identity and token already has the only scope there is, " +
		token.Scope + ", which grants nothing beyond unauthenticated access. Use the identity assertion or the access token as they are.",
}

// serveToken is the OAuth token endpoint: the authorization_code grant of
// the anonymous code flow, the client_credentials grant with no client
// authentication, and the JWT-bearer grant with an identity assertion from
// this service. Errors follow RFC 6749 section 5.2, a body of another media
// type included: that is a malformed token request, not an HTTP matter.
func (s *Service) serveToken(w http.ResponseWriter, r *http.Request, rd *rendition) {
	body, ok := s.readBody(w, r, rd, "")
	if !ok {
		return
	}
	fail := func(code, description string) {
		writeJSON(w, r, http.StatusBadRequest, oauthError{code, description})
	}
	if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); (len(body) > 0 || r.Header.Get("Content-Type") != "") &&
		(err != nil || mediaType != mediaForm) {
		fail("invalid_request", "The body must be "+mediaForm+" (RFC 6749 section 4.1.3), not "+problem.Quote(r.Header.Get("Content-Type"))+".")
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		fail("invalid_request", "The body is not a valid form encoding.")
		return
	}
	for name, values := range form {
		if len(values) > 1 && name != "resource" { // RFC 8707 allows several
			fail("invalid_request", "The parameter "+problem.Quote(name)+" is repeated.")
			return
		}
	}
	if !onlyScope(form.Get("scope")) {
		fail("invalid_scope", "The only scope is "+tokenScope+".")
		return
	}
	resources, ok := s.ownResources(rd.base, form["resource"])
	if !ok {
		fail("invalid_target", invalidTarget(rd.base))
		return
	}
	switch grant := form.Get("grant_type"); grant {
	case "":
		fail("invalid_request", "The grant_type parameter is missing.")
	case grantAuthorizationCode:
		s.redeemCode(w, r, rd, form, resources, fail)
	case grantClientCredentials:
		s.issueToken(w, r, rd, grant, resources)
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
		s.issueToken(w, r, rd, grant, resources)
	default:
		fail("unsupported_grant_type", "The grant type "+problem.Quote(grant)+" is not supported; use "+grantAuthorizationCode+", "+grantClientCredentials+" or "+grantJWTBearer+".")
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

// checkAuthorization verifies a bearer token when the request carries one.
// Only Bearer credentials are the module's business: no Authorization, or
// one of another scheme (Basic for a basic_auth in front, Digest, DPoP …),
// passes untouched, with no error code (RFC 6750 section 3.1). A valid
// bearer passes too; an invalid one is a 401 invalid_token problem, and two
// Authorization headers a 400 (RFC 6750's invalid_request), written here
// (ok false). Both carry WWW-Authenticate with the address of the route's
// protected resource metadata (RFC 9728 section 5.1), so that an OAuth
// client can recover by itself.
func (s *Service) checkAuthorization(w http.ResponseWriter, r *http.Request, base string, rt *Route) (ok bool) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return true
	}
	challenge := func(code string) {
		w.Header()[headerWWWAuth] = []string{bearerChallenge(base, rt, code)}
	}
	if len(values) > 1 {
		challenge("invalid_request")
		p := problem.New(base, problem.BadRequest, r, "The request has more than one Authorization header.")
		p.Hint = "Send at most one Authorization header (RFC 9110 allows one credential per request)."
		writeProblem(w, r, p)
		return false
	}
	tok, err := token.ParseAuthorization(values[0])
	if errors.Is(err, token.ErrNotBearer) {
		return true
	}
	detail := "The bearer token is malformed."
	if err == nil {
		_, err = s.verifier.VerifyAccessTokenAt(tok, base, r.URL.Path)
		switch {
		case err == nil:
			return true
		case errors.Is(err, token.ErrExpired):
			detail = "The bearer token has expired."
		case errors.Is(err, token.ErrForeign):
			detail = "The bearer token was issued for another resource (RFC 8707): ask for one for " + base + protectedResourceResource(rt.Path) + "."
		case errors.Is(err, token.ErrSignature):
			detail = "The bearer token was not issued by this service, or was altered."
		}
	}
	challenge("invalid_token")
	writeProblem(w, r, invalidToken(base, r, rt, detail))
	return false
}

// bearerChallenge is the WWW-Authenticate value of a refused bearer on
// route rt, naming the route's protected resource metadata.
func bearerChallenge(base string, rt *Route, code string) string {
	return `Bearer error="` + code + `", scope="` + tokenScope + `", resource_metadata="` + base + protectedResourceMetadataPath(rt.Path) + `"`
}

// invalidToken is the 401 problem of a refused bearer on route rt.
func invalidToken(base string, r *http.Request, rt *Route, detail string) *problem.Problem {
	p := problem.New(base, problem.InvalidToken, r, detail)
	p.Hint = "Omit the Authorization header (no token is needed), or get a new token with POST " + base + pathRegister +
		" or the OAuth flow the metadata at " + base + protectedResourceMetadataPath(rt.Path) + " describes."
	return p
}

// protectedResourceResource is the path of the resource identifier of the
// route at path, after the base URL: its protected resource metadata's
// resource.
func protectedResourceResource(path string) string {
	if path == pathMCP {
		return pathMCP
	}
	return ""
}

// protectedResourceMetadataPath is the address of the RFC 9728 metadata of
// the resource at path: the MCP endpoint has its own, at the path-suffixed
// well-known address (RFC 9728 section 3.1), the rest is the site's.
func protectedResourceMetadataPath(path string) string {
	if path == pathMCP {
		return pathPRMMCP
	}
	return pathPRM
}
