package discovery

// Which site a discovery block's metrics count for: the value of the site
// label its caddy_discovery_* series carry, learnt at provision.

import (
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
)

// unnamedSite is the site label of a block provisioned outside an HTTP
// server (a test's), which has no host or server to be named after.
const unnamedSite = "default"

// siteLabel is the site the block's series are labelled with, the first
// of:
//   - metrics_label, as the owner set it;
//   - the host of base_url (with its port when it names one): the site's
//     public name, the same on every instance and after every reload;
//   - the first host of the host matcher of the server route the block is
//     in: the address of its Caddyfile site block, such as example.com;
//   - the name of the Caddy server it is in (srv0 in a Caddyfile; Caddy's
//     own caddy_http_* series name it in their server label).
//
// The server's name comes last as a Caddyfile numbers its servers in the
// order of their addresses: a block added on another port can rename
// them, where a host stays.
func (h *Handler) siteLabel(ctx caddy.Context) string {
	if h.MetricsLabel != "" {
		return h.MetricsLabel
	}
	if h.BaseURL != "" {
		if base, err := origin.NormalizeBaseURL(h.BaseURL); err == nil {
			if u, err := url.Parse(base); err == nil && u.Host != "" {
				return metrics.LabelOf(u.Host)
			}
		}
	}
	srv, _ := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if srv == nil {
		return unnamedSite
	}
	if host := provisioningRouteHost(srv.Routes); host != "" {
		return metrics.LabelOf(host)
	}
	return metrics.LabelOf(srv.Name())
}

// provisioningRouteHost is the first host of the host matcher of the
// route of routes whose handlers are being provisioned, "" when none is
// or it has no host matcher. Caddy provisions every route's matchers
// first, then each route's handlers in order (a site block's subroute,
// and the discovery block within it, among them), and a route keeps its
// handlers only once all are provisioned: the first route that has raw
// handlers and no provisioned ones is the one being provisioned.
func provisioningRouteHost(routes caddyhttp.RouteList) string {
	for _, route := range routes {
		if len(route.HandlersRaw) == 0 || len(route.Handlers) > 0 {
			continue
		}
		for _, set := range route.MatcherSets {
			for _, m := range set {
				hosts, ok := m.(*caddyhttp.MatchHost)
				if !ok {
					continue
				}
				for _, host := range *hosts {
					if host != "" && !strings.Contains(host, "{") {
						return host
					}
				}
			}
		}
		return ""
	}
	return ""
}

// acquireMetrics takes the counts of the block's site, saying once per
// process when the sites have outnumbered metrics.MaxSites.
func (h *Handler) acquireMetrics(ctx caddy.Context) {
	label := h.siteLabel(ctx)
	site, first := metrics.Acquire(label)
	h.metrics = site
	switch {
	case first:
		h.logger.Warn("more sites count metrics in this process than the bound: this one and any further are counted as one site; give blocks that may share series one metrics_label",
			zap.String("site", label), zap.String("counted_as", site.Label()), zap.Int("bound", metrics.MaxSites))
	case site.Label() != label:
		h.logger.Debug("site counted past the bound of sites", zap.String("site", label), zap.String("counted_as", site.Label()))
	}
}
