package convert

import (
	"bytes"
	"context"
	"testing"

	"golang.org/x/net/html"
)

func TestConvertCache(t *testing.T) {
	page := func(key string, n int) *Kept {
		return &Kept{Key: key, Markdown: bytes.Repeat([]byte("x"), n)}
	}
	unit := page("a", 1000).size()
	c := NewCache(3 * unit)
	c.Put(page("a", 1000))
	c.Put(page("b", 1000))
	c.Put(page("c", 1000))
	c.Get("a") // now the most recently used
	c.Put(page("d", 1000))
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if got := c.Get(key) != nil; got != want {
			t.Errorf("%s kept %v, want %v", key, got, want)
		}
	}
	if used := c.pages.Bytes(); used > 3*unit {
		t.Errorf("%d bytes used of %d", used, 3*unit)
	}
	c.Put(page("a", 10)) // replaced, not added
	if used := c.pages.Bytes(); used != 2*unit+page("a", 10).size() {
		t.Errorf("after replacing: %d bytes used", used)
	}
	c.Put(page("huge", 4*unit))
	if c.Get("huge") != nil || c.Get("a") == nil || c.Get("d") == nil {
		t.Error("a page over the budget was kept, or pushed others out")
	}
	c.Put(page("a", 4*unit)) // a key's new page too large: nothing is kept for it
	if c.Get("a") != nil {
		t.Error("the old page is still kept for a key whose new one is too large")
	}
}

func TestNoindex(t *testing.T) {
	for directives, want := range map[string]bool{
		"noindex": true, "NoIndex, follow": true, "none": true, "googlebot: noindex": true,
		"index, follow": false, "noarchive": false, "": false, "unavailable_after: 25 Jun 2010 15:00:00 PST": false,
	} {
		if got := NoIndex(directives); got != want {
			t.Errorf("%q: %v, want %v", directives, got, want)
		}
	}
}

// TestPostTreeIsPost: a page parsed once (Parse) and converted from its
// tree (PostTree) gives the Markdown Post gives of its bytes, and the
// element a page marks as the post's body, converted from the tree, what
// Post gives of that element's HTML alone.
func TestPostTreeIsPost(t *testing.T) {
	const page = `<!doctype html><html><head><title>On caching | Blog</title><base href="https://blog.example/b/"></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>On caching</h1><p>A <a href="notes/">note</a> &amp; <em>more</em>.</p>
<div class="e-content"><p>The body, with <code>a &lt; b</code> and an <img src="x.png" alt="image">.</p>
<pre><code class="language-go">if a &lt; b {
	return
}</code></pre></div><footer>Tags: <a href="/tags/go/">go</a></footer></article></main></body></html>`
	const pageURL = "https://blog.example/posts/on-caching/"
	ctx := context.Background()
	whole, err := Post(ctx, []byte(page), "text/html; charset=utf-8", pageURL, "On caching")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(ctx, []byte(page), "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := PostTree(ctx, doc, nil, pageURL, "On caching")
	if err != nil || string(tree.Markdown) != string(whole.Markdown) {
		t.Errorf("the page from its tree:\n%s\nfrom its bytes:\n%s\n(err %v)", tree.Markdown, whole.Markdown, err)
	}

	doc, _ = Parse(ctx, []byte(page), "text/html; charset=utf-8")
	body := findClass(doc, "e-content")
	var rendered bytes.Buffer
	if err := html.Render(&rendered, body); err != nil {
		t.Fatal(err)
	}
	alone, err := Post(ctx, rendered.Bytes(), "text/html; charset=utf-8", pageURL, "On caching")
	if err != nil {
		t.Fatal(err)
	}
	tree, err = PostTree(ctx, doc, body, pageURL, "On caching")
	if err != nil || string(tree.Markdown) != string(alone.Markdown) {
		t.Errorf("the body from the tree:\n%s\nfrom its HTML:\n%s\n(err %v)", tree.Markdown, alone.Markdown, err)
	}
	if !bytes.Contains(tree.Markdown, []byte("if a < b {\n\treturn\n}")) || bytes.Contains(tree.Markdown, []byte("Tags")) {
		t.Errorf("the body's code is not as written, or what is around the body is in it:\n%s", tree.Markdown)
	}
}

// findClass is the first element under n with the class c.
func findClass(n *html.Node, c string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "class") == c {
		return n
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if f := findClass(k, c); f != nil {
			return f
		}
	}
	return nil
}
