package site

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/net/html"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/sitefacts"
)

// Options configure a Reader.
type Options struct {
	// Transport asks the site.
	Transport Transport
	// Site is the scheme and host the site is read at: base_url, else
	// those of the request that started the reader.
	Site *url.URL
	// LocalAddr is the server's own address, which some handlers
	// report to the site (php_fastcgi's SERVER_PORT); nil when unknown.
	LocalAddr net.Addr
	// UserAgent is the reader's User-Agent; its first word, up to a "/",
	// is the token robots.txt rules name it by.
	UserAgent string
	// Posts reads the site's posts; false when the owner's files hold
	// them, and the site is read for the rest (the person, its pages,
	// its sitemap's addresses).
	Posts bool
	// Sitemaps are sitemaps of the site's the owner names (site_sitemaps),
	// read beside those its robots.txt names.
	Sitemaps []string
	// Documents returns the addresses of the module's documents a site may
	// have files of its own at; each full read asks the site for them, and
	// the snapshot names those it serves (Snapshot.SiteFiles).
	Documents func() []string
	// Texts returns the paths of pages whose main content is wanted as
	// Markdown beside the home and About pages' (the owner's posts whose
	// sources hold template syntax, whose body is then the page's).
	Texts func() []string
	// Candidates returns the paths of pages the owner's files name (or
	// would by default), whose status each full read asks the site for.
	Candidates func() []string
	// Bounds are the limits of reading; zero fields take DefaultBounds'.
	Bounds Bounds
	// Logger receives what the reader has to say; nil logs nothing.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Publish is given each snapshot that differs from the last: as the
	// first read goes, then after each read that found a change.
	Publish func(*Snapshot)
}

// Reader reads one site, in the background, and keeps up with it.
type Reader struct {
	opts Options
	b    Bounds
	c    *client
	log  *zap.Logger

	// The state of what was read, owned by the goroutine running Run.
	robots     *sitefacts.Robots
	robotsBody []byte
	robotsV    *validators
	home       *pageRead
	feeds      []*feedRead
	// sitemapFiles are the sitemap files read, by key, and sitemapRoots
	// the addresses a refresh starts from (those that were sitemaps).
	sitemapFiles map[string]*sitemapRead
	sitemapRoots []string
	locs         map[string]time.Time // sitemap addresses (keys) and their lastmod
	pages        map[string]*pageRead // every page read, by key
	status       map[string]int
	// siteFiles are the module's documents the site has files of its own
	// at.
	siteFiles []string
	// about and contact are the keys of the About and contact pages, nav
	// those of the pages the home page's navigation names; "" and none
	// when the site has none.
	about, contact string
	nav            []string
	changed        bool
	lastPublic     time.Time
	// pagesRead counts the pages asked in the read under way, which
	// Bounds.Pages bounds; unpublishedPosts says it found posts that no
	// snapshot has yet.
	pagesRead        int
	unpublishedPosts bool
	// crawlDelay is the Crawl-delay robots.txt asks of the reader.
	crawlDelay time.Duration
	// cpu is held by the goroutine reading a page (see work).
	cpu chan struct{}
	// warned are the warnings given, each once per reader.
	warnMu sync.Mutex
	warned map[string]bool

	// published is the last snapshot published.
	mu        sync.Mutex
	published *Snapshot
}

// pageRead is one page of the site as last read.
type pageRead struct {
	u      *url.URL
	key    string
	status int
	v      validators
	facts  *sitefacts.Page
	// markdown is the page's body or main content, made for posts and the
	// About page.
	markdown []byte
	// item is the feed's entry for the page, when a feed lists it.
	item *sitefacts.FeedItem
	// lastModified is the page's Last-Modified.
	lastModified time.Time
	// depth is how many links from the home page it was found at.
	depth int
	// gone: the site answered 404 or 410 last time.
	gone bool
	// from is the key asked for, when a redirect on the site led to key.
	from string
	// tags are the texts of a post's links to its tags and categories.
	tags []string
}

// maxTags is how many tags of a post are kept.
const maxTags = 16

// tagsOf are the texts of the links that name a post's tags: rel="tag",
// or an address in a folder of tags or categories (/tags/go/).
func tagsOf(links []sitefacts.Link) []string {
	var tags []string
	for _, l := range links {
		u, err := url.Parse(l.URL)
		if err != nil || l.Text == "" || len(tags) == maxTags {
			continue
		}
		segments := strings.Split(strings.Trim(u.Path, "/"), "/")
		inFolder := len(segments) >= 2 && listSegments[strings.ToLower(segments[len(segments)-2])] &&
			segments[len(segments)-2] != "page" && segments[len(segments)-2] != "author"
		if (strings.Contains(" "+l.Rel+" ", " tag ") || inFolder) && !slices.Contains(tags, l.Text) {
			tags = append(tags, strings.TrimPrefix(l.Text, "#"))
		}
	}
	return tags
}

// feedRead is one feed of the site: its documents, as last read.
type feedRead struct {
	u     *url.URL
	v     validators
	info  FeedInfo
	items map[string]*sitefacts.FeedItem // by key of their page
}

// New makes a Reader for opts. It reads nothing until Run.
func New(opts Options) *Reader {
	b := opts.Bounds
	fillBounds(&b)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	site := &url.URL{Scheme: opts.Site.Scheme, Host: opts.Site.Host}
	r := &Reader{opts: opts, b: b, log: log, warned: make(map[string]bool), cpu: make(chan struct{}, 1)}
	r.c = &client{transport: opts.Transport, site: site, localAddr: opts.LocalAddr, userAgent: opts.UserAgent, bounds: &r.b}
	r.reset()
	return r
}

// fillBounds sets b's zero fields to DefaultBounds'.
func fillBounds(b *Bounds) {
	d := DefaultBounds
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&b.Concurrency, d.Concurrency)
	set(&b.PageBytes, d.PageBytes)
	set(&b.FeedBytes, d.FeedBytes)
	set(&b.SitemapBytes, d.SitemapBytes)
	set(&b.RobotsBytes, d.RobotsBytes)
	set(&b.Pages, d.Pages)
	set(&b.Sitemaps, d.Sitemaps)
	set(&b.Addresses, d.Addresses)
	set(&b.Feeds, d.Feeds)
	set(&b.FeedPages, d.FeedPages)
	set(&b.Depth, d.Depth)
	if b.AnswerTime <= 0 {
		b.AnswerTime = d.AnswerTime
	}
	if b.ReadTime <= 0 {
		b.ReadTime = d.ReadTime
	}
	if b.FullRead <= 0 {
		b.FullRead = d.FullRead
	}
	if b.Refresh < 0 {
		b.Refresh = 0
	}
}

func (r *Reader) reset() {
	r.sitemapFiles = make(map[string]*sitemapRead)
	r.locs = make(map[string]time.Time)
	r.pages = make(map[string]*pageRead)
	r.status = make(map[string]int)
}

// Run reads the site in full, then keeps up with it until ctx is done:
// every Refresh it asks the feeds and sitemaps again, conditionally, and
// every FullRead every page.
func (r *Reader) Run(ctx context.Context) {
	r.full(ctx)
	if r.b.Refresh == 0 {
		return
	}
	last := r.opts.Now()
	tick := time.NewTicker(r.b.Refresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if r.opts.Now().Sub(last) >= r.b.FullRead {
			last = r.opts.Now()
			r.full(ctx)
		} else {
			r.refresh(ctx)
		}
	}
}

// Snapshot is the last snapshot published, nil before the first.
func (r *Reader) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.published
}

// key is how the reader names an address of the site: its escaped path
// and query.
func key(u *url.URL) string {
	k := u.EscapedPath()
	if u.RawQuery != "" {
		k += "?" + u.RawQuery
	}
	return k
}

// warnOnce logs msg at WARN once per reader for the key what.
func (r *Reader) warnOnce(what, msg string, fields ...zap.Field) {
	r.warnMu.Lock()
	said := r.warned[what]
	r.warned[what] = true
	r.warnMu.Unlock()
	if said {
		r.log.Debug(msg, fields...)
		return
	}
	r.log.Warn(msg, fields...)
}

// full reads the whole site: robots.txt, the home page, the feeds and the
// sitemaps, then every page they and the crawl lead to, within the bounds.
func (r *Reader) full(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.b.ReadTime)
	defer cancel()
	start := r.opts.Now()
	r.pagesRead = 0
	r.readRobots(ctx)
	r.home = r.readOne(ctx, r.site("/"), 0, r.home)
	if r.home.facts != nil && r.home.facts.Canonical != "" {
		r.c.alias(r.home.facts.Canonical)
	}
	r.readSiteFiles(ctx)
	var q queue
	q.done(r.home.u) // read: its links are queued below
	if r.opts.Posts {
		r.readFeeds(ctx, true)
		for _, f := range r.feeds {
			for k := range f.items {
				q.add(r.pageURL(k), 1)
			}
		}
	}
	// The home page's links come before the sitemaps' addresses: a site
	// whose sitemaps list more pages than one read reads still has the
	// posts its home page shows read.
	if r.expands(r.home) {
		for _, l := range r.links(r.home) {
			q.add(l, 1)
		}
	}
	r.readSitemaps(ctx, true)
	if r.opts.Posts {
		for _, k := range slices.Sorted(maps.Keys(r.locs)) {
			q.add(r.pageURL(k), 1)
		}
		// Every post read before is asked again: gone, changed, or the
		// same (a 304 where the site sends validators).
		for _, k := range slices.Sorted(maps.Keys(r.pages)) {
			if p := r.pages[k]; r.isPost(p) {
				q.add(p.u, p.depth)
			}
		}
	}
	r.crawl(ctx, &q)
	r.readSitePages(ctx)
	// The catalog made of what was read names the pages whose addresses
	// are checked: the owner's posts matched to the sitemap among them.
	r.publish(false)
	r.checkCandidates(ctx)
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return // stopped: nothing more is published
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.warnOnce("read-time", "reading the site took longer than its bound: what was read is published, the rest is read next time",
			zap.Duration("bound", r.b.ReadTime), zap.Int("pages_read", r.pagesRead))
	}
	r.publish(true)
	r.log.Info("site read", zap.String("site", r.c.site.String()), zap.Int("posts", len(r.Snapshot().Posts)),
		zap.Int("pages_read", r.pagesRead), zap.Int("feeds", len(r.feeds)), zap.Int("sitemap_addresses", len(r.locs)),
		zap.Duration("took", r.opts.Now().Sub(start)), zap.Int64("requests", r.c.requests.Load()))
}

// refresh asks the site again for its feeds and sitemaps, conditionally,
// and reads what they say changed; a site with neither has its home page
// asked again.
func (r *Reader) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.b.ReadTime)
	defer cancel()
	var q queue
	if r.opts.Posts {
		for _, k := range r.readFeeds(ctx, false) {
			q.add(r.pageURL(k), 1)
		}
	}
	added, removed := r.readSitemaps(ctx, false)
	if r.opts.Posts {
		for _, k := range added {
			q.add(r.pageURL(k), 1)
		}
	}
	for _, k := range removed {
		if p := r.pages[k]; p != nil && r.isPost(p) {
			q.add(p.u, p.depth) // asked again: gone, or still there
		}
	}
	if len(r.sitemapFiles) == 0 && r.home != nil {
		// No sitemap says which posts the site has: its home page and
		// lists do. When the home page changed, they are read again, and
		// a post none of them, nor a feed, links any more is asked again:
		// gone, or still there.
		before := r.home.v.sum
		r.home = r.readOne(ctx, r.home.u, 0, r.home)
		if r.home.v.sum != before && r.expands(r.home) {
			var lists queue
			lists.done(r.home.u)
			for _, l := range r.links(r.home) {
				lists.add(l, 1)
			}
			r.crawl(ctx, &lists)
			linked := r.linkedFromLists()
			for _, k := range slices.Sorted(maps.Keys(r.pages)) {
				if p := r.pages[k]; r.isPost(p) && !linked[k] && r.itemOf(k) == nil {
					q.add(p.u, p.depth)
				}
			}
		}
	}
	r.crawl(ctx, &q)
	if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.publish(true)
	}
}

// linkedFromLists are the keys of the pages the home page and the pages
// that list posts link to.
func (r *Reader) linkedFromLists() map[string]bool {
	linked := make(map[string]bool)
	for _, p := range r.pages {
		if p.facts == nil || p.gone || !r.expands(p) {
			continue
		}
		for _, l := range p.facts.Links {
			if u, ok := r.c.onSite(p.u, l.URL); ok {
				linked[key(u)] = true
			}
		}
	}
	return linked
}

// site is the address of path on the site.
func (r *Reader) site(path string) *url.URL {
	u, _ := r.c.onSite(r.c.site, path)
	return u
}

// pageURL is the address of key on the site.
func (r *Reader) pageURL(k string) *url.URL {
	u, ok := r.c.onSite(r.c.site, k)
	if !ok {
		return nil
	}
	return u
}

// readRobots reads the site's robots.txt, which from then on says what
// the reader may read.
func (r *Reader) readRobots(ctx context.Context) {
	a := r.c.get(ctx, r.site("/robots.txt"), kindRobots, r.robotsV)
	switch {
	case a.same:
		return
	case a.ok() && textual(a.header):
		r.robotsBody, r.robotsV = a.body, &a.v
	case a.err == nil && a.status >= 500:
		return // a failing site: the rules read last stand
	default:
		r.robotsBody, r.robotsV = nil, nil
	}
	r.robots = sitefacts.ParseRobots(r.robotsBody)
	r.c.allowed = r.robots.Allowed
	r.crawlDelay = r.robots.CrawlDelay()
	r.changed = true
}

// textual reports whether an answer is plain text, as robots.txt is.
func textual(h http.Header) bool {
	mediaType, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mediaType == "" || mediaType == "text/plain"
}

// queue is the pages left to read, in the order found.
type queue struct {
	jobs []job
	seen map[string]bool
}

type job struct {
	u     *url.URL
	depth int
	// text: its main content is wanted as Markdown whatever it is.
	text bool
}

// done marks u as read, so that it is not queued.
func (q *queue) done(u *url.URL) {
	if q.seen == nil {
		q.seen = make(map[string]bool)
	}
	if u != nil {
		q.seen[key(u)] = true
	}
}

func (q *queue) add(u *url.URL, depth int) {
	if u == nil {
		return
	}
	if q.seen == nil {
		q.seen = make(map[string]bool)
	}
	k := key(u)
	if q.seen[k] {
		return
	}
	q.seen[k] = true
	q.jobs = append(q.jobs, job{u: u, depth: depth})
}

// crawl reads the pages of q, Concurrency at a time, adding the links of
// the home and list pages it reads, until q is empty, Pages are read or
// ctx is done.
func (r *Reader) crawl(ctx context.Context, q *queue) {
	type result struct {
		j job
		p *pageRead
	}
	jobs := make(chan job)
	results := make(chan result)
	var wg sync.WaitGroup
	for range r.b.Concurrency {
		wg.Go(func() {
			for j := range jobs {
				prev := r.peek(j.u)
				var p *pageRead
				if !r.work(ctx, func() { p = r.fetchPage(ctx, j, prev) }) {
					p = &pageRead{u: j.u, key: key(j.u)} // stopped: not read
				}
				results <- result{j, p}
			}
		})
	}
	go func() { wg.Wait(); close(results) }()

	inFlight, next := 0, 0
	// peeked pages are handed to the workers as they were: the state is
	// changed only here.
	for {
		// An address robots.txt disallows is no page read: it is passed
		// over, not counted against Pages.
		for next < len(q.jobs) && !r.c.mayRead(q.jobs[next].u) {
			next++
		}
		var send chan job
		var j job
		if next < len(q.jobs) && ctx.Err() == nil && r.pagesRead+inFlight < r.b.Pages-siteReserve {
			send, j = jobs, q.jobs[next]
		}
		if send == nil && inFlight == 0 {
			break
		}
		select {
		case send <- j:
			next++
			inFlight++
		case res := <-results:
			inFlight--
			r.store(res.p)
			if !res.p.gone && res.p.status == http.StatusOK && r.expands(res.p) {
				// The next page of a list is the same list: following it
				// costs no depth, so that every page of a long blog's
				// pagination is read.
				if u, ok := r.c.onSite(res.p.u, res.p.facts.Next); ok && res.p.facts.Next != "" {
					q.add(u, res.j.depth)
				}
				if res.j.depth < r.b.Depth {
					for _, l := range r.links(res.p) {
						q.add(l, res.j.depth+1)
					}
				}
			}
		}
	}
	close(jobs)
	for res := range results {
		r.store(res.p)
	}
	if next < len(q.jobs) && r.pagesRead+siteReserve >= r.b.Pages {
		r.warnOnce("pages", "the site has more pages than one read reads: the rest are left out",
			zap.Int("bound", r.b.Pages), zap.Int("left", len(q.jobs)-next))
	}
}

// peek returns the page at u as last read, nil when never read. Workers
// call it, so the pages map is only read while crawl's loop waits on them.
func (r *Reader) peek(u *url.URL) *pageRead {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pages[key(u)]
}

// store keeps p as the page read at its key, and publishes what has been
// read when publishEvery has passed since the last snapshot.
func (r *Reader) store(p *pageRead) {
	if p == nil {
		return
	}
	r.mu.Lock()
	r.pagesRead++
	if p.from != "" && p.from != p.key {
		// Redirected on the site: the page is at its new address; the
		// old one is recorded as the redirect it is.
		r.status[p.from] = http.StatusMovedPermanently
	}
	prev := r.pages[p.key]
	newPost := false
	if prev == nil || prev.v.sum != p.v.sum || prev.status != p.status || prev.gone != p.gone {
		newPost = r.isPost(p) && !r.isPost(prev)
		r.pages[p.key] = p
		r.status[p.key] = p.status
		r.changed = true
	}
	// What a read under way publishes is the posts it found: a check of
	// addresses or a page that changed waits for the end of the read.
	r.unpublishedPosts = r.unpublishedPosts || newPost
	due := r.unpublishedPosts && r.opts.Now().Sub(r.lastPublic) > publishEvery
	r.mu.Unlock()
	if due {
		r.publish(false)
	}
}

// siteReserve is what a crawl leaves of Bounds.Pages for the pages the
// catalog names beside the posts (the About and contact pages, the
// navigation), which are read after it.
const siteReserve = maxNav + 8

// publishEvery is how often a read under way publishes what it has: the
// first read of a large site is served as it goes.
const publishEvery = 2 * time.Second

// readOne reads one page outside a crawl.
func (r *Reader) readOne(ctx context.Context, u *url.URL, depth int, prev *pageRead) *pageRead {
	p := &pageRead{u: u, key: key(u)}
	r.work(ctx, func() { p = r.fetchPage(ctx, job{u: u, depth: depth}, prev) })
	r.store(p)
	if p.status != http.StatusOK && prev != nil && !p.gone {
		return prev
	}
	return p
}

// fetchPage asks the site for the page of j, conditional on prev, and
// reads it: its facts, and its Markdown when it is a post or the About
// page. An answer that is not a page keeps prev's facts, unless the site
// says the page is gone.
func (r *Reader) fetchPage(ctx context.Context, j job, prev *pageRead) *pageRead {
	var v *validators
	if prev != nil && prev.status == http.StatusOK {
		v = &prev.v
	}
	a := r.c.get(ctx, j.u, kindPage, v)
	p := &pageRead{u: a.url, key: key(a.url), from: key(j.u), status: a.status, depth: j.depth}
	if a.err != nil {
		r.logSkip(a)
		if prev != nil {
			return prev
		}
		p.status = 0
		return p
	}
	if a.same && prev != nil {
		kept := *prev
		kept.depth = min(prev.depth, j.depth)
		return &kept
	}
	if a.gone() {
		p.gone = true
		return p
	}
	if a.status != http.StatusOK {
		return p
	}
	p.v = a.v
	if t, err := http.ParseTime(a.header.Get("Last-Modified")); err == nil {
		p.lastModified = t.UTC()
	}
	mediaType, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	if mediaType != "text/html" && mediaType != "application/xhtml+xml" {
		return p // a file, not a page: its status is what counts
	}
	// The page is parsed once, within the conversion's bounds, for its
	// facts and its Markdown both.
	ctx, cancel := context.WithTimeout(ctx, convert.Timeout)
	defer cancel()
	doc, err := convert.Parse(ctx, a.body, a.header.Get("Content-Type"))
	if err != nil {
		r.logSkip(answer{url: a.url, err: err})
		return p
	}
	facts, bodyNode := sitefacts.ReadTree(doc, a.url.String())
	if convert.NoIndex(strings.Join(a.header.Values("X-Robots-Tag"), ",")) {
		facts.NoIndex = true
	}
	p.facts = facts
	if facts.NoIndex {
		return p
	}
	r.mu.Lock()
	item := r.itemOf(p.key)
	wantText := j.text || p.key == "/" || r.opts.Posts && (item != nil || facts.Article.IsArticle) || isAboutPath(p.u.Path)
	r.mu.Unlock()
	p.item = item
	if wantText {
		p.markdown = r.text(ctx, a, doc, bodyNode, facts, item)
	}
	if (item != nil || facts.Article.IsArticle) && !facts.IsList && p.key != "/" {
		// A post's links are not followed: they need not be kept, but
		// for those to its tags, which say what it is about.
		p.tags = tagsOf(facts.Links)
		facts.Links = nil
	}
	return p
}

// work runs f, the reading of one page (asking the site, then parsing
// and converting what it answered), one at a time, then rests before the
// next may run (see rest). It reports false, without running f, when ctx
// is done first.
func (r *Reader) work(ctx context.Context, f func()) bool {
	select {
	case r.cpu <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-r.cpu }()
	heap := readHeap()
	start := time.Now()
	f()
	took := time.Since(start)
	after := readHeap()
	timer := time.NewTimer(rest(took, r.crawlDelay, after.allocs-heap.allocs, after.room()))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	return true
}

// collectionsPerSecond bounds the garbage collections the reading of the
// site may cause: what a read allocates (parsing and converting pages,
// about 100 KB a post) makes the process collect its garbage, and each
// collection stops and slows the site's visitors for a moment. At two a
// second a read of 1 000 posts left visitors' p99 at 1.5-1.7 times what
// it is at rest, at one 1.2 times (docs/performance.md, "Reading the
// site").
const collectionsPerSecond = 1

// rest is how long the reader waits after a page that took took and
// allocated allocated bytes, with room bytes left before the heap reaches
// the collector's goal: as long as the page took (the reader keeps the
// site and the process busy at most half the time of one visitor), as
// long as the site's Crawl-delay asks, and as long as makes its
// allocations cause at most collectionsPerSecond collections, whichever
// is the longest. A process with more memory in use collects less often
// for the same garbage, and reads faster.
func rest(took, crawlDelay time.Duration, allocated, room uint64) time.Duration {
	room = max(room, minRoom)
	garbage := time.Duration(min(float64(allocated)/float64(room)/collectionsPerSecond, maxGarbageRest.Seconds()) * float64(time.Second))
	return max(took, crawlDelay, garbage)
}

// maxGarbageRest bounds the rest the garbage of one page asks: the
// allocations counted are the process's, and a page read while the site's
// visitors allocate much would otherwise hold the read for long.
const maxGarbageRest = 5 * time.Second

// minRoom is the least room the collector leaves between collections (the
// runtime's smallest heap goal).
const minRoom = 4 << 20

// heapState is what the runtime says of the heap: the bytes allocated
// since the process started, and the collector's goal and live heap.
type heapState struct{ allocs, goal, live uint64 }

// room is how much may be allocated before the next collection.
func (h heapState) room() uint64 {
	if h.goal > h.live {
		return h.goal - h.live
	}
	return 0
}

// readHeap reads the heap's state, without stopping the process as
// runtime.ReadMemStats would.
func readHeap() heapState {
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(samples)
	var v [3]uint64
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	return heapState{allocs: v[0], goal: v[1], live: v[2]}
}

// logSkip logs an answer the reader could not use: once per reason at
// WARN, then at DEBUG.
func (r *Reader) logSkip(a answer) {
	if a.err == nil || errors.Is(a.err, errRobots) || errors.Is(a.err, context.Canceled) {
		return
	}
	addr := ""
	if a.url != nil {
		addr = a.url.String()
	}
	if len(addr) > 256 {
		addr = addr[:256] + "…"
	}
	r.warnOnce("skip:"+a.err.Error(), "an address of the site is skipped: "+a.err.Error(),
		zap.String("address", addr))
}

// text is the Markdown of a post's body, or of a page's main content: the
// element the page marks as the post's body, else the page's main
// content, else the feed's full content. The headings that say the title
// before the text are dropped (and its first heading when it is the
// title), as the module writes the title itself.
// doc is the page as parsed, bodyNode the element of it ReadTree found;
// ctx bounds the conversion.
func (r *Reader) text(ctx context.Context, a answer, doc, bodyNode *html.Node, facts *sitefacts.Page, item *sitefacts.FeedItem) []byte {
	title := facts.Article.Headline
	if title == "" && item != nil {
		title = item.Title
	}
	var c *convert.Converted
	var err error
	// What the page shows, as the browser shows it: an agent reading a
	// post's Markdown must get what its page says (scanners compare the
	// two). The feed's copy, often shorter, serves only a page with no
	// text of its own to convert.
	c, err = convert.PostTree(ctx, doc, bodyNode, a.url.String(), title)
	if (err != nil || len(bytes.TrimSpace(c.Markdown)) == 0) && item != nil && item.ContentHTML != "" {
		c, err = convert.Post(ctx, []byte(item.ContentHTML), "text/html; charset=utf-8", a.url.String(), title)
	}
	if err != nil {
		if !errors.Is(err, convert.ErrNoText) && !errors.Is(err, convert.ErrNoIndex) {
			r.warnOnce("convert:"+a.url.Path, "a page of the site could not be read as Markdown", zap.String("address", a.url.String()), zap.Error(err))
		}
		return nil
	}
	return dropTitle(c.Markdown, title)
}

// itemOf is the feed entry of the page at k, nil when no feed lists it.
// r.mu is held.
func (r *Reader) itemOf(k string) *sitefacts.FeedItem {
	for _, f := range r.feeds {
		if it := f.items[k]; it != nil {
			return it
		}
	}
	return nil
}

// isAboutPath reports whether a path is one where sites keep their About
// page.
func isAboutPath(p string) bool {
	switch strings.ToLower(strings.TrimSuffix(path.Base(strings.TrimSuffix(p, "/")), ".html")) {
	case "about", "about-me", "about-us", "aboutme", "bio":
		return true
	}
	return false
}
