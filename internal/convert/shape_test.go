package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// treeShape is the shape of the tree html.Parse builds of body: what the
// model must not count below.
func treeShape(t *testing.T, body string) shape {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	s := shape{nodes: 1}
	s.add(doc, 0)
	return s
}

// docsPage is a documentation page of about size bytes, of the usual shape:
// sections of headings, paragraphs with links and inline code, lists,
// tables and code blocks, inside a few levels of layout.
func docsPage(size int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Docs</title></head><body><div class="wrap"><div class="layout"><nav><ul><li><a href="/">Home</a></li></ul></nav><main><article>`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<section id="s%d"><h2>Section %d</h2><p>Text with <a href="/p/%d">a link</a>, <code>code</code>, <em>emphasis</em> and <strong>more</strong>.</p>`+
			`<ul><li>One <b>bold</b></li><li>Two<ul><li>Nested</li></ul></li></ul><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td><i>2</i></td></tr></table>`+
			`<pre><code>fn main() {}</code></pre><p>Unclosed paragraph<p>and another <font color="red">sloppy</font></section>`, i, i, i)
	}
	b.WriteString(`</article></main></div></div></body></html>`)
	return b.String()
}

// The pages and their kin: each would cost html.Parse or the
// converter seconds, or millions of nodes, and is refused by reading its
// tokens, in milliseconds, before parsing starts.
func TestHostileShapesAreRefused(t *testing.T) {
	var reopened strings.Builder
	reopened.WriteString("<p>")
	for i := range 500 {
		fmt.Fprintf(&reopened, `<b id="%d">`, i)
	}
	reopened.WriteString("</p>")
	for reopened.Len() < 200_000 {
		reopened.WriteString("<p>x</p>")
	}
	for _, tt := range []struct{ name, page string }{
		{"505 spans, then 261 743 <b>", strings.Repeat("<span>", 505) + strings.Repeat("<b>", 261743)},
		{"505 spans, then 261 743 </b>", strings.Repeat("<span>", 505) + strings.Repeat("</b>", 261743)},
		{"505 divs, then 523 612 </p>", strings.Repeat("<div>", 505) + strings.Repeat("</p>", 523612)},
		{"505 divs, then 300 000 <a>", strings.Repeat("<div>", 505) + strings.Repeat("<a>x", 300000)},
		{"500 formatting elements reopened in each paragraph", reopened.String()},
		{"260 000 paragraphs", strings.Repeat("<p>x</p>", 260000)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.page) > MaxHTML {
				t.Fatalf("%d bytes, over MaxHTML", len(tt.page))
			}
			if s := shapeOf([]byte(tt.page)); s.within() {
				t.Errorf("the model counts %+v, within the bounds", s)
			}
			if _, err := Page(context.Background(), []byte(tt.page), "text/html", "https://example.com/"); !errors.Is(err, ErrTooComplex) {
				t.Errorf("Page: %v, want %v", err, ErrTooComplex)
			}
		})
	}
}

// The model counts at least the nodes of the tree the parser builds, and
// about its work, for pages of the usual shapes, sloppy ones included; a
// page of 2 MiB of them is within the bounds, and converted.
func TestShapeOfUsualPages(t *testing.T) {
	for _, page := range []string{
		docsPage(64 << 10),
		`<p>one<p>two<ul><li>a<li>b</ul><dl><dt>x<dd>y<dt>z</dl><table><tr><td>1<td>2<tr><td>3</table><select><option>a<option>b</select>`,
		`<p><b>bold<i>both</p><p>reopened</b> still italic</i></p>`,
		`<svg><path d="M0"/><path/><g><path/></g></svg><math><mi>x</mi></math><p>after`,
		`<a href=1>one<a href=2>two<nobr>x<nobr>y<font color=red><font color=red><font color=red><font color=red>z`,
		`<h1>a<h2>b</h2><hr><br></br></p><p>end`,
	} {
		model, tree := shapeOf([]byte(page)), treeShape(t, page)
		if model.nodes < tree.nodes || model.work < tree.work/2 {
			t.Errorf("model %+v, tree %+v: the model counts less than the tree\n%.200s", model, tree, page)
		}
	}
	page := docsPage(MaxHTML - 1024)
	if s := shapeOf([]byte(page)); !s.within() {
		t.Fatalf("a 2 MiB documentation page counts %+v, past the bounds", s)
	}
	if _, err := Page(context.Background(), []byte(page), "text/html", "https://example.com/"); err != nil {
		t.Errorf("a 2 MiB documentation page: %v", err)
	}
}

// Parsing stops at the conversion's deadline, whatever the page.
func TestParseStopsAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := html.Parse(deadlineReader{ctx, bytes.NewReader([]byte(docsPage(64 << 10)))}); !errors.Is(err, context.Canceled) {
		t.Errorf("html.Parse past the deadline: %v", err)
	}
}

// BenchmarkShapeOf reads the tokens of a 2 MiB page: what every page costs
// before it is parsed.
func BenchmarkShapeOf(b *testing.B) {
	page := []byte(docsPage(MaxHTML - 1024))
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		shapeOf(page)
	}
}
