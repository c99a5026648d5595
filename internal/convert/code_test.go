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
		// Highlighters that set each line in an element of its own.
		{"Expressive Code's lines, gutter and line numbers", `<pre data-language="sh"><code>` +
			`<div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">1</div></div><div class="code"><span>$ tide --port</span><span> north</span></div></div>` +
			`<div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">2</div></div><div class="code"><span class="indent">    </span><span>&lt;a href="/x"&gt;</span></div></div>` +
			`<div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">3</div></div><div class="code">` + "\n" + `</div></div>` +
			`<div class="ec-line"><div class="gutter"><div class="ln" aria-hidden="true">4</div></div><div class="code"><span>done</span></div></div></code></pre>`,
			"$ tide --port north\n    <a href=\"/x\">\n\ndone\n"},
		{"lines set apart by blanks between blocks", "<pre><code><div class=\"ec-line\"><div class=\"gutter\"><div class=\"ln\" aria-hidden=\"true\">1</div></div>\n" +
			"<div class=\"code\"><span>one</span></div></div>\n<div class=\"ec-line\"><div class=\"code\"><span>two</span></div></div></code></pre>", "one\ntwo\n"},
		{"Shiki's lines, with a blank one", "<pre class=\"shiki\" tabindex=\"0\"><code><span class=\"line\"><span style=\"color:#F97583\">const</span><span> a = 1;</span></span>\n" +
			"<span class=\"line\"></span>\n<span class=\"line\"><span>b()</span></span></code></pre>", "const a = 1;\n\nb()\n"},
		{"lines with no line break between them", `<pre><code><span class="line">one</span><span class="line">two</span><span class="line">three</span></code></pre>`, "one\ntwo\nthree\n"},
		{"marked lines of rehype-pretty-code", "<pre><code data-language=\"go\"><span data-line=\"\">a := 1</span>\n<span data-line=\"\">b := 2</span></code></pre>", "a := 1\nb := 2\n"},
		{"lines of only digits are code", `<pre><code><div class="line">1</div><div class="line">2</div></code></pre>`, "1\n2\n"},
		{"Prism's line numbers", `<pre class="line-numbers"><code class="language-js">let a = 1;<span aria-hidden="true" class="line-numbers-rows"><span></span></span></code></pre>`, "let a = 1;\n"},
		{"a copy button", `<pre><button class="copy">Copy</button><code>x = 1</code></pre>`, "x = 1\n"},
		{"line breaks", `<pre><code>a<br>b<br/>c</code></pre>`, "a\nb\nc\n"},
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

// TestPageCodeLanguage: the fence says the code's language where the page
// says it.
func TestPageCodeLanguage(t *testing.T) {
	for _, tt := range []struct{ name, html, info string }{
		{"data-language on the pre", `<pre data-language="python"><code>x</code></pre>`, "python"},
		{"data-language on the code", `<pre><code data-language="go">x</code></pre>`, "go"},
		{"a class on the code", `<pre><code class="hljs language-rust">x</code></pre>`, "rust"},
		{"a class on the pre", `<pre class="lang-sh"><code>x</code></pre>`, "sh"},
		{"Chroma's data-lang", `<pre class="chroma"><code class="" data-lang="toml">x</code></pre>`, "toml"},
		{"Rouge's wrapper", `<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>x</code></pre></div></div>`, "ruby"},
		{"data-language before a class", `<pre data-language="ts" class="language-js"><code>x</code></pre>`, "ts"},
		{"none said", `<pre><code>x</code></pre>`, ""},
		{"Prism's none", `<pre class="language-none"><code>x</code></pre>`, ""},
		{"no info string of other characters", "<pre data-language=\"a`b\"><code>x</code></pre>", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Page(context.Background(), []byte("<main>"+tt.html+"</main>"), "text/html", "https://example.com/")
			if err != nil {
				t.Fatal(err)
			}
			if got := fencedInfo(c.Markdown); len(got) != 1 || got[0] != tt.info {
				t.Errorf("info %q, want %q, in\n%s", got, tt.info, c.Markdown)
			}
		})
	}
}

// fencedInfo is the info string of each fenced block of md.
func fencedInfo(md []byte) []string {
	var infos []string
	doc := goldmark.DefaultParser().Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*ast.FencedCodeBlock); ok && entering {
			info := ""
			if f.Info != nil {
				info = string(f.Info.Segment.Value(md))
			}
			infos = append(infos, info)
		}
		return ast.WalkContinue, nil
	})
	return infos
}
