package handlers

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/caddy-discovery/caddy-discovery/internal/cache"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/oauth"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/token"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// rendition is the documents of one base URL. For the configured base URL
// every document is rendered when the service is built (eager). For a base
// URL taken from a request's Host (no base_url configured) a document is
// rendered the first time it is asked for, and the rendition lives in the
// service's bounded cache: an unseen Host costs the one document it asks
// for, never the whole site.
type rendition struct {
	links
	baseHeaders
	// eager holds every document of the configured base URL; nil for a
	// request-derived base, whose documents are in lazy.
	eager map[string]*document
	// lazy maps a path to its *lazyDocument, rendered on first use.
	lazy sync.Map
	// oauth is what the OAuth server's answers under this base URL name,
	// its issuer of tokens and identity assertions among them.
	oauth oauth.At
	// mcpHandler returns the stateless MCP handler, built on first use;
	// mcpBuilt says that it was.
	mcpHandler func() http.Handler
	mcpBuilt   atomic.Bool
	// endpoint answers POST /mcp, with the SDK's answers to the
	// fixed-shape requests kept.
	endpoint mcp.Endpoint
	// cache is the cache the rendition is accounted in; nil when eager.
	cache *renditionCache
	// own marks a rendition of a Host the connection vouched for (see
	// vouchedHost): kept whole, outside the byte budget.
	own bool
}

// lazyDocument is one document of a request-derived rendition, rendered
// once by the first request for it; concurrent requests wait for that one.
type lazyDocument struct {
	once sync.Once
	doc  *document
}

// Bounds of the cache of request-derived renditions: the Host header is
// chosen by the client, so what its renditions hold is bounded in count and
// in bytes (bodies and their compressed forms), least recently used first
// out; and at most renderSlots documents of such renditions are rendered at
// once, so a burst of unseen Hosts queues rather than takes every core.
//
// The site's own Hosts, those a request's connection vouches for, are kept
// apart: at most maxOwnHosts of them, each whole whatever its size, as the
// configured base URL's documents are, so that a document larger than the
// budget is still rendered and compressed once.
const (
	maxRenditions   = 32
	maxOwnHosts     = 4
	renditionBudget = 16 << 20
	// mcpEstimate is what a rendition's MCP server is counted as holding.
	mcpEstimate = 64 << 10
)

var renderSlots = max(1, runtime.GOMAXPROCS(0)/2)

// renditionCache holds the renditions of request-derived base URLs.
type renditionCache struct {
	// byBase holds at most maxRenditions renditions, of at most budget
	// bytes together (see account).
	byBase *cache.Cache[string, *rendition]
	// own holds the renditions of the site's own Hosts, at most
	// maxOwnHosts, outside the budget.
	own    *cache.Cache[string, *rendition]
	budget int
	// slots bounds concurrent renders.
	slots chan struct{}
}

func newRenditionCache(budget int) *renditionCache {
	return &renditionCache{
		byBase: cache.New[string, *rendition](maxRenditions, budget),
		own:    cache.New[string, *rendition](maxOwnHosts, 0),
		budget: budget,
		slots:  make(chan struct{}, renderSlots),
	}
}

// renditionOf returns the rendition of base for request r: the configured
// one, or that of a request-derived base, kept whole when r's connection
// vouches for its Host and within the cache's budget otherwise.
func (s *Service) renditionOf(r *http.Request, base string) *rendition {
	if s.fixed == nil && vouchedHost(r) {
		return s.cachedRendition(base, true)
	}
	return s.renditionFor(base)
}

// renditionFor returns the rendition of base: the configured one, or the
// budgeted one of a request-derived base.
func (s *Service) renditionFor(base string) *rendition {
	if s.fixed != nil {
		return s.fixed
	}
	return s.cachedRendition(base, false)
}

// cachedRendition returns the cached rendition of a request-derived base,
// among the own Hosts' or the budgeted ones, made (cheaply: nothing is
// rendered yet) on first use.
func (s *Service) cachedRendition(base string, own bool) *rendition {
	c := s.hosted
	shelf := c.byBase
	if own {
		shelf = c.own
	}
	if rd, ok := shelf.Get(base); ok {
		return rd
	}
	made := s.newRendition(base)
	made.cache, made.own = c, own
	made.endpoint.Budget = c.budget / 4 // a request-derived rendition shares the cache's budget
	rd, _ := shelf.GetOrAdd(base, made, 0)
	return rd
}

// vouchedHost reports whether r's connection vouches for r's Host, the
// mark of the site's own Host when no base_url is configured: over TLS, the
// name the handshake was made for (a name the server holds a certificate
// for); over plain HTTP, localhost or the address the connection reached.
// Either way the port, if named, is the one the connection reached. A
// client can send any other Host it likes, but only a few Hosts can be
// vouched for.
func vouchedHost(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	reached, err := netip.ParseAddrPort(local.String())
	if err != nil {
		return false
	}
	name, port := r.Host, ""
	if h, p, err := net.SplitHostPort(r.Host); err == nil {
		name, port = h, p
	}
	if port != "" && port != strconv.Itoa(int(reached.Port())) {
		return false
	}
	if r.TLS != nil {
		return r.TLS.ServerName != "" && strings.EqualFold(name, r.TLS.ServerName)
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(name, "[]"))
	return err == nil && ip.Unmap() == reached.Addr().Unmap()
}

// headersFor returns the per-base header values: a rendition's when one is
// at hand, else computed from base alone, so that a problem never adds a
// rendition to the cache.
func (s *Service) headersFor(base string) *baseHeaders {
	if s.fixed != nil {
		return &s.fixed.baseHeaders
	}
	if rd, ok := s.hosted.byBase.Peek(base); ok {
		return &rd.baseHeaders
	}
	bh := s.newBaseHeaders(base)
	return &bh
}

// document returns the document of path (of route rt, and slug for an
// insight), rendering it first in a request-derived rendition.
func (s *Service) document(rd *rendition, rt *route, slug, path string) *document {
	if rd.eager != nil {
		return rd.eager[path]
	}
	v, ok := rd.lazy.Load(path)
	if !ok {
		v, _ = rd.lazy.LoadOrStore(path, new(lazyDocument))
	}
	ld := v.(*lazyDocument)
	ld.once.Do(func() {
		rd.cache.slots <- struct{}{}
		defer func() { <-rd.cache.slots }()
		doc, err := rd.render(rt, slug, true)
		if err != nil {
			panic(fmt.Errorf("rendering %s: %w", path, err)) // content was validated at load
		}
		ld.doc = doc
		ld.doc.owner = rd
		rd.account(len(doc.body))
	})
	return ld.doc
}

// account adds n bytes to what rd holds; the cache then drops the least
// recently used renditions while it is over its budget, and rd itself
// when rd alone is over it. A rendition no longer cached is not counted:
// the requests that hold it finish with it.
func (rd *rendition) account(n int) {
	if rd.own {
		return
	}
	rd.cache.byBase.Grow(rd.Base, rd, n)
}

// baseHeaders are the header values that depend on the base URL only.
type baseHeaders struct {
	// origin is the base URL's origin, the one browser origin /mcp accepts.
	origin string
	// link is the Link header every response carries (RFC 9727 and
	// RFC 8631 relations); apiLink adds the deprecation relations for the
	// versioned responses when v1 is deprecated.
	link, apiLink string
	// deprecation and sunset are the RFC 9745 and RFC 8594 fields, if set.
	deprecation, sunset string
	// usage is the Content-Usage field: the site's preferences.
	usage string
}

func (s *Service) newBaseHeaders(base string) baseHeaders {
	developers := base + view.PathDevelopers
	bh := baseHeaders{
		origin: origin.Of(base),
		usage:  s.cat.Usage,
		link: fmt.Sprintf(`<%s>; rel="api-catalog", <%s>; rel="service-desc"; type="%s", <%s>; rel="service-doc"; type="text/html"`,
			base+view.PathCatalog, base+view.PathOpenAPI, respond.MediaJSON, developers),
	}
	bh.apiLink = bh.link
	if d := s.cfg.Deprecation; !d.IsZero() {
		bh.deprecation = deprecationValue(d)
		bh.apiLink += fmt.Sprintf(`, <%s#versioning>; rel="deprecation"; type="text/html"`, developers)
		if s.cfg.Successor != "" {
			bh.apiLink += fmt.Sprintf(`, <%s>; rel="successor-version"`, s.cfg.Successor)
		}
	}
	if t := s.cfg.Sunset; !t.IsZero() {
		bh.sunset = t.UTC().Format(http.TimeFormat)
	}
	return bh
}

// deprecationValue is the Deprecation field (RFC 9745): a Structured
// Field Date.
func deprecationValue(d time.Time) string {
	v, _ := httpsfv.Marshal(httpsfv.NewItem(d)) // a date of Validate's range: nothing can fail
	return v
}

// newRendition makes the rendition of base with nothing rendered yet.
func (s *Service) newRendition(base string) *rendition {
	rd := &rendition{
		links:       newLinks(base, &s.cfg, s.cat, s.routes),
		baseHeaders: s.newBaseHeaders(base),
	}
	rd.onPanic = func(v any) {
		if s.cfg.OnPanic != nil {
			s.cfg.OnPanic(nil, v)
		}
	}
	rd.mcpHandler = mcp.Lazy(rd.mcpSite(), func() {
		if rd.cache != nil {
			rd.account(mcpEstimate)
		}
		rd.mcpBuilt.Store(true)
	})
	rd.endpoint = mcp.Endpoint{
		Base: base, Origin: rd.origin, BodyTimeout: s.cfg.BodyTimeout,
		Events: s.cfg.RateLimit.Events, WindowSeconds: s.cfg.RateLimit.WindowSeconds(), Charge: s.cfg.ChargeExtra,
		Handler: rd.mcpHandler, Recognise: rd.mcpSite().Recognise, Search: rd.mcpSite().Search, Searches: mcp.Searches, Metrics: s.cfg.Metrics,
		Budget: mcp.DefaultBudget, Account: func(n int) {
			if rd.cache != nil {
				rd.account(n)
			}
		},
	}
	tokens, err := token.NewIssuer(token.Config{Secret: s.cfg.TokenSecret, TTL: s.cfg.TokenTTL, Issuer: base, Now: s.cfg.Now})
	if err != nil {
		panic(err) // the secret was checked by New, and base is a normalized URL
	}
	rd.oauth = oauth.At{Base: base, Home: rd.Abs(s.cat.Site.Pages.Home), Tokens: tokens}
	return rd
}

// renderAll fills rd with every document of the route table: the eager
// rendition of the configured base URL.
func (s *Service) renderAll(rd *rendition) error {
	rd.eager = make(map[string]*document)
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.render == nil {
			continue
		}
		if !rt.HasSlug() {
			doc, err := rd.render(rt, "", false)
			if err != nil {
				return fmt.Errorf("rendering %s: %w", rt.Path, err)
			}
			rd.eager[rt.Path] = doc
			continue
		}
		for _, in := range s.cat.Site.Insights {
			path := view.PathFor(s.cat, &rt.Route, in.Slug)
			if rt.twinOf != nil && (path == "" || s.cat.Twins[path] == nil) {
				continue // an insight whose twin would take another document's path
			}
			doc, err := rd.render(rt, in.Slug, false)
			if err != nil {
				return fmt.Errorf("rendering %s: %w", path, err)
			}
			rd.eager[path] = doc
		}
	}
	return nil
}

// render makes the document of route rt (for slug, on a {slug} route); a
// Markdown twin carries its page's address and its size in tokens.
func (rd *rendition) render(rt *route, slug string, hosted bool) (*document, error) {
	body, err := rt.render(rd.links, slug)
	if err != nil {
		return nil, err
	}
	doc := newDocument(rt, body, hosted).withHeaders(rt, rd.links)
	if rt.twinOf != nil {
		doc.headers = rd.twinHeaders(rt.twinOf(rd.links, slug), body)
	}
	return doc, nil
}

// privateCache is a route's cache policy for a document of a request-
// derived base URL: such a document names the Host it was asked with, so a
// shared cache must not serve it to anyone else (a request line in
// absolute form names any host it likes). Browsers still keep it.
func privateCache(policy string) string {
	return strings.Replace(policy, "public", "private", 1)
}

// twinHeaders are the headers of the Markdown twin of the page at url: the
// page as its canonical address (beside the module's usual links), the
// content signals robots.txt publishes (Content-Usage, which every answer
// of the module carries, is set with the common headers), and an estimate
// of the body's size in tokens.
func (rd *rendition) twinHeaders(url string, body []byte) [][2]string {
	return [][2]string{
		{respond.HeaderLink, "<" + url + `>; rel="canonical", ` + rd.link},
		{pages.HeaderContentSignal, rd.links.Cat.Signal},
		{pages.HeaderMarkdownTokens, strconv.Itoa(pages.MarkdownTokens(body))},
	}
}
