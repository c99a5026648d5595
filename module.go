// Package discovery is a Caddy HTTP handler that gives a site a public
// discovery API for one person and their published articles: a read-only
// JSON API under /api/v1 and the documents agents look for.
package discovery

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	caddyrl "github.com/mholt/caddy-ratelimit"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/handlers"
)

func init() {
	caddy.RegisterModule(Handler{})
}

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

	// Content is the directory holding profile.yaml and insights/<slug>.md.
	// Default: the embedded sample content. It is read once, at load; a
	// reload reads it again and keeps the old content if it is invalid.
	// Global placeholders are expanded at load.
	Content string `json:"content,omitempty"`

	// Robots serves /robots.txt with the content-usage signals when true or
	// absent; false leaves /robots.txt to the next handler.
	Robots *bool `json:"robots,omitempty"`

	// RateLimit is the public rate-limit policy, enforced by caddy-ratelimit
	// on every path the module owns (and on no other). Default: 120 requests
	// per client in any 60-second window; {"off": true} disables it.
	RateLimit *RateLimitPolicy `json:"rate_limit,omitempty"`

	// RateLimitKey tells clients apart. Default: {http.vars.client_ip}, the
	// client address, which honours the server's trusted_proxies setting.
	// Any placeholder works.
	RateLimitKey string `json:"rate_limit_key,omitempty"`

	// Distributed shares the limiter's state with every Caddy instance that
	// uses the same storage, through that storage (caddy-ratelimit's
	// distributed mode). Each instance needs its own instance ID, that is its
	// own data directory. Between syncs a burst can get up to the quota from
	// each instance.
	Distributed *caddyrl.DistributedRateLimiting `json:"distributed,omitempty"`

	service *handlers.Service
	limiter *rateLimiter
	logger  *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.discovery",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision loads and validates the content and renders every document
// that does not depend on the request.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	repl := caddy.NewReplacer()
	h.BaseURL = repl.ReplaceKnown(h.BaseURL, "")
	h.Content = repl.ReplaceKnown(h.Content, "")

	var site *content.Site
	var err error
	if h.Content == "" {
		site, err = content.Sample()
	} else {
		site, err = content.LoadDir(h.Content)
	}
	if err != nil {
		return err
	}

	limit, limited := h.policy()
	h.service, err = handlers.New(handlers.Config{
		Site:        site,
		BaseURL:     h.BaseURL,
		ServiceName: ServiceName,
		Version:     Version,
		RateLimit:   limit,
		OnPanic:     h.logPanic,
	})
	if err != nil {
		return fmt.Errorf("base_url: %w", err)
	}
	if limited {
		if err := h.provisionRateLimit(ctx, limit); err != nil {
			return err
		}
	}
	h.logger.Debug("discovery content loaded",
		zap.String("content", h.Content), zap.Int("insights", len(site.Insights)))
	return nil
}

// Validate checks the configuration.
func (h *Handler) Validate() error {
	if h.BaseURL != "" {
		if _, err := handlers.NormalizeBaseURL(h.BaseURL); err != nil {
			return fmt.Errorf("base_url: %w", err)
		}
	}
	if rl := h.RateLimit; rl != nil && !rl.Off {
		if rl.Events < 0 {
			return fmt.Errorf("rate_limit: events must be positive, got %d", rl.Events)
		}
		if rl.Window < 0 || (rl.Window > 0 && rl.Window < caddy.Duration(time.Second)) {
			return fmt.Errorf("rate_limit: window must be at least 1s, got %s", time.Duration(rl.Window))
		}
	}
	if d := h.Distributed; d != nil && (d.ReadInterval < 0 || d.WriteInterval < 0) {
		return fmt.Errorf("distributed: intervals must be positive")
	}
	return nil
}

// Cleanup releases the rate-limit zone and its mirror.
func (h *Handler) Cleanup() error {
	if h.limiter != nil {
		return h.limiter.cleanup()
	}
	return nil
}

// ServeHTTP answers the paths the module owns and hands every other request
// to next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if !h.service.Owns(r.URL.Path) {
		return next.ServeHTTP(w, r)
	}
	if h.limiter != nil {
		return h.serveLimited(w, r)
	}
	h.service.ServeHTTP(w, r)
	return nil
}

func (h *Handler) logPanic(r *http.Request, v any) {
	h.logger.Error("panic while serving a discovery request",
		zap.String("method", r.Method),
		zap.String("uri", r.URL.EscapedPath()),
		zap.Any("panic", v),
		zap.ByteString("stack", debug.Stack()))
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
