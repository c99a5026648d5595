package handlers

import (
	"net/http"

	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/portal"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// writeLimitedPage writes the HTML answer to a refused request (see
// portal.Limited); the rate limit headers and Vary are already set.
func writeLimitedPage(cfg *Config, cat *catalog.Catalog, f *fields, w http.ResponseWriter, r *http.Request, base string, retryAfter int) {
	l := newLinks(base, cfg, cat, nil)
	b := portal.Limited(cat.Site.Profile.Name, retryAfter, cfg.RateLimit.Events, cfg.RateLimit.WindowSeconds(), l.Developers(), l.Abs(cat.Site.Pages.Home))
	f.set(respond.HeaderCSP, portal.LimitedCSP)
	f.set(respond.HeaderReferrerPolicy, "no-referrer")
	respond.Write(w, r, http.StatusTooManyRequests, respond.MediaHTML, b)
}
