package convert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// highlightedCode is the code of every block of the pages in
// testdata/highlight, which Jekyll 4.3 (Rouge) and Hugo 0.111 (Chroma,
// with its classes and with its default inline styles) built from one
// post: the code highlighted with and without line numbers (in a table,
// and inline), fenced, and indented.
const highlightedCode = `<a href="/x">x</a> <a href="notes.html">notes</a>
<script src="/app.js"></script>
<style>p { color: red }</style>
`

// TestPageKeepsCode: a page's code reaches its Markdown as the reader of
// the page sees it, byte for byte: a <script> example, a <style> and
// links as written, no line number mixed in; the page's own links are
// made absolute.
func TestPageKeepsCode(t *testing.T) {
	for file, blocks := range map[string][]string{
		"jekyll.html":       {highlightedCode, highlightedCode, highlightedCode, `<a href="/x">x</a> <a href="notes.html">notes</a>` + "\n"},
		"hugo.html":         {highlightedCode, highlightedCode, highlightedCode, highlightedCode},
		"hugo-classes.html": {highlightedCode, highlightedCode, highlightedCode, highlightedCode},
	} {
		t.Run(file, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join("testdata", "highlight", file))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Page(context.Background(), page, "text/html; charset=utf-8", "https://example.com/posts/a/")
			if err != nil {
				t.Fatal(err)
			}
			got := fencedCode(c.Markdown)
			if len(got) != len(blocks) {
				t.Fatalf("%d code blocks, want %d:\n%s", len(got), len(blocks), c.Markdown)
			}
			for i, code := range got {
				if code != blocks[i] {
					t.Errorf("block %d:\n%q\nwant\n%q", i, code, blocks[i])
				}
			}
			if !strings.Contains(string(c.Markdown), "[a link](https://example.com/about/)") {
				t.Errorf("the page's own link is not absolute:\n%s", c.Markdown)
			}
		})
	}
}

// TestPageCode: what a <pre> holds is its text, whatever it looks like.
func TestPageCode(t *testing.T) {
	for _, tt := range []struct{ name, html, code string }{
		{"escaped markup", `<pre><code>&lt;script&gt;alert(1)&lt;/script&gt; &lt;a href="/x"&gt;</code></pre>`, `<script>alert(1)</script> <a href="/x">` + "\n"},
		{"a link inside code is its text", `<pre><code>see <a href="/x">x</a>()</code></pre>`, "see x()\n"},
		{"blanks and a fence", "<pre><code>a  b\n\tc ```\n</code></pre>", "a  b\n\tc ```\n"},
		{"numbers that are code", "<pre><code>1\n2\n</code></pre>", "1\n2\n"},
		{"a gutter that is no code's", `<table><tr><td class="gutter">1</td><td>text</td></tr></table><pre><code>x</code></pre>`, "x\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Page(context.Background(), []byte("<main>"+tt.html+"</main>"), "text/html", "https://example.com/")
			if err != nil {
				t.Fatal(err)
			}
			if got := fencedCode(c.Markdown); len(got) != 1 || got[0] != tt.code {
				t.Errorf("code %q, want %q, in\n%s", got, tt.code, c.Markdown)
			}
		})
	}
}

// fencedCode is the code of each fenced block of md.
func fencedCode(md []byte) []string {
	var code []string
	doc := goldmark.DefaultParser().Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*ast.FencedCodeBlock); ok && entering {
			var b strings.Builder
			for i := range f.Lines().Len() {
				line := f.Lines().At(i)
				b.Write(line.Value(md))
			}
			code = append(code, b.String())
		}
		return ast.WalkContinue, nil
	})
	return code
}
