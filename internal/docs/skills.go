package docs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/schema"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// Agent Skills: a generated SKILL.md that teaches an agent this API through
// REST, the CLI and MCP, and the discovery index (Agent Skills Discovery
// v0.2.0) that lists it with the digest of its bytes.

// agentSkillsSchema is the $schema of the discovery index.
const agentSkillsSchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// mediaSkill is the AI catalog's type of a skill in one Markdown file, as
// the Agentic Resource Discovery specification registers it.
const mediaSkill = `text/markdown; profile="urn:air:agent-skills"`

// maxSkillDescription is the longest description a skill may have.
const maxSkillDescription = 1024

// skillDescription is the skill's description: what it is for and when to
// use it, which is what an agent reads to decide whether to load it.
func skillDescription(l view.Links) string {
	p := l.Cat.Site.Profile
	return clipChars(pages.OneLine(fmt.Sprintf("Look up %s (%s) and their published articles (\"insights\") in the read-only public API of %s: "+
		"biography, key facts, expertise, contact links, articles by topic or by words, and each article's full Markdown. "+
		"Use when asked about %s or their writing. Works over REST (curl), the official Node.js CLI or MCP; no API key.",
		p.Name, strings.TrimSuffix(pages.OneLine(p.Tagline), "."), origin.HostOf(l.Base), p.Name)), maxSkillDescription)
}

// SkillsIndex renders the discovery index, which lists the skill with the
// digest of the bytes served at its address, rendered here exactly as for
// that address (with the tools the MCP server declares).
func SkillsIndex(l view.Links, tools []mcp.DeclaredTool) ([]byte, error) {
	body, err := SkillMarkdown(l, tools)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	return respond.Marshal(wire.SkillsIndex{Schema: agentSkillsSchema, Skills: []wire.SkillEntry{{
		Name: view.SkillName(l.CLIName), Type: "skill-md", Description: skillDescription(l),
		URL: l.Base + l.SkillPath(), Digest: "sha256:" + hex.EncodeToString(sum[:]),
	}}})
}

// skillTemplate is the SKILL.md: YAML front matter (name, description),
// then what to use when, and each interface with the calls to make.
var skillTemplate = template.Must(template.New("SKILL.md").Parse(`---
name: {{.Name}}
description: {{.Description}}
---

# {{.Subject}}: public discovery API

{{.Host}} publishes read-only, public facts about {{.Subject}} and their published articles ("insights"), for agents
and people alike. No API key, no signup, nothing to write: every call below works as it is. Base URL: {{.Base}}

## When to use it

- A question about {{.Subject}}: who they are, their biography, key facts, recognition, expertise, education or how
  to reach them. Read the profile.
- A question about their writing: find articles by topic{{if .Topics}} ({{.Topics}}){{end}} or, over MCP, by words;
  then read one in full, in Markdown.
- Choose one interface. MCP if your agent has an MCP client; the JSON API from any HTTP client (curl, fetch); the CLI
  from a shell with Node.js 18 or newer. All three give the same JSON.

## JSON API
{{range .Endpoints}}
- ` + "`GET {{.Path}}`" + `: {{.Description}}
  ` + "`curl {{.Example}}`" + `{{end}}

Errors are RFC 9457 problem documents (` + "`application/problem+json`" + `) with a ` + "`code`" + `, a ` + "`detail`" + ` and a ` + "`hint`" + `:
follow the hint. A slug outside the slug grammar is a 400 ` + "`bad_request`" + `; an unknown one a 404 ` + "`not_found`" + `.
{{.RateLimit}} Send a response's ` + "`ETag`" + ` back in ` + "`If-None-Match`" + ` to get ` + "`304 Not Modified`" + `.
A bearer token is never needed. Every endpoint is described in OpenAPI 3.1 at {{.OpenAPI}}.

## CLI

One file, no dependencies, this site's address built in:

` + "```sh" + `
curl -sO {{.CLI}}
{{range .Commands}}node {{$.CLIFile}} {{.Command}}  # {{.Summary}}
{{end}}node {{.CLIFile}} insights --json | jq '.items[].slug'
` + "```" + `

` + "`--json`" + ` prints the API's JSON unchanged. Exit codes: 0 success; 1 an API problem or a network failure (its
title, detail and hint on stderr); 2 a usage error.

## MCP

Endpoint: {{.MCP}} (Streamable HTTP, stateless, no authentication). Client configuration:

` + "```json" + `
{"mcpServers": {"{{.ServerKey}}": {"type": "http", "url": "{{.MCP}}"}}}
` + "```" + `

Tools, all read-only:
{{range .Tools}}
- ` + "`{{.Name}}`" + ` ({{.Arguments}}): {{.Description}}{{end}}

Tool results carry the JSON API's document as structured content. Each insight is also a resource
(` + "`resources/list`, `resources/read`" + `) holding its Markdown.

## More

- {{.LLMs}}: the site in brief for agents; {{.LLMsFull}}: everything as one text.
- {{.Developers}}: the developer portal, with every error code and the versioning policy.
- {{.ServerCard}}: the MCP server card.
`))

type skillEndpoint struct{ Path, Description, Example string }

type skillCommand struct{ Command, Summary string }

type skillTool struct{ Name, Arguments, Description string }

// SkillMarkdown renders the SKILL.md from the route table, the CLI's
// commands and the MCP server's tools as the server declares them.
func SkillMarkdown(l view.Links, tools []mcp.DeclaredTool) ([]byte, error) {
	p := l.Cat.Site.Profile
	slug := SlugExample(l)
	description, err := pages.YAMLString(skillDescription(l))
	if err != nil {
		return nil, err
	}
	data := map[string]any{
		"Name": view.SkillName(l.CLIName), "Description": description,
		"Subject": pages.OneLine(p.Name), "Host": origin.HostOf(l.Base), "Base": l.Base,
		"Topics":    strings.Join(l.Cat.Site.Topics(), ", "),
		"RateLimit": RateLimitSummary(l.RateLimit), "OpenAPI": l.OpenAPI(),
		"CLI": l.CLIURL(), "CLIFile": path.Base(l.CLIURL()),
		"MCP": l.Base + view.PathMCP, "ServerKey": l.CLIName,
		"LLMs": l.Base + view.PathLLMs, "LLMsFull": l.Base + view.PathLLMsFull,
		"Developers": l.Developers(), "ServerCard": l.Base + view.PathServerCard,
	}
	var endpoints []skillEndpoint
	for _, rt := range l.Routes {
		if rt.Versioned() && rt.Method == http.MethodGet {
			endpoints = append(endpoints, skillEndpoint{rt.Path, rt.Description, l.Base + view.URLPathFor(l.Cat, rt, slug)})
		}
	}
	data["Endpoints"] = endpoints
	var commands []skillCommand
	for _, c := range CLICommands {
		summary := c.Summary
		if c.Path != "" {
			rt := l.RouteAt(c.Path)
			if rt == nil {
				return nil, fmt.Errorf("the CLI command %q prints %s, which is not a route", c.Command, c.Path)
			}
			summary = rt.Summary
		}
		commands = append(commands, skillCommand{strings.Replace(c.Command, "<slug>", slug, 1), summary})
	}
	data["Commands"] = commands
	var listed []skillTool
	for _, t := range tools {
		listed = append(listed, skillTool{t.Name, toolArguments(t.InputSchema), t.Description})
	}
	slices.SortFunc(listed, func(a, b skillTool) int { return strings.Compare(a.Name, b.Name) })
	data["Tools"] = listed
	var b bytes.Buffer
	if err := skillTemplate.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// toolArguments describes a tool's input schema in a line: each argument
// with its type, whether it is required, and its description.
func toolArguments(input any) string {
	s, ok := input.(*jsonschema.Schema)
	if !ok || len(s.Properties) == 0 {
		return "no arguments"
	}
	names := schema.PropertyNames(s)
	var args []string
	for _, name := range names {
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		kind := "optional"
		if slices.Contains(s.Required, name) {
			kind = "required"
		}
		arg := "`" + name + "` " + prop.Type + ", " + kind
		if prop.Description != "" {
			arg += ": " + prop.Description
		}
		args = append(args, arg)
	}
	return strings.Join(args, "; ")
}
