package docs

import (
	"bytes"
	"net/http"
	"strings"
	"text/template"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// authTemplate is /auth.md: authentication notes for agents, in the
// sections of the auth.md agent registration protocol, under the title its
// readers look for ("auth.md" in the H1).
var authTemplate = template.Must(template.New("auth.md").Parse(`# auth.md: {{.Name}}

No authentication is needed. Every public endpoint answers an unauthenticated request:
{{range $i, $u := .Public}}{{if $i}}, {{end}}{{$u}}{{end}}. If you only want to read, stop here and send no Authorization
header.

An anonymous bearer token is optional. It carries the scope ` + "`{{.Scope}}`" + ` and grants nothing beyond unauthenticated access; it
exists so that agents can exercise their OAuth plumbing against a real service, and so that one holding a stale token
recovers by itself.

## Discover

The authorization server metadata, {{.Base}}{{.ASM}}, has the ` + "`agent_auth`" + ` block of the auth.md protocol, in
the names of its v0.7 and of its v0.1, which scanners still read: ` + "`skill`" + ` (this document),
` + "`identity_endpoint`" + ` {{.Base}}{{.Identity}}, ` + "`claim_endpoint`" + ` and ` + "`claim_uri`" + ` {{.Base}}{{.Claim}},
` + "`register_uri`" + ` {{.Base}}{{.Register}}, ` + "`identity_types_supported`" + ` ` + "`[\"anonymous\"]`" + `. Its ` + "`issuer`" + ` is
{{.Base}}, the authorization server the protected resource metadata names.
{{range .Discover}}
- {{.Summary}}: {{.URL}}. {{.Description}}{{end}}

## Pick a method

1. **Register** (simplest): ` + "`POST {{.Base}}{{.Register}}`" + ` with no body returns a token.
2. **Client credentials** (RFC 6749 section 4.4): ` + "`POST {{.Base}}{{.Token}}`" + ` with
   ` + "`grant_type=client_credentials`" + `; no client authentication (` + "`token_endpoint_auth_methods_supported: [\"none\"]`" + `).
3. **Identity assertion** (the auth.md agent flow): get an anonymous identity, then exchange its assertion with the
   JWT-bearer grant (RFC 7523).
{{if .CIMD}}4. **Authorization code with PKCE** (OAuth 2.1, what MCP clients do on their own after a 401): register a client,
   or name it by the https URL of its Client ID Metadata Document; follow the authorization endpoint's redirect,
   exchange the code.{{else}}4. **Authorization code with PKCE** (OAuth 2.1, what MCP clients do on their own after a 401): register a client, follow
   the authorization endpoint's redirect, exchange the code.{{end}} There is no login: nothing private is behind this
   service, and ` + "`{{.Scope}}`" + ` is what every anonymous caller has anyway. A redirect URI on a loopback address or with a
   private-use scheme (RFC 8252) gets the code at once, so the flow completes unattended; an https redirect URI gets a
   page that names its host and links there, so that this site never forwards anyone to another site by itself.

## Register

` + "```" + `
curl -X POST {{.Base}}{{.Register}}
` + "```" + `

` + "```json" + `
{"access_token":"dsc_…","token_type":"Bearer","expires_in":{{.TTL}},"scope":"{{.Scope}}"}
` + "```" + `

Each call returns a new opaque token, valid for {{.TTL}} seconds (` + "`expires_in`" + `). The response is sent with
` + "`Cache-Control: no-store`" + `.

For an identity instead:

` + "```" + `
curl -X POST {{.Base}}{{.Identity}} -H 'Content-Type: application/json' -d '{"type":"anonymous"}'
` + "```" + `

returns ` + "`registration_id`, `registration_type` (\"anonymous\"), `identity_assertion`" + ` (a short-lived JWT signed by this
service), ` + "`identity_assertion_expires_at`, `claim_token` and `claim_token_expires_at`" + `. Any other ` + "`type`" + ` is a 400 problem.

## Claim

Claiming is not required for this site: every token and identity already has the only scope there is,
` + "`{{.Scope}}`" + `, and there is nothing more to unlock. ` + "`POST {{.Base}}{{.Claim}}`" + ` answers 200 and says so.

## Exchange the assertion

` + "```" + `
curl -X POST {{.Base}}{{.Token}} \
  -d grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer \
  -d assertion=<identity_assertion>
` + "```" + `

The token endpoint takes ` + "`application/x-www-form-urlencoded`" + ` bodies and accepts the grants
` + "`authorization_code`" + ` (below), ` + "`client_credentials`" + ` and ` + "`urn:ietf:params:oauth:grant-type:jwt-bearer`" + ` (with an
assertion issued by this service). An optional ` + "`scope`" + ` must be ` + "`{{.Scope}}`" + `. It answers like ` + "`{{.Register}}`" + `.

## Authorization code flow

Register a public client (RFC 7591; no client secret, ` + "`token_endpoint_auth_method` `none`" + `):

` + "```" + `
curl -X POST {{.Base}}{{.ClientRegistration}} -H 'Content-Type: application/json' \
  -d '{"redirect_uris":["http://127.0.0.1:8765/callback"]}'
` + "```" + `

returns 201 with ` + "`client_id`" + ` and the registered metadata. Redirect URIs: 1 to 4, at most 1024 bytes together; https,
http only on a loopback host (127.0.0.1, [::1], localhost), or a native app's private-use scheme; no fragment. The
` + "`client_id`" + ` is the registration itself, a signed encoding of the redirect URIs: nothing is stored, so it never expires
(unless the site changes its token secret: then register again).
{{if .CIMD}}
Or skip registration: a client that publishes a Client ID Metadata Document uses its https URL as the ` + "`client_id`" + `
(` + "`client_id_metadata_document_supported: true`" + ` in the metadata). The document is JSON with ` + "`client_id`" + ` (its own URL,
exactly), ` + "`client_name`" + ` and ` + "`redirect_uris`" + `, and ` + "`token_endpoint_auth_method` `none`" + ` if any; no client secret.
This site fetches it at the authorization request (https, no redirects, at most 5 KiB, waiting at most 3 seconds),
keeps it as its ` + "`Cache-Control`" + ` allows, and accepts the redirect URIs it lists by the rules above.
{{else}}
Client ID Metadata Documents (URL client ids) are switched off on this site, so it never fetches a URL a client names;
clients that prefer them fall back to this endpoint.
{{end}}
Then send the user agent, or a plain GET, to the authorization endpoint, with PKCE (S256 only):

` + "```" + `
curl -i -G {{.Base}}{{.Authorize}} -d response_type=code -d client_id=<client_id> \
  -d redirect_uri=http://127.0.0.1:8765/callback -d code_challenge=<BASE64URL(SHA-256(verifier))> \
  -d code_challenge_method=S256 -d state=<state>
` + "```" + `

It answers 302 at once, to the redirect URI with ` + "`code`, `state`" + ` (unchanged) and ` + "`iss`" + ` (RFC 9207). The
` + "`redirect_uri`" + ` must be a registered one exactly; on a loopback host any port is accepted (RFC 8252), and it may be left
out when exactly one is registered. ` + "`scope`" + ` may only be ` + "`{{.Scope}}`" + `; ` + "`resource`" + ` (RFC 8707), if sent, must be
{{.Base}} or one of its addresses such as {{.Base}}/mcp, and the token is then valid there (and below) only: one
for {{.Base}}/mcp is refused on /api/v1 with ` + "`invalid_token`" + `. Without ` + "`resource`" + ` the token is valid everywhere.

Exchange the code within {{.CodeTTL}} seconds, once:

` + "```" + `
curl -X POST {{.Base}}{{.Token}} -d grant_type=authorization_code -d code=<code> \
  -d code_verifier=<verifier> -d client_id=<client_id> -d redirect_uri=http://127.0.0.1:8765/callback
` + "```" + `

A code is good for one token across every instance of this site; a second exchange is ` + "`invalid_grant`" + `. There are no
refresh tokens: when the access token expires, run the flow again; it asks nobody anything.

## Use the access token

` + "```" + `
curl {{.Base}}/api/v1/profile -H 'Authorization: Bearer <access_token>'
` + "```" + `

A valid token is accepted on every public endpoint and changes nothing about the answer.

## Errors

- Token endpoint errors follow RFC 6749 section 5.2, status 400, ` + "`{\"error\",\"error_description\"}`" + `:
  ` + "`invalid_request`" + ` (no grant type, a missing, repeated or malformed parameter, or a body that is not form-encoded),
  ` + "`invalid_client`" + ` (a client_id this site did not register{{if .CIMD}}, or whose metadata document is
  refused{{end}}), ` + "`unsupported_grant_type`" + `,
  ` + "`invalid_grant`" + ` (a code that is expired, already used, issued to another client or redirect URI, or whose
  ` + "`code_verifier`" + ` does not match; an assertion that is malformed, expired, tampered with or not from this service),
  ` + "`invalid_scope`" + ` (a scope other than ` + "`{{.Scope}}`" + `), ` + "`invalid_target`" + ` (a resource that is not this site, or one
  the authorization request did not name).
- Registration errors follow RFC 7591 section 3.2.2, status 400: ` + "`invalid_redirect_uri`" + `, ` + "`invalid_client_metadata`" + `.
- The authorization endpoint redirects only a request that is valid in every respect. Any other gets a 400 problem
  whose ` + "`detail`" + ` begins with the RFC 6749 error: ` + "`invalid_request`" + ` (no PKCE, ` + "`plain`" + ` PKCE, a malformed challenge, a
  repeated parameter), ` + "`unsupported_response_type`, `invalid_scope`, `invalid_target`" + `; an unknown client,
  {{if .CIMD}}a refused metadata document (the detail names the rule it breaks), {{end}}an unregistered redirect URI likewise. Errors are never sent to a redirect URI, so no link to this site forwards to
  another.
- A malformed, expired or forged Bearer token gets a 401 ` + "`application/problem+json`" + ` with code ` + "`invalid_token`" + ` and
  ` + "`WWW-Authenticate: Bearer error=\"invalid_token\", scope=\"{{.Scope}}\", resource_metadata=\"{{.Base}}{{.PRM}}\"`" + `
  ({{.Base}}{{.PRMMCP}} on /mcp). Omit the header, or get a new token by any method above: an OAuth client follows
  the metadata by itself. Another scheme (Basic, DPoP, …) is not this site's business and is ignored; two
  Authorization headers are a 400 with ` + "`error=\"invalid_request\"`" + `.
- Other errors are problems too: {{.Base}}/developers#errors lists every code.

## Not supported

User-account creation, login and consent screens, multi-tenant application registration,{{if not .CIMD}} Client ID
Metadata Documents (switched off here),{{end}}
refresh tokens, identity assertions from third-party providers, verified-email claim procedures for elevated scopes,
and write APIs. There is one scope, ` + "`{{.Scope}}`" + `, and it is
read-only.
`))

// authDocument is one document /auth.md points an agent at.
type authDocument struct{ Summary, URL, Description string }

// AuthMarkdown renders /auth.md: the addresses that need no token, the
// documents to discover the flows in, and each flow.
func AuthMarkdown(l view.Links) []byte {
	var public []string
	var discover []authDocument
	for _, rt := range l.Routes {
		switch {
		case rt.Bearer:
			public = append(public, l.Base+rt.Path)
		case rt.Method == http.MethodGet && (strings.HasPrefix(rt.Path, "/.well-known/") && rt.Tag == view.TagDiscovery ||
			rt.Path == view.PathOpenAPI || rt.Path == view.PathDevelopers):
			discover = append(discover, authDocument{rt.Summary, l.Base + rt.Path, rt.Description})
		}
	}
	var b bytes.Buffer
	err := authTemplate.Execute(&b, map[string]any{
		"Name":               l.Cat.Site.Profile.Name,
		"Base":               l.Base,
		"Scope":              token.Scope,
		"TTL":                l.TokenSeconds,
		"Public":             public,
		"Discover":           discover,
		"CodeTTL":            int(token.DefaultCodeTTL / time.Second),
		"Token":              view.PathToken,
		"Register":           view.PathRegister,
		"Identity":           view.PathIdentity,
		"Claim":              view.PathIdentityClaim,
		"ASM":                view.PathASM,
		"Authorize":          view.PathAuthorize,
		"ClientRegistration": view.PathClientRegistration,
		"PRM":                view.PathPRM,
		"PRMMCP":             view.PathPRMMCP,
		"CIMD":               l.ClientMetadataDocuments,
	})
	if err != nil {
		panic(err) // a fixed template over strings and ints
	}
	return b.Bytes()
}
