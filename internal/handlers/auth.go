package handlers

import (
	"bytes"
	"net/http"
	"strings"
	"text/template"
)

// authTemplate is /auth.md: authentication notes for agents, in the
// sections of the auth.md agent registration protocol.
var authTemplate = template.Must(template.New("auth.md").Parse(`# Authentication for {{.Name}}

No authentication is needed. Every public endpoint answers an unauthenticated request:
{{range $i, $u := .Public}}{{if $i}}, {{end}}{{$u}}{{end}}. If you only want to read, stop here and send no Authorization
header.

An anonymous bearer token is optional. It carries the scope ` + "`{{.Scope}}`" + ` and grants nothing beyond unauthenticated access; it
exists so that agents can exercise their OAuth plumbing against a real service.

## Discover
{{range .Discover}}
- {{.Summary}}: {{.URL}}. {{.Description}}{{end}}

## Pick a method

1. **Register** (simplest): ` + "`POST {{.Base}}/agent/register`" + ` with no body returns a token.
2. **Client credentials** (RFC 6749 section 4.4): ` + "`POST {{.Base}}/oauth/token`" + ` with
   ` + "`grant_type=client_credentials`" + `; no client authentication (` + "`token_endpoint_auth_methods_supported: [\"none\"]`" + `).
3. **Identity assertion** (the auth.md agent flow): get an anonymous identity, then exchange its assertion with the
   JWT-bearer grant (RFC 7523).

## Register

` + "```" + `
curl -X POST {{.Base}}/agent/register
` + "```" + `

` + "```json" + `
{"access_token":"dsc_…","token_type":"Bearer","expires_in":{{.TTL}},"scope":"{{.Scope}}"}
` + "```" + `

Each call returns a new opaque token, valid for {{.TTL}} seconds (` + "`expires_in`" + `). The response is sent with
` + "`Cache-Control: no-store`" + `.

For an identity instead:

` + "```" + `
curl -X POST {{.Base}}/agent/identity -H 'Content-Type: application/json' -d '{"type":"anonymous"}'
` + "```" + `

returns ` + "`registration_id`, `registration_type` (\"anonymous\"), `identity_assertion`" + ` (a short-lived JWT signed by this
service), ` + "`identity_assertion_expires_at`, `claim_token` and `claim_token_expires_at`" + `. Any other ` + "`type`" + ` is a 400 problem.

## Claim

Claiming is not required for this site: every token and identity already has the only scope there is,
` + "`{{.Scope}}`" + `, and there is nothing more to unlock. ` + "`POST {{.Base}}/agent/identity/claim`" + ` answers 200 and says so.

## Exchange the assertion

` + "```" + `
curl -X POST {{.Base}}/oauth/token \
  -d grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer \
  -d assertion=<identity_assertion>
` + "```" + `

The token endpoint takes ` + "`application/x-www-form-urlencoded`" + ` bodies and accepts the grants
` + "`client_credentials`" + ` and ` + "`urn:ietf:params:oauth:grant-type:jwt-bearer`" + ` (with an assertion issued by this service). An
optional ` + "`scope`" + ` must be ` + "`{{.Scope}}`" + `. It answers like ` + "`/agent/register`" + `.

## Use the access token

` + "```" + `
curl {{.Base}}/api/v1/profile -H 'Authorization: Bearer <access_token>'
` + "```" + `

A valid token is accepted on every public endpoint and changes nothing about the answer.

## Errors

- Token endpoint errors follow RFC 6749 section 5.2, status 400, ` + "`{\"error\",\"error_description\"}`" + `:
  ` + "`invalid_request`" + ` (no grant type, or a malformed request), ` + "`unsupported_grant_type`" + `,
  ` + "`invalid_grant`" + ` (an assertion that is malformed, expired, tampered with or not from this service),
  ` + "`invalid_scope`" + ` (a scope other than ` + "`{{.Scope}}`" + `).
- An Authorization header whose token is malformed, expired, forged or not a Bearer token gets a 401
  ` + "`application/problem+json`" + ` with code ` + "`invalid_token`" + ` and
  ` + "`WWW-Authenticate: Bearer error=\"invalid_token\", resource_metadata=\"{{.Base}}/.well-known/oauth-protected-resource\"`" + `.
  Omit the header or register again.
- Other errors are problems too: {{.Base}}/developers#errors lists every code.

## Not supported

User-account creation, multi-tenant application registration, identity assertions from third-party providers,
verified-email claim procedures for elevated scopes, and write APIs. There is one scope, ` + "`{{.Scope}}`" + `, and it is
read-only.
`))

// authDocument is one document /auth.md points an agent at.
type authDocument struct{ Summary, URL, Description string }

func (l links) authMarkdown() []byte {
	var public []string
	var discover []authDocument
	for _, rt := range l.routes {
		switch {
		case rt.Bearer:
			public = append(public, l.base+rt.Path)
		case rt.Method == http.MethodGet && (strings.HasPrefix(rt.Path, "/.well-known/") && rt.Tag == tagDiscovery ||
			rt.Path == pathOpenAPI || rt.Path == pathDevelopers):
			discover = append(discover, authDocument{rt.Summary, l.base + rt.Path, rt.Description})
		}
	}
	var b bytes.Buffer
	err := authTemplate.Execute(&b, map[string]any{
		"Name":     l.cfg.Site.Profile.Name,
		"Base":     l.base,
		"Scope":    tokenScope,
		"TTL":      l.cfg.tokenTTLSeconds(),
		"Public":   public,
		"Discover": discover,
	})
	if err != nil {
		panic(err) // a fixed template over strings and ints
	}
	return b.Bytes()
}
