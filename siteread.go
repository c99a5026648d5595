package discovery

// Reading the site behind the module: on the first request the module
// sees (only a request carries the server it runs in), it starts a reader
// that asks the site for its pages through the server's own handlers, as
// an anonymous visitor, and keeps up with it; each snapshot it makes is
// merged with the owner's files into the catalog, and the service is
// rebuilt from it. The first request waits for the first catalog at most
// firstReadWait.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/site"
	"github.com/caddy-discovery/caddy-discovery/internal/sitecheck"
)

// firstReadWait is how long the first request waits for the first
// catalog read from the site; the read goes on behind it, and what it
// has read is published as it goes.
const firstReadWait = 2 * time.Second

// siteReading is the module's reading of the site and the catalog made of
// it: the reader, started on the first request, and the owner's files.
type siteReading struct {
	logger *zap.Logger
	// read: the site is read (site_check); else the catalog is the
	// owner's files alone, with the request's host as the last resort.
	read bool
	// baseURL is the configured base URL, "" when each request's.
	baseURL string
	// sitemaps are the site_sitemaps the reader reads too.
	sitemaps []string
	// bounds of the reader, with the configured refresh.
	bounds site.Bounds
	// config is the service's configuration but for the catalog, and
	// service the pointer to the service serving.
	config  *handlers.Config
	service *atomic.Pointer[handlers.Service]

	// started is set by the first request; firstCatalog is closed once
	// the first catalog is published, or firstReadWait after the start.
	started      atomic.Bool
	firstCatalog chan struct{}
	// cancel stops the reader; done is closed when the handler is cleaned
	// up.
	cancel context.CancelFunc
	done   chan struct{}

	// mu orders publications: the owner's files and the snapshot last
	// published are merged under it.
	mu        sync.Mutex
	owner     *content.Site
	snapshot  *site.Snapshot
	published bool
	// said are the notes logged once per handler.
	said map[string]bool
	// last are the counts last logged, logged whether any were.
	last   catalogCounts
	logged bool
}

type catalogCounts struct{ insights, skipped int }

func newSiteReading(h *Handler, owner *content.Site) *siteReading {
	bounds := site.DefaultBounds
	if h.Refresh != nil {
		bounds.Refresh = time.Duration(*h.Refresh)
	}
	return &siteReading{
		logger: h.logger, read: on(h.SiteCheck), baseURL: h.BaseURL, sitemaps: h.SiteSitemaps, bounds: bounds,
		config: &h.serviceConfig, service: h.service, firstCatalog: make(chan struct{}), done: make(chan struct{}),
		owner: owner, said: make(map[string]bool),
	}
}

// ready reports whether the first catalog is published: once it is, the
// request path costs a receive on a closed channel.
func (s *siteReading) ready() bool {
	select {
	case <-s.firstCatalog:
		return true
	default:
		return false
	}
}

// start starts the reader on the first request; it never waits.
func (s *siteReading) start(r *http.Request) {
	if s.started.CompareAndSwap(false, true) {
		s.begin(r)
	}
}

// await waits for the first catalog, at most firstReadWait after the
// start, and reports whether it came (false when r's client went away).
func (s *siteReading) await(r *http.Request) bool {
	select {
	case <-s.firstCatalog:
		return true
	case <-r.Context().Done():
		return false
	}
}

// begin starts the reader for the site r is a request of, or, with reading
// off, publishes the owner's files alone.
func (s *siteReading) begin(r *http.Request) {
	base := s.baseURL
	if base == "" {
		b, ok := origin.RequestBase(r)
		if !ok {
			b = "http://localhost"
		}
		base = b
	}
	siteURL, err := url.Parse(base)
	if err != nil {
		siteURL = &url.URL{Scheme: "http", Host: "localhost"}
	}
	fallback := &site.Snapshot{Site: siteURL, At: time.Now()}
	server, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if !s.read || server == nil {
		s.publish(fallback)
		s.closeReady()
		return
	}
	localAddr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	reader := site.New(site.Options{
		Transport: func(w http.ResponseWriter, req *http.Request) { server.ServeHTTP(w, req) },
		Site:      siteURL, LocalAddr: localAddr,
		UserAgent:  "caddy-discovery/" + Version + " (+" + strings.TrimSuffix(base, "/") + "/developers)",
		Posts:      !s.ownerPosts(),
		Sitemaps:   s.sitemaps,
		Candidates: s.candidates,
		Documents:  func() []string { return s.service.Load().Documents() },
		Texts:      func() []string { return site.Templated(s.service.Load().Site().Insights) },
		Bounds:     s.bounds,
		Logger:     s.logger.Named("site"),
		Publish:    s.publish,
	})
	go reader.Run(ctx)
	go func() {
		select {
		case <-time.After(firstReadWait):
		case <-s.done:
		case <-ctx.Done():
		}
		s.mu.Lock()
		if !s.published {
			s.mu.Unlock()
			s.publish(fallback) // what the owner's files say, until the read says more
		} else {
			s.mu.Unlock()
		}
		s.closeReady()
	}()
}

// closeReady closes firstCatalog, once.
func (s *siteReading) closeReady() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.firstCatalog:
	default:
		close(s.firstCatalog)
	}
}

// ownerPosts reports whether the owner's files hold the posts.
func (s *siteReading) ownerPosts() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner.PostsFolder
}

// candidates are the pages the owner's files name, which each full read
// asks the site for: those the service publishes and the default
// addresses of the About and insights pages.
func (s *siteReading) candidates() []string {
	paths := s.service.Load().SitePages()
	s.mu.Lock()
	pages := s.owner.Pages
	s.mu.Unlock()
	for _, p := range []string{pages.About, pages.Insights} {
		if strings.HasPrefix(p, "/") && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// publish merges snap with the owner's files into the catalog and swaps
// in a service built from it. A catalog that does not render keeps the
// service serving.
func (s *siteReading) publish(snap *site.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !snap.Complete && s.snapshot != nil && s.snapshot.Complete && len(snap.Posts) < len(s.snapshot.Posts) {
		return // a read under way says less than the last full one
	}
	s.snapshot = snap
	s.rebuild()
	if snap.Complete || len(snap.Posts) > 0 {
		s.published = true
		select {
		case <-s.firstCatalog:
		default:
			close(s.firstCatalog)
		}
	}
}

// ownerChanged takes the owner's files, reloaded, and rebuilds the
// catalog with the snapshot last read.
func (s *siteReading) ownerChanged(owner *content.Site) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner = owner
	s.rebuild()
}

// rebuild builds the catalog and the service; s.mu is held.
func (s *siteReading) rebuild() {
	cat := site.Build(s.owner, s.owner.PostsFolder, s.snapshot)
	s.config.Metrics.Published(len(cat.Site.Insights))
	if current := s.service.Load(); current != nil && reflect.DeepEqual(current.Site(), cat.Site) {
		s.report(cat) // the same catalog: the documents rendered and kept stand
		return
	}
	cfg := *s.config
	cfg.Site = cat.Site
	service, err := handlers.New(cfg)
	if err != nil {
		s.logger.Warn("the catalog read from the site does not render: the previous one keeps serving", zap.Error(err))
		return
	}
	s.service.Store(service)
	s.report(cat)
}

// report logs what a catalog says that the owner should know, each note
// once, and the counts when they change.
func (s *siteReading) report(cat *site.Catalog) {
	snap := s.snapshot
	once := func(key string, log func()) {
		if !s.said[key] {
			s.said[key] = true
			log()
		}
	}
	if snap == nil || !snap.Complete {
		return
	}
	if cat.NoPerson && s.read {
		once("no-person", func() {
			s.logger.Warn("the site names no person: the profile is named after the site itself; "+
				`add "name: Your Name" to a profile.yaml in a content folder (content /path/to/folder), `+
				"or a JSON-LD Person or an h-card to the home page",
				zap.String("name", cat.Site.Profile.Name), zap.Strings("missing", cat.Missing))
		})
	}
	if len(cat.Dropped) > 0 {
		once("dropped", func() {
			s.logger.Info("default page addresses the site does not answer 200 are not published", zap.Strings("pages", cat.Dropped))
		})
	}
	for _, why := range cat.Skipped {
		once("skip:"+why, func() { s.logger.Warn("a post of the site is left out", zap.String("post", why)) })
	}
	if shut := sitecheck.ShutOut(snap.Robots); len(shut) > 0 && cat.Site.Signals.AITrain {
		once("robots", func() {
			s.logger.Warn("the site's robots.txt shuts out AI crawlers that the content signals invite to train (ai-train=yes): "+
				"crawlers obey robots.txt, so they will not train on the site; to say no in both, set contentSignals.aiTrain: false in profile.yaml; "+
				"to say yes, allow them in robots.txt",
				zap.Strings("crawlers", shut))
		})
	}
	if m := cat.Matched; m != nil {
		once(fmt.Sprintf("matched:%d:%d:%d", m.Matched, m.Unmatched, m.Changed), func() {
			s.logger.Info("insights matched to the site's sitemap",
				zap.Int("matched", m.Matched), zap.Int("not_in_sitemap", m.Unmatched), zap.Int("addresses_changed", m.Changed))
		})
	} else if cat.Site.PostsFolder && len(snap.SitemapPaths) == 0 {
		once("no-sitemap", func() {
			s.logger.Info("the site has no sitemap to match insights to: their pages follow their front matter and pages.insight in profile.yaml")
		})
	}
	if len(snap.SiteFiles) > 0 {
		once("files:"+strings.Join(snap.SiteFiles, ","), func() {
			s.logger.Info("the site has files of its own where the module has documents: they are the site's, and the module leaves them to it",
				zap.Strings("paths", snap.SiteFiles))
		})
	}
	s.reportDeadPages(snap)
	if !cat.Site.PostsFolder && len(cat.Site.Insights) == 0 && s.read {
		once("no-posts", func() {
			s.logger.Warn("the site has no posts the module could find: no feed, sitemap or page of it says a page is a post; "+
				"link a feed (RSS, Atom or JSON Feed) from the home page with <link rel=\"alternate\">, or mark each post's page "+
				"(JSON-LD BlogPosting, og:type article, an h-entry), or keep the posts' sources for the module (insights /path/to/posts)",
				zap.Int("feeds_read", len(snap.Feeds)), zap.Int("sitemap_addresses", len(snap.SitemapPaths)), zap.Int("skipped", len(cat.Skipped)))
		})
	}
	counts := catalogCounts{len(cat.Site.Insights), len(cat.Skipped)}
	if counts != s.last || !s.logged {
		s.last, s.logged = counts, true
		fields := []zap.Field{zap.String("site", snap.Site.String()), zap.Int("insights", counts.insights),
			zap.Int("skipped", counts.skipped), zap.String("name", cat.Site.Profile.Name)}
		for _, f := range []string{"name", "tagline", "about"} {
			if src := cat.Sources[f]; src != "" {
				fields = append(fields, zap.String(f+"_from", src))
			}
		}
		s.logger.Info("catalog published", fields...)
	}
}

// reportDeadPages logs whether the page addresses the service publishes
// answer 200, with examples of those that do not, once per outcome.
func (s *siteReading) reportDeadPages(snap *site.Snapshot) {
	var missing, redirected, guarded []string
	ok, checked := 0, 0
	pages := s.service.Load().SitePages()
	for _, p := range pages {
		status, asked := snap.StatusOf(p)
		if !asked {
			continue
		}
		checked++
		switch {
		case status == http.StatusOK:
			ok++
		case status >= 300 && status < 400:
			redirected = append(redirected, p)
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			guarded = append(guarded, p)
		default:
			missing = append(missing, p)
		}
	}
	key := fmt.Sprintf("pages:%d:%d:%v:%v", len(pages), ok, missing, redirected)
	if s.said[key] {
		return
	}
	s.said[key] = true
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

// noteMerged logs, once per address, that the site has its own file at
// path (robots.txt, llms.txt), which the module serves with its lines
// added.
func (s *siteReading) noteMerged(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.said["merged:"+path] {
		return
	}
	s.said["merged:"+path] = true
	s.logger.Info("the site has its own file here: the module serves it as the site wrote it, with its own lines added after it",
		zap.String("path", path))
}

// linkExamples is how many dead addresses the log names.
const linkExamples = 5

// stop stops the reader.
func (s *siteReading) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return
	default:
		close(s.done)
	}
	if s.cancel != nil {
		s.cancel()
	}
}
