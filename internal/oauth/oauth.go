package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/cimd"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

const (
	ResponseTypeCode = "code"
	PKCES256         = "S256"
)

// CodeLedger records the authorization codes that were redeemed, so that each
// is redeemed once. Every instance sharing a token secret must share the
// ledger too, or a code could be redeemed once per instance.
type CodeLedger interface {
	// Spend records the code id as redeemed and reports whether this is its
	// first redemption. The record may be forgotten after expires, when
	// the code is refused as expired anyway.
	Spend(ctx context.Context, id string, expires time.Time) (first bool, err error)
}

// memoryLedger is the ledger of one process, for a Server whose Config
// names none.
type memoryLedger struct {
	mu    sync.Mutex
	now   func() time.Time
	spent map[string]time.Time
	swept time.Time
}

func newMemoryLedger(now func() time.Time) *memoryLedger {
	return &memoryLedger{now: now, spent: make(map[string]time.Time)}
}

func (l *memoryLedger) Spend(_ context.Context, id string, expires time.Time) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.swept) > time.Minute {
		for k, exp := range l.spent {
			if now.After(exp) {
				delete(l.spent, k)
			}
		}
		l.swept = now
	}
	if _, ok := l.spent[id]; ok {
		return false, nil
	}
	l.spent[id] = expires
	return true, nil
}

// ClientRegistration is the part of an RFC 7591 registration request the
// service reads; other members are accepted and ignored. Its schema states
// every rule RegisterClient checks but one, the length of the
// redirect URIs together, which its description states: the pattern of
// redirect_uris is checkRedirectURI's rules as a grammar, and an optional
// member may be null, which the service reads as absent.
type ClientRegistration struct {
	// The pattern is redirectURIPattern.
	RedirectURIs            []string `json:"redirect_uris" schema:"minItems=1;maxItems=4;format=uri;maxLength=1024;pattern=@redirect_uri" jsonschema:"1 to 4 redirect URIs, at most 1024 bytes together: https, http on a loopback host (localhost, 127.x.x.x or [::1]; any port is then accepted, RFC 8252), or a private-use scheme in reverse domain form (com.example.app); printable ASCII, no fragment, no user information."`
	GrantTypes              []string `json:"grant_types,omitempty" schema:"type=array|null;contains=authorization_code" jsonschema:"Must include authorization_code when present."`
	ResponseTypes           []string `json:"response_types,omitempty" schema:"type=array|null;contains=code" jsonschema:"Must include code when present."`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty" schema:"type=string|null" jsonschema:"Registered as none whatever is asked: clients are public."`
	Scope                   string   `json:"scope,omitempty" schema:"type=string|null" jsonschema:"Registered as public:read whatever is asked."`
}

// SchemaPatterns names redirectURIPattern for the schema tag of
// redirect_uris.
func (ClientRegistration) SchemaPatterns() map[string]string {
	return map[string]string{"@redirect_uri": redirectURIPattern}
}

// The grammar of a redirect URI that checkRedirectURI accepts, in parts.
// Each URI is printable ASCII without a space, "#" or a backslash (uriChar);
// a host has no "/", ":", "?", "@", "[" or "]" in it (hostChar), so that no
// user information can come before it.
const (
	uriChar     = `[\x21\x22\x24-\x5b\x5d-\x7e]`
	hostChar    = `[\x21\x22\x24-\x2e\x30-\x39\x3b-\x3e\x41-\x5a\x5e-\x7e]`
	port        = `(?::[0-9]*)?`
	pathQuery   = `(?:[/?]` + uriChar + `*)?`
	ipv4Octet   = `(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	httpsURI    = `[Hh][Tt][Tt][Pp][Ss]://(?:` + hostChar + `+|\[[0-9A-Fa-f:.]+\])` + port + pathQuery
	loopbackURI = `[Hh][Tt][Tt][Pp]://(?:[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]|127(?:\.` + ipv4Octet + `){3}|\[::1\])` + port + pathQuery
	// A private-use scheme: dotted labels (RFC 8252 section 7.1), or one
	// of knownNativeSchemes; then an authority with no user information,
	// or a path.
	privateScheme = `(?:(?:[A-Za-z][A-Za-z0-9+-]*\.)+[A-Za-z][A-Za-z0-9+-]*|[Cc][Uu][Rr][Ss][Oo][Rr])`
	privateURI    = privateScheme + `:(?://[\x21\x22\x24-\x2e\x30-\x3e\x41-\x5b\x5d-\x7e]*` + pathQuery +
		`|/?(?:[\x21\x22\x24-\x2e\x30-\x5b\x5d-\x7e]` + uriChar + `*)?)`
	// redirectURIPattern is the three alternatives: https with a host;
	// http on localhost, an IPv4 loopback address or [::1]; a private-use
	// scheme.
	redirectURIPattern = `^(?:` + httpsURI + `|` + loopbackURI + `|` + privateURI + `)$`
)

// ClientInformation is RFC 7591's registration response.
type ClientInformation struct {
	ClientID                string   `json:"client_id" jsonschema:"The registration itself: a signed encoding of the redirect URIs. Nothing is stored."`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at" schema:"minimum=0" jsonschema:"When the client id was issued, in seconds since 1970."`
	RedirectURIs            []string `json:"redirect_uris" schema:"format=uri" jsonschema:"The registered redirect URIs."`
	GrantTypes              []string `json:"grant_types" schema:"enum=authorization_code" jsonschema:"The grant the client may use."`
	ResponseTypes           []string `json:"response_types" schema:"enum=code" jsonschema:"The response type the client may ask for."`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method" schema:"enum=none" jsonschema:"none: the client is public and proves itself with PKCE."`
	Scope                   string   `json:"scope" schema:"enum=public:read" jsonschema:"The only scope."`
}

// RegistrationError is RFC 7591 section 3.2.2's error response.
type RegistrationError struct {
	Error       string `json:"error" schema:"enum=invalid_redirect_uri|invalid_client_metadata"`
	Description string `json:"error_description"`
}

// AuthorizationRequest is the query of the authorization endpoint.
type AuthorizationRequest struct {
	ResponseType        string `json:"response_type" schema:"enum=code"`
	ClientID            string `json:"client_id" jsonschema:"The client_id from the registration endpoint, or the https URL of the client's metadata document when client_id_metadata_document_supported is true."`
	RedirectURI         string `json:"redirect_uri,omitempty" schema:"format=uri" jsonschema:"One of the registered redirect URIs, exactly; on a loopback host any port. Optional when exactly one is registered."`
	CodeChallenge       string `json:"code_challenge" schema:"pattern=^[A-Za-z0-9_-]{43}$" jsonschema:"BASE64URL(SHA-256(code_verifier)), RFC 7636."`
	CodeChallengeMethod string `json:"code_challenge_method" schema:"enum=S256"`
	State               string `json:"state,omitempty" jsonschema:"Returned unchanged with the code or the error."`
	Scope               string `json:"scope,omitempty" schema:"enum=public:read"`
	Resource            string `json:"resource,omitempty" schema:"format=uri" jsonschema:"RFC 8707: this site or one of its addresses, such as its MCP endpoint; the token is then valid there only (at that address and below it)."`
}

// RegisterClient registers a client (RFC 7591). The client id
// encodes the redirect URIs under the token secret's MAC, so registering
// stores nothing and every instance accepts every other's clients.
func (s *Server) RegisterClient(w http.ResponseWriter, r *http.Request, at At) {
	fail := func(code, description string) {
		respond.JSON(w, r, http.StatusBadRequest, RegistrationError{code, description})
	}
	data, ok := body.Read(w, r, at.Base, s.cfg.BodyTimeout, "")
	if !ok {
		return
	}
	if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mediaType != respond.MediaJSON {
		fail("invalid_client_metadata", "The body must be a JSON object sent as application/json (RFC 7591 section 3.1).")
		return
	}
	var req ClientRegistration
	if err := json.Unmarshal(data, &req); err != nil {
		fail("invalid_client_metadata", "The body is not a JSON object of client metadata: "+problem.Quote(err.Error())+".")
		return
	}
	if len(req.RedirectURIs) == 0 {
		fail("invalid_redirect_uri", "redirect_uris is missing: the authorization code flow needs at least one.")
		return
	}
	if len(req.RedirectURIs) > token.MaxRedirectURIs {
		fail("invalid_redirect_uri", "Register at most 4 redirect URIs of at most 1024 bytes together.")
		return
	}
	var uris []string
	total := 0
	for _, u := range req.RedirectURIs {
		if reason := checkRedirectURI(u); reason != "" {
			fail("invalid_redirect_uri", "The redirect URI "+problem.Quote(u)+" "+reason+".")
			return
		}
		if !slices.Contains(uris, u) {
			uris = append(uris, u)
			total += len(u)
		}
	}
	if total > token.MaxRedirectURIsLen {
		fail("invalid_redirect_uri", "Register at most 4 redirect URIs of at most 1024 bytes together.")
		return
	}
	if req.GrantTypes != nil && !slices.Contains(req.GrantTypes, GrantAuthorizationCode) {
		fail("invalid_client_metadata", "grant_types must include authorization_code: clients register only for the authorization code flow (client_credentials needs no registration).")
		return
	}
	if req.ResponseTypes != nil && !slices.Contains(req.ResponseTypes, ResponseTypeCode) {
		fail("invalid_client_metadata", "response_types must include code, the only response type.")
		return
	}
	clientID, err := s.cfg.Verifier.RegisterClient(uris)
	if err != nil {
		fail("invalid_redirect_uri", "The redirect URIs cannot be registered: "+err.Error()+".")
		return
	}
	respond.JSON(w, r, http.StatusCreated, ClientInformation{
		ClientID:                clientID,
		ClientIDIssuedAt:        s.cfg.Now().Unix(),
		RedirectURIs:            uris,
		GrantTypes:              []string{GrantAuthorizationCode},
		ResponseTypes:           []string{ResponseTypeCode},
		TokenEndpointAuthMethod: "none",
		Scope:                   token.Scope,
	})
}

// checkRedirectURI says what is wrong with a redirect URI, or "". OAuth 2.1
// and RFC 8252: absolute, no fragment, no user information; https, http only
// on a loopback host, or a private-use scheme of a native app in reverse
// domain form (com.example.app:/callback). Nothing else: ftp:, ms-settings:,
// chrome-extension:, javascript: and the like reach no client, or run
// something in the browser.
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return "is not an absolute URI"
	case strings.ContainsAny(raw, " \t\r\n\x00\\"):
		return "contains whitespace, a control character or a backslash"
	case strings.ContainsFunc(raw, func(c rune) bool { return c > '~' }):
		return "contains a character outside printable ASCII: percent-encode it (RFC 3986)"
	case strings.Contains(raw, "#"):
		return "has a fragment, which a redirect URI must not have (RFC 6749 section 3.1.2)"
	case u.User != nil:
		return "has user information"
	case !strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http") && !privateUseScheme(u.Scheme):
		return "uses the " + u.Scheme + " scheme: use https, http on a loopback address, or a private-use scheme in reverse domain form such as com.example.app (RFC 8252)"
	case strings.EqualFold(u.Scheme, "https") && u.Hostname() == "":
		return "has no host"
	case strings.EqualFold(u.Scheme, "http") && !loopbackRedirectHost(u.Hostname()):
		return "uses http on a host that is not a loopback address: use https, or http on 127.0.0.1, [::1] or localhost (RFC 8252)"
	}
	return ""
}

// loopbackRedirectHost reports whether an http redirect URI's host is one
// RFC 8252 section 7.3 names for a native app's listener: localhost, an
// IPv4 loopback address or [::1], in their usual spellings.
func loopbackRedirectHost(host string) bool {
	if strings.EqualFold(host, "localhost") || host == "::1" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Is4() && ip.IsLoopback()
}

// knownNativeSchemes are private-use schemes of widely used MCP clients
// that predate the reverse domain form: Cursor answers OAuth at
// cursor://anysphere.cursor-mcp/oauth/callback.
var knownNativeSchemes = map[string]bool{"cursor": true}

// privateUseScheme reports whether scheme is a private-use URI scheme in
// reverse domain form (RFC 8252 section 7.1): at least two labels, as in
// com.example.app; or one of knownNativeSchemes.
func privateUseScheme(scheme string) bool {
	labels := strings.Split(strings.ToLower(scheme), ".")
	if len(labels) < 2 {
		return knownNativeSchemes[labels[0]]
	}
	for _, label := range labels {
		if label == "" || !(label[0] >= 'a' && label[0] <= 'z') {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '+') {
				return false
			}
		}
	}
	return true
}

// approvedAtOnce reports whether a redirect URI is answered at once, with
// no page: one that can only reach an application on the user's own
// device, on a loopback address or through a private-use scheme (RFC 8252).
// An https redirect URI can name any site, so the user is shown where they
// are going first, and the module's address never forwards to another site
// by itself.
func approvedAtOnce(redirect string) bool {
	u, err := url.Parse(redirect)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Scheme, "http") && origin.IsLoopback(u.Host) || privateUseScheme(u.Scheme)
}

// redirectMatches reports whether the redirect URI of an authorization
// request names a registered one: exactly the same string, or for http on
// a loopback host the same URI on another port (RFC 8252 section 7.3: a
// native app listens on whatever port the system gives it).
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	reg, err1 := url.Parse(registered)
	req, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || reg.Scheme != "http" || req.Scheme != "http" || !origin.IsLoopback(reg.Host) ||
		checkRedirectURI(requested) != "" || !validPort(req.Port()) {
		return false
	}
	withoutPort := func(u *url.URL) string {
		v := *u
		v.Host = v.Hostname()
		if strings.Contains(v.Host, ":") {
			v.Host = "[" + v.Host + "]"
		}
		return v.String()
	}
	return withoutPort(reg) == withoutPort(req)
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' || n > 65535 {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n >= 1 && n <= 65535
}

// ownResource returns an RFC 8707 resource indicator in the spelling a
// token is bound to, when it names this site: its base URL, or an address
// the service answers (such as /mcp), written as base plus path without a
// trailing slash. ok is false for any other.
func (s *Server) ownResource(base, resource string) (canonical string, ok bool) {
	u, err := url.Parse(resource)
	if err != nil || u.User != nil || u.RawQuery != "" || strings.Contains(resource, "#") ||
		!strings.EqualFold(u.Scheme+"://"+u.Host, base) {
		return "", false
	}
	if u.Path != "" && u.Path != "/" && !s.cfg.Owns(u.Path) {
		return "", false
	}
	return base + strings.TrimSuffix(u.Path, "/"), true
}

// ownResources returns the canonical forms of resource indicators (see
// ownResource), each once, or ok false when one is not this site's or
// they are more than a token can carry.
func (s *Server) ownResources(base string, resources []string) (canonical []string, ok bool) {
	for _, res := range resources {
		c, ok := s.ownResource(base, res)
		if !ok {
			return nil, false
		}
		if !slices.Contains(canonical, c) {
			canonical = append(canonical, c)
		}
	}
	return canonical, token.CheckResources(canonical) == nil
}

// invalidTarget is the description of an invalid_target error.
func (p Paths) invalidTarget(base string) string {
	return "The resource must be this site, " + base + ", or one of its addresses such as " + base + p.MCP +
		" (RFC 8707), at most " + strconv.Itoa(token.MaxResources) + " of them."
}

// oauthClient is what the service knows of a client: its redirect URIs,
// and for one with a Client ID Metadata Document, its name as the document
// gives it.
type oauthClient struct {
	redirectURIs []string
	name         string
}

// resolveClient returns the client a client id stands for: the redirect
// URIs a registered id encodes, or the client the Client ID Metadata
// Document at a URL id describes (fetched within cimd.Wait, or from the
// cache). When the id is refused, it says why in a sentence for the client
// instead.
func (s *Server) resolveClient(ctx context.Context, base, clientID string) (c oauthClient, refused string) {
	if cimd.IsURL(clientID) {
		if s.cfg.ClientMetadata == nil {
			return c, "The client_id is a URL, but this site does not use Client ID Metadata Documents; register the client at " + base + s.cfg.Paths.ClientRegistration + "."
		}
		doc, err := s.cfg.ClientMetadata.Client(ctx, clientID)
		if err != nil {
			return c, "The client_id " + problem.Quote(clientID) + " is refused: " + err.Error() + "."
		}
		return oauthClient{redirectURIs: doc.RedirectURIs, name: doc.Name}, ""
	}
	uris, err := s.cfg.Verifier.VerifyClient(clientID)
	if err != nil {
		return c, "The client_id is not one this service registered" + clientError(err) + "."
	}
	return oauthClient{redirectURIs: uris}, ""
}

// Authorize is the authorization endpoint. A request is answered at
// the client's redirect URI only when it is valid in every respect: a
// registered client, one of its redirect URIs, and a complete PKCE request
// for public:read. Anything else is answered here, with a 400 problem, and
// never redirected, so no link to this endpoint forwards to another site.
// A valid request gets its code at once (no login, no consent) when the
// redirect URI reaches the user's own device (see approvedAtOnce); else a
// page names the destination and the user follows its link.
func (s *Server) Authorize(w http.ResponseWriter, r *http.Request, at At) {
	refuse := func(detail string) {
		p := problem.New(at.Base, problem.BadRequest, r, detail)
		p.Hint = "Register the client at " + at.Base + s.cfg.Paths.ClientRegistration + " with its redirect URIs"
		if s.cfg.ClientMetadata != nil {
			p.Hint += " (or use the https URL of its Client ID Metadata Document as its client_id)"
		}
		p.Hint += ", and send its client_id, one of those redirect_uri values, response_type=code and an S256 code_challenge here; " + at.Base + s.cfg.Paths.Auth + " describes the flow."
		respond.Problem(w, r, p)
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		refuse("The query is not a valid URL query encoding.")
		return
	}
	clientID, redirect := query["client_id"], query["redirect_uri"]
	switch {
	case len(clientID) == 0 || clientID[0] == "":
		refuse("The client_id parameter is missing.")
		return
	case len(clientID) > 1 || len(redirect) > 1:
		refuse("The client_id or redirect_uri parameter is repeated.")
		return
	}
	client, refused := s.resolveClient(r.Context(), at.Base, clientID[0])
	if refused != "" {
		refuse(refused)
		return
	}
	registered := client.redirectURIs
	var target string
	switch {
	case len(redirect) == 1:
		for _, reg := range registered {
			if redirectMatches(reg, redirect[0]) {
				target = redirect[0]
			}
		}
		if target == "" {
			refuse("The redirect_uri " + problem.Quote(redirect[0]) + " is not registered for this client; a redirect URI must match a registered one exactly (on a loopback host, any port).")
			return
		}
	case len(registered) == 1:
		target = registered[0]
	default:
		refuse("The redirect_uri parameter is missing, and the client registered more than one.")
		return
	}
	// A registration checks its redirect URIs; a metadata document's are
	// checked here, by the same rules, when one is used.
	if reason := checkRedirectURI(target); reason != "" {
		refuse("The redirect URI " + problem.Quote(target) + " " + reason + ".")
		return
	}
	resources, ownResources := s.ownResources(at.Base, query["resource"])
	if reason := authorizationProblem(query, ownResources); reason != "" {
		refuse(reason)
		return
	}

	code, err := s.cfg.Verifier.IssueCode(clientID[0], target, mustDecodeChallenge(query.Get("code_challenge")), resources)
	if err != nil {
		panic(err) // the system's random source failed
	}
	params := url.Values{"code": {code}, "iss": {at.Base}} // iss: RFC 9207
	if state := query.Get("state"); state != "" {
		params.Set("state", state)
	}
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	location := target + sep + params.Encode()
	if approvedAtOnce(target) {
		w.Header().Set("Location", location)
		respond.Write(w, r, http.StatusFound, respond.MediaText, nil)
		return
	}
	s.writeConsentPage(w, r, at, target, location, clientID[0], client.name)
}

// authorizationProblem says what makes an authorization request invalid,
// with its RFC 6749 error code first, or "" when it is valid. ownResources
// says whether its RFC 8707 resource indicators name this site.
func authorizationProblem(query url.Values, ownResources bool) string {
	for name, values := range query {
		if len(values) > 1 && name != "resource" {
			return "invalid_request: the parameter " + name + " is repeated."
		}
	}
	challenge, challengeErr := base64.RawURLEncoding.Strict().DecodeString(query.Get("code_challenge"))
	switch method := query.Get("code_challenge_method"); {
	case query.Get("response_type") == "":
		return "invalid_request: the response_type parameter is missing; it must be code."
	case query.Get("response_type") != ResponseTypeCode:
		return "unsupported_response_type: the only response type is code."
	case query.Get("code_challenge") == "":
		return "invalid_request: PKCE is required: send code_challenge and code_challenge_method=S256 (RFC 7636)."
	case method == "":
		return "invalid_request: code_challenge_method is missing, which means plain; only S256 is supported."
	case method != PKCES256:
		return "invalid_request: the code_challenge_method " + method + " is not supported; only S256 is."
	case challengeErr != nil || len(challenge) != 32:
		return "invalid_request: the code_challenge is not an S256 challenge: 43 base64url characters of a SHA-256 hash."
	case !onlyScope(query.Get("scope")):
		return "invalid_scope: the only scope is " + token.Scope + "."
	case !ownResources:
		return "invalid_target: the resource must be this site or one of its addresses, such as its /mcp, at most " + strconv.Itoa(token.MaxResources) + " of them (RFC 8707)."
	}
	return ""
}

// mustDecodeChallenge decodes a code_challenge that authorizationProblem
// accepted.
func mustDecodeChallenge(challenge string) []byte {
	b, err := base64.RawURLEncoding.Strict().DecodeString(challenge)
	if err != nil {
		panic(err) // checked by authorizationProblem
	}
	return b
}

// onlyScope reports whether a scope parameter asks for nothing but
// public:read (an absent scope means public:read).
func onlyScope(scope string) bool {
	for _, sc := range strings.Fields(scope) {
		if sc != token.Scope {
			return false
		}
	}
	return true
}

// clientError says why a client id was refused.
func clientError(err error) string {
	switch {
	case errors.Is(err, token.ErrSignature):
		return ": it was registered under another token secret, or altered; register again"
	default:
		return ": it is not a client id of this service"
	}
}

// redeemCode answers the authorization_code grant: the code must be genuine,
// unexpired, issued to this client for this redirect URI, match the PKCE
// verifier, and not have been redeemed before on any instance. requested
// are the token request's resources, canonical.
func (s *Server) redeemCode(w http.ResponseWriter, r *http.Request, at At, form url.Values, requested []string, fail func(code, description string)) {
	code, clientID, verifier, redirect := form.Get("code"), form.Get("client_id"), form.Get("code_verifier"), form.Get("redirect_uri")
	switch {
	case code == "":
		fail("invalid_request", "The code parameter is missing.")
		return
	case clientID == "":
		fail("invalid_request", "The client_id parameter is missing; a public client identifies itself with it (RFC 6749 section 3.2.1).")
		return
	case verifier == "":
		fail("invalid_request", "The code_verifier parameter is missing: PKCE is required (RFC 7636).")
		return
	case !validVerifier(verifier):
		fail("invalid_request", "The code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ and ~ (RFC 7636 section 4.1).")
		return
	}
	// A code names its client and redirect URI under its MAC: when the
	// request names both, a metadata document need not be fetched again,
	// its URL only checked. Any other client is resolved.
	documentClient := cimd.IsURL(clientID) && s.cfg.ClientMetadata != nil && cimd.CheckURL(clientID) == nil
	if redirect == "" || !documentClient {
		client, refused := s.resolveClient(r.Context(), at.Base, clientID)
		if refused != "" {
			fail("invalid_client", refused)
			return
		}
		if redirect == "" && len(client.redirectURIs) != 1 {
			fail("invalid_request", "The redirect_uri parameter is missing, and the client registered more than one.")
			return
		}
		if redirect == "" {
			redirect = client.redirectURIs[0]
		}
	}
	grant, err := s.cfg.Verifier.RedeemCode(code, clientID, redirect, verifier)
	switch {
	case errors.Is(err, token.ErrVerifier):
		fail("invalid_grant", "The code_verifier does not match the code_challenge of the authorization request (RFC 7636, S256).")
		return
	case errors.Is(err, token.ErrExpired):
		fail("invalid_grant", "The authorization code has expired; codes are valid for 60 seconds. Start the authorization again.")
		return
	case errors.Is(err, token.ErrForeign):
		fail("invalid_grant", "The authorization code was issued to another client or for another redirect_uri.")
		return
	case err != nil:
		fail("invalid_grant", "The code is not an authorization code of this service.")
		return
	}
	// RFC 8707 section 2.2: the token is for the resources of the
	// authorization request, or for some of them that the token request
	// names.
	resources := grant.Resources
	if len(requested) > 0 && len(grant.Resources) > 0 {
		for _, res := range requested {
			if !slices.ContainsFunc(grant.Resources, func(g string) bool { return token.Covers(g, res) }) {
				fail("invalid_target", "The resource "+problem.Quote(res)+" was not among the resources of the authorization request, "+strings.Join(grant.Resources, ", ")+" (RFC 8707 section 2.2).")
				return
			}
		}
	}
	if len(requested) > 0 {
		resources = requested
	}
	first, err := s.ledger.Spend(r.Context(), grant.ID, grant.Expires)
	if err != nil {
		// Without the ledger a code could be used twice: refuse, as a
		// fault of the service (the ledger logs what failed).
		respond.Problem(w, r, problem.New(at.Base, problem.InternalError, r, "The service could not record the use of the authorization code."))
		return
	}
	if !first {
		fail("invalid_grant", "The authorization code has already been used; a code is good for one token. Start the authorization again.")
		return
	}
	s.issueToken(w, r, at, GrantAuthorizationCode, resources)
}

// validVerifier checks RFC 7636's code_verifier grammar.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}
