package site

// The pages the reader reads: which links the crawl follows, which pages
// are posts, the pages the catalog names (About, contact, the list of
// posts, the navigation), and the snapshot made of them.

import (
	"context"
	"mime"

	"go.uber.org/zap"
	"maps"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
)

// expands reports whether the crawl follows p's links: the home page and
// the pages that list posts.
func (r *Reader) expands(p *pageRead) bool {
	return p.facts != nil && !p.facts.NoIndex && (p.key == "/" || p.facts.IsList)
}

// links are the addresses of p the crawl follows: its next page first,
// then its links on the site to what may be pages.
func (r *Reader) links(p *pageRead) []*url.URL {
	var out []*url.URL
	if u, ok := r.c.onSite(p.u, p.facts.Next); ok && p.facts.Next != "" {
		out = append(out, u)
	}
	for _, l := range p.facts.Links {
		if u, ok := r.c.onSite(p.u, l.URL); ok && crawlable(u) {
			out = append(out, u)
		}
	}
	return out
}

// assetExt are the extensions of addresses that are files, not pages.
var assetExt = map[string]bool{
	".css": true, ".js": true, ".mjs": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true,
	".webp": true, ".avif": true, ".ico": true, ".pdf": true, ".zip": true, ".gz": true, ".xml": true, ".json": true,
	".txt": true, ".md": true, ".mp3": true, ".mp4": true, ".webm": true, ".woff": true, ".woff2": true, ".ttf": true,
	".rss": true, ".atom": true, ".csv": true, ".tar": true, ".epub": true, ".mov": true, ".wav": true, ".ogg": true,
}

// noisePaths are the addresses of a site that are no pages to read:
// logins, feeds, APIs, the module's own.
var noisePaths = regexp.MustCompile(`(?i)^/(wp-admin|wp-login\.php|wp-json|xmlrpc\.php|wp-content|wp-includes|feed|comments/feed|api/v1|mcp|\.well-known|cgi-bin|cart|checkout|login|logout|signin|signup|register|search)(/|$)|/feed/?$|/trackback/?$`)

// noiseQuery are the query keys of links that lead to another view of a
// page already read (a reply form, a share button) or a search.
var noiseQuery = []string{"replytocom", "share", "like_comment", "feed", "s", "q", "amp", "print", "preview", "redirect_to", "action"}

// crawlable reports whether u may be a page worth reading.
func crawlable(u *url.URL) bool {
	if assetExt[strings.ToLower(path.Ext(u.Path))] || noisePaths.MatchString(u.Path) {
		return false
	}
	if u.RawQuery == "" {
		return true
	}
	q := u.Query()
	for _, k := range noiseQuery {
		if q.Has(k) {
			return false
		}
	}
	for k := range q {
		if strings.HasPrefix(k, "utm_") {
			return false
		}
	}
	return true
}

// listSegments are the folders generators keep their list pages in (tags,
// categories, pagination, archives): a page there is no post, whatever its
// metadata says.
var listSegments = map[string]bool{
	"tags": true, "tag": true, "categories": true, "category": true, "topics": true, "topic": true,
	"series": true, "page": true, "author": true, "authors": true, "archive": true, "archives": true,
}

// listPath reports whether p is under one of listSegments.
func listPath(p string) bool {
	segments := strings.Split(strings.Trim(p, "/"), "/")
	for _, s := range segments[:max(0, len(segments)-1)] {
		if listSegments[strings.ToLower(s)] {
			return true
		}
	}
	return false
}

// isPost reports whether p is a post of the site: a page that answers 200,
// that the site does not keep out of indexes, that a feed lists or whose
// own metadata says it is an article, and that is not the home page, a
// list page or the About page. r.mu is held or the crawl is not running.
func (r *Reader) isPost(p *pageRead) bool {
	if p == nil || p.status != http.StatusOK || p.gone || p.facts == nil || p.facts.NoIndex || p.key == "/" || p.key == r.about {
		return false
	}
	if listPath(p.u.Path) {
		return false
	}
	if p.item != nil {
		return true
	}
	return p.facts.Article.IsArticle && !p.facts.IsList
}

// aboutText matches the text of a link to an About page.
var aboutText = regexp.MustCompile(`(?i)^\s*(about|about me|about us|bio|who am i|who i am)\s*$`)

// contactText matches the text of a link to a contact page.
var contactText = regexp.MustCompile(`(?i)^\s*(contact|contact me|contact us|get in touch)\s*$`)

// usualAbout are the addresses tried for an About page when the home page
// links none.
var usualAbout = []string{"/about/", "/about", "/about.html", "/about-me/"}

// maxNav is how many pages of the home page's navigation the profile's
// site structure names.
const maxNav = 12

// readSitePages finds the pages the catalog names beside the posts: the
// About page (linked from the home page, else at the usual addresses), the
// contact page, the page listing the posts, and the pages the home page's
// navigation names, reading those the crawl did not.
func (r *Reader) readSitePages(ctx context.Context) {
	r.about = ""
	if r.home == nil || r.home.facts == nil {
		return
	}
	var about, contact *url.URL
	var nav []*url.URL
	for _, l := range r.home.facts.Links {
		u, ok := r.c.onSite(r.home.u, l.URL)
		if !ok || key(u) == "/" || !crawlable(u) {
			continue
		}
		switch {
		case about == nil && (aboutText.MatchString(l.Text) || isAboutPath(u.Path) && l.InNav):
			about = u
		case contact == nil && (contactText.MatchString(l.Text) || path.Base(strings.TrimSuffix(u.Path, "/")) == "contact" && l.InNav):
			contact = u
		}
		if l.InNav && len(nav) < maxNav && !listPath(u.Path) && !strings.Contains(l.Rel, "next") && !strings.Contains(l.Rel, "prev") &&
			!slices.ContainsFunc(nav, func(n *url.URL) bool { return key(n) == key(u) }) {
			nav = append(nav, u)
		}
	}
	read := func(u *url.URL, text bool) *pageRead {
		if p := r.pages[key(u)]; p != nil && (!text || p.markdown != nil || p.status != http.StatusOK) {
			return p
		}
		if r.pagesRead >= r.b.Pages {
			return nil
		}
		var p *pageRead
		if !r.work(ctx, func() { p = r.fetchPage(ctx, job{u: u, depth: 1, text: text}, r.pages[key(u)]) }) {
			return nil
		}
		r.store(p)
		return p
	}
	if about != nil {
		if p := read(about, true); !isPage(p) {
			about = nil
		}
	}
	for _, link := range usualAbout {
		if about != nil || ctx.Err() != nil {
			break
		}
		if p := read(r.site(link), true); isPage(p) {
			about = p.u
		}
	}
	if about != nil {
		r.about = key(r.pages[key(about)].u)
	}
	r.contact = ""
	if contact != nil && isPage(read(contact, false)) {
		r.contact = key(r.pages[key(contact)].u)
	}
	r.nav = r.nav[:0]
	for _, u := range nav {
		if ctx.Err() != nil {
			break
		}
		if p := read(u, false); isPage(p) {
			r.nav = append(r.nav, p.key)
		}
	}
}

// isPage reports whether p is an HTML page of the site that answered 200.
func isPage(p *pageRead) bool {
	return p != nil && p.status == http.StatusOK && !p.gone && p.facts != nil && !p.facts.NoIndex
}

// noSuchPage is the address the reader asks to learn what the site
// answers for an address it has no file at: a single-page app or a
// catch-all answers it 200, and a document it answers the same way is
// not a file of the site's.
const noSuchPage = "/caddy-discovery-no-such-page-5f1c"

// readSiteFiles asks the site for each of the module's documents it may
// have a file of its own at; those it answers 200 with a file (not the
// HTML of a catch-all for a document that is not a page) are left to it.
func (r *Reader) readSiteFiles(ctx context.Context) {
	if r.opts.Documents == nil {
		return
	}
	paths := r.opts.Documents()
	if len(paths) == 0 {
		return
	}
	// A site that answers an address it has no file at with 200 (an app,
	// a single-page app's fallback) answers each document's address too:
	// what it answers there is its own file only when it is another kind
	// of answer than the fallback (a text file where the fallback is an
	// HTML page), never the same kind, let alone the same bytes.
	probe := r.c.get(ctx, r.site(noSuchPage), kindRobots, nil)
	hasCatchAll := probe.ok()
	fallbackType, _, _ := mime.ParseMediaType(probe.header.Get("Content-Type"))
	var files []string
	for _, p := range paths {
		if ctx.Err() != nil {
			return // a stopped read says nothing of the files
		}
		u, ok := r.c.onSite(r.c.site, p)
		if !ok {
			continue
		}
		a := r.c.get(ctx, u, kindRobots, nil)
		if !a.ok() || key(a.url) != p {
			continue
		}
		mediaType, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
		if hasCatchAll && (a.v.sum == probe.v.sum || mediaType == fallbackType) {
			continue
		}
		if mediaType == "text/html" && !strings.HasSuffix(p, "/developers") {
			continue // a page where a document is asked for: an app's fallback
		}
		files = append(files, p)
	}
	r.mu.Lock()
	if !slices.Equal(files, r.siteFiles) {
		r.siteFiles, r.changed = files, true
	}
	r.mu.Unlock()
}

// checkCandidates asks the site for the pages the owner's files name,
// which the read has not, for their status.
func (r *Reader) checkCandidates(ctx context.Context) {
	if r.opts.Candidates == nil {
		return
	}
	texts := make(map[string]bool)
	if r.opts.Texts != nil {
		for _, p := range r.opts.Texts() {
			texts[p] = true
		}
	}
	for _, c := range slices.Concat(r.opts.Candidates(), slices.Sorted(maps.Keys(texts))) {
		if ctx.Err() != nil {
			return
		}
		u, ok := r.c.onSite(r.c.site, c)
		if !ok {
			continue
		}
		text := texts[key(u)]
		if p := r.pages[key(u)]; p != nil && (!text || p.markdown != nil || p.status != http.StatusOK) {
			continue
		}
		if r.pagesRead >= r.b.Pages {
			r.warnOnce("pages", "the site has more pages than one read reads: the rest are left out", zap.Int("bound", r.b.Pages))
			return
		}
		r.work(ctx, func() { r.store(r.fetchPage(ctx, job{u: u, depth: 1, text: text}, nil)) })
	}
}

// publish makes a snapshot of what has been read and gives it to Publish,
// when anything changed since the last one.
func (r *Reader) publish(complete bool) {
	r.mu.Lock()
	if !r.changed && r.published != nil && (r.published.Complete || !complete) {
		r.mu.Unlock()
		return
	}
	snap := r.snapshot(complete)
	r.published, r.changed, r.lastPublic, r.unpublishedPosts = snap, false, r.opts.Now(), false
	r.mu.Unlock()
	if r.opts.Publish != nil {
		r.opts.Publish(snap)
	}
}

// snapshot is the state as a Snapshot; r.mu is held.
func (r *Reader) snapshot(complete bool) *Snapshot {
	s := &Snapshot{Site: r.c.site, Complete: complete, At: r.opts.Now(), Robots: r.robotsBody,
		Status: maps.Clone(r.status), Requests: r.c.requests.Load(), Contact: r.contact, SiteFiles: slices.Clone(r.siteFiles)}
	if r.home != nil {
		s.Home, s.HomePath = r.home.facts, r.home.key
	}
	if p := r.pages[r.about]; r.about != "" && p != nil {
		s.About = &PageText{Path: p.key, Facts: p.facts, Markdown: p.markdown}
	}
	s.Texts = make(map[string][]byte)
	s.Descriptions = make(map[string]string)
	var siteWide [2]string
	if r.home != nil && r.home.facts != nil {
		siteWide = [2]string{r.home.facts.Description, r.home.facts.Site.Description}
	}
	for k, p := range r.pages {
		if p.facts != nil && p.facts.Description != "" && k != "/" && p.facts.Description != siteWide[0] && p.facts.Description != siteWide[1] {
			s.Descriptions[k] = p.facts.Description
		}
		if len(p.markdown) > 0 && (!r.opts.Posts || !r.isPost(p)) && p.status == http.StatusOK {
			s.Texts[k] = p.markdown
		}
	}
	for _, k := range r.nav {
		if p := r.pages[k]; p != nil && p.facts != nil && !r.isPost(p) {
			label := ""
			for _, l := range r.home.facts.Links {
				if u, ok := r.c.onSite(r.home.u, l.URL); ok && key(u) == k && l.Text != "" {
					label = l.Text
					break
				}
			}
			desc := p.facts.Description
			if desc == r.home.facts.Description || desc == r.home.facts.Site.Description {
				desc = "" // the site's, which a theme repeats on every page
			}
			s.Nav = append(s.Nav, NavPage{Path: k, Label: label, Description: desc})
		}
	}
	for _, f := range r.feeds {
		s.Feeds = append(s.Feeds, f.info)
	}
	posts := make(map[string]bool)
	for _, k := range slices.Sorted(maps.Keys(r.pages)) {
		p := r.pages[k]
		if !r.isPost(p) {
			continue
		}
		posts[k] = true
		item := p.item
		if item == nil {
			item = r.itemOf(k)
		}
		s.Posts = append(s.Posts, Post{Path: k, Facts: p.facts, Item: item, Markdown: p.markdown,
			LastMod: r.locs[k], LastModified: p.lastModified, Tags: p.tags})
	}
	s.List = r.listPage(posts)
	s.SitemapPaths = slices.Sorted(maps.Keys(r.locs))
	return s
}

// listPage is the key of the page of the home page's navigation that
// links to the most posts, when it links to at least two and to as many
// as the home page does; "" when the home page is the list.
func (r *Reader) listPage(posts map[string]bool) string {
	count := func(p *pageRead) int {
		n := 0
		for _, l := range p.facts.Links {
			if u, ok := r.c.onSite(p.u, l.URL); ok && posts[key(u)] {
				n++
			}
		}
		return n
	}
	best, most := "", 1
	for _, k := range r.nav {
		if p := r.pages[k]; p != nil && p.facts != nil && k != r.about && !posts[k] {
			if n := count(p); n > most {
				best, most = k, n
			}
		}
	}
	if best == "" || r.home == nil || r.home.facts == nil || count(r.home) > most {
		return ""
	}
	return best
}
