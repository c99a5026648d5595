package oauth

import (
	"encoding/json"
	"errors"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// TokenResponse is RFC 6749 section 5.1's successful response.
type TokenResponse struct {
	AccessToken string `json:"access_token" jsonschema:"Opaque bearer token issued by this site."`
	TokenType   string `json:"token_type" schema:"enum=Bearer" jsonschema:"Send the token as Authorization: Bearer <token>."`
	ExpiresIn   int    `json:"expires_in" schema:"minimum=1" jsonschema:"Lifetime of the token in seconds."`
	Scope       string `json:"scope" schema:"enum=public:read" jsonschema:"The only scope: what anonymous callers may read anyway."`
}

// TokenRequest is the form the token endpoint reads.
type TokenRequest struct {
	GrantType    string `json:"grant_type" schema:"enum=authorization_code|client_credentials|urn:ietf:params:oauth:grant-type:jwt-bearer"`
	Code         string `json:"code,omitempty" jsonschema:"With the authorization_code grant: the code from the authorization endpoint, valid 60 seconds, usable once."`
	CodeVerifier string `json:"code_verifier,omitempty" schema:"pattern=^[A-Za-z0-9._~-]{43,128}$" jsonschema:"With the authorization_code grant: the PKCE verifier (RFC 7636)."`
	ClientID     string `json:"client_id,omitempty" jsonschema:"With the authorization_code grant: the client_id of the authorization request."`
	RedirectURI  string `json:"redirect_uri,omitempty" schema:"format=uri" jsonschema:"With the authorization_code grant: the redirect_uri of the authorization request; optional when the client registered one."`
	Assertion    string `json:"assertion,omitempty" jsonschema:"With the JWT-bearer grant: the identity_assertion from /agent/identity."`
	Scope        string `json:"scope,omitempty" schema:"enum=public:read"`
	Resource     string `json:"resource,omitempty" schema:"format=uri" jsonschema:"RFC 8707: this site or one of its addresses; the token is then valid there only (at that address and below it). With the authorization_code grant, one of the resources of the authorization request (by default all of them)."`
}

// ErrorResponse is RFC 6749 section 5.2's error response.
type ErrorResponse struct {
	Error       string `json:"error" schema:"enum=invalid_request|invalid_client|invalid_grant|unsupported_grant_type|invalid_scope|invalid_target"`
	Description string `json:"error_description"`
}

// IdentityAnonymous is the one identity type an agent registers as (the
// auth.md protocol's anonymous method).
const IdentityAnonymous = "anonymous"

type IdentityRequest struct {
	Type string `json:"type" schema:"enum=anonymous"`
}

type IdentityResponse struct {
	RegistrationID             string `json:"registration_id" jsonschema:"Identifier of this anonymous registration."`
	RegistrationType           string `json:"registration_type" schema:"enum=anonymous" jsonschema:"The only identity type."`
	IdentityAssertion          string `json:"identity_assertion" jsonschema:"A short-lived JWT signed by this service; exchange it at the token endpoint."`
	IdentityAssertionExpiresAt string `json:"identity_assertion_expires_at" schema:"format=date-time" jsonschema:"When the assertion expires, 10 minutes after issue."`
	ClaimToken                 string `json:"claim_token" jsonschema:"A token for the claim endpoint; claiming is not required here."`
	ClaimTokenExpiresAt        string `json:"claim_token_expires_at" schema:"format=date-time" jsonschema:"When the claim token expires."`
	Scope                      string `json:"scope" schema:"enum=public:read" jsonschema:"The scope of the tokens the assertion yields."`
}

type ClaimResponse struct {
	ClaimRequired bool   `json:"claim_required" schema:"const=false" jsonschema:"Always false: nothing needs claiming."`
	Scope         string `json:"scope" schema:"enum=public:read" jsonschema:"The scope every identity already has."`
	Message       string `json:"message" jsonschema:"Why claiming is not required."`
}

// Register issues an anonymous public:read token to anyone who asks.
func (s *Server) Register(w http.ResponseWriter, r *http.Request, at At) {
	if _, ok := body.Read(w, r, at.Base, s.cfg.BodyTimeout, ""); !ok {
		return
	}
	s.issueToken(w, r, at, "register", nil)
}

// issueToken answers with a new access token, counted under grant (an
// OAuth grant type, or "register" for /agent/register), bound to resources
// (canonical, see ownResource) when there are any.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request, at At, grant string, resources []string) {
	tok, expiresIn, err := at.Tokens.IssueAccessTokenFor(resources)
	if err != nil {
		panic(err) // the system's random source failed
	}
	s.cfg.Metrics.TokenIssued(grant)
	respond.JSON(w, r, http.StatusOK, TokenResponse{tok, "Bearer", expiresIn, token.Scope})
}

// Identity registers an anonymous agent identity (the auth.md flow).
func (s *Server) Identity(w http.ResponseWriter, r *http.Request, at At) {
	data, ok := body.Read(w, r, at.Base, s.cfg.BodyTimeout, respond.MediaJSON)
	if !ok {
		return
	}
	bad := func(detail string) {
		p := problem.New(at.Base, problem.BadRequest, r, detail)
		p.Hint = `Send the JSON object {"type":"anonymous"}; anonymous is the only identity type this site supports.`
		respond.Problem(w, r, p)
	}
	// The body is read member by member, names matched exactly: the
	// request schema (IdentityRequest) allows no other member, as the
	// specification says of every object.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
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
	case identityType != IdentityAnonymous:
		bad(`The identity type ` + problem.Quote(identityType) + ` is not supported; the only type is "anonymous".`)
		return
	}
	id, err := at.Tokens.NewAnonymousIdentity()
	if err != nil {
		panic(err)
	}
	respond.JSON(w, r, http.StatusOK, IdentityResponse{
		RegistrationID:             id.RegistrationID,
		RegistrationType:           id.RegistrationType,
		IdentityAssertion:          id.Assertion,
		IdentityAssertionExpiresAt: id.AssertionExpires.UTC().Format(time.RFC3339),
		ClaimToken:                 id.ClaimToken,
		ClaimTokenExpiresAt:        id.ClaimTokenExpires.UTC().Format(time.RFC3339),
		Scope:                      token.Scope,
	})
}

// Claim explains that there is nothing to claim.
func (s *Server) Claim(w http.ResponseWriter, r *http.Request, at At) {
	if _, ok := body.Read(w, r, at.Base, s.cfg.BodyTimeout, ""); !ok {
		return
	}
	respond.JSON(w, r, http.StatusOK, ClaimAnswer)
}

// ClaimAnswer is what the claim endpoint says, always.
var ClaimAnswer = ClaimResponse{
	ClaimRequired: false,
	Scope:         token.Scope,
	Message: "Claiming is not required for this site: every identity and token already has the only scope there is, " +
		token.Scope + ", which grants nothing beyond unauthenticated access. Use the identity assertion or the access token as they are.",
}

// Token is the OAuth token endpoint: the authorization_code grant of
// the anonymous code flow, the client_credentials grant with no client
// authentication, and the JWT-bearer grant with an identity assertion from
// this service. Errors follow RFC 6749 section 5.2, a body of another media
// type included: that is a malformed token request, not an HTTP matter.
func (s *Server) Token(w http.ResponseWriter, r *http.Request, at At) {
	data, ok := body.Read(w, r, at.Base, s.cfg.BodyTimeout, "")
	if !ok {
		return
	}
	fail := func(code, description string) {
		respond.JSON(w, r, http.StatusBadRequest, ErrorResponse{code, description})
	}
	if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); (len(data) > 0 || r.Header.Get("Content-Type") != "") &&
		(err != nil || mediaType != respond.MediaForm) {
		fail("invalid_request", "The body must be "+respond.MediaForm+" (RFC 6749 section 4.1.3), not "+problem.Quote(r.Header.Get("Content-Type"))+".")
		return
	}
	form, err := url.ParseQuery(string(data))
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
		fail("invalid_scope", "The only scope is "+token.Scope+".")
		return
	}
	resources, ok := s.ownResources(at.Base, form["resource"])
	if !ok {
		fail("invalid_target", s.cfg.Paths.invalidTarget(at.Base))
		return
	}
	switch grant := form.Get("grant_type"); grant {
	case "":
		fail("invalid_request", "The grant_type parameter is missing.")
	case GrantAuthorizationCode:
		s.redeemCode(w, r, at, form, resources, fail)
	case GrantClientCredentials:
		s.issueToken(w, r, at, grant, resources)
	case GrantJWTBearer:
		assertion := form.Get("assertion")
		if assertion == "" {
			fail("invalid_request", "The assertion parameter is missing.")
			return
		}
		if _, err := at.Tokens.VerifyAssertion(assertion); err != nil {
			fail("invalid_grant", s.cfg.Paths.assertionError(err))
			return
		}
		s.issueToken(w, r, at, grant, resources)
	default:
		fail("unsupported_grant_type", "The grant type "+problem.Quote(grant)+" is not supported; use "+GrantAuthorizationCode+", "+GrantClientCredentials+" or "+GrantJWTBearer+".")
	}
}

// assertionError says why an identity assertion was refused.
func (p Paths) assertionError(err error) string {
	switch {
	case errors.Is(err, token.ErrExpired):
		return "The assertion has expired; get a new one from " + p.Identity + "."
	case errors.Is(err, token.ErrForeign):
		return "The assertion was not issued by this service for its token endpoint."
	case errors.Is(err, token.ErrSignature):
		return "The assertion's signature is not valid."
	}
	return "The assertion is not a well-formed identity assertion of this service."
}
