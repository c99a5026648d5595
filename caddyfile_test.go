package discovery

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	caddyrl "github.com/mholt/caddy-ratelimit"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name    string
		input   string
		want    Handler
		wantErr string // non-empty: the error must contain it
	}{
		{
			name:  "bare directive",
			input: `discovery`,
		},
		{
			name:  "empty block",
			input: `discovery { }`,
		},
		{
			name: "base_url",
			input: `discovery {
				base_url https://example.com
			}`,
			want: Handler{BaseURL: "https://example.com"},
		},
		{
			name: "content",
			input: `discovery {
				content /srv/discovery
			}`,
			want: Handler{Content: "/srv/discovery"},
		},
		{
			name: "quoted content with a placeholder",
			input: `discovery {
				content "{env.CONTENT_DIR}/site one"
			}`,
			want: Handler{Content: "{env.CONTENT_DIR}/site one"},
		},
		{
			name: "robots off",
			input: `discovery {
				robots off
			}`,
			want: Handler{Robots: &off},
		},
		{
			name: "every subdirective",
			input: `discovery {
				base_url https://example.com
				content /srv/c
				insights /srv/blog/posts
				exclude drafts/ "*-wip.md"
				robots off
				sitemap off
				site_sitemaps /sitemap.xml https://example.com/blog/sitemap.xml
				page_links off
				markdown off
				rate_limit 300 2m
				rate_limit_key "{http.vars.discovery_client} {http.request.header.X-Tenant}"
				ipv6_prefix 48
				distributed 2s 3s
				token_secret {env.SECRET}
				token_ttl 1h
				body_timeout 30s
				mcp_host_check off
				cli_name site-cli
				deprecation 2027-01-01
				sunset 2027-07-01
				successor https://example.com/api/v2
				mcp_registry_key O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=
			}`,
			want: Handler{
				BaseURL: "https://example.com", Content: "/srv/c", Insights: "/srv/blog/posts", Robots: &off,
				Exclude: []string{"drafts/", "*-wip.md"},
				Sitemap: &off, SiteSitemaps: []string{"/sitemap.xml", "https://example.com/blog/sitemap.xml"},
				PageLinks: &off, Markdown: &off,
				RateLimit:    &RateLimitPolicy{Events: intPtr(300), Window: caddy.Duration(2 * time.Minute)},
				RateLimitKey: "{http.vars.discovery_client} {http.request.header.X-Tenant}",
				IPv6Prefix:   intPtr(48),
				Distributed:  &caddyrl.DistributedRateLimiting{ReadInterval: caddy.Duration(2 * time.Second), WriteInterval: caddy.Duration(3 * time.Second)},
				TokenSecret:  "{env.SECRET}", TokenTTL: caddy.Duration(time.Hour), MCPHostCheck: &off,
				BodyTimeout: caddy.Duration(30 * time.Second),
				CLIName:     "site-cli", Deprecation: "2027-01-01", Sunset: "2027-07-01", Successor: "https://example.com/api/v2",
				MCPRegistryKey: "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=",
			},
		},
		{
			name:  "rate_limit off",
			input: "discovery {\n rate_limit off\n}",
			want:  Handler{RateLimit: &RateLimitPolicy{Off: true}},
		},
		{
			name:  "distributed with defaults",
			input: "discovery {\n distributed\n}",
			want:  Handler{Distributed: &caddyrl.DistributedRateLimiting{}},
		},
		{name: "rate_limit with one number", input: "discovery {\n rate_limit 10\n}", wantErr: "wrong argument count"},
		{name: "rate_limit of zero", input: "discovery {\n rate_limit 0 1m\n}", wantErr: "events must be a positive integer"},
		{name: "rate_limit window too short", input: "discovery {\n rate_limit 5 500ms\n}", wantErr: "at least 1s"},
		{name: "rate_limit window not a duration", input: "discovery {\n rate_limit 5 soon\n}", wantErr: "window"},
		{name: "ipv6_prefix 128", input: "discovery {\n ipv6_prefix 128\n}", want: Handler{IPv6Prefix: intPtr(128)}},
		{name: "ipv6_prefix 0", input: "discovery {\n ipv6_prefix 0\n}", wantErr: "ipv6_prefix: must be a number of bits from 1 to 128, got '0'"},
		{name: "ipv6_prefix 129", input: "discovery {\n ipv6_prefix 129\n}", wantErr: "ipv6_prefix: must be a number of bits from 1 to 128, got '129'"},
		{name: "ipv6_prefix as a mask", input: "discovery {\n ipv6_prefix /64\n}", wantErr: "ipv6_prefix: must be a number of bits"},
		{name: "ipv6_prefix without bits", input: "discovery {\n ipv6_prefix\n}", wantErr: "wrong argument count"},
		{name: "distributed with three intervals", input: "discovery {\n distributed 1s 1s 1s\n}", wantErr: "wrong argument count"},
		{name: "distributed with a bad interval", input: "discovery {\n distributed fast\n}", wantErr: "not a positive duration"},
		{name: "token_ttl too short", input: "discovery {\n token_ttl 10ms\n}", wantErr: "token_ttl"},
		{name: "body_timeout", input: "discovery {\n body_timeout 1500ms\n}", want: Handler{BodyTimeout: caddy.Duration(1500 * time.Millisecond)}},
		{name: "body_timeout of zero", input: "discovery {\n body_timeout 0s\n}", wantErr: "body_timeout: must be a positive duration, got '0s'"},
		{name: "body_timeout negative", input: "discovery {\n body_timeout -5s\n}", wantErr: "body_timeout: must be a positive duration"},
		{name: "body_timeout not a duration", input: "discovery {\n body_timeout slow\n}", wantErr: "body_timeout: must be a positive duration, got 'slow'"},
		{name: "body_timeout without a duration", input: "discovery {\n body_timeout\n}", wantErr: "wrong argument count"},
		{name: "body_timeout with two durations", input: "discovery {\n body_timeout 1s 2s\n}", wantErr: "wrong argument count"},
		{name: "mcp_host_check maybe", input: "discovery {\n mcp_host_check maybe\n}", wantErr: "mcp_host_check: expected on or off"},
		{name: "cli_name without a name", input: "discovery {\n cli_name\n}", wantErr: "wrong argument count"},
		{name: "watch", input: "discovery {\n watch\n}", want: Handler{Watch: true}},
		{name: "sitemap on", input: "discovery {\n sitemap on\n}", want: Handler{Sitemap: &on}},
		{name: "sitemap without an argument", input: "discovery {\n sitemap\n}", wantErr: "wrong argument count"},
		{name: "sitemap maybe", input: "discovery {\n sitemap maybe\n}", wantErr: "sitemap: expected on or off"},
		{name: "exclude", input: "discovery {\n exclude /drafts/ 2019/*\n}", want: Handler{Exclude: []string{"/drafts/", "2019/*"}}},
		{name: "exclude without a pattern", input: "discovery {\n exclude\n}", wantErr: "wrong argument count"},
		{name: "exclude twice", input: "discovery {\n exclude a\n exclude b\n}", wantErr: "'exclude' already specified"},
		{name: "site_sitemaps", input: "discovery {\n site_sitemaps /sitemap_index.xml\n}", want: Handler{SiteSitemaps: []string{"/sitemap_index.xml"}}},
		{name: "site_sitemaps without a URL", input: "discovery {\n site_sitemaps\n}", wantErr: "wrong argument count"},
		{name: "site_sitemaps twice", input: "discovery {\n site_sitemaps /a.xml\n site_sitemaps /b.xml\n}", wantErr: "'site_sitemaps' already specified"},
		{name: "page_links on", input: "discovery {\n page_links on\n}", want: Handler{PageLinks: &on}},
		{name: "page_links with two arguments", input: "discovery {\n page_links on off\n}", wantErr: "wrong argument count"},
		{name: "markdown off", input: "discovery {\n markdown off\n}", want: Handler{Markdown: &off}},
		{name: "markdown maybe", input: "discovery {\n markdown maybe\n}", wantErr: "markdown: expected on or off"},
		{name: "watch off", input: "discovery {\n watch off\n}"},
		{name: "watch maybe", input: "discovery {\n watch maybe\n}", wantErr: "watch: expected on or off"},
		{name: "watch with two arguments", input: "discovery {\n watch on off\n}", wantErr: "wrong argument count"},
		{name: "mcp_discovery off", input: "discovery {\n mcp_discovery off\n}", want: Handler{MCPDiscovery: &off}},
		{name: "mcp_discovery on", input: "discovery {\n mcp_discovery on\n}", want: Handler{MCPDiscovery: &on}},
		{name: "mcp_discovery without an argument", input: "discovery {\n mcp_discovery\n}", wantErr: "wrong argument count"},
		{name: "mcp_discovery maybe", input: "discovery {\n mcp_discovery maybe\n}", wantErr: "mcp_discovery: expected on or off"},
		{name: "agent_skills off", input: "discovery {\n agent_skills off\n}", want: Handler{AgentSkills: &off}},
		{name: "agent_skills with two arguments", input: "discovery {\n agent_skills on off\n}", wantErr: "wrong argument count"},
		{name: "agent_skills yes", input: "discovery {\n agent_skills yes\n}", wantErr: "agent_skills: expected on or off"},
		{name: "webmcp off", input: "discovery {\n webmcp off\n}", want: Handler{WebMCP: &off}},
		{name: "markdown_by_user_agent off", input: "discovery {\n markdown_by_user_agent off\n}", want: Handler{MarkdownByUserAgent: &off}},
		{name: "webmcp without an argument", input: "discovery {\n webmcp\n}", wantErr: "wrong argument count"},
		{name: "webmcp repeated", input: "discovery {\n webmcp on\n webmcp off\n}", wantErr: "subdirective 'webmcp' already specified"},
		{name: "agent_card off", input: "discovery {\n agent_card off\n}", want: Handler{AgentCard: &off}},
		{name: "agent_card maybe", input: "discovery {\n agent_card maybe\n}", wantErr: "agent_card: expected on or off"},
		{name: "well_known_openapi off", input: "discovery {\n well_known_openapi off\n}", want: Handler{WellKnownOpenAPI: &off}},
		{name: "well_known_openapi without an argument", input: "discovery {\n well_known_openapi\n}", wantErr: "wrong argument count"},
		{name: "security_txt off", input: "discovery {\n security_txt off\n}", want: Handler{SecurityTxt: &off}},
		{name: "security_txt on", input: "discovery {\n security_txt on\n}", want: Handler{SecurityTxt: &on}},
		{name: "site_check off", input: "discovery {\n site_check off\n}", want: Handler{SiteCheck: &off}},
		{name: "refresh", input: "discovery {\n refresh 2m\n}", want: Handler{Refresh: durationPtr(2 * time.Minute)}},
		{name: "refresh off", input: "discovery {\n refresh off\n}", want: Handler{Refresh: durationPtr(0)}},
		{name: "refresh too often", input: "discovery {\n refresh 1s\n}", wantErr: "refresh: must be off or a duration of at least 5s"},
		{name: "refresh without a value", input: "discovery {\n refresh\n}", wantErr: "wrong argument count"},
		{name: "metrics off", input: "discovery {\n metrics off\n}", want: Handler{Metrics: &off}},
		{name: "metrics_label", input: "discovery {\n metrics_label blog.example_2\n}", want: Handler{MetricsLabel: "blog.example_2"}},
		{name: "metrics_label without a name", input: "discovery {\n metrics_label\n}", wantErr: "wrong argument count"},
		{name: "metrics_label with two names", input: "discovery {\n metrics_label blog shop\n}", wantErr: "wrong argument count"},
		{name: "metrics_label twice", input: "discovery {\n metrics_label blog\n metrics_label shop\n}", wantErr: "subdirective 'metrics_label' already specified"},
		{name: "web_bot_auth private", input: "discovery {\n web_bot_auth private\n}", want: Handler{WebBotAuth: "private"}},
		{name: "web_bot_auth bad", input: "discovery {\n web_bot_auth maybe\n}", wantErr: "web_bot_auth: must be on, off or private, got 'maybe'"},
		{name: "client_id_metadata private", input: "discovery {\n client_id_metadata private\n}", want: Handler{ClientIDMetadata: "private"}},
		{name: "client_id_metadata off", input: "discovery {\n client_id_metadata off\n}", want: Handler{ClientIDMetadata: "off"}},
		{name: "client_id_metadata bad", input: "discovery {\n client_id_metadata loopback\n}", wantErr: "client_id_metadata: must be on, off or private, got 'loopback'"},
		{name: "client_id_metadata without a value", input: "discovery {\n client_id_metadata\n}", wantErr: "wrong argument count"},
		{name: "client_id_metadata_ca", input: "discovery {\n client_id_metadata_ca /etc/ca/intranet.pem {env.TEST_CA}\n}", want: Handler{ClientIDMetadataCA: []string{"/etc/ca/intranet.pem", "{env.TEST_CA}"}}},
		{name: "client_id_metadata_ca without a file", input: "discovery {\n client_id_metadata_ca\n}", wantErr: "wrong argument count"},
		{name: "refuse_agents", input: "discovery {\n refuse_agents gptbot bytespider\n}", want: Handler{RefuseAgents: []string{"gptbot", "bytespider"}}},
		{name: "refuse_agents without agents", input: "discovery {\n refuse_agents\n}", wantErr: "wrong argument count"},
		{name: "verified_agent_quota", input: "discovery {\n verified_agent_quota\n}", want: Handler{VerifiedAgentQuota: true}},
		{name: "verified_agent_quota off", input: "discovery {\n verified_agent_quota off\n}", want: Handler{}},
		{name: "site_check without a value", input: "discovery {\n site_check\n}", wantErr: "wrong argument count"},
		{name: "robots_content_usage", input: "discovery {\n robots_content_usage\n}", want: Handler{RobotsContentUsage: true}},
		{name: "robots_content_usage off", input: "discovery {\n robots_content_usage off\n}", want: Handler{}},
		{name: "robots_content_usage maybe", input: "discovery {\n robots_content_usage maybe\n}", wantErr: "robots_content_usage: expected on or off"},
		{name: "robots_content_usage with two arguments", input: "discovery {\n robots_content_usage on off\n}", wantErr: "wrong argument count"},
		{name: "mcp_registry_key", input: "discovery {\n mcp_registry_key O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=\n}", want: Handler{MCPRegistryKey: "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik="}},
		{name: "mcp_registry_key without a key", input: "discovery {\n mcp_registry_key\n}", wantErr: "wrong argument count"},
		{name: "mcp_registry_key with the whole line", input: "discovery {\n mcp_registry_key v=MCPv1; k=ed25519; p=O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=\n}", wantErr: "wrong argument count"},
		{name: "mcp_registry_key twice", input: "discovery {\n mcp_registry_key a\n mcp_registry_key b\n}", wantErr: "'mcp_registry_key' already specified"},
		{name: "security_txt repeated", input: "discovery {\n security_txt on\n security_txt off\n}", wantErr: "subdirective 'security_txt' already specified"},
		{
			name: "robots on",
			input: `discovery {
				robots on
			}`,
			want: Handler{Robots: &on},
		},
		{
			name: "arguments aligned with extra spaces",
			input: `discovery {
				base_url https://example.com
				content  /srv/discovery
				robots   off
			}`,
			want: Handler{BaseURL: "https://example.com", Content: "/srv/discovery", Robots: &off},
		},
		{
			name:    "argument on the directive line",
			input:   `discovery foo`,
			wantErr: "wrong argument count or unexpected line ending after 'foo'",
		},
		{
			name:    "argument before the block",
			input:   `discovery foo { content /srv }`,
			wantErr: "wrong argument count",
		},
		{
			// A Caddyfile block closes on its own line: on the same line,
			// "}" is one more argument of base_url.
			name:    "one-line block",
			input:   `discovery { base_url https://example.com }`,
			wantErr: "wrong argument count or unexpected line ending after 'https://example.com'",
		},
		{
			name: "base_url without an argument",
			input: `discovery {
				base_url
			}`,
			wantErr: "wrong argument count or unexpected line ending after 'base_url'",
		},
		{
			name: "base_url with two arguments",
			input: `discovery {
				base_url https://a.example https://b.example
			}`,
			wantErr: "wrong argument count",
		},
		{
			name: "content without an argument",
			input: `discovery {
				content
			}`,
			wantErr: "wrong argument count",
		},
		{
			name: "robots without an argument",
			input: `discovery {
				robots
			}`,
			wantErr: "wrong argument count",
		},
		{
			name: "repeated subdirective",
			input: `discovery {
				content /a
				content /b
			}`,
			wantErr: "subdirective 'content' already specified",
		},
		{
			name: "unknown subdirective",
			input: `discovery {
				root /srv
			}`,
			wantErr: "unrecognized subdirective 'root'",
		},
		{
			name: "robots maybe",
			input: `discovery {
				robots maybe
			}`,
			wantErr: "robots: expected on or off, got 'maybe'",
		},
		{
			name: "robots in capitals",
			input: `discovery {
				robots OFF
			}`,
			wantErr: "expected on or off",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("UnmarshalCaddyfile() error = nil, want one containing %q", tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("UnmarshalCaddyfile() error = %q, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalCaddyfile() error: %v", err)
			}
			// The JSON config is what Caddy runs: compare every field.
			got, _ := json.Marshal(&h)
			want, _ := json.Marshal(&tt.want)
			if string(got) != string(want) {
				t.Errorf("config %s, want %s", got, want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	off := false
	tests := []struct {
		name string
		h    Handler
		// field is the subdirective (and JSON field) the error must name;
		// empty means the configuration is valid.
		field string
	}{
		{name: "empty", h: Handler{}},
		{name: "https origin", h: Handler{BaseURL: "https://example.com"}},
		{name: "agents refused", h: Handler{RefuseAgents: []string{"gptbot", "bytespider"}}},
		{name: "an agent not on the list", h: Handler{RefuseAgents: []string{"GPTBot"}}, field: "refuse_agents"},
		{name: "browsers refused", h: Handler{RefuseAgents: []string{"browser"}}, field: "refuse_agents"},
		{name: "web_bot_auth unknown", h: Handler{WebBotAuth: "yes"}, field: "web_bot_auth"},
		{name: "client_id_metadata private", h: Handler{ClientIDMetadata: "private"}},
		{name: "client_id_metadata unknown", h: Handler{ClientIDMetadata: "yes"}, field: "client_id_metadata"},
		{name: "a CA for documents never fetched", h: Handler{ClientIDMetadata: "off", ClientIDMetadataCA: []string{"/etc/ca.pem"}}, field: "client_id_metadata_ca"},
		{name: "verified quota without verification", h: Handler{VerifiedAgentQuota: true, WebBotAuth: "off"}, field: "verified_agent_quota"},
		{name: "verified quota with a key of one's own", h: Handler{VerifiedAgentQuota: true, RateLimitKey: "{http.request.header.X-Client}"}, field: "verified_agent_quota"},
		{name: "http origin with a port", h: Handler{BaseURL: "http://localhost:8080"}},
		{name: "trailing slash", h: Handler{BaseURL: "https://example.com/"}},
		{name: "ftp scheme", h: Handler{BaseURL: "ftp://x"}, field: "base_url"},
		{name: "base_url with a path", h: Handler{BaseURL: "https://example.com/path"}, field: "base_url"},
		{name: "base_url with a query", h: Handler{BaseURL: "https://example.com?a=b"}, field: "base_url"},
		{name: "base_url with credentials", h: Handler{BaseURL: "https://user@example.com"}, field: "base_url"},
		{name: "base_url without a scheme", h: Handler{BaseURL: "example.com"}, field: "base_url"},
		{name: "base_url without a host", h: Handler{BaseURL: "https://"}, field: "base_url"},
		{name: "token_ttl of 10ms", h: Handler{TokenTTL: caddy.Duration(10 * time.Millisecond)}, field: "token_ttl"},
		{name: "token_ttl of 1s", h: Handler{TokenTTL: caddy.Duration(time.Second)}},
		{name: "negative body_timeout", h: Handler{BodyTimeout: caddy.Duration(-time.Second)}, field: "body_timeout"},
		{name: "body_timeout of 1s", h: Handler{BodyTimeout: caddy.Duration(time.Second)}},
		{name: "short token_secret", h: Handler{TokenSecret: "short"}, field: "token_secret"},
		{name: "token_secret from an unset variable", h: Handler{TokenSecret: "{env.DISCOVERY_TEST_UNSET_VARIABLE}"}, field: "token_secret"},
		{name: "token_secret of 32 bytes", h: Handler{TokenSecret: strings.Repeat("k", 32)}},
		{name: "negative events", h: Handler{RateLimit: &RateLimitPolicy{Events: intPtr(-1)}}, field: "rate_limit"},
		{name: "zero events", h: Handler{RateLimit: &RateLimitPolicy{Events: intPtr(0)}}, field: "rate_limit"},
		{name: "events at the cap", h: Handler{RateLimit: &RateLimitPolicy{Events: intPtr(maxEvents)}}},
		{name: "events over the cap", h: Handler{RateLimit: &RateLimitPolicy{Events: intPtr(maxEvents + 1)}}, field: "rate_limit"},
		{name: "a hundred million events", h: Handler{RateLimit: &RateLimitPolicy{Events: intPtr(100_000_000), Window: caddy.Duration(time.Minute)}}, field: "rate_limit"},
		{name: "window alone keeps the default quota", h: Handler{RateLimit: &RateLimitPolicy{Window: caddy.Duration(time.Minute)}}},
		{name: "window under a second", h: Handler{RateLimit: &RateLimitPolicy{Window: caddy.Duration(time.Millisecond)}}, field: "rate_limit"},
		{name: "rate_limit off ignores the numbers", h: Handler{RateLimit: &RateLimitPolicy{Off: true, Events: intPtr(-1)}}},
		{name: "ipv6_prefix 1", h: Handler{IPv6Prefix: intPtr(1)}},
		{name: "ipv6_prefix 128", h: Handler{IPv6Prefix: intPtr(128)}},
		{name: "ipv6_prefix 0", h: Handler{IPv6Prefix: intPtr(0)}, field: "ipv6_prefix"},
		{name: "ipv6_prefix 129", h: Handler{IPv6Prefix: intPtr(129)}, field: "ipv6_prefix"},
		{name: "ipv6_prefix with a key that uses it", h: Handler{IPv6Prefix: intPtr(56), RateLimitKey: "{http.vars.discovery_client}-{http.request.host}"}},
		{name: "ipv6_prefix with a key that does not use it", h: Handler{IPv6Prefix: intPtr(56), RateLimitKey: "{http.vars.client_ip}"}, field: "ipv6_prefix"},
		{name: "bad cli_name", h: Handler{CLIName: "../x"}, field: "cli_name"},
		{name: "metrics_label", h: Handler{MetricsLabel: "Blog.example-2_b"}},
		{name: "metrics_label of 64 bytes", h: Handler{MetricsLabel: strings.Repeat("a", 64)}},
		{name: "metrics_label of 65 bytes", h: Handler{MetricsLabel: strings.Repeat("a", 65)}, field: "metrics_label"},
		{name: "metrics_label with a space", h: Handler{MetricsLabel: "my blog"}, field: "metrics_label"},
		{name: "metrics_label with a quote", h: Handler{MetricsLabel: `blog"}`}, field: "metrics_label"},
		{name: "metrics_label with a colon", h: Handler{MetricsLabel: "example.com:8080"}, field: "metrics_label"},
		{name: "metrics_label other", h: Handler{MetricsLabel: "other"}, field: "metrics_label"},
		{name: "metrics_label with metrics off", h: Handler{MetricsLabel: "blog", Metrics: &off}, field: "metrics_label"},
		{name: "metrics_label from an unset variable", h: Handler{MetricsLabel: "{env.DISCOVERY_TEST_UNSET_VARIABLE}"}, field: "metrics_label"},
		{name: "deprecation not a date", h: Handler{Deprecation: "soon"}, field: "deprecation"},
		{name: "sunset before deprecation", h: Handler{Deprecation: "2027-06-01", Sunset: "2027-01-01"}, field: "sunset"},
		{name: "successor not a URL", h: Handler{Successor: "ftp://x"}, field: "successor"},
		{name: "insights without content", h: Handler{Insights: "/srv/blog/posts"}},
		{name: "insights beside the sample", h: Handler{Content: "sample", Insights: "/srv/blog/posts"}, field: "insights"},
		{name: "refresh too often", h: Handler{Refresh: durationPtr(time.Second)}, field: "refresh"},
		{name: "refresh off", h: Handler{Refresh: durationPtr(0)}},
		{name: "exclude patterns", h: Handler{Exclude: []string{"drafts/", "/2019/*", "*-wip.md", "[ab]*.md"}}},
		{name: "exclude malformed pattern", h: Handler{Exclude: []string{"drafts/", "[a-"}}, field: "exclude"},
		{name: "mcp_discovery off", h: Handler{MCPDiscovery: new(bool)}},
		{name: "agent_skills off", h: Handler{AgentSkills: new(bool)}},
		{name: "webmcp off", h: Handler{WebMCP: new(bool)}},
		{name: "site_sitemaps path and URL", h: Handler{SiteSitemaps: []string{"/sitemap.xml", "https://cdn.example.com/sitemap.xml"}}},
		{name: "site_sitemaps not a URL", h: Handler{SiteSitemaps: []string{"/ok.xml", "sitemap.xml"}}, field: "site_sitemaps"},
		{name: "site_sitemaps with robots off", h: Handler{SiteSitemaps: []string{"/sitemap.xml"}, Robots: &off}, field: "site_sitemaps"},
		{name: "every agent page off", h: Handler{Sitemap: &off, PageLinks: &off, Markdown: &off}},
		{name: "negative distributed interval", h: Handler{Distributed: &caddyrl.DistributedRateLimiting{ReadInterval: -1}}, field: "distributed"},
		{name: "robots_content_usage", h: Handler{RobotsContentUsage: true}},
		{name: "robots_content_usage with robots off", h: Handler{RobotsContentUsage: true, Robots: &off}, field: "robots_content_usage"},
		{name: "mcp_registry_key", h: Handler{MCPRegistryKey: "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik="}},
		{name: "mcp_registry_key of the DER form", h: Handler{MCPRegistryKey: "MCowBQYDK2VwAyEAO2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik="}, field: "mcp_registry_key"},
		{name: "mcp_registry_key unpadded", h: Handler{MCPRegistryKey: "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik"}, field: "mcp_registry_key"},
		{name: "mcp_registry_key in the URL alphabet", h: Handler{MCPRegistryKey: "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik_"}, field: "mcp_registry_key"},
		{name: "mcp_registry_key of hex", h: Handler{MCPRegistryKey: strings.Repeat("ab", 32)}, field: "mcp_registry_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.h.Validate()
			if tt.field == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.field+": ") {
				t.Errorf("Validate() = %v, want an error naming %s", err, tt.field)
			}
		})
	}
}

// TestValidateReportsEveryField: one pass names every invalid field.
func TestValidateReportsEveryField(t *testing.T) {
	h := Handler{BaseURL: "example.com", TokenTTL: caddy.Duration(time.Millisecond), CLIName: "a b"}
	err := h.Validate()
	for _, field := range []string{"base_url: ", "token_ttl: ", "cli_name: "} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v, want it to name %s", err, field)
		}
	}
}

func intPtr(n int) *int { return &n }

// TestJSONZeroEventsIsRefused: "events": 0 in JSON is an error, not the
// default quota in disguise.
func TestJSONZeroEventsIsRefused(t *testing.T) {
	var h Handler
	if err := json.Unmarshal([]byte(`{"rate_limit":{"events":0,"window":60000000000}}`), &h); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err == nil || !strings.HasPrefix(err.Error(), "rate_limit: ") {
		t.Errorf("Validate() = %v, want a rate_limit error", err)
	}
}

// TestJSONZeroIPv6PrefixIsRefused: "ipv6_prefix": 0 in JSON is an error,
// not the default in disguise.
func TestJSONZeroIPv6PrefixIsRefused(t *testing.T) {
	var h Handler
	if err := json.Unmarshal([]byte(`{"ipv6_prefix":0}`), &h); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err == nil || !strings.HasPrefix(err.Error(), "ipv6_prefix: ") {
		t.Errorf("Validate() = %v, want an ipv6_prefix error", err)
	}
}

func FuzzCaddyfile(f *testing.F) {
	for _, seed := range []string{
		`discovery`,
		`discovery { }`,
		`discovery { base_url https://example.com }`,
		"discovery {\n\tcontent /srv/discovery\n}",
		"discovery {\n\trobots off\n}",
		"discovery {\n\trobots on\n}",
		"discovery {\n\tbase_url https://example.com\n}",
		"discovery {\n\tbase_url https://example.com\n\tcontent /srv\n\trobots off\n}",
		`discovery foo`,
		"discovery {\n\tbase_url\n}",
		"discovery {\n\tbase_url a b\n}",
		"discovery {\n\tcontent /a\n\tcontent /b\n}",
		"discovery {\n\troot /srv\n}",
		"discovery {\n\trobots maybe\n}",
		"discovery {\n\tipv6_prefix 56\n}",
		"discovery {\n\tmetrics_label blog\n}",
		"discovery {\n\tsite_sitemaps /sitemap.xml https://example.com/s.xml\n\tmarkdown off\n\tpage_links off\n\tsitemap off\n}",
		"discovery {\n\trobots {\n\t}\n}",
		"",
		"{",
		"}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		// NewTestDispenser calls log.Fatalf on input the lexer rejects, and
		// first expands {$ENV} placeholders, which could turn lexable input
		// into unlexable input; such input is passed over so that only the
		// parser is fuzzed.
		if strings.Contains(input, "{$") {
			return
		}
		if _, err := caddyfile.Tokenize([]byte(input), "Caddyfile"); err != nil {
			return
		}
		var h Handler
		_ = h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
	})
}

func durationPtr(d time.Duration) *caddy.Duration {
	v := caddy.Duration(d)
	return &v
}
