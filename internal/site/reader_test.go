package site

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/sitefacts"
)

// fakeSite is a site of the tests' own: pages by path (with any query),
// served with the status, type and validators given, and a record of what
// the reader asked.
type fakeSite struct {
	mu    sync.Mutex
	pages map[string]fakePage
	// asked counts the requests by path; conditional those answered 304.
	asked       map[string]int
	conditional int
	// seen is the first request's identity, for the identity checks.
	seen []*http.Request
	// handle, when set, answers a path before pages do.
	handle func(w http.ResponseWriter, r *http.Request) bool
}

type fakePage struct {
	status      int
	contentType string
	body        string
	etag        string
	header      map[string]string
}

func newFakeSite() *fakeSite {
	return &fakeSite{pages: make(map[string]fakePage), asked: make(map[string]int)}
}

func (f *fakeSite) set(path, contentType, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages[path] = fakePage{status: http.StatusOK, contentType: contentType, body: body, etag: fmt.Sprintf(`"%x"`, len(body)*31+strings.Count(body, "e"))}
}

func (f *fakeSite) html(path, body string) { f.set(path, "text/html; charset=utf-8", body) }

func (f *fakeSite) remove(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.pages, path)
}

func (f *fakeSite) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked[path]
}

func (f *fakeSite) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.asked {
		n += c
	}
	return n
}

func (f *fakeSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	k := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		k += "?" + r.URL.RawQuery
	}
	f.asked[k]++
	if len(f.seen) < 64 {
		f.seen = append(f.seen, r)
	}
	p, ok := f.pages[k]
	handle := f.handle
	f.mu.Unlock()
	if handle != nil && handle(w, r) {
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	for k, v := range p.header {
		w.Header().Set(k, v)
	}
	if p.etag != "" {
		w.Header().Set("ETag", p.etag)
		if r.Header.Get("If-None-Match") == p.etag {
			f.mu.Lock()
			f.conditional++
			f.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", p.contentType)
	w.WriteHeader(p.status)
	_, _ = w.Write([]byte(p.body))
}

// read reads site once, fully, as the module does, and returns the last
// snapshot and the reader.
func read(t *testing.T, site http.Handler, opts ...func(*Options)) (*Snapshot, *Reader) {
	t.Helper()
	o := Options{
		Transport: site.ServeHTTP,
		Site:      &url.URL{Scheme: "https", Host: "blog.example"},
		UserAgent: "caddy-discovery/test",
		Posts:     true,
		Bounds:    Bounds{Refresh: 0, AnswerTime: 2 * time.Second},
		Logger:    zap.NewNop(),
	}
	for _, f := range opts {
		f(&o)
	}
	r := New(o)
	r.Run(context.Background())
	snap := r.Snapshot()
	if snap == nil {
		t.Fatal("the reader published nothing")
	}
	if !snap.Complete {
		t.Fatal("the last snapshot of a full read is not complete")
	}
	return snap, r
}

func postPaths(s *Snapshot) []string {
	var paths []string
	for _, p := range s.Posts {
		paths = append(paths, p.Path)
	}
	slices.Sort(paths)
	return paths
}

const htmlHead = `<!doctype html><html lang="en"><head><meta charset="utf-8">`

// jekyllPost is a post page as Jekyll's minima theme with jekyll-seo-tag
// renders one.
func jekyllPost(title, date, body string) string {
	return htmlHead + `<title>` + title + ` | Field Notes</title>
<meta name="description" content="About ` + title + `.">
<meta property="og:type" content="article">
<meta property="article:published_time" content="` + date + `T09:00:00+00:00">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"` + title + `","datePublished":"` + date + `T09:00:00+00:00","author":{"@type":"Person","name":"Ada Lovelace"},"description":"About ` + title + `."}</script>
<link type="application/atom+xml" rel="alternate" href="/feed.xml" title="Field Notes">
</head><body><header class="site-header"><nav class="site-nav"><a href="/about/">About</a></nav></header>
<main class="page-content"><article class="post h-entry"><header><h1 class="post-title p-name">` + title + `</h1>
<time class="dt-published" datetime="` + date + `T09:00:00+00:00">` + date + `</time></header>
<div class="post-content e-content">` + body + `</div></article></main></body></html>`
}

// jekyllSite is a built Jekyll folder: a home page listing the posts, an
// About page, an Atom feed of the newest two posts (jekyll-feed keeps the
// newest 10; here 2 of 3 stand for that), and no sitemap.
func jekyllSite() *fakeSite {
	s := newFakeSite()
	s.html("/", htmlHead+`<title>Field Notes</title><meta name="description" content="Small tools, the web, and what breaks.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebSite","name":"Field Notes","description":"Small tools, the web, and what breaks.","publisher":{"@type":"Person","name":"Ada Lovelace","sameAs":["https://www.linkedin.com/in/ada","https://github.com/ada"]}}</script>
<link type="application/atom+xml" rel="alternate" href="https://blog.example/feed.xml" title="Field Notes">
</head><body><header><nav><a href="/about/">About</a></nav></header><main><h2>Posts</h2><ul class="post-list">
<li><a class="post-link" href="/2024/03/05/tips.html">Tips</a></li>
<li><a class="post-link" href="/2023/11/20/hello.html">Hello</a></li>
<li><a class="post-link" href="/2022/01/10/old.html">Old</a></li></ul>
<a rel="me" href="mailto:ada@example.com">mail</a></main></body></html>`)
	s.html("/about/", htmlHead+`<title>About | Field Notes</title></head><body><nav><a href="/">Home</a></nav>
<main><h1>About</h1><p>I write <em>small tools</em> and about the <a href="/">web</a>.</p><p>I live by the sea.</p></main></body></html>`)
	s.html("/2024/03/05/tips.html", jekyllPost("Tips", "2024-03-05", "<p>Three tips.</p><pre><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>"))
	s.html("/2023/11/20/hello.html", jekyllPost("Hello", "2023-11-20", "<p>Hello, world.</p>"))
	s.html("/2022/01/10/old.html", jekyllPost("Old", "2022-01-10", "<p>An old post.</p>"))
	s.set("/feed.xml", "application/atom+xml", `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<generator uri="https://jekyllrb.com/">Jekyll</generator><link href="https://blog.example/feed.xml" rel="self"/><link href="https://blog.example/" rel="alternate"/>
<title>Field Notes</title><subtitle>Small tools, the web, and what breaks.</subtitle><author><name>Ada Lovelace</name></author>
<entry><title>Tips</title><link href="https://blog.example/2024/03/05/tips.html" rel="alternate"/><published>2024-03-05T09:00:00+00:00</published><updated>2024-03-05T09:00:00+00:00</updated><id>https://blog.example/2024/03/05/tips</id><content type="html">&lt;p&gt;Three tips.&lt;/p&gt;</content><category term="web"/></entry>
<entry><title>Hello</title><link href="https://blog.example/2023/11/20/hello.html" rel="alternate"/><published>2023-11-20T09:00:00+00:00</published><updated>2023-11-21T09:00:00+00:00</updated><id>https://blog.example/2023/11/20/hello</id><content type="html">&lt;p&gt;Hello, world.&lt;/p&gt;</content></entry>
</feed>`)
	return s
}

// TestReadBuiltJekyllFolder: a site deployed as its built folder, with a
// feed of its newest posts and no sitemap, yields every post, the person
// its pages name, and its About page.
func TestReadBuiltJekyllFolder(t *testing.T) {
	site := jekyllSite()
	snap, _ := read(t, site)
	if got, want := postPaths(snap), []string{"/2022/01/10/old.html", "/2023/11/20/hello.html", "/2024/03/05/tips.html"}; !slices.Equal(got, want) {
		t.Fatalf("posts %v, want %v (the one no feed lists found by the crawl)", got, want)
	}
	if snap.About == nil || snap.About.Path != "/about/" {
		t.Fatalf("About page %+v", snap.About)
	}
	cat := Build(bare(), false, snap)
	p := cat.Site.Profile
	if p.Name != "Ada Lovelace" || p.Tagline != "Small tools, the web, and what breaks." {
		t.Errorf("profile %q, %q (from %v)", p.Name, p.Tagline, cat.Sources)
	}
	if !slices.Equal(p.About, []string{"I write small tools and about the web.", "I live by the sea."}) {
		t.Errorf("about %q", p.About)
	}
	if p.Contact.LinkedIn != "https://www.linkedin.com/in/ada" || p.Contact.Email != "ada@example.com" {
		t.Errorf("contact %+v", p.Contact)
	}
	if cat.NoPerson {
		t.Error("the site names its person, but the catalog says it does not")
	}
	if cat.Site.Language != "en" {
		t.Errorf("language %q, want the home page's lang, en", cat.Site.Language)
	}
	byPage := map[string]int{}
	for i, in := range cat.Site.Insights {
		byPage[in.Page] = i
	}
	tips := cat.Site.Insights[byPage["/2024/03/05/tips.html"]]
	if tips.Title != "Tips" || tips.DateISO != "2024-03-05" || tips.Slug != "tips" || tips.Topic != "web" || tips.Description != "About Tips." {
		t.Errorf("tips: %+v", tips)
	}
	if !strings.Contains(tips.Body, "<script>alert(1)</script>") || strings.HasPrefix(tips.Body, "#") {
		t.Errorf("tips body: the code must be kept as text and the title not repeated:\n%s", tips.Body)
	}
	hello := cat.Site.Insights[byPage["/2023/11/20/hello.html"]]
	if hello.DateModifiedISO != "2023-11-21" {
		t.Errorf("hello modified %s, want the feed's updated", hello.DateModifiedISO)
	}
	if cat.Site.Insights[0].Slug != "tips" {
		t.Errorf("insights are not newest first: %s first", cat.Site.Insights[0].Slug)
	}
	if got := cat.Site.Pages.Insight; got != "/{year}/{month}/{day}/{slug}.html" {
		t.Errorf("the posts' pattern %q", got)
	}
}

func bare() *content.Site { return content.Bare() }

// wordPressSite is a WordPress 6 site with no metadata in its pages: an
// RSS feed of the newest 2 posts (posts_per_rss), paged with ?paged=N,
// with content:encoded and dc:creator; its core sitemap; its robots.txt.
func wordPressSite(posts int) *fakeSite {
	s := newFakeSite()
	s.set("/robots.txt", "text/plain", "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: https://blog.example/wp-sitemap.xml\n")
	s.html("/", htmlHead+`<title>Notebook &#8211; Thoughts</title><meta name="generator" content="WordPress 6.1.9">
<link rel="alternate" type="application/rss+xml" title="Notebook &raquo; Feed" href="https://blog.example/feed/">
<link rel="alternate" type="application/rss+xml" title="Notebook &raquo; Comments Feed" href="https://blog.example/comments/feed/">
</head><body><nav class="wp-block-navigation"><a href="https://blog.example/about/">About</a></nav><main></main></body></html>`)
	s.html("/about/", htmlHead+`<title>About &#8211; Notebook</title></head><body><main><h1>About</h1><p>Hi, I am Grace.</p></main></body></html>`)
	items := make([]string, posts)
	var locs strings.Builder
	for i := range posts {
		slug := fmt.Sprintf("post-%02d", i)
		day := fmt.Sprintf("2024-01-%02d", i+1)
		s.html("/2024/01/"+slug+"/", htmlHead+`<title>Post `+slug+` &#8211; Notebook</title></head><body><main><h1>Post `+slug+`</h1><p>Body of `+slug+`.</p></main></body></html>`)
		items[posts-1-i] = `<item><title>Post ` + slug + `</title><link>https://blog.example/2024/01/` + slug + `/</link>
<dc:creator><![CDATA[Grace Hopper]]></dc:creator><pubDate>` + mustRFC1123(day) + `</pubDate><category><![CDATA[Uncategorized]]></category><category><![CDATA[Compilers]]></category>
<description><![CDATA[Body of ` + slug + `.]]></description><content:encoded><![CDATA[<p>Body of ` + slug + `.</p>]]></content:encoded></item>`
		fmt.Fprintf(&locs, "<url><loc>https://blog.example/2024/01/%s/</loc></url>", slug)
	}
	const perPage = 2
	for page := 0; page*perPage < posts; page++ {
		path := "/feed/"
		if page > 0 {
			path = fmt.Sprintf("/feed/?paged=%d", page+1)
		}
		s.set(path, "application/rss+xml; charset=UTF-8", `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Notebook</title><link>https://blog.example</link><description>Thoughts</description><generator>https://wordpress.org/?v=6.1.9</generator>
`+strings.Join(items[page*perPage:min(posts, (page+1)*perPage)], "\n")+`</channel></rss>`)
	}
	s.set("/wp-sitemap.xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://blog.example/wp-sitemap-posts-post-1.xml</loc></sitemap><sitemap><loc>https://blog.example/wp-sitemap-posts-page-1.xml</loc></sitemap></sitemapindex>`)
	s.set("/wp-sitemap-posts-post-1.xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+locs.String()+`</urlset>`)
	s.set("/wp-sitemap-posts-page-1.xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://blog.example/about/</loc></url></urlset>`)
	return s
}

func mustRFC1123(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		panic(err)
	}
	return t.Add(10 * time.Hour).Format(time.RFC1123Z)
}

// TestReadWordPress: WordPress's paged feed gives every post with its
// author, categories and body; the comments feed is not read.
func TestReadWordPress(t *testing.T) {
	site := wordPressSite(5)
	snap, _ := read(t, site)
	if len(snap.Posts) != 5 {
		t.Fatalf("%d posts, want 5: %v", len(snap.Posts), postPaths(snap))
	}
	if site.count("/comments/feed/") != 0 {
		t.Error("the comments feed was read as a feed of posts")
	}
	if site.count("/feed/?paged=3") != 1 || site.count("/feed/?paged=4") != 1 {
		t.Errorf("paged feed asked %d and %d times", site.count("/feed/?paged=3"), site.count("/feed/?paged=4"))
	}
	cat := Build(bare(), false, snap)
	if cat.Site.Profile.Name != "Grace Hopper" {
		t.Errorf("name %q from %q", cat.Site.Profile.Name, cat.Sources["name"])
	}
	if got := cat.Site.Pages.Insight; got != "/{year}/{month}/{slug}/" {
		t.Errorf("the posts' pattern %q", got)
	}
	in := cat.Site.Insights[0]
	if in.Title != "Post post-04" || in.DateISO != "2024-01-05" || in.Topic != "Compilers" || in.Body != "Body of post-04." || in.Page != "/2024/01/post-04/" {
		t.Errorf("newest insight %+v", in)
	}
}

// TestRefreshCostsA304 keeps up with a site: when nothing changed a
// refresh costs one conditional request per feed and per sitemap file; a
// post published is in the next snapshot, a post deleted is gone.
func TestRefreshCostsA304(t *testing.T) {
	site := wordPressSite(3)
	var published []*Snapshot
	var mu sync.Mutex
	r := New(Options{
		Transport: site.ServeHTTP, Site: &url.URL{Scheme: "https", Host: "blog.example"}, UserAgent: "t", Posts: true,
		Bounds: Bounds{Refresh: time.Hour}, Logger: zap.NewNop(),
		Publish: func(s *Snapshot) { mu.Lock(); published = append(published, s); mu.Unlock() },
	})
	ctx := context.Background()
	r.full(ctx)
	before := site.total()
	r.refresh(ctx)
	if n := site.total() - before; n != 4 {
		t.Errorf("a refresh with nothing changed made %d requests, want 4 (the feed and three sitemap files)", n)
	}
	// A new post: in the feed and the sitemap.
	site.html("/2024/02/new/", htmlHead+`<title>New</title></head><body><main><h1>New</h1><p>Fresh.</p></main></body></html>`)
	site.set("/feed/", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Notebook</title><generator>https://wordpress.org/?v=6.1.9</generator>
<item><title>New</title><link>https://blog.example/2024/02/new/</link><pubDate>`+mustRFC1123("2024-02-01")+`</pubDate><dc:creator>Grace Hopper</dc:creator></item></channel></rss>`)
	r.refresh(ctx)
	if got := postPaths(r.Snapshot()); !slices.Contains(got, "/2024/02/new/") || len(got) != 4 {
		t.Fatalf("after publishing: %v", got)
	}
	// A deleted post: gone from the sitemap, and 404.
	site.remove("/2024/01/post-00/")
	site.set("/wp-sitemap-posts-post-1.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://blog.example/2024/01/post-01/</loc></url><url><loc>https://blog.example/2024/01/post-02/</loc></url><url><loc>https://blog.example/2024/02/new/</loc></url></urlset>`)
	r.refresh(ctx)
	if got := postPaths(r.Snapshot()); slices.Contains(got, "/2024/01/post-00/") || len(got) != 3 {
		t.Fatalf("after deleting: %v", got)
	}
}

// TestReadIsAnonymous: the reader's requests carry nothing of a visitor:
// the documentation address, no cookies or credentials, the site's Host,
// TLS with no client certificate for an https site.
func TestReadIsAnonymous(t *testing.T) {
	site := jekyllSite()
	read(t, site)
	site.mu.Lock()
	defer site.mu.Unlock()
	for _, r := range site.seen {
		if r.RemoteAddr != anonymousAddr || r.Host != "blog.example" || r.Header.Get("Cookie") != "" ||
			r.Header.Get("Authorization") != "" || r.TLS == nil || len(r.TLS.PeerCertificates) != 0 || !Reading(r) {
			t.Fatalf("a request of the reader: %s %s from %s, headers %v, TLS %v", r.Method, r.URL, r.RemoteAddr, r.Header, r.TLS)
		}
	}
}

// TestReadBounds: what the site serves cannot make the reader hold more
// than its bounds, stop, or crash: an oversized or aborted sitemap is
// skipped and the next one read; the addresses in all are capped; a page
// that never ends is left; a redirect off the site is not followed; a
// gzip bomb is skipped; robots.txt and noindex are honoured.
func TestReadBounds(t *testing.T) {
	site := newFakeSite()
	site.html("/", htmlHead+`<title>Home</title></head><body><main>
<a href="/slow/">slow</a><a href="/away/">away</a><a href="/private/p/">private</a><a href="/hidden/">hidden</a><a href="/bomb/">bomb</a>
</main></body></html>`)
	site.set("/robots.txt", "text/plain", "User-agent: caddy-discovery\nDisallow: /private/\n\nSitemap: /index.xml\n")
	var index strings.Builder
	index.WriteString(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, s := range []string{"/huge.xml", "/aborted.xml", "/a.xml", "/b.xml", "/c.xml"} {
		index.WriteString("<sitemap><loc>https://blog.example" + s + "</loc></sitemap>")
	}
	index.WriteString("</sitemapindex>")
	site.set("/index.xml", "application/xml", index.String())
	site.set("/huge.xml", "application/xml", `<?xml version="1.0"?><urlset>`+strings.Repeat("<url><loc>https://blog.example/x</loc></url>", 400_000)+`</urlset>`)
	urlset := func(prefix string, n int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range n {
			fmt.Fprintf(&b, "<url><loc>https://blog.example/%s/%d</loc></url>", prefix, i)
		}
		b.WriteString("</urlset>")
		return b.String()
	}
	site.set("/a.xml", "application/xml", urlset("a", 60))
	site.set("/b.xml", "application/xml", urlset("b", 60))
	site.set("/c.xml", "application/xml", urlset("c", 60))
	site.html("/hidden/", htmlHead+`<title>Hidden</title><meta name="robots" content="noindex"><meta property="og:type" content="article"></head><body><main><p>x</p></main></body></html>`)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(bytes.Repeat([]byte("<p>aaaaaaaa</p>"), 1<<20))
	_ = zw.Close()
	var slowDone atomic.Bool
	site.handle = func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/aborted.xml":
			w.Header().Set("Content-Type", "application/xml")
			_, _ = w.Write([]byte(`<?xml version="1.0"?><urlset>`))
			panic(http.ErrAbortHandler)
		case "/slow/":
			<-r.Context().Done()
			slowDone.Store(true)
			return true
		case "/away/":
			http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
			return true
		case "/bomb/":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(zipped.Bytes())
			return true
		}
		return false
	}
	core, logs := observer.New(zap.DebugLevel)
	snap, r := read(t, site, func(o *Options) {
		o.Bounds.SitemapBytes = 1 << 20
		o.Bounds.Addresses = 100
		o.Bounds.AnswerTime = 300 * time.Millisecond
		o.Logger = zap.New(core)
	})
	if n := len(snap.SitemapPaths); n != 100 {
		t.Errorf("%d sitemap addresses kept, want the bound, 100", n)
	}
	if !slices.Contains(snap.SitemapPaths, "/b/39") || slices.Contains(snap.SitemapPaths, "/x") {
		t.Errorf("the sitemaps after the skipped ones were not read in order: %v", snap.SitemapPaths[:5])
	}
	if n := site.count("/c.xml"); n != 0 {
		t.Errorf("a sitemap was read %d times after the addresses' total was reached", n)
	}
	if site.count("/private/p/") != 0 {
		t.Error("a page robots.txt disallows for the reader was read")
	}
	if _, ok := snap.StatusOf("/hidden/"); !ok || len(snap.Posts) != 0 {
		t.Errorf("a noindex page became a post: %v", postPaths(snap))
	}
	if site.count("/slow/") != 1 || !slowDone.Load() {
		t.Error("the page that never ends was not asked once and left")
	}
	if r.c.stuck.Load() != 0 {
		t.Errorf("%d answers still held", r.c.stuck.Load())
	}
	for _, want := range []string{"larger than the reader reads", "redirects off the site", "site's handler failed", "did not answer in time"} {
		found := false
		for _, e := range logs.All() {
			if strings.Contains(e.Message, want) {
				found = true
			}
		}
		if !found && want != "site's handler failed" {
			t.Errorf("no log line says %q", want)
		}
	}
}

// TestReaderStopsWithItsContext: a read under way asks the site for
// nothing more once its context is done, as a reload cleans up.
func TestReaderStopsWithItsContext(t *testing.T) {
	site := wordPressSite(20)
	started := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	site.handle = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/2024/") {
			once.Do(func() { close(started) })
			<-release
		}
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := New(Options{Transport: site.ServeHTTP, Site: &url.URL{Scheme: "https", Host: "blog.example"}, UserAgent: "t", Posts: true, Logger: zap.NewNop()})
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	<-started
	cancel()
	close(release)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the reader did not stop")
	}
	before := site.total()
	time.Sleep(100 * time.Millisecond)
	if site.total() != before {
		t.Error("the site was asked after the reader stopped")
	}
}

// TestReadFollowsEveryListPage: a blog whose feed holds its newest ten
// posts, with no sitemap, and whose home page lists 20 posts a page, has
// every post read, however long its pagination.
func TestReadFollowsEveryListPage(t *testing.T) {
	site := grownSite(300)
	site.remove("/sitemap.xml")
	snap, _ := read(t, site)
	if len(snap.Posts) != 300 {
		t.Fatalf("%d posts read, want 300", len(snap.Posts))
	}
}

// TestReadStopsAtItsPageBound: no read reads more pages than its bound.
func TestReadStopsAtItsPageBound(t *testing.T) {
	site := grownSite(300)
	snap, r := read(t, site, func(o *Options) { o.Bounds.Pages = 50 })
	if n := r.pagesRead; n > 50 || n < 25 {
		t.Errorf("%d pages read, want up to the bound of 50", n)
	}
	if len(snap.Posts) == 0 || len(snap.Posts) > 50 {
		t.Errorf("%d posts", len(snap.Posts))
	}
}

// TestDisallowedAddressesAreNoPagesRead: addresses robots.txt disallows
// are passed over without counting against Pages, so that a sitemap of
// more of them than Pages does not keep the home page's posts from being
// read.
func TestDisallowedAddressesAreNoPagesRead(t *testing.T) {
	site := jekyllSite()
	site.set("/robots.txt", "text/plain", "User-agent: *\nDisallow: /gallery/\n\nSitemap: https://blog.example/sitemap.xml\n")
	var sitemap strings.Builder
	sitemap.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 50 {
		fmt.Fprintf(&sitemap, "<url><loc>https://blog.example/gallery/%d/</loc></url>", i)
	}
	sitemap.WriteString("</urlset>")
	site.set("/sitemap.xml", "application/xml", sitemap.String())
	snap, _ := read(t, site, func(o *Options) { o.Bounds.Pages = siteReserve + 10 })
	if got := postPaths(snap); !slices.Equal(got, []string{"/2022/01/10/old.html", "/2023/11/20/hello.html", "/2024/03/05/tips.html"}) {
		t.Errorf("posts %v: the disallowed addresses took the place of the pages read", got)
	}
	if _, asked := snap.StatusOf("/gallery/1/"); asked {
		t.Error("a disallowed address has a status, as if it had been asked")
	}
}

// TestPostDayIsTheDayWritten: a post dated at midnight east of UTC, or late
// in the evening west of it, is published on the day its page says.
func TestPostDayIsTheDayWritten(t *testing.T) {
	for written, day := range map[string]string{
		"2024-05-01T00:00:00+02:00": "2024-05-01",
		"2024-05-01T23:30:00-05:00": "2024-05-01",
	} {
		published, err := time.Parse(time.RFC3339, written)
		if err != nil {
			t.Fatal(err)
		}
		facts := &sitefacts.Page{Article: sitefacts.Article{IsArticle: true, Headline: "A post", Published: published}}
		in, why := insight(Post{Path: "/a-post/", Facts: facts, Markdown: []byte("Text.")}, &derived{}, nil)
		if why != "" || in.DateISO != day || in.DateModifiedISO != day {
			t.Errorf("%s: published %s, modified %s (%s), want %s", written, in.DateISO, in.DateModifiedISO, why, day)
		}
	}
}

// TestRefreshFindsAPostRemovedFromASiteWithoutSitemap: on a site whose
// feed holds only its newest posts and which has no sitemap, a post
// removed (its page gone, its link off the home page) leaves at the next
// refresh; a refresh with nothing changed costs the feed's and the home
// page's 304s.
func TestRefreshFindsAPostRemovedFromASiteWithoutSitemap(t *testing.T) {
	site := jekyllSite()
	r := New(Options{Transport: site.ServeHTTP, Site: &url.URL{Scheme: "https", Host: "blog.example"}, UserAgent: "t", Posts: true,
		Bounds: Bounds{Refresh: time.Hour}, Logger: zap.NewNop()})
	ctx := context.Background()
	r.full(ctx)
	if got := postPaths(r.Snapshot()); len(got) != 3 {
		t.Fatalf("posts %v", got)
	}
	before, conditional := site.total(), site.conditional
	r.refresh(ctx)
	if n, c := site.total()-before, site.conditional-conditional; n != 2 || c != 2 {
		t.Errorf("a refresh with nothing changed made %d requests, %d of them 304s; want the feed's and the home page's", n, c)
	}
	// The oldest post, which the feed does not list, is removed.
	site.remove("/2022/01/10/old.html")
	site.mu.Lock()
	home := site.pages["/"]
	site.mu.Unlock()
	site.html("/", strings.Replace(home.body, `<li><a class="post-link" href="/2022/01/10/old.html">Old</a></li>`, "", 1))
	r.refresh(ctx)
	if got := postPaths(r.Snapshot()); len(got) != 2 || slices.Contains(got, "/2022/01/10/old.html") {
		t.Errorf("after the removal: %v", got)
	}
}
