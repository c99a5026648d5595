package convert

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// themedPostPage is a blog post page of about size bytes as themes build
// them: a header and navigation around a <main> holding the article
// (headings with anchor links, paragraphs, code highlighted one element a
// line with line numbers, figures, an embedded video) beside a sidebar of
// recent titles, the neighbours' links and a comment section.
func themedPostPage(size int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>A post | A site</title></head><body><header><a href="/">A site</a><nav><a href="/posts/">Posts</a></nav></header>` +
		`<main><div class="layout"><article><header><p class="meta">4 May 2024</p><h1>A post</h1></header><div class="content">`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<h2 id="s%d">Section %d<a class="anchor" aria-hidden="true" href="#s%d"><svg viewBox="0 0 8 8"><path d="M0 0"/></svg></a></h2>`+
			`<p>Words of section %d with <a href="/p/%d/">a link</a>, <code>code</code> and <em>emphasis</em>.</p>`+
			`<figure><img src="/img/%d.png" alt="A chart"><figcaption>The chart of section %d</figcaption></figure>`+
			`<pre data-language="go"><code><div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">1</div></div><div class="code"><span>func main() {</span></div></div>`+
			`<div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">2</div></div><div class="code"><span>	println(%d)</span></div></div>`+
			`<div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">3</div></div><div class="code"><span>}</span></div></div></code></pre>`+
			`<iframe src="https://www.youtube-nocookie.com/embed/v%d" title="Talk %d"></iframe>`, i, i, i, i, i, i, i, i, i, i)
	}
	b.WriteString(`</div><footer class="post-info"><p>1200 words</p></footer></article>` +
		`<div class="sidebar"><h4>Latest</h4><p><a href="/p/a/">Another post</a></p><h4>Tags</h4><a href="/tags/go/">go</a></div></div>` +
		`<div class="post-nav"><a href="/p/newer/">Newer</a> <a href="/p/older/">Older</a></div><div id="comments"><div id="disqus_thread"></div></div></main>` +
		`<footer><p>Copyright</p></footer></body></html>`)
	return b.String()
}

// furnitureShapes are pages within the bounds of a conversion made of
// what the passes that tell content from furniture and ready code look
// at, many times over: each pass must cost about as much as the page's
// size, whatever its shape.
func furnitureShapes() []struct{ name, page string } {
	return []struct{ name, page string }{
		{"120 000 asides", "<main>" + strings.Repeat("<aside>a</aside>", 120000) + "</main>"},
		{"70 000 sidebars", "<main>" + strings.Repeat(`<div class="sidebar"></div>`, 70000) + "</main>"},
		{"an aside 500 levels deep, 30 times", "<main>" + strings.Repeat(strings.Repeat("<div>", 500)+"<aside></aside>"+strings.Repeat("</div>", 500), 30) + "</main>"},
		{"100 000 comments in code", "<main><pre><code>" + strings.Repeat(" <!---->", 100000) + "</code></pre></main>"},
		{"100 000 blocks in code", "<main><pre><code>" + strings.Repeat("<div> </div>", 100000) + "</code></pre></main>"},
		{"100 000 trailing breaks", "<main><p>x</p>" + strings.Repeat("<hr><!---->", 100000) + "</main>"},
		{"70 000 heading anchors", "<main>" + strings.Repeat(`<h2><a href="#a"></a></h2>`, 70000) + "</main>"},
		{"50 000 neighbours' links", "<main>" + strings.Repeat(`<div>next <a href="/x">x</a></div>`, 50000) + "</main>"},
		{"36 000 embeds", "<main>" + strings.Repeat(`<iframe src="https://www.youtube.com/embed/a1"></iframe>`, 36000) + "</main>"},
	}
}

// BenchmarkPage converts pages of 2 MiB, the largest converted: what a
// conversion costs at its bound; and pages shaped to make the passes
// before the converter's slow (furnitureShapes).
func BenchmarkPage(b *testing.B) {
	pages := append([]struct{ name, page string }{
		{"docs", docsPage(MaxHTML - 1024)},
		{"themed post", themedPostPage(MaxHTML - 1024)},
	}, furnitureShapes()...)
	for _, bb := range pages {
		b.Run(bb.name, func(b *testing.B) {
			page := []byte(bb.page)
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				if _, err := Page(context.Background(), page, "text/html; charset=utf-8", "https://example.com/p/"); err != nil && !errors.Is(err, ErrNoText) {
					b.Fatal(err)
				}
			}
		})
	}
}
