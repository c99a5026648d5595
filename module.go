// Package discovery is a Caddy HTTP handler that gives a site a public
// discovery API for one person and their published articles: a read-only
// JSON API under /api/v1 and the documents agents look for.
//
// Imports from the module: content, internal/agents, internal/cimd, internal/fetch, internal/handlers, internal/metrics, internal/origin, internal/ratelimit, internal/site, internal/sitecheck, internal/token, internal/webbotauth.
package discovery

import (
	"crypto/ed25519"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	caddyrl "github.com/mholt/caddy-ratelimit"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/cimd"
	"github.com/caddy-discovery/caddy-discovery/internal/fetch"
	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/site"
	"github.com/caddy-discovery/caddy-discovery/internal/webbotauth"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// cliScript is the command-line client, served with the base URL built in.
//
//go:embed cli/discovery.mjs
var cliScript []byte

// ServiceName identifies the service in health reports.
const ServiceName = "caddy-discovery"

// Version is the service version reported by /api/v1/health.
const Version = "0.1.0"

// Handler serves the public discovery API of one profile subject: the JSON
// API under /api/v1 and the discovery documents. It answers only the paths
// it owns and passes every other request to the next handler unchanged.
type Handler struct {
	// BaseURL is the scheme, host and optional port that every address the
	// module publishes starts with, such as "https://example.com". Default:
	// the scheme and Host of each request. Set it in production, so that the
	// published addresses do not depend on the Host header a client sends.
	// Global placeholders such as {env.SITE_URL} are expanded at load.
	BaseURL string `json:"base_url,omitempty"`

	// Content is a directory of what the owner writes for the module: a
	// profile.yaml whose fields override what the site says, field by
	// field (any subset: a file with only name is valid), and, in
	// insights/, the posts' sources. "sample" serves the embedded sample
	// (a fictional person, for demos and tests; a folder named sample is
	// written ./sample). Default: none, the site itself is the source (see
	// docs/content.md). It is read once, at load; a reload reads it again
	// and keeps the old content if it is invalid. Global placeholders are
	// expanded at load.
	Content string `json:"content,omitempty"`

	// Insights is the folder of the insight articles, when they live
	// elsewhere than <content>/insights: for example an existing blog's
	// posts folder (content/posts of Hugo, _posts of Jekyll, …). With it,
	// those files are the posts and the site is read for their addresses;
	// without it (and without <content>/insights) the posts are read from
	// the site. Global placeholders are expanded at load.
	Insights string `json:"insights,omitempty"`

	// Exclude lists patterns of posts to keep off every surface, in the
	// syntax of Go's path.Match, each matched against a file's or folder's
	// slash-separated path relative to the insights folder and against its
	// name alone: ["drafts/", "*-wip.md", "2019/*"]. A pattern that matches
	// a folder excludes everything in it; one that ends in "/" matches only
	// folders, and one that begins with "/" only paths from the insights
	// folder. Excluded files are logged as skipped. Default: none.
	Exclude []string `json:"exclude,omitempty"`

	// Watch re-reads the content when its files change (file events,
	// debounced), so edits show up without a reload. Content that fails to
	// load keeps the old content serving, and the error is logged. Off by
	// default: `caddy reload --force` re-reads the content too.
	Watch bool `json:"watch,omitempty"`

	// Robots serves /robots.txt with the content-usage signals when true or
	// absent; false leaves /robots.txt to the next handler.
	Robots *bool `json:"robots,omitempty"`

	// RobotsContentUsage also states the content-usage preferences in
	// robots.txt as a Content-Usage rule (draft-ietf-aipref-attach-05),
	// beside the Content-Signal one. Off by default: Lighthouse's
	// robots.txt audit (13.5) takes the rule for an unknown directive and
	// fails the file, which costs the site's SEO score. The module's
	// answers carry the same preferences as the Content-Usage header either
	// way. Needs robots.
	RobotsContentUsage bool `json:"robots_content_usage,omitempty"`

	// Sitemap serves the module's sitemap (sitemaps.org) of the pages the
	// content names at /sitemap-discovery.xml, and at /sitemap.xml while
	// the site has none there (the site's own is passed on unchanged), and
	// names it in robots.txt. Default: true; false leaves both addresses to
	// the next handler.
	Sitemap *bool `json:"sitemap,omitempty"`

	// SiteSitemaps are the site's own sitemaps, paths or absolute http(s)
	// URLs, that robots.txt names beside the module's (a site robots.txt
	// that names them already is not given them twice). Needs robots.
	SiteSitemaps []string `json:"site_sitemaps,omitempty"`

	// PageLinks adds RFC 8288 Link values (api-catalog, service-desc,
	// service-doc, describedby, and the Markdown twin as alternate) to the
	// site's own answers for the pages the content names, beside any Link
	// the site sends. Default: true.
	PageLinks *bool `json:"page_links,omitempty"`

	// Markdown serves a Markdown twin of each page the content names, at the
	// page's address with .md (/index.md for /), and answers a request for
	// the page itself that prefers text/markdown with it. Any other page of
	// the site asked for as Markdown is its HTML converted (at most 2 MiB,
	// within 1 s; else the HTML is served). Default: true; false leaves
	// those addresses and requests to the next handler.
	Markdown *bool `json:"markdown,omitempty"`

	// MarkdownByUserAgent also answers with a page's Markdown twin when the
	// request comes from a known AI agent or crawler (by its User-Agent)
	// and does not ask for HTML by name; the pages then vary on User-Agent
	// as well as Accept. Default: true while Markdown is on.
	MarkdownByUserAgent *bool `json:"markdown_by_user_agent,omitempty"`

	// CLIName names the command-line client, served at /cli/<name>.mjs.
	// Default: discovery. Letters, digits, hyphens and underscores.
	CLIName string `json:"cli_name,omitempty"`

	// Deprecation, when set, announces that v1 is deprecated since this
	// date (YYYY-MM-DD or RFC 3339): every versioned response then carries
	// Deprecation (RFC 9745) and a Link to the versioning policy. Absent by
	// default: v1 is not deprecated.
	Deprecation string `json:"deprecation,omitempty"`

	// Sunset is the date after which v1 may stop answering (RFC 8594
	// Sunset header). It must not be before Deprecation.
	Sunset string `json:"sunset,omitempty"`

	// MCPHostCheck protects the MCP endpoint from DNS rebinding when Caddy
	// listens on a loopback address: a request there must name a loopback
	// host or the host of base_url. A Caddy on 127.0.0.1 behind a tunnel or
	// proxy works when base_url names the public host; false turns the
	// check off. Default: true.
	MCPHostCheck *bool `json:"mcp_host_check,omitempty"`

	// MCPDiscovery serves the MCP server card at the addresses scanners
	// probe (/.well-known/mcp/server-card.json, /.well-known/mcp/server-cards.json,
	// /.well-known/mcp.json) and the AI catalog (/.well-known/ai-catalog.json)
	// that points at it, when true or absent; false leaves those paths to the
	// next handler. The card stays at /mcp/server-card either way.
	MCPDiscovery *bool `json:"mcp_discovery,omitempty"`

	// AgentSkills serves an agent skill, a SKILL.md generated from the
	// content and the route table that teaches an agent this API (REST, the
	// CLI and MCP), at /.well-known/agent-skills/<name>/SKILL.md, and its
	// discovery index at /.well-known/agent-skills/index.json and
	// /.well-known/skills/index.json, when true or absent; false leaves
	// those paths to the next handler. The skill is named after cli_name.
	AgentSkills *bool `json:"agent_skills,omitempty"`

	// WebMCP serves /mcp/webmcp.js, a script for the site's own pages that
	// registers the MCP server's read-only tools with an agent in the browser
	// (document.modelContext, or navigator.modelContext before Chrome 150), each answering from the JSON API, and
	// includes it in the developer portal, when true or absent; false turns
	// both off (the path stays the module's: an unknown address under /mcp/).
	WebMCP *bool `json:"webmcp,omitempty"`

	// AgentCard serves an A2A agent card (A2A 1.0), generated from the MCP
	// server's tools, at /.well-known/agent-card.json and
	// /.well-known/agent.json, when true or absent; false leaves both paths
	// to the next handler. Its skills are the MCP tools and its interface is
	// the MCP endpoint: the module has no A2A endpoint.
	AgentCard *bool `json:"agent_card,omitempty"`

	// WellKnownOpenAPI serves the OpenAPI description at
	// /.well-known/openapi.json too (the same bytes as /openapi.json), when
	// true or absent; false leaves that path to the next handler.
	WellKnownOpenAPI *bool `json:"well_known_openapi,omitempty"`

	// SecurityTxt serves /.well-known/security.txt (RFC 9116) from the
	// content's security contact (profile.yaml, security), when true or
	// absent and the content names one. The site's own security.txt always
	// wins: the module asks the next handler first and serves its own only
	// when the site has none. false leaves the path to the next handler.
	SecurityTxt *bool `json:"security_txt,omitempty"`

	// MCPRegistryKey is the site owner's Ed25519 public key for the
	// official MCP Registry, in base64 (the 32 bytes of the raw key, the
	// standard alphabet with padding): the module then serves
	// /.well-known/mcp-registry-auth, "v=MCPv1; k=ed25519; p=<key>", the
	// proof of the domain the registry reads before `mcp-publisher login
	// http`, to every client whatever the rate limit and refuse_agents.
	// The key is public; its private half stays with the owner. Default:
	// none, and the path is the next handler's.
	MCPRegistryKey string `json:"mcp_registry_key,omitempty"`

	// SiteCheck, when true or absent, reads the site behind the module,
	// from the first request on, as an anonymous visitor would (through
	// the server's own handlers, with no address, credentials or cookies
	// of any visitor's): its feeds, sitemaps and pages give the catalog
	// what the owner's files leave out (the person, the posts, the
	// pages), match the owner's posts to the site's addresses, and keep
	// every published page address one the site answers 200. false reads
	// nothing: the catalog is the owner's files alone, named after the
	// site's host when they name no one.
	SiteCheck *bool `json:"site_check,omitempty"`

	// Refresh is how often the site's feeds and sitemaps are asked again,
	// conditionally (a 304 each when nothing changed), so that a post
	// published, changed or removed on the site is in the catalog without
	// a reload; every page is asked again every 6 hours. Default: 30s; 0
	// reads the site once per load. At least 5s.
	Refresh *caddy.Duration `json:"refresh,omitempty"`

	// Metrics counts what agents do with the site in Caddy's metrics
	// registry, as caddy_discovery_* series (see docs/metrics.md), when
	// true or absent. Caddy exposes them with its own: at the admin
	// endpoint's /metrics and through the metrics handler. false counts
	// nothing.
	Metrics *bool `json:"metrics,omitempty"`

	// MetricsLabel is the value of the site label that every series of
	// this block carries, so that the sites of one Caddy are counted
	// apart: 1 to 64 letters, digits, '.', '_' or '-', and not "other"
	// (the label of the sites past the bound of 64 per process). Default:
	// the host of base_url; without it, the first host of the route the
	// block is in (its Caddyfile site address); without one, the name of
	// the Caddy server (see docs/metrics.md). Blocks given one label share
	// their series. Global placeholders are expanded at load.
	MetricsLabel string `json:"metrics_label,omitempty"`

	// WebBotAuth verifies the Web Bot Auth signatures of agents that sign
	// their requests (HTTP Message Signatures, RFC 9421, with
	// Signature-Agent): "on" (the default) checks a signature against
	// the key directory the agent publishes at its origin, fetched over
	// https from public addresses only, bounded and cached (the request
	// never waits for it: until the directory is at hand, the request
	// counts as unverified); "private" also accepts agents on loopback
	// and private addresses and over plain http, for an agent on the
	// operator's own network or a test, at the cost that anyone who can
	// send a request can make the server fetch from that network;
	// "off" verifies nothing. A verified request is labelled
	// verified="true" in the metrics.
	WebBotAuth string `json:"web_bot_auth,omitempty"`

	// RefuseAgents are agents (labels of the agent list, such as gptbot
	// or bytespider; see docs/metrics.md) refused with a 403 problem on
	// the module's own addresses. Off by default. A User-Agent can be
	// forged, so this keeps out only agents that say who they are; the
	// site's own pages stay the site's (use robots.txt for those).
	RefuseAgents []string `json:"refuse_agents,omitempty"`

	// VerifiedAgentQuota gives an agent whose Web Bot Auth signature is
	// verified a rate-limit quota of its own, keyed by its identity (its
	// Signature-Agent origin) rather than by the address it calls from:
	// it is not held back by others behind the same address, nor does it
	// get one quota per address. Off by default; needs the default
	// rate_limit_key.
	VerifiedAgentQuota bool `json:"verified_agent_quota,omitempty"`

	// TokenSecret authenticates the anonymous access tokens and identity
	// assertions (HMAC-SHA256), at least 32 bytes; use a placeholder such as
	// {env.DISCOVERY_TOKEN_SECRET} rather than writing it into the config.
	// Default: a random secret generated once and kept in Caddy's storage,
	// so restarts and every instance sharing the storage accept each
	// other's tokens. Changing it invalidates every token issued.
	TokenSecret string `json:"token_secret,omitempty"`

	// ClientIDMetadata lets OAuth clients identify themselves with a Client
	// ID Metadata Document: a client_id that is the https URL of a JSON
	// document of the client's metadata, which the authorization endpoint
	// fetches (waiting at most 3 s; at most 5 KiB, no redirects, cached
	// as its Cache-Control allows, at most 1000 documents) and whose
	// redirect_uris it then accepts. "on" (the default) fetches from
	// public addresses only; "private" also from loopback and private
	// addresses, for tests and intranets, at the cost that anyone who can
	// send an authorization request can make the server fetch from that
	// network (link-local addresses, where cloud metadata services
	// live, stay refused); "off" refuses URL client ids, and clients
	// register instead.
	ClientIDMetadata string `json:"client_id_metadata,omitempty"`

	// ClientIDMetadataCA are PEM files of certificate authorities
	// trusted, beside the system's, for the https of Client ID Metadata
	// Documents: an intranet's own authority, or a test's. Global
	// placeholders are expanded at load. Default: the system's only.
	ClientIDMetadataCA []string `json:"client_id_metadata_ca,omitempty"`

	// TokenTTL is the lifetime of access tokens. Default: 24h (expires_in
	// 86400).
	TokenTTL caddy.Duration `json:"token_ttl,omitempty"`

	// BodyTimeout bounds how long the module waits for the body of a POST
	// to its own endpoints (/mcp, /agent/register, /agent/identity,
	// /agent/identity/claim, /oauth/token and /oauth/register), counted from
	// when it starts reading the body. A body not complete by then is
	// answered with a 408 problem and the connection is closed, so a
	// client trickling bytes cannot hold connections open. Default: 10s.
	// Caddy's read_body timeout (servers > timeouts) bounds every body of
	// the site; this one only the module's.
	BodyTimeout caddy.Duration `json:"body_timeout,omitempty"`

	// Successor is the address of the next version, sent as a Link with
	// rel="successor-version" while v1 is deprecated.
	Successor string `json:"successor,omitempty"`

	// RateLimit is the public rate-limit policy, enforced by caddy-ratelimit
	// on every path the module owns (and on no other). Default: 120 requests
	// per client in any 60-second window; {"off": true} disables it.
	RateLimit *RateLimitPolicy `json:"rate_limit,omitempty"`

	// RateLimitKey tells clients apart. Default:
	// {http.vars.discovery_client}, the client address (Caddy's client_ip,
	// which honours the server's trusted_proxies setting) with an IPv6
	// address cut to its IPv6Prefix. Any placeholder works.
	RateLimitKey string `json:"rate_limit_key,omitempty"`

	// IPv6Prefix is the length in bits of the prefix that an IPv6 client
	// address is cut to in {http.vars.discovery_client}, from 1 to 128.
	// Default: 64, so that the addresses of one /64, which one host or
	// subscriber can use all of, share one quota; 128 keys each address.
	// IPv4 addresses are kept whole.
	IPv6Prefix *int `json:"ipv6_prefix,omitempty"`

	// Distributed shares the limiter's state with every Caddy instance that
	// uses the same storage, through that storage (caddy-ratelimit's
	// distributed mode). Each instance needs its own instance ID, that is its
	// own data directory. Between syncs a burst can get up to the quota from
	// each instance.
	Distributed *caddyrl.DistributedRateLimiting `json:"distributed,omitempty"`

	// service is swapped whole when the catalog changes.
	service       *atomic.Pointer[handlers.Service]
	serviceConfig handlers.Config
	watcher       *contentWatcher
	limiter       *rateLimiter
	site          *siteReading
	fetcher       *fetch.Fetcher
	verifier      *webbotauth.Verifier
	clients       *cimd.Resolver
	refused       []bool        // by agents.ID; nil when no agent is refused
	metrics       *metrics.Site // nil when metrics are off
	logger        *zap.Logger
	convertLog    *failureLog
	// unset names the fields whose placeholders expanded to nothing (an
	// environment variable that is not set), for Validate to report.
	unset []string
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.discovery",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision expands the placeholders, then loads the content, renders
// every document that does not depend on the request and sets up the rate
// limit, the watcher and the fetcher. Caddy calls Validate right after it:
// a configuration that Validate refuses is left unprovisioned, so that
// nothing is read, stored or started for it, and Validate alone reports
// what is wrong (every invalid value, in one error).
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.convertLog = new(failureLog)
	repl := caddy.NewReplacer()
	for _, f := range []struct {
		name  string
		value *string
	}{{"base_url", &h.BaseURL}, {"content", &h.Content}, {"insights", &h.Insights}, {"metrics_label", &h.MetricsLabel}} {
		expanded := repl.ReplaceKnown(*f.value, "")
		if expanded == "" && *f.value != "" {
			// An unset variable would silently mean the default.
			h.unset = append(h.unset, f.name+": "+*f.value)
		}
		*f.value = expanded
	}
	for i, file := range h.ClientIDMetadataCA {
		if h.ClientIDMetadataCA[i] = repl.ReplaceKnown(file, ""); h.ClientIDMetadataCA[i] == "" {
			h.unset = append(h.unset, "client_id_metadata_ca: "+file)
		}
	}
	if h.Validate() != nil {
		return nil // Validate, which Caddy calls next, reports it
	}
	if h.ClientIDMetadata != "off" {
		roots, err := trustedRoots(h.ClientIDMetadataCA)
		if err != nil {
			return fmt.Errorf("client_id_metadata_ca: %w", err)
		}
		if h.clients, err = cimd.New(cimd.Options{AllowPrivate: h.ClientIDMetadata == "private", RootCAs: roots}); err != nil {
			return fmt.Errorf("client_id_metadata: %w", err)
		}
	}

	if h.WebBotAuth != "off" {
		private := h.WebBotAuth == "private"
		f, err := fetch.New(fetch.Options{AllowPrivate: private, AllowHTTP: private})
		if err != nil {
			return fmt.Errorf("web_bot_auth: %w", err)
		}
		h.fetcher, h.verifier = f, webbotauth.New(f, nil)
		h.verifier.AllowHTTP = private
	}
	if len(h.RefuseAgents) > 0 {
		h.refused = make([]bool, len(agents.Labels()))
		for _, a := range h.RefuseAgents {
			if id, ok := agents.IDOf(a); ok {
				h.refused[id] = true // Validate names any other
			}
		}
	}
	if on(h.Metrics) {
		if reg := ctx.GetMetricsRegistry(); reg != nil {
			if err := metrics.Register(reg); err != nil {
				return fmt.Errorf("metrics: %w", err)
			}
		}
		h.acquireMetrics(ctx)
	}
	owner, err := h.loadContent()
	if err != nil {
		return err
	}
	deprecation, sunset, _ := h.versionDates() // checked by Validate
	secret, err := tokenSecret(ctx, h.TokenSecret, h.logger)
	if err != nil {
		return err
	}
	limit, limited := h.policy()
	h.serviceConfig = handlers.Config{
		TokenSecret: secret,
		TokenTTL:    time.Duration(h.TokenTTL),
		BodyTimeout: time.Duration(h.BodyTimeout),
		BaseURL:     h.BaseURL,
		CLIName:     h.CLIName,
		CLIScript:   cliScript,
		Robots:      on(h.Robots),
		MCPAnyHost:  !on(h.MCPHostCheck),
		Agents:      h.agentDocs(),
		Deprecation: deprecation,
		Sunset:      sunset,
		Successor:   h.Successor,
		ServiceName: ServiceName,
		Version:     Version,
		RateLimit:   limit,
		OnPanic:     h.logPanic,
		CodeLedger:  newStorageLedger(ctx.Storage(), h.logger),

		ClientMetadata: h.clients,

		RobotsContentUsage:  h.RobotsContentUsage,
		MCPRegistryKey:      h.MCPRegistryKey,
		Sitemap:             on(h.Sitemap),
		SiteSitemaps:        h.SiteSitemaps,
		PageLinks:           on(h.PageLinks),
		Markdown:            on(h.Markdown),
		MarkdownByUserAgent: on(h.Markdown) && on(h.MarkdownByUserAgent),
		OnConvertFailure:    h.logConvertFailure,
		Metrics:             h.metrics,
	}
	if limited {
		h.serviceConfig.ChargeExtra = h.chargeExtra
	}
	// The catalog of the owner's files alone, until the site is read.
	var known *site.Snapshot
	if h.BaseURL != "" {
		base, _ := url.Parse(h.BaseURL) // checked by Validate
		known = &site.Snapshot{Site: base}
	}
	cfg := h.serviceConfig
	cfg.Site = site.Build(owner, owner.PostsFolder, known).Site
	service, err := handlers.New(cfg)
	if err != nil {
		return err
	}
	h.service = new(atomic.Pointer[handlers.Service])
	h.service.Store(service)
	h.metrics.ContentLoad(true, len(cfg.Site.Insights))
	h.site = newSiteReading(h, owner)
	if limited {
		if err := h.provisionRateLimit(ctx, limit); err != nil {
			return err
		}
	}
	if h.Watch && (h.Content != "" && h.Content != sampleContent || h.Insights != "") {
		if h.watcher, err = watchContent([]string{h.ownFolder(), h.Insights}, h.logger, h.reloadContent); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	h.logger.Debug("discovery content loaded",
		zap.String("content", h.Content), zap.Int("insights", len(owner.Insights)))
	if h.BaseURL == "" {
		// Each distinct Host then costs one rendering of every document.
		h.logger.Warn("base_url is not set: published addresses follow each request's Host header, documents are rendered per host (bounded: see docs/performance.md) and cached privately; set base_url in production")
	}
	return nil
}

// sampleContent is the value of content that names the embedded sample.
const sampleContent = "sample"

// ownFolder is the content folder of the owner's, "" for none or the
// sample.
func (h *Handler) ownFolder() string {
	if h.Content == sampleContent {
		return ""
	}
	return h.Content
}

// loadContent reads what the owner wrote for the module (the content
// folder, the insights folder, or the embedded sample when named), and
// logs the files it passed over. With neither, it is a bare site: the
// catalog takes everything from the site.
func (h *Handler) loadContent() (*content.Site, error) {
	var site *content.Site
	var err error
	opts := &content.Options{Exclude: h.Exclude}
	switch {
	case h.Content == sampleContent:
		site, err = content.LoadWith(content.SampleFS(), opts)
	case h.Content == "" && h.Insights == "":
		return content.Bare(), nil
	case h.Content == "":
		site, err = content.LoadInsightsWith(h.Insights, opts)
	case h.Insights != "":
		site, err = content.LoadDirsWith(h.Content, h.Insights, opts)
	default:
		site, err = content.LoadDirWith(h.Content, opts)
	}
	if err != nil {
		h.metrics.ContentLoad(false, 0)
		return nil, err
	}
	h.logSkipped(site)
	return site, nil
}

// logSkipped logs one WARN line for each post that cannot be used, naming
// its problems and their fixes, and one INFO line for the whole load: what
// was loaded, and how many files were skipped for each reason (drafts,
// posts not out yet or kept private, files that are not posts), each of
// those at DEBUG.
func (h *Handler) logSkipped(site *content.Site) {
	byReason := make(map[string]int)
	for _, skip := range site.Skipped {
		if skip.Err != nil {
			h.logger.Warn("post skipped: it cannot be used, and the rest of the content is served",
				zap.String("file", skip.Path), zap.String("problems", skip.Err.Error()))
		} else {
			h.logger.Debug("content file skipped", zap.String("file", skip.Path), zap.String("reason", skip.Reason))
		}
		reason, _, _ := strings.Cut(skip.Reason, " (")
		byReason[reason]++
	}
	h.logger.Info("content loaded", zap.String("content", h.Content), zap.String("insights_folder", h.Insights),
		zap.Int("insights", len(site.Insights)), zap.Int("skipped", len(site.Skipped)), zap.Any("skipped_by_reason", byReason))
}

// versionDates parses Deprecation and Sunset.
func (h *Handler) versionDates() (deprecation, sunset time.Time, err error) {
	parse := func(field, s string) (time.Time, error) {
		if s == "" {
			return time.Time{}, nil
		}
		for _, layout := range []string{time.DateOnly, time.RFC3339} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%s: %q is not a date (YYYY-MM-DD or RFC 3339)", field, s)
	}
	if deprecation, err = parse("deprecation", h.Deprecation); err != nil {
		return
	}
	if sunset, err = parse("sunset", h.Sunset); err != nil {
		return
	}
	if !sunset.IsZero() && !deprecation.IsZero() && sunset.Before(deprecation) {
		err = fmt.Errorf("sunset: %s is before the deprecation date %s", h.Sunset, h.Deprecation)
	}
	return
}

// Validate checks every configured value, as Provision expanded it, and
// changes nothing. Each error names the subdirective, which is also the
// JSON field.
func (h *Handler) Validate() error {
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, field := range h.unset {
		name, value, _ := strings.Cut(field, ": ")
		check(fmt.Errorf("%s: %s is empty (is the environment variable set?)", name, value))
	}
	if h.BaseURL != "" {
		if _, err := origin.NormalizeBaseURL(h.BaseURL); err != nil {
			check(fmt.Errorf("base_url: %w", err))
		}
	}
	if h.Insights != "" && h.Content == sampleContent {
		check(fmt.Errorf("insights: the sample has insights of its own: name a content folder of yours, or none"))
	}
	if r := h.Refresh; r != nil && *r != 0 && *r < caddy.Duration(5*time.Second) {
		check(fmt.Errorf("refresh: must be at least 5s (or 0, to read the site once), got %s", time.Duration(*r)))
	}
	for _, pattern := range h.Exclude {
		if _, err := path.Match(pattern, ""); err != nil {
			check(fmt.Errorf("exclude: %q is not a pattern: %w", pattern, err))
		}
	}
	switch {
	case h.MetricsLabel != "" && !metrics.ValidLabel(h.MetricsLabel):
		check(fmt.Errorf("metrics_label: %q is not a label: use 1 to %d letters, digits, '.', '_' and '-', other than %q", h.MetricsLabel, metrics.MaxLabel, metrics.Overflow))
	case h.MetricsLabel != "" && !on(h.Metrics):
		check(fmt.Errorf("metrics_label: metrics is off, so nothing is counted under it"))
	}
	if h.CLIName != "" && !handlers.ValidCLIName(h.CLIName) {
		check(fmt.Errorf("cli_name: %q is not a name: use letters, digits, hyphens and underscores", h.CLIName))
	}
	_, _, err := h.versionDates()
	check(err)
	if h.Successor != "" && !content.ValidLink(h.Successor) {
		check(fmt.Errorf("successor: %q is not an absolute http(s) URL or a path", h.Successor))
	}
	for _, link := range h.SiteSitemaps {
		if !content.ValidLink(link) {
			check(fmt.Errorf("site_sitemaps: %q is not an absolute http(s) URL or a path", link))
		}
	}
	if len(h.SiteSitemaps) > 0 && !on(h.Robots) {
		check(fmt.Errorf("site_sitemaps: robots is off, so there is no robots.txt to name them in"))
	}
	if h.RobotsContentUsage && !on(h.Robots) {
		check(fmt.Errorf("robots_content_usage: robots is off, so there is no robots.txt to state it in"))
	}
	if h.MCPRegistryKey != "" {
		check(validRegistryKey(h.MCPRegistryKey))
	}
	if rl := h.RateLimit; rl != nil && !rl.Off {
		switch {
		case rl.Events != nil && *rl.Events < 1:
			check(fmt.Errorf("rate_limit: events must be at least 1, got %d", *rl.Events))
		case rl.Events != nil && *rl.Events > maxEvents:
			check(fmt.Errorf("rate_limit: events must be at most %d, got %d (every client tracked costs about 32 bytes per event); "+
				"for a higher rate, shorten the window: %d per 1s allows %d a minute", maxEvents, *rl.Events, maxEvents, 60*maxEvents))
		}
		if rl.Window < 0 || (rl.Window > 0 && rl.Window < caddy.Duration(time.Second)) {
			check(fmt.Errorf("rate_limit: window must be at least 1s, got %s", time.Duration(rl.Window)))
		}
	}
	if p := h.IPv6Prefix; p != nil {
		switch {
		case *p < 1 || *p > 128:
			check(fmt.Errorf("ipv6_prefix: must be from 1 to 128 bits, got %d", *p))
		case h.RateLimitKey != "" && !strings.Contains(h.RateLimitKey, defaultRateLimitKey):
			check(fmt.Errorf("ipv6_prefix: has no effect, as rate_limit_key %q does not use %s", h.RateLimitKey, defaultRateLimitKey))
		}
	}
	switch h.WebBotAuth {
	case "", "on", "off", "private":
	default:
		check(fmt.Errorf("web_bot_auth: must be on, off or private, got %q", h.WebBotAuth))
	}
	switch h.ClientIDMetadata {
	case "", "on", "off", "private":
	default:
		check(fmt.Errorf("client_id_metadata: must be on, off or private, got %q", h.ClientIDMetadata))
	}
	if len(h.ClientIDMetadataCA) > 0 && h.ClientIDMetadata == "off" {
		check(fmt.Errorf("client_id_metadata_ca: client_id_metadata is off, so no document is fetched"))
	}
	for _, agent := range h.RefuseAgents {
		if !agents.IsAI(agent) {
			check(fmt.Errorf("refuse_agents: %q is not an agent of the list (%s)", agent, strings.Join(agents.Labels()[:len(agents.Families)], ", ")))
		}
	}
	if h.VerifiedAgentQuota && (h.WebBotAuth == "off" || h.RateLimitKey != "" && h.RateLimitKey != defaultRateLimitKey) {
		check(fmt.Errorf("verified_agent_quota: needs web_bot_auth on and the default rate_limit_key"))
	}
	if h.TokenTTL != 0 && h.TokenTTL < caddy.Duration(time.Second) {
		check(fmt.Errorf("token_ttl: must be at least 1s, got %s", time.Duration(h.TokenTTL)))
	}
	if h.BodyTimeout < 0 {
		check(fmt.Errorf("body_timeout: must be positive, got %s", time.Duration(h.BodyTimeout)))
	}
	if h.TokenSecret != "" {
		check(validTokenSecret(h.TokenSecret))
	}
	if d := h.Distributed; d != nil && (d.ReadInterval < 0 || d.WriteInterval < 0) {
		check(fmt.Errorf("distributed: intervals must be positive"))
	}
	return errors.Join(errs...)
}

// validRegistryKey checks that key is an Ed25519 public key in base64, as
// the MCP Registry reads it from /.well-known/mcp-registry-auth.
func validRegistryKey(key string) error {
	const how = "make one with `openssl pkey -in key.pem -pubout -outform DER | tail -c 32 | base64`"
	raw, err := base64.StdEncoding.Strict().DecodeString(key)
	switch {
	case err != nil:
		return fmt.Errorf("mcp_registry_key: %q is not base64 (the standard alphabet, with padding): %s", key, how)
	case len(raw) != ed25519.PublicKeySize:
		return fmt.Errorf("mcp_registry_key: the key is %d bytes, an Ed25519 public key is %d: %s", len(raw), ed25519.PublicKeySize, how)
	}
	return nil
}

// reloadContent reads the owner's files again and, when they are valid,
// rebuilds the catalog with them; in-flight requests finish on the old
// service.
func (h *Handler) reloadContent() {
	owner, err := h.loadContent()
	if err != nil {
		h.logger.Warn("content changed but does not load; the previous content keeps serving", zap.Error(err))
		return
	}
	h.metrics.ContentLoad(true, len(owner.Insights))
	h.site.ownerChanged(owner) // sets the insights published, the catalog's
	h.logger.Info("content reloaded", zap.String("content", h.Content), zap.Int("insights", len(owner.Insights)))
}

// Cleanup stops the content watcher and releases the site's metrics, the
// rate-limit zone and its mirror.
func (h *Handler) Cleanup() error {
	if h.site != nil {
		h.site.stop()
	}
	if h.fetcher != nil {
		h.fetcher.Close()
	}
	if h.clients != nil {
		h.clients.Close()
	}
	if h.watcher != nil {
		h.watcher.stop()
	}
	// The site stays the handler's: a request still finishing counts
	// for it, into series a config that kept the site still shows.
	h.metrics.Release()
	if h.limiter != nil {
		return h.limiter.cleanup()
	}
	return nil
}

func (h *Handler) logPanic(r *http.Request, v any) {
	fields := []zap.Field{zap.Any("panic", v), zap.ByteString("stack", debug.Stack())}
	if r != nil {
		fields = append(fields, zap.String("method", r.Method), zap.String("uri", r.URL.EscapedPath()))
	}
	h.logger.Error("panic while serving a discovery request", fields...)
}

// agentDocs says which of the documents for agents beyond the
// specification's are on: each is unless switched off.
func (h *Handler) agentDocs() handlers.AgentDocs {
	return handlers.AgentDocs{MCPDiscovery: on(h.MCPDiscovery), Skills: on(h.AgentSkills), WebMCP: on(h.WebMCP),
		AgentCard: on(h.AgentCard), WellKnownOpenAPI: on(h.WellKnownOpenAPI), SecurityTxt: on(h.SecurityTxt)}
}

// on is the value of an on/off subdirective: every one is on unless
// switched off.
func on(b *bool) bool { return b == nil || *b }

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
