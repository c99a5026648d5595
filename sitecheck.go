package discovery

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
	"github.com/caddy-discovery/caddy-discovery/internal/sitecheck"
)

// After each load of the content, the module looks at the site behind it,
// through the next handler, as a visitor would: once, on the first
// request it sees (only a request carries the server and the site's
// variables, such as its root). It reads the site's own sitemap and gives
// each insight the address the site has for it (Jekyll's dated paths,
// Hugo's sections, a lowercased or slugified name), then asks the site for
// every page address the module publishes and logs the ones that do not
// answer 200, and warns when the site's robots.txt shuts out an AI
// crawler that the content signals invite to train.

// Bounds of the site check.
const (
	// siteCheckWait is how long the first request waits for the site's
	// sitemap to be read and matched, so that it is already answered with
	// the site's addresses; the check goes on behind it.
	siteCheckWait = 2 * time.Second
	// siteFetchTimeout bounds each request made to the site.
	siteFetchTimeout = 5 * time.Second
	// linkCheckBudget bounds the whole check of the published addresses.
	linkCheckBudget = 60 * time.Second
	// linkExamples is how many dead addresses the log names.
	linkExamples = 5
)

// siteState is what the site check keeps between loads.
type siteState struct {
	// checked is the service the check last ran for.
	checked atomic.Pointer[handlers.Service]
	// sitemap holds the page addresses of the site's sitemap last read,
	// which a reload of the content is matched to at once.
	sitemap atomic.Pointer[[]string]
	// done is closed when the handler is cleaned up: a check under way
	// stops asking the site (a reload must not leave one running).
	done chan struct{}
	// What the check needs of the module: its log, the site_sitemaps
	// option, the service's configuration and the pointer to the service
	// serving, which a match to the sitemap replaces.
	logger   *zap.Logger
	sitemaps []string
	config   *handlers.Config
	service  *atomic.Pointer[handlers.Service]
}

// stopped reports whether the handler was cleaned up.
func (s *siteState) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// checkSiteOnce starts the site check when the service has not had one,
// and waits up to siteCheckWait for its sitemap match.
func (s *siteState) checkSiteOnce(r *http.Request, next caddyhttp.Handler, service *handlers.Service) {
	last := s.checked.Load()
	if last == service || !s.checked.CompareAndSwap(last, service) {
		return
	}
	fetch := s.siteFetcher(r, next)
	matched := make(chan struct{})
	go s.checkSite(fetch, service, matched)
	select {
	case <-matched:
	case <-time.After(siteCheckWait):
	}
}

// siteFetcher returns a function that asks the site behind the module for
// a path, as a GET from the same client to the same Host, with a fresh
// replacer and a copy of the variables the routes before the module set
// (root among them). It is built while r is being served; it uses nothing
// of r after that.
func (s *siteState) siteFetcher(r *http.Request, next caddyhttp.Handler) func(path string, limit int) siteAnswer {
	server, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	vars := make(map[string]any)
	if v, ok := r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
		for k, val := range v {
			vars[k] = val
		}
	}
	base := context.WithoutCancel(r.Context())
	host, remote, tls := r.Host, r.RemoteAddr, r.TLS
	return func(path string, limit int) siteAnswer {
		ctx, cancel := context.WithTimeout(base, siteFetchTimeout)
		defer cancel()
		u := &url.URL{Path: path}
		if unescaped, err := url.PathUnescape(path); err == nil {
			u = &url.URL{Path: unescaped, RawPath: path}
		}
		req := (&http.Request{
			Method: http.MethodGet, URL: u, RequestURI: u.RequestURI(), Host: host,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, RemoteAddr: remote, TLS: tls,
			Header: http.Header{"Accept": {"text/html, application/xml;q=0.9, text/plain;q=0.8, */*;q=0.1"},
				"User-Agent": {"caddy-discovery site check"}},
		}).WithContext(ctx)
		w := &capture{header: make(http.Header), limit: limit}
		if server != nil {
			req = caddyhttp.PrepareRequest(req, caddy.NewReplacer(), w, server)
			if v, ok := req.Context().Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
				for k, val := range vars {
					if _, set := v[k]; !set {
						v[k] = val
					}
				}
			}
		}
		err := next.ServeHTTP(w, req)
		a := siteAnswer{status: w.status, header: w.header, body: w.body.Bytes(), tooLarge: w.over}
		var he caddyhttp.HandlerError
		switch {
		case errors.As(err, &he):
			a.status = he.StatusCode
		case err != nil && !w.over:
			a.status = 0 // the site failed: no answer to count as a page
		case a.status == 0:
			a.status = http.StatusOK // what Caddy answers when no handler writes
		}
		return a
	}
}

// siteAnswer is the site's answer to one request of the check; status 0
// when the site failed without one.
type siteAnswer struct {
	status   int
	header   http.Header
	body     []byte
	tooLarge bool
}

// capture is a ResponseWriter that keeps up to limit bytes of a body and
// refuses the rest, so that a large answer costs no more than that; with
// a negative limit it keeps nothing and refuses nothing (a page whose
// status alone is wanted is read to its end, as a visitor reads it, and
// its handler sees no failed write to log).
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
	limit  int
	over   bool
}

func (c *capture) Header() http.Header { return c.header }

func (c *capture) WriteHeader(status int) {
	if c.status == 0 && status >= 200 {
		c.status = status
	}
}

func (c *capture) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	if c.limit < 0 {
		return len(p), nil
	}
	if c.body.Len()+len(p) > c.limit {
		c.over = true
		return 0, errTooLarge
	}
	return c.body.Write(p)
}

var errTooLarge = errors.New("larger than the site check reads")

// checkSite runs the check for service: the sitemap match (then closes
// matched), the robots.txt comparison and the check of every published
// page address.
func (s *siteState) checkSite(fetch func(string, int) siteAnswer, service *handlers.Service, matched chan<- struct{}) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("site check failed", zap.Any("panic", v))
		}
	}()
	if s.stopped() {
		close(matched)
		return
	}
	robots := fetch("/robots.txt", handlers.MaxSiteRobots)
	if robots.status != http.StatusOK || !textual(robots.header) {
		robots.body = nil
	}
	service = s.matchSitemap(fetch, robots.body, service)
	close(matched)

	site := service.Site()
	if shut := sitecheck.ShutOut(robots.body); len(shut) > 0 && site.Signals.AITrain {
		s.logger.Warn("the site's robots.txt shuts out AI crawlers that the content signals invite to train (ai-train=yes): "+
			"crawlers obey robots.txt, so they will not train on the site; to say no in both, set contentSignals.aiTrain: false in profile.yaml; "+
			"to say yes, allow them in robots.txt",
			zap.Strings("crawlers", shut))
	}
	s.checkLinks(fetch, service)
}

// matchSitemap reads the site's sitemaps (those its robots.txt names, the
// configured site_sitemaps, else /sitemap.xml and the usual index names),
// matches the insights to their addresses, and swaps in a service built
// with them when any changed. It returns the service now serving.
func (s *siteState) matchSitemap(fetch func(string, int) siteAnswer, robots []byte, service *handlers.Service) *handlers.Service {
	var queue []string
	for _, line := range strings.Split(string(robots), "\n") {
		if key, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(key), "sitemap") {
			queue = append(queue, strings.TrimSpace(value))
		}
	}
	queue = append(queue, s.sitemaps...)
	queue = append(queue, "/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml")
	seen := make(map[string]bool)
	var pages []string
	for fetched := 0; len(queue) > 0 && fetched < sitecheck.MaxSitemaps && !s.stopped(); {
		link := queue[0]
		queue = queue[1:]
		path, ok := sitecheck.SameOrigin(link)
		if !ok || seen[path] || path == "/sitemap-discovery.xml" {
			continue
		}
		seen[path] = true
		fetched++
		a := fetch(path, sitecheck.MaxSitemapSize)
		if a.status != http.StatusOK || a.tooLarge {
			continue
		}
		sm, err := sitecheck.ParseSitemap(a.body)
		if err != nil {
			continue
		}
		pages = append(pages, sm.Pages...)
		queue = append(sm.Sitemaps, queue...)
	}
	if len(pages) == 0 {
		s.logger.Info("the site has no sitemap to match insights to: their pages follow their front matter and pages.insight in profile.yaml",
			zap.Strings("asked", slices.Sorted(maps.Keys(seen))))
		return service
	}
	s.sitemap.Store(&pages)
	m := sitecheck.Pages(service.Site(), pages)
	s.logger.Info("insights matched to the site's sitemap",
		zap.Int("matched", m.Matched), zap.Int("not_in_sitemap", m.Unmatched), zap.Int("addresses_changed", m.Changed))
	if m.Changed == 0 {
		return service
	}
	cfg := *s.config
	cfg.Site = m.Site
	matched, err := handlers.New(cfg)
	if err != nil {
		s.logger.Warn("insights matched to the site's sitemap do not render; their addresses stay as they were", zap.Error(err))
		return service
	}
	// Only the service checked may be replaced: a reload of the content
	// in the meantime wins, and is checked on its own.
	s.checked.Store(matched)
	if !s.service.CompareAndSwap(service, matched) {
		return service
	}
	return matched
}

// matchedToSitemap matches a newly loaded site to the sitemap last read,
// so that a reload of the content keeps the site's addresses from its
// first answer on.
func (s *siteState) matchedToSitemap(site *content.Site) *content.Site {
	if pages := s.sitemap.Load(); pages != nil {
		return sitecheck.Pages(site, *pages).Site
	}
	return site
}

// checkLinks asks the site for every page address the module publishes
// and logs how many do not answer 200 directly, with examples.
func (s *siteState) checkLinks(fetch func(string, int) siteAnswer, service *handlers.Service) {
	deadline := time.Now().Add(linkCheckBudget)
	var ok, checked int
	var missing, redirected, guarded []string
	pages := service.SitePages()
	for _, p := range pages {
		if time.Now().After(deadline) || s.stopped() {
			break
		}
		checked++
		a := fetch(p, -1)
		switch {
		case a.status == http.StatusOK:
			ok++
		case a.status >= 300 && a.status < 400:
			redirected = append(redirected, p+" → "+a.header.Get("Location"))
		case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
			guarded = append(guarded, p)
		default:
			missing = append(missing, p)
		}
	}
	fields := []zap.Field{zap.Int("pages", len(pages)), zap.Int("checked", checked), zap.Int("ok", ok),
		zap.Int("not_found", len(missing)), zap.Int("redirected", len(redirected)), zap.Int("need_credentials", len(guarded))}
	if len(missing)+len(redirected) == 0 {
		s.logger.Info("every page address the module publishes answers 200", fields...)
		return
	}
	fields = append(fields, zap.Strings("not_found_examples", missing[:min(linkExamples, len(missing))]),
		zap.Strings("redirected_examples", redirected[:min(linkExamples, len(redirected))]))
	s.logger.Warn("page addresses the module publishes do not answer 200 from the site: "+
		"set pages in profile.yaml (pages.insight takes {year}, {month}, {day} and {slug}), a permalink or url in a post's front matter, "+
		"or publish a sitemap the module can match", fields...)
}

// textual reports whether an answer is plain text, as robots.txt is.
func textual(h http.Header) bool {
	ct := h.Get("Content-Type")
	return ct == "" || strings.HasPrefix(ct, "text/plain")
}
