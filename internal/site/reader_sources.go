package site

// The reader's sources of addresses: the feeds and the sitemaps, read in
// full on a full read and conditionally on a refresh.

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/sitefacts"
)

// usualFeeds are the addresses tried for a feed when the home page names
// none: where WordPress, Jekyll, Hugo, Eleventy, Astro and Ghost put theirs.
var usualFeeds = []string{"/feed.xml", "/atom.xml", "/index.xml", "/rss.xml", "/feed.json", "/feed/", "/rss/"}

// usualSitemaps are the addresses tried for a sitemap beside those
// robots.txt names, as scanners try them; /wp-sitemap.xml is WordPress's.
var usualSitemaps = []string{"/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml"}

// readFeeds reads the site's feeds. A full read finds them (those the
// home page names, else the usual addresses) and reads every document of a
// paged feed; a refresh asks the first document of each again,
// conditionally. It returns the keys of the pages whose entries are new or
// changed.
func (r *Reader) readFeeds(ctx context.Context, full bool) (changed []string) {
	var targets []*url.URL
	if full {
		targets = r.feedAddresses(ctx)
	} else {
		for _, f := range r.feeds {
			targets = append(targets, f.u)
		}
	}
	var feeds []*feedRead
	for _, u := range targets {
		if ctx.Err() != nil {
			break
		}
		prev := r.feedAt(key(u))
		f := r.readFeed(ctx, u, prev, full)
		if f == nil {
			continue
		}
		feeds = append(feeds, f)
		for k, it := range f.items {
			var was *sitefacts.FeedItem
			if prev != nil {
				was = prev.items[k]
			}
			if was == nil || !it.Updated.Equal(was.Updated) || it.ContentHTML != was.ContentHTML || it.Title != was.Title {
				changed = append(changed, k)
			}
		}
	}
	if ctx.Err() != nil && len(feeds) < len(r.feeds) {
		return changed // cut short: the feeds read before stand
	}
	r.mu.Lock()
	r.feeds = feeds
	r.changed = r.changed || len(changed) > 0
	r.mu.Unlock()
	slices.Sort(changed)
	return changed
}

// feedAt is the feed read at k, or nil.
func (r *Reader) feedAt(k string) *feedRead {
	for _, f := range r.feeds {
		if key(f.u) == k {
			return f
		}
	}
	return nil
}

// feedAddresses are the feeds a full read reads: those the home page
// names (but its comments' feeds), and those read before; else the first
// of the usual addresses that holds a feed.
func (r *Reader) feedAddresses(ctx context.Context) []*url.URL {
	var found []*url.URL
	seen := make(map[string]bool)
	add := func(u *url.URL) {
		if u != nil && !seen[key(u)] && len(found) < r.b.Feeds {
			seen[key(u)] = true
			found = append(found, u)
		}
	}
	if r.home != nil && r.home.facts != nil {
		for _, link := range r.home.facts.Feeds {
			if u, ok := r.c.onSite(r.home.u, link); ok && !commentsFeed(u) {
				add(u)
			}
		}
	}
	for _, f := range r.feeds {
		add(f.u)
	}
	if len(found) > 0 {
		return found
	}
	for _, p := range usualFeeds {
		if ctx.Err() != nil {
			break
		}
		u := r.site(p)
		a := r.c.get(ctx, u, kindFeed, nil)
		if !a.ok() {
			continue
		}
		if _, err := sitefacts.ParseFeed(a.body, a.header.Get("Content-Type"), a.url.String()); err == nil {
			return []*url.URL{a.url}
		}
	}
	return nil
}

// commentsFeed reports whether u is a feed of comments, not of posts
// (WordPress names /comments/feed/ on every page).
func commentsFeed(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	return strings.Contains(p, "/comments/") || strings.Contains(p, "comments-feed") || strings.Contains(u.RawQuery, "comments")
}

// readFeed reads the feed at u: its first document, conditionally on
// prev's, then, on a full read, its next documents (RFC 5005, JSON
// Feed's next_url, WordPress's ?paged=N) while they hold new entries. It
// returns prev when the first document is unchanged or cannot be read
// (unless the site says it is gone), nil when there is no feed.
func (r *Reader) readFeed(ctx context.Context, u *url.URL, prev *feedRead, full bool) *feedRead {
	var v *validators
	if prev != nil {
		v = &prev.v
	}
	a := r.c.get(ctx, u, kindFeed, v)
	switch {
	case a.same && prev != nil:
		return prev
	case !a.ok():
		r.logSkip(a)
		if prev != nil && !a.gone() {
			return prev
		}
		return nil
	}
	feed, err := sitefacts.ParseFeed(a.body, a.header.Get("Content-Type"), a.url.String())
	if err != nil {
		r.warnOnce("feed:"+key(u), "a feed of the site cannot be read: it is skipped", zap.String("feed", u.String()), zap.Error(err))
		if prev != nil {
			return prev
		}
		return nil
	}
	if feed.Home != "" {
		r.c.alias(feed.Home)
	}
	f := &feedRead{u: a.url, v: a.v, items: make(map[string]*sitefacts.FeedItem),
		info: FeedInfo{URL: a.url.String(), Title: feed.Title, Description: feed.Description, Authors: feed.Authors, Generator: feed.Generator}}
	r.addItems(f, feed)
	if prev != nil && !full {
		// A refresh reads the newest entries; the older ones, read
		// before, stand.
		for k, it := range prev.items {
			if f.items[k] == nil {
				f.items[k] = it
			}
		}
		return f
	}
	doc := a.url
	for pages := 1; pages < r.b.FeedPages && ctx.Err() == nil; pages++ {
		next := r.nextFeedDocument(feed, doc, u, pages)
		if next == nil {
			break
		}
		a := r.c.get(ctx, next, kindFeed, nil)
		if !a.ok() {
			if !a.gone() {
				r.logSkip(a)
			}
			break
		}
		if feed, err = sitefacts.ParseFeed(a.body, a.header.Get("Content-Type"), a.url.String()); err != nil {
			break
		}
		if r.addItems(f, feed) == 0 {
			break // no entry it did not have: the end, or a loop
		}
		doc = a.url
	}
	return f
}

// addItems adds the entries of feed whose pages are on the site to f, and
// returns how many it did not have.
func (r *Reader) addItems(f *feedRead, feed *sitefacts.Feed) int {
	added := 0
	for i := range feed.Items {
		it := &feed.Items[i]
		u, ok := r.c.onSite(f.u, it.Link)
		if !ok {
			continue
		}
		k := key(u)
		if f.items[k] == nil {
			added++
		}
		f.items[k] = it
	}
	return added
}

// nextFeedDocument is the document of a paged feed after doc, the
// pages-th: the one the feed names (RFC 5005 next or prev-archive, JSON
// Feed's next_url), else, for WordPress, which names none, ?paged=N of
// the feed's address first.
func (r *Reader) nextFeedDocument(feed *sitefacts.Feed, doc, first *url.URL, pages int) *url.URL {
	if feed.Next != "" {
		u, ok := r.c.onSite(doc, feed.Next)
		if !ok {
			return nil
		}
		return u
	}
	if !strings.Contains(strings.ToLower(feed.Generator), "wordpress") {
		return nil
	}
	next := *first
	q := next.Query()
	q.Set("paged", strconv.Itoa(pages+1))
	next.RawQuery = q.Encode()
	return &next
}

// sitemapRead is one sitemap file as last read.
type sitemapRead struct {
	v        validators
	pages    map[string]time.Time
	children []string
}

// readSitemaps reads the site's sitemaps: on a full read, those robots.txt
// names, the usual addresses and the files they lead to; on a refresh, the
// files read before, each conditionally. At most Sitemaps files and
// Addresses addresses in all are read; a file too large or not a sitemap
// is skipped and the next one read. It returns the keys of the addresses
// that are new, and of those no sitemap lists any more.
func (r *Reader) readSitemaps(ctx context.Context, full bool) (added, removed []string) {
	var roots []string
	if full {
		if r.robots != nil {
			roots = append(roots, r.robots.Sitemaps()...)
		}
		roots = append(roots, r.opts.Sitemaps...)
		roots = append(roots, usualSitemaps...)
	} else {
		if len(r.sitemapFiles) == 0 {
			return nil, nil
		}
		roots = r.sitemapRoots
	}
	locs := make(map[string]time.Time)
	files := make(map[string]*sitemapRead)
	var readRoots []string
	queue := slices.Clone(roots)
	seen := make(map[string]bool)
	// children are the addresses an index listed: one already read is a
	// loop, worth a word to the owner.
	children := make(map[string]bool)
	complete := true
	for len(queue) > 0 && len(seen) < r.b.Sitemaps {
		if ctx.Err() != nil {
			complete = false
			break
		}
		if len(locs) >= r.b.Addresses {
			// The total is reached: a file read now would add nothing
			// (and a limit of 0 is ParseSitemap's default of 100 000).
			r.warnOnce("addresses", "the site's sitemaps list more addresses than the reader takes: the rest are left out",
				zap.Int("bound", r.b.Addresses))
			break
		}
		link := queue[0]
		queue = queue[1:]
		u, ok := r.c.anyHost(r.c.site, link)
		if !ok || u.Path == ownSitemap {
			continue
		}
		k := key(u)
		if seen[k] {
			if children[link] {
				r.warnOnce("sitemap-loop:"+k, "a sitemap index of the site lists a sitemap already read (a loop): it is read once",
					zap.String("sitemap", u.String()))
			}
			continue
		}
		seen[k] = true
		prev := r.sitemapFiles[k]
		var v *validators
		if prev != nil {
			v = &prev.v
		}
		a := r.c.get(ctx, u, kindSitemap, v)
		if a.url != nil && key(a.url) != k && seen[key(a.url)] {
			continue // redirected to a file already read (WordPress's /sitemap.xml)
		}
		var sm *sitemapRead
		switch {
		case a.same && prev != nil:
			sm = prev
		case a.ok():
			parsed, err := sitefacts.ParseSitemap(a.body, r.b.Addresses-len(locs))
			if err != nil {
				if !slices.Contains(usualSitemaps, link) {
					r.warnOnce("sitemap:"+k, "a sitemap of the site cannot be read: it is skipped", zap.String("sitemap", u.String()), zap.Error(err))
				}
				continue
			}
			sm = &sitemapRead{v: a.v, pages: make(map[string]time.Time), children: parsed.Sitemaps}
			for _, p := range parsed.Pages {
				if pu, ok := r.c.anyHost(a.url, p.Loc); ok {
					sm.pages[key(pu)] = p.LastMod
				}
			}
		default:
			if !a.gone() && a.err != nil {
				r.logSkip(a)
				if prev != nil {
					sm = prev // a failure is no removal
					complete = complete && !errors.Is(a.err, errTooLarge)
				}
			}
		}
		if sm == nil {
			continue
		}
		files[k] = sm
		seen[key(a.url)] = true // after a redirect on the site, the file it is
		if slices.Contains(roots, link) {
			readRoots = append(readRoots, link)
		}
		for p, lastmod := range sm.pages {
			if len(locs) >= r.b.Addresses {
				r.warnOnce("addresses", "the site's sitemaps list more addresses than the reader takes: the rest are left out",
					zap.Int("bound", r.b.Addresses))
				break
			}
			locs[p] = lastmod
		}
		for _, c := range sm.children {
			children[c] = true
		}
		queue = append(slices.Clone(sm.children), queue...)
	}
	if len(queue) > 0 && len(seen) >= r.b.Sitemaps {
		r.warnOnce("sitemaps", "the site has more sitemap files than the reader reads: the rest are left out", zap.Int("bound", r.b.Sitemaps))
	}
	for k := range locs {
		if _, ok := r.locs[k]; !ok {
			added = append(added, k)
		}
	}
	if complete {
		for k := range r.locs {
			if _, ok := locs[k]; !ok {
				removed = append(removed, k)
			}
		}
	}
	r.mu.Lock()
	if complete || len(locs) >= len(r.locs) {
		r.locs, r.sitemapFiles = locs, files
		if full {
			r.sitemapRoots = readRoots
		}
	}
	r.changed = r.changed || len(added)+len(removed) > 0
	r.mu.Unlock()
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// ownSitemap is the module's own sitemap, which robots.txt names beside
// the site's: it lists what the reader publishes, not what the site has.
const ownSitemap = "/sitemap-discovery.xml"
