package discovery

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	caddyrl "github.com/mholt/caddy-ratelimit"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("discovery", parseCaddyfile)
	// Ahead of the directives that rewrite the request (rewrite, uri,
	// try_files: a single-page app's `try_files {path} /index.html` would
	// otherwise turn /api/v1 into /index.html) and of every handler that
	// typically responds (respond, handle, reverse_proxy, file_server), so the
	// module answers its own paths whatever the rest of the site is, with no
	// `order` line needed. Behind header, request_body and redir, which then
	// apply to it too. It compresses its own documents, so encode is not
	// needed in front of it; the API is public, so the auth directives are
	// not either.
	httpcaddyfile.RegisterDirectiveOrder("discovery", httpcaddyfile.Before, "method")
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	discovery {
//		base_url       <url>
//		content        <dir>
//		insights       <dir>
//		exclude        <pattern>...
//		watch          [on|off]
//		robots         on|off
//		robots_content_usage [on|off]
//		sitemap        on|off
//		site_sitemaps  <url>...
//		page_links     on|off
//		markdown       on|off
//		rate_limit     <events> <window> | off
//		rate_limit_key <placeholder>
//		ipv6_prefix    <bits>
//		distributed    [<read_interval> [<write_interval>]]
//		token_secret   <secret>
//		token_ttl      <duration>
//		client_id_metadata    on|off|private
//		client_id_metadata_ca <pem file>...
//		body_timeout   <duration>
//		mcp_host_check on|off
//		mcp_discovery  on|off
//		agent_skills   on|off
//		webmcp         on|off
//		agent_card     on|off
//		well_known_openapi on|off
//		security_txt   on|off
//		mcp_registry_key <base64 Ed25519 public key>
//		site_check     on|off
//		refresh        <duration>|off
//		metrics        on|off
//		metrics_label  <name>
//		web_bot_auth   on|off|private
//		refuse_agents  <agent>...
//		verified_agent_quota [on|off]
//		cli_name       <name>
//		deprecation    <date>
//		sunset         <date>
//		successor      <url>
//	}
//
// Every subdirective is optional; a bare `discovery` learns the site from
// the site (content sample serves the embedded sample instead).
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // consume the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	// Most subdirectives take one word; these are stored as they are.
	words := map[string]*string{
		"base_url": &h.BaseURL, "content": &h.Content, "insights": &h.Insights, "rate_limit_key": &h.RateLimitKey,
		"token_secret": &h.TokenSecret, "cli_name": &h.CLIName, "mcp_registry_key": &h.MCPRegistryKey,
		"metrics_label": &h.MetricsLabel, "deprecation": &h.Deprecation, "sunset": &h.Sunset, "successor": &h.Successor,
	}
	switches := map[string]**bool{
		"robots": &h.Robots, "mcp_host_check": &h.MCPHostCheck,
		"sitemap": &h.Sitemap, "page_links": &h.PageLinks, "markdown": &h.Markdown,
		"markdown_by_user_agent": &h.MarkdownByUserAgent,
		"mcp_discovery":          &h.MCPDiscovery, "agent_skills": &h.AgentSkills, "webmcp": &h.WebMCP,
		"agent_card": &h.AgentCard, "well_known_openapi": &h.WellKnownOpenAPI, "security_txt": &h.SecurityTxt,
		"site_check": &h.SiteCheck, "metrics": &h.Metrics,
	}
	seen := make(map[string]bool)
	for d.NextBlock(0) {
		name := d.Val()
		if seen[name] {
			return d.Errf("subdirective '%s' already specified", name)
		}
		seen[name] = true
		if field, ok := words[name]; ok {
			if !d.AllArgs(field) {
				return d.ArgErr()
			}
			continue
		}
		if field, ok := switches[name]; ok {
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			on, err := parseSwitch(d, name, v)
			if err != nil {
				return err
			}
			*field = &on
			continue
		}
		switch name {
		case "watch":
			args := d.RemainingArgs()
			switch {
			case len(args) == 0:
				h.Watch = true
			case len(args) == 1:
				on, err := parseSwitch(d, name, args[0])
				if err != nil {
					return err
				}
				h.Watch = on
			default:
				return d.ArgErr()
			}
		case "exclude":
			h.Exclude = d.RemainingArgs()
			if len(h.Exclude) == 0 {
				return d.ArgErr()
			}
		case "site_sitemaps":
			h.SiteSitemaps = d.RemainingArgs()
			if len(h.SiteSitemaps) == 0 {
				return d.ArgErr()
			}
		case "refuse_agents":
			h.RefuseAgents = d.RemainingArgs()
			if len(h.RefuseAgents) == 0 {
				return d.ArgErr()
			}
		case "web_bot_auth":
			if !d.AllArgs(&h.WebBotAuth) {
				return d.ArgErr()
			}
			if h.WebBotAuth != "on" && h.WebBotAuth != "off" && h.WebBotAuth != "private" {
				return d.Errf("web_bot_auth: must be on, off or private, got '%s'", h.WebBotAuth)
			}
		case "client_id_metadata":
			if !d.AllArgs(&h.ClientIDMetadata) {
				return d.ArgErr()
			}
			if h.ClientIDMetadata != "on" && h.ClientIDMetadata != "off" && h.ClientIDMetadata != "private" {
				return d.Errf("client_id_metadata: must be on, off or private, got '%s'", h.ClientIDMetadata)
			}
		case "client_id_metadata_ca":
			h.ClientIDMetadataCA = d.RemainingArgs()
			if len(h.ClientIDMetadataCA) == 0 {
				return d.ArgErr()
			}
		case "verified_agent_quota", "robots_content_usage":
			field := map[string]*bool{"verified_agent_quota": &h.VerifiedAgentQuota, "robots_content_usage": &h.RobotsContentUsage}[name]
			args := d.RemainingArgs()
			switch {
			case len(args) == 0:
				*field = true
			case len(args) == 1:
				on, err := parseSwitch(d, name, args[0])
				if err != nil {
					return err
				}
				*field = on
			default:
				return d.ArgErr()
			}
		case "token_ttl":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			ttl, err := caddy.ParseDuration(v)
			if err != nil || ttl < time.Second {
				return d.Errf("token_ttl: must be a duration of at least 1s, got '%s'", v)
			}
			h.TokenTTL = caddy.Duration(ttl)
		case "refresh":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			var every time.Duration
			if v != "off" {
				var err error
				if every, err = caddy.ParseDuration(v); err != nil || every < 5*time.Second {
					return d.Errf("refresh: must be off or a duration of at least 5s, got '%s'", v)
				}
			}
			r := caddy.Duration(every)
			h.Refresh = &r
		case "body_timeout":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			timeout, err := caddy.ParseDuration(v)
			if err != nil || timeout <= 0 {
				return d.Errf("body_timeout: must be a positive duration, got '%s'", v)
			}
			h.BodyTimeout = caddy.Duration(timeout)
		case "rate_limit":
			args := d.RemainingArgs()
			switch {
			case len(args) == 1 && args[0] == "off":
				h.RateLimit = &RateLimitPolicy{Off: true}
			case len(args) == 2:
				events, err := strconv.Atoi(args[0])
				if err != nil || events < 1 {
					return d.Errf("rate_limit: events must be a positive integer, got '%s'", args[0])
				}
				window, err := caddy.ParseDuration(args[1])
				if err != nil || window < time.Second {
					return d.Errf("rate_limit: window must be a duration of at least 1s, got '%s'", args[1])
				}
				h.RateLimit = &RateLimitPolicy{Events: &events, Window: caddy.Duration(window)}
			default:
				return d.ArgErr()
			}
		case "ipv6_prefix":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			bits, err := strconv.Atoi(v)
			if err != nil || bits < 1 || bits > 128 {
				return d.Errf("ipv6_prefix: must be a number of bits from 1 to 128, got '%s'", v)
			}
			h.IPv6Prefix = &bits
		case "distributed":
			args := d.RemainingArgs()
			if len(args) > 2 {
				return d.ArgErr()
			}
			h.Distributed = new(caddyrl.DistributedRateLimiting)
			for i, arg := range args {
				interval, err := caddy.ParseDuration(arg)
				if err != nil || interval <= 0 {
					return d.Errf("distributed: '%s' is not a positive duration", arg)
				}
				if i == 0 {
					h.Distributed.ReadInterval = caddy.Duration(interval)
				} else {
					h.Distributed.WriteInterval = caddy.Duration(interval)
				}
			}
		default:
			return d.Errf("unrecognized subdirective '%s'", name)
		}
	}
	return nil
}

// parseSwitch reads the on|off argument v of subdirective name.
func parseSwitch(d *caddyfile.Dispenser, name, v string) (bool, error) {
	switch v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, d.Errf("%s: expected on or off, got '%s'", name, v)
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var handler Handler
	err := handler.UnmarshalCaddyfile(h.Dispenser)
	return &handler, err
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
