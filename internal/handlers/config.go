package handlers

import (
	"net/http"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/cimd"
	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// ErrNothingToConvert is given to Config.OnConvertFailure for a page with
// no text once converted (an app's empty shell): its HTML is served, as it
// says more than an empty Markdown document would.
var ErrNothingToConvert = convert.ErrNoText

// ErrNoIndex is the failure of a page the site keeps out of indexes.
var ErrNoIndex = convert.ErrNoIndex

// Config is what a Service serves and how, as the caller set it: the
// indexes made of the content are the catalog's (internal/catalog).
type Config struct {
	// Site is the loaded content.
	Site *content.Site
	// BaseURL is the scheme, host and optional port that every published
	// address starts with, without a trailing slash. Empty means the scheme
	// and Host of each request.
	BaseURL string
	// CLIName names the CLI script: /cli/<CLIName>.mjs.
	CLIName string
	// CLIScript is the CLI's source, with the placeholders
	// "__DISCOVERY_BASE_URL__" and "__DISCOVERY_VERSION__".
	CLIScript []byte
	// Robots serves /robots.txt.
	Robots bool
	// RobotsContentUsage adds the site's preferences to robots.txt as a
	// Content-Usage rule (draft-ietf-aipref-attach) beside the
	// Content-Signal one. Off by default: Lighthouse's robots.txt audit
	// takes the rule for an unknown directive (see docs/agents.md).
	RobotsContentUsage bool
	// MCPRegistryKey, when set, is the base64 Ed25519 public key served at
	// /.well-known/mcp-registry-auth, the proof of the domain the official
	// MCP Registry checks; the caller has checked that it decodes to 32
	// bytes.
	MCPRegistryKey string
	// Sitemap serves the module's sitemap and names it in robots.txt;
	// SiteSitemaps are the site's own sitemaps (paths or absolute URLs),
	// named there too.
	Sitemap      bool
	SiteSitemaps []string
	// PageLinks adds the module's Link values to the site's answers for the
	// pages the content names; Markdown serves those pages' Markdown twins
	// and answers Accept: text/markdown on them.
	PageLinks bool
	// MarkdownByUserAgent answers the pages' Markdown to known AI agents
	// that do not ask for HTML by name (see wantsMarkdown).
	MarkdownByUserAgent bool
	Markdown            bool
	// Deprecation, Sunset and Successor, when set, announce the end of v1 on
	// every versioned response (RFC 9745, RFC 8594).
	Deprecation time.Time
	Sunset      time.Time
	Successor   string
	// TokenSecret authenticates access tokens and identity assertions; at
	// least token.MinSecretLen bytes.
	TokenSecret []byte
	// MCPAnyHost turns off the MCP endpoint's Host check on loopback
	// listeners (DNS rebinding protection).
	MCPAnyHost bool
	// Agents says which documents for agents beyond the specification's
	// are served.
	Agents AgentDocs
	// TokenTTL is the lifetime of access tokens; 0 means 24 hours.
	TokenTTL time.Duration
	// BodyTimeout bounds the reading of a POST body, from its start; 0
	// means 10 seconds. A late body is answered with a 408 problem.
	BodyTimeout time.Duration
	// CodeLedger records redeemed authorization codes, so that each is
	// redeemed once; instances sharing TokenSecret must share it. nil means
	// a ledger in this process's memory.
	CodeLedger oauth.CodeLedger
	// ClientMetadata resolves the client ids that are URLs of Client ID
	// Metadata Documents; nil refuses them.
	ClientMetadata *cimd.Resolver
	// ServiceName and Version identify the service in health reports.
	ServiceName string
	Version     string
	// RateLimit is the public policy the deployment enforces (zero Events:
	// none). The Service only describes it; enforcement is the caller's.
	RateLimit ratelimit.Policy
	// ChargeExtra, when set, counts n more events against the quota of the
	// client that sent r, beyond the one the caller counted for r itself:
	// the messages of a JSON-RPC batch after the first. It stops at the
	// first event refused, sets the RateLimit header in h to what is then
	// left, and reports whether all were allowed and, if not, when the
	// whole request (n+1 events) could be sent again. Nil when no rate
	// limit is enforced.
	ChargeExtra func(h http.Header, r *http.Request, n int) ratelimit.Extra
	// OnConvertFailure, if set, is told when a page of the site could not
	// be converted to Markdown, its HTML being served instead: once per
	// page, until the page changes or convertRetry has passed. err is
	// ErrNothingToConvert for a page with no text.
	OnConvertFailure func(page string, err error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RefusesAgents says that the owner refuses some agents a 403 problem
	// (see Service.RefuseAgent), which every operation then documents.
	RefusesAgents bool
	// OnPanic, if set, is told of a recovered panic and of the request it
	// happened in (nil for one in an MCP tool, which runs apart from the
	// request); the client gets a 500 problem or a tool error either way.
	OnPanic func(r *http.Request, v any)
	// Metrics counts for the site (MCP calls, tokens, conversions); nil
	// counts nothing.
	Metrics *metrics.Site
}

// The defaults of the Config's fields left zero, all applied by
// withDefaults.
const (
	// defaultTokenTTL is the lifetime of access tokens.
	defaultTokenTTL = 24 * time.Hour
	// defaultBodyTimeout is how long a POST body may take to arrive: ample
	// for 64 KiB on any working connection, short enough that a client
	// trickling a byte at a time cannot hold connections open by the
	// thousand.
	defaultBodyTimeout = 10 * time.Second
)

// withDefaults sets the fields left zero to their defaults: the one place
// they are applied, so that the rest of the Service reads the fields as
// they are.
func (c *Config) withDefaults() {
	if c.CLIName == "" {
		c.CLIName = view.DefaultCLIName
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = defaultTokenTTL
	}
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = defaultBodyTimeout
	}
}

// tokenTTLSeconds is expires_in as the token package computes it: whole
// seconds, rounded down.
func (c *Config) tokenTTLSeconds() int { return int(c.TokenTTL / time.Second) }

// The switches: whether the configuration serves a route that can be
// switched off and left to the site (each route's enabled names one).

// servesRobots: /robots.txt is served (merged into the site's own).
func (c *Config) servesRobots() bool { return c.Robots }

// servesSitemap: the module's sitemaps are served and named in robots.txt.
func (c *Config) servesSitemap() bool { return c.Sitemap }

// servesMarkdown: the site's pages the content names have Markdown twins.
func (c *Config) servesMarkdown() bool { return c.Markdown }

// servesMCPDiscovery: the server card's well-known addresses and the AI
// catalog.
func (c *Config) servesMCPDiscovery() bool { return c.Agents.MCPDiscovery }

// servesSkills: the agent skill and its indexes.
func (c *Config) servesSkills() bool { return c.Agents.Skills }

// servesWebMCP: the WebMCP script.
func (c *Config) servesWebMCP() bool { return c.Agents.WebMCP }

// servesAgentCard: the A2A agent card at both its addresses.
func (c *Config) servesAgentCard() bool { return c.Agents.AgentCard }

// servesWellKnownOpenAPI: /.well-known/openapi.json.
func (c *Config) servesWellKnownOpenAPI() bool { return c.Agents.WellKnownOpenAPI }

// servesMCPRegistryAuth: the MCP Registry's proof of the domain, when
// the owner gave its key.
func (c *Config) servesMCPRegistryAuth() bool { return c.MCPRegistryKey != "" }

// servesSecurityTxt: security.txt, when the profile names a security
// contact.
func (c *Config) servesSecurityTxt() bool {
	return c.Agents.SecurityTxt && c.Site.Security.Contact != ""
}

// AgentDocs says which of the documents for agents beyond the
// specification's a Service serves. A document that is off is not the
// module's: its path goes to the next handler.
type AgentDocs struct {
	// MCPDiscovery serves the server card at the well-known addresses
	// scanners probe (/.well-known/mcp/server-card.json, server-cards.json,
	// /.well-known/mcp.json) and the AI catalog; /mcp/server-card is served
	// either way.
	MCPDiscovery bool
	// Skills serves the agent skill (a SKILL.md) and its discovery index at
	// /.well-known/agent-skills/index.json and /.well-known/skills/index.json.
	Skills bool
	// WebMCP serves /mcp/webmcp.js, which offers the MCP server's tools to
	// an agent in the browser, and includes it in the developer portal.
	WebMCP bool
	// AgentCard serves the A2A agent card at /.well-known/agent-card.json
	// and /.well-known/agent.json.
	AgentCard bool
	// WellKnownOpenAPI serves the OpenAPI description at
	// /.well-known/openapi.json too.
	WellKnownOpenAPI bool
	// SecurityTxt serves /.well-known/security.txt when the content names a
	// security contact and the site has no security.txt of its own.
	SecurityTxt bool
}
