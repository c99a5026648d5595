// Package portal is the developer portal and the 429 page: what the portal
// says (Page, made from the view of one base URL by Of, build.go), its HTML
// and Markdown templates, the field reference read from the named schemas
// (types.go), the setups of the agents people use, and the page a refused
// request gets (limited.go).
//
// Imports from the module: internal/docs, internal/mcp, internal/oauth, internal/pages, internal/problem, internal/ratelimit, internal/respond, internal/schema, internal/search, internal/token, internal/view.
package portal

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// The developer portal, /developers, and its Markdown twin, /developers.md,
// are two renderings of one Page, which Of makes from the routes served,
// the types' schemas, the problem codes and the content (build.go).

//go:embed assets/developers.html
var portalHTML string

//go:embed assets/developers.md
var portalMarkdown string

//go:embed assets/style.css
var portalCSS string

var (
	portalTemplate         = template.Must(template.New("developers").Parse(portalHTML))
	portalMarkdownTemplate = texttemplate.Must(texttemplate.New("developers.md").Funcs(texttemplate.FuncMap{
		"fence": markdownFence,
		"cell":  markdownCell,
	}).Parse(portalMarkdown))
)

// styleSource is the CSP source of the portal's inline style: its hash.
var styleSource = func() string {
	sum := sha256.Sum256([]byte(portalCSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// Page is everything the portal says.
type Page struct {
	Name, Tagline, Base, Home, LLMs, LLMsFull, OpenAPI, AuthNotes, Markdown, HTML string
	// Updated is the newest modification date of the content, YYYY-MM-DD.
	Updated string
	Slug    string
	Scope   string
	// TokenLifetime says how long an access token lives, in words, and
	// TokenSeconds is its expires_in.
	TokenLifetime string
	TokenSeconds  int
	RateLimit     string
	Limited       bool
	Events        int
	Window        int
	Policy        string
	VersionStatus string
	OpenAPIVer    string
	MCP           string
	MCPBatch      int
	CLI           string
	CLIFile       string
	CLIName       string
	WebMCP        string
	// Listing says how the MCP server is listed beyond the site.
	Listing Listing
	// Core are the versioned API's operations; Auth, MCPOps and Documents
	// the others, by group.
	Core, Auth, MCPOps, Documents []Operation
	Problems                      []problem.Code
	// The example error responses, each a whole HTTP response.
	NotFound, Unauthorized, Refused string
	Clients                         []Client
	Types                           []Type
}

// Operation is one route as the portal documents it.
type Operation struct {
	ID, Method, Path, Summary, Description string
	// Status and MediaType describe the success response.
	Status    string
	MediaType string
	// Request is a curl command; RequestBody its body, if any, with its
	// media type.
	Request          string
	RequestBody      string
	RequestMediaType string
	// Response is the whole example response body (JSON indented in the
	// order the API sends it), or the response's headers for a redirect;
	// Document is set instead for a route whose response is a document
	// to open.
	Response         string
	ResponseLanguage string
	Document         string
	// Type is the response body's type in the field reference, TypeID its
	// anchor; Shared names the operation whose example is the same.
	Type, TypeID       string
	Shared, SharedPath string
	// Errors are the problem codes beyond the ones every route can give.
	Errors []problem.Code
	// Note says more about the example, when it is not the whole story.
	Note string
}

// Listing is what the site's owner needs to list the MCP server in
// the official MCP Registry and in DNS (see listing.go).
type Listing struct {
	// ServerJSON is the server.json to publish; Domain the domain to
	// prove, Proof the address of the proof and Key the key the module
	// serves there ("" while none is configured).
	ServerJSON, Domain, Proof, Key string
	// Login and Publish are the publisher's commands.
	Login, Publish string
	// Records are the DNS-AID records, one a line.
	Records string
}

// Client is the setup of one agent or tool.
type Client struct {
	ID, Name, Intro, Where, Code, Language, Note string
}

// Type is one response type of the field reference.
type Type struct {
	Name, ID, Description string
	Fields                []Field
}

// Field is one member of a type; Ref is the type it refers to.
type Field struct {
	Name, Type, Description string
	Required                bool
	Ref, RefID              string
}

// lifetime says a number of seconds in words: "24 hours".
func lifetime(seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d%(24*time.Hour) == 0 && d >= 48*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	case d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	}
	return plural(seconds, "second")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// httpExample is a problem response as it goes over the wire.
func httpExample(status int, headers [][2]string, p *problem.Problem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\nContent-Type: %s\n", status, http.StatusText(status), respond.MediaProblem)
	for _, h := range headers {
		b.WriteString(h[0] + ": " + h[1] + "\n")
	}
	body, _ := json.MarshalIndent(p, "", "  ")
	b.WriteString("\n")
	b.Write(body)
	return b.String()
}

// clientsOf are the setups of the agents people use, for the MCP endpoint
// mcp, the server named name in their configurations.
func clientsOf(mcp, name string) []Client {
	indent := func(v any) string {
		b, _ := json.MarshalIndent(v, "", "  ")
		return string(b)
	}
	type server = map[string]any
	type stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	type remote struct {
		Type string `json:"type,omitempty"`
		URL  string `json:"url"`
	}
	return []Client{
		{ID: "connect-claude-code", Name: "Claude Code", Intro: "Run once in a terminal; add --scope user to have it in every project:",
			Code: "claude mcp add --transport http " + name + " " + mcp, Language: "sh"},
		{ID: "connect-claude-desktop", Name: "Claude Desktop",
			Intro: "Remote servers are added under Settings → Connectors → Add custom connector, with the URL " + mcp + ". Or, in claude_desktop_config.json (Settings → Developer → Edit Config), through the mcp-remote bridge (needs Node.js):",
			Where: "claude_desktop_config.json",
			Code:  indent(server{"mcpServers": server{name: stdio{"npx", []string{"-y", "mcp-remote", mcp}}}}), Language: "json"},
		{ID: "connect-cursor", Name: "Cursor", Intro: "In the project's .cursor/mcp.json (or ~/.cursor/mcp.json for every project):",
			Where: ".cursor/mcp.json", Code: indent(server{"mcpServers": server{name: remote{URL: mcp}}}), Language: "json"},
		{ID: "connect-vscode", Name: "VS Code", Intro: "In the workspace's .vscode/mcp.json (GitHub Copilot's agent mode):",
			Where: ".vscode/mcp.json", Code: indent(server{"servers": server{name: remote{"http", mcp}}}), Language: "json"},
		{ID: "connect-chatgpt", Name: "ChatGPT",
			Intro: "Connectors need developer mode: Settings → Apps & Connectors → Advanced settings → Developer mode. Then Settings → Apps & Connectors → Create, give it a name and this MCP server URL, with no authentication:",
			Code:  mcp, Language: "text"},
		{ID: "connect-other", Name: "Other MCP clients", Intro: "Any client that speaks Streamable HTTP takes the URL; most read this shape:",
			Code: indent(server{"mcpServers": server{name: remote{"http", mcp}}}), Language: "json",
			Note: "Clients that run OAuth on a 401 with a loopback or private-use redirect URI complete it unattended: there is no login. An https redirect URI gets a page that names its host first."},
	}
}

// typeAnchor is the anchor of a type in the field reference.
func typeAnchor(name string) string { return "type-" + strings.ToLower(name) }

// HTML renders /developers.
func HTML(p *Page) ([]byte, error) {
	var b bytes.Buffer
	err := portalTemplate.Execute(&b, struct {
		*Page
		Style template.CSS
	}{p, template.CSS(portalCSS)})
	return b.Bytes(), err
}

// Markdown renders /developers.md, the portal for agents, whose page is
// at developers.
func Markdown(p *Page, developers string) ([]byte, error) {
	var b bytes.Buffer
	pages.WriteFrontMatter(&b, pages.TwinFacts{
		Title:       p.Name + " public discovery API",
		Description: "The developer portal for agents: every endpoint of the public discovery API of " + p.Name + " with examples, the field reference, authentication, rate limits, errors, MCP and the CLI.",
		URL:         developers, Updated: p.Updated,
	})
	err := portalMarkdownTemplate.Execute(&b, p)
	return b.Bytes(), err
}

// markdownFence wraps code in a fence longer than any run of backticks in
// it.
func markdownFence(language, code string) string {
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + language + "\n" + code + "\n" + fence
}

// markdownCell makes text safe in a Markdown table cell.
func markdownCell(s string) string {
	return strings.ReplaceAll(pages.MarkdownLine(s), "|", `\|`)
}
