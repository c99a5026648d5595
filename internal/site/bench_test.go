package site

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

// grownSite is a site of n posts as a static generator builds it: each
// post's page with its JSON-LD and a few paragraphs and a code block, the
// home page and list pages of 20 posts each (rel="next"), an Atom feed of
// the newest ten, and a sitemap of every page.
func grownSite(n int) *fakeSite {
	s := newFakeSite()
	var sitemap strings.Builder
	sitemap.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	var feed strings.Builder
	feed.WriteString(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Grown</title><link href="https://blog.example/" rel="alternate"/><author><name>Ada Lovelace</name></author>`)
	paragraph := strings.Repeat("A sentence of the post that says something about the subject at hand. ", 12)
	start := time.Date(2020, 1, 1, 9, 0, 0, 0, time.UTC)
	path := func(i int) string { return fmt.Sprintf("/posts/post-%04d/", i) }
	for i := range n {
		day := start.AddDate(0, 0, i).Format(time.RFC3339)
		title := fmt.Sprintf("Post number %d", i)
		s.html(path(i), htmlHead+`<title>`+title+` | Grown</title><meta name="description" content="What post `+fmt.Sprint(i)+` is about.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"`+title+`","datePublished":"`+day+`","author":{"@type":"Person","name":"Ada Lovelace"},"keywords":"go, web"}</script>
</head><body><header><nav><a href="/">Home</a><a href="/about/">About</a></nav></header><main><article><h1>`+title+`</h1>
<p>`+paragraph+`</p><p>`+paragraph+`</p><pre><code>&lt;script&gt;go(`+fmt.Sprint(i)+`)&lt;/script&gt;</code></pre><p>`+paragraph+`</p></article></main></body></html>`)
		fmt.Fprintf(&sitemap, "<url><loc>https://blog.example%s</loc><lastmod>%s</lastmod></url>", path(i), day[:10])
		if i >= n-10 {
			fmt.Fprintf(&feed, `<entry><title>%s</title><link href="https://blog.example%s" rel="alternate"/><published>%s</published><updated>%s</updated><id>%s</id></entry>`, title, path(i), day, day, path(i))
		}
	}
	for page := 0; page*20 < n; page++ {
		var list strings.Builder
		for i := n - 1 - page*20; i >= max(0, n-(page+1)*20); i-- {
			fmt.Fprintf(&list, `<article><h2><a href="%s">Post number %d</a></h2></article>`, path(i), i)
		}
		next := ""
		if (page+1)*20 < n {
			next = fmt.Sprintf(`<a rel="next" href="/page/%d/">Older</a>`, page+2)
		}
		p := "/"
		if page > 0 {
			p = fmt.Sprintf("/page/%d/", page+1)
		}
		s.html(p, htmlHead+`<title>Grown</title><link rel="alternate" type="application/atom+xml" href="/feed.xml">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebSite","name":"Grown","publisher":{"@type":"Person","name":"Ada Lovelace"}}</script>
</head><body><nav><a href="/about/">About</a></nav><main>`+list.String()+next+`</main></body></html>`)
	}
	s.html("/about/", htmlHead+`<title>About</title></head><body><main><h1>About</h1><p>`+paragraph+`</p></main></body></html>`)
	sitemap.WriteString("</urlset>")
	feed.WriteString("</feed>")
	s.set("/sitemap.xml", "application/xml", sitemap.String())
	s.set("/feed.xml", "application/atom+xml", feed.String())
	return s
}

// BenchmarkFullRead reads a site of 1 000 posts in full, in the process:
// the time to a complete catalog without a server's own cost (most of it
// the reader's rests, which this process's small heap makes long), the
// requests made, the bytes allocated, and the reader's memory per 1 000
// posts.
func BenchmarkFullRead(b *testing.B) {
	site := grownSite(1000)
	var posts, requests int
	var heap uint64
	for b.Loop() {
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := New(Options{Transport: site.ServeHTTP, Site: &url.URL{Scheme: "https", Host: "blog.example"}, UserAgent: "bench",
			Posts: true, Logger: zap.NewNop()})
		r.full(context.Background())
		snap := r.Snapshot()
		cat := Build(bare(), false, snap)
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		posts, requests = len(cat.Site.Insights), int(snap.Requests)
		heap = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
		runtime.KeepAlive(r)
	}
	if posts != 1000 {
		b.Fatalf("%d posts read, want 1000", posts)
	}
	b.ReportMetric(float64(requests), "requests")
	b.ReportMetric(float64(heap)/float64(posts)*1000/(1<<20), "MiB/1000posts")
}

// BenchmarkRefreshUnchanged is a refresh of a site of 1 000 posts whose
// feed and sitemap did not change: the requests it makes, each a 304.
func BenchmarkRefreshUnchanged(b *testing.B) {
	site := grownSite(1000)
	r := New(Options{Transport: site.ServeHTTP, Site: &url.URL{Scheme: "https", Host: "blog.example"}, UserAgent: "bench",
		Posts: true, Logger: zap.NewNop()})
	r.full(context.Background())
	before := r.c.requests.Load()
	site.mu.Lock()
	conditional := site.conditional
	site.mu.Unlock()
	for b.Loop() {
		r.refresh(context.Background())
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	b.ReportMetric(float64(r.c.requests.Load()-before)/float64(b.N), "requests/refresh")
	b.ReportMetric(float64(site.conditional-conditional)/float64(b.N), "304s/refresh")
}

var _ http.Handler = (*fakeSite)(nil)
