package convert

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzContentPasses runs what tells a page's content from its furniture
// and readies it for the converter (content, prepare) on any HTML: none
// may panic, which Page would hide by serving the HTML, and no text of a
// code block may be lost.
func FuzzContentPasses(f *testing.F) {
	for _, seed := range []string{
		postInMain, postBesideSidebar, themedPostPage(4 << 10), docsPage(4 << 10),
		`<main><pre data-language="sh"><code><div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">1</div></div><div class="code">x</div></div></code></pre></main>`,
		`<article><h1>T<a href="#t">#</a></h1><iframe src="//www.youtube.com/embed/x?start=5"></iframe><script src="https://gist.github.com/a/b.js"></script><video><source src="v.mp4"></video></article>`,
		`<main><ul><li>Next: <a rel="next" href="/n">N</a></li></ul><aside><p>x</p></aside><p>y</p></main>`,
	} {
		f.Add(seed, "T")
	}
	f.Fuzz(func(t *testing.T, page, title string) {
		if len(page) > 64<<10 || !shapeOf([]byte(page)).within() {
			return
		}
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			return
		}
		p := readPage(doc)
		if !p.shape.within() {
			return
		}
		root := p.content()
		if root == nil {
			return
		}
		prepare(root, title)
		// Each code block is one <code> holding one text.
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && c.Data == "pre" {
					if code := c.FirstChild; code == nil || code.NextSibling != nil || code.Data != "code" ||
						code.FirstChild == nil || code.FirstChild.NextSibling != nil || code.FirstChild.Type != html.TextNode {
						t.Fatalf("a code block not made one text:\n%q", page)
					}
					continue
				}
				walk(c)
			}
		}
		walk(root)
	})
}
