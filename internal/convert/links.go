package convert

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"

	"github.com/caddy-discovery/caddy-discovery/internal/markdown"
)

// An insight's body is written for its page on the site: its relative
// links and images mean something there only. The documents that carry
// the body elsewhere (the insight's twin, llms-full.txt) make them
// absolute, and leave out the scripts and styles a page may embed, which
// an agent reading the text cannot use. Code is text: what a code span or
// a code block holds reaches the reader as written, a <script> example
// and its links too. The API's content is the body as written.

// AbsoluteLinks returns md, a Markdown body written for the page at page
// (an absolute URL), with the destinations of its inline links and images
// and of its link reference definitions, and the href and src attributes
// of its HTML, made absolute: a path that begins with "/" on base, any
// other relative reference against page. A Jekyll tag that names another
// post ({% post_url 2024-05-01-name %}, {% link _posts/….md %}) becomes
// that post's address, found by post (nil finds none). Its <script> and
// <style> elements are dropped.
//
// Code is left as written, byte for byte: code spans, fenced and indented
// code blocks, HTML <pre> blocks (and <pre> elements in HTML), and the
// blocks of code a template tag wraps, which the generator renders before
// any Markdown (Liquid's {% highlight %}, Hugo's {{< highlight >}}; see
// markdown.TemplateBlocks). The body is read as CommonMark, by goldmark:
// what CommonMark reads as text ("\[not](a-link)") is text, and stays as
// written.
func AbsoluteLinks(md, page, base string, post func(name string) (string, bool)) string {
	return ReadBody(md).Absolute(page, base, post)
}

// Body is a Markdown body read for AbsoluteLinks once, to be written for
// any page and base URL: reading is most of the cost.
type Body struct {
	src   string
	edits []edit
}

// ReadBody reads md for AbsoluteLinks.
func ReadBody(md string) *Body {
	if !strings.ContainsAny(md, "]<") {
		return &Body{src: md} // nothing to rewrite: the common case of plain prose
	}
	return &Body{src: md, edits: readBody([]byte(md), false).edits}
}

// ReadBodyDemoted reads md for AbsoluteLinks, its ATX headings written one
// level lower (but the sixth): for a document that sets the body under a
// heading of its own, as llms-full.txt sets each insight under its title.
// A "#" that is no heading (in code, or a hashtag) is left as written.
func ReadBodyDemoted(md string) *Body {
	if !strings.ContainsAny(md, "]<#") {
		return &Body{src: md}
	}
	return &Body{src: md, edits: readBody([]byte(md), true).edits}
}

// Absolute is AbsoluteLinks of the body read.
func (b *Body) Absolute(page, base string, post func(name string) (string, bool)) string {
	if len(b.edits) == 0 {
		return b.src
	}
	lr := linkResolver{base: base, post: post}
	if pageURL, err := url.Parse(page); err == nil && pageURL.IsAbs() {
		lr.page = pageURL
	}
	return lr.write(b.src, b.edits)
}

// linkResolver makes a body's references absolute.
type linkResolver struct {
	page *url.URL // nil when the page's address is not absolute: references are left as written
	base string
	post func(name string) (string, bool)
}

// resolve is ref made absolute; an absolute ref, or one that does not
// parse, is returned as it is.
func (lr linkResolver) resolve(ref string) string {
	switch {
	case ref == "" || lr.page == nil:
		return ref
	case strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "//"):
		return lr.base + ref
	}
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" {
		return ref
	}
	return lr.page.ResolveReference(u).String()
}

// span is the bytes [start, end) of a body.
type span struct{ start, end int }

// edit is what becomes of a span of the body.
type edit struct {
	span
	kind editKind
	// post is the name a post tag gives the post.
	post string
}

type editKind int

const (
	dropped   editKind = iota // a script or a style: nothing
	reference                 // a link's destination: made absolute
	postTag                   // a Jekyll tag naming a post: the post's address, if the content has it
	demoted                   // an ATX heading's marker: one "#" more, before it
)

// body is what readBody found in a body: its code, in order, and what to
// change.
type body struct {
	code  []span
	edits []edit
	// droppedTo is the end of the last element dropped: the HTML before it
	// is not read again, so that a post of many unclosed scripts is read
	// in one pass.
	droppedTo int
	// merged is how many spans of code, from the first, are merged and in
	// order; those after it are the <pre> elements found in HTML, in order
	// too, as the HTML is read in order.
	merged int
}

// bodyParser reads CommonMark, and footnote definitions apart (kramdown,
// Hugo and Eleventy's markdown-it read "[^1]: text" as a footnote, not as
// a link reference definition).
var bodyParser = parser.NewParser(
	parser.WithBlockParsers(append(parser.DefaultBlockParsers(),
		util.Prioritized(extension.NewFootnoteBlockParser(), 999))...),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// readBody reads src as its generator would: the template blocks of code
// first, then the Markdown, in which it finds the code, the references
// and the scripts and styles, and, to demote them, the ATX headings.
func readBody(src []byte, demote bool) body {
	blocks := markdown.TemplateBlocks(src)
	masked := markdown.Mask(src, blocks, markdown.Code)
	var b body
	for _, block := range blocks {
		if block.Kind == markdown.Code {
			b.code = append(b.code, span{block.Start, block.End})
		}
	}
	// A post tag has blanks, which no link destination may have: goldmark
	// reads it as a word of the same length.
	tags := postTags(masked)
	if len(tags) > 0 {
		if len(src) > 0 && &masked[0] == &src[0] {
			masked = bytes.Clone(src)
		}
		for _, t := range tags {
			for i := t.start; i < t.end; i++ {
				if masked[i] != '\n' {
					masked[i] = 'x'
				}
			}
		}
	}
	doc := bodyParser.Parse(text.NewReader(masked))
	var htmls []span // the HTML, read once the code is known
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan:
			b.code = append(b.code, codeSpanExtent(n, masked))
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			b.code = append(b.code, blockExtent(n, masked))
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			if s, ok := htmlExtent(n); ok {
				htmls = append(htmls, s)
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			if n.Segments.Len() > 0 {
				htmls = append(htmls, span{n.Segments.At(0).Start, n.Segments.At(n.Segments.Len() - 1).Stop})
			}
		case *ast.Link:
			if n.Reference == nil {
				b.reference(masked, n.Destination)
			}
		case *ast.Image:
			if n.Reference == nil {
				b.reference(masked, n.Destination)
			}
		case *ast.LinkReferenceDefinition:
			b.reference(masked, n.Destination)
		case *ast.Heading:
			if at := n.Pos(); demote && n.Level < 6 && at >= 0 && at < len(masked) && masked[at] == '#' {
				b.edits = append(b.edits, edit{span: span{at, at}, kind: demoted})
			}
		}
		return ast.WalkContinue, nil
	})
	b.code = merge(b.code)
	b.merged = len(b.code)
	for _, h := range htmls {
		if h.start >= b.droppedTo {
			b.readHTML(src, h)
		}
	}
	b.code = merge(b.code)
	// A destination holding a post tag is written as the tag says.
	b.edits = slices.DeleteFunc(b.edits, func(e edit) bool {
		if e.kind != reference {
			return false
		}
		// The tags are in order: the last one starting before the
		// destination ends is the one that may be in it.
		k, _ := slices.BinarySearchFunc(tags, e.end, func(t edit, end int) int { return t.start - end })
		return k > 0 && tags[k-1].end > e.start
	})
	b.edits = append(b.edits, tags...)
	// Nothing inside code changes: a link or a tag CommonMark read after
	// a <pre> block it closed early is still inside the <pre> element.
	b.edits = slices.DeleteFunc(b.edits, func(e edit) bool { return b.inCode(e.start) })
	slices.SortStableFunc(b.edits, func(x, y edit) int { return x.start - y.start })
	return b
}

// reference records a destination goldmark read, a slice of src, to be
// resolved. A destination that is not a slice of src (goldmark copies one
// that a tab's padding splits) is left as written.
func (b *body) reference(src, destination []byte) {
	if start, ok := offsetIn(src, destination); ok {
		b.edits = append(b.edits, edit{span: span{start, start + len(destination)}, kind: reference})
	}
}

// offsetIn is where part, a slice of src, begins in src.
func offsetIn(src, part []byte) (int, bool) {
	if len(part) == 0 || cap(part) > cap(src) {
		return 0, false
	}
	start := cap(src) - cap(part)
	if start+len(part) > len(src) || &src[start] != &part[0] {
		return 0, false
	}
	return start, true
}

// codeSpanExtent is the span of a code span, its backticks included.
func codeSpanExtent(n *ast.CodeSpan, src []byte) span {
	start := n.Pos()
	ticks := 0
	for start+ticks < len(src) && src[start+ticks] == '`' {
		ticks++
	}
	end := start + 2*ticks
	if last, ok := n.LastChild().(*ast.Text); ok {
		end = last.Segment.Stop
		if i := bytes.IndexByte(src[end:], '`'); i >= 0 {
			end += i + ticks
		}
	}
	return span{start, min(end, len(src))}
}

// blockExtent is the span of a code block, from its first marker (a
// fence) to the end of its last line.
func blockExtent(n ast.Node, src []byte) span {
	start, end := n.Pos(), n.Pos()
	if lines := n.Lines(); lines.Len() > 0 {
		end = lines.At(lines.Len() - 1).Stop
		start = min(max(start, 0), lines.At(0).Start)
	}
	return span{max(start, 0), min(max(end, start), len(src))}
}

// htmlExtent is the span of an HTML block's lines.
func htmlExtent(n *ast.HTMLBlock) (span, bool) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return span{}, false
	}
	s := span{lines.At(0).Start, lines.At(lines.Len() - 1).Stop}
	if n.HasClosure() {
		s.end = n.ClosureLine.Stop
	}
	return s, true
}

// merge sorts spans and joins those that overlap.
func merge(spans []span) []span {
	slices.SortFunc(spans, func(x, y span) int { return x.start - y.start })
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && s.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// inCode reports whether offset i of the body is inside code.
func (b *body) inCode(i int) bool {
	// The code is merged: the last span starting at or before i is the
	// one that may hold it.
	k, found := slices.BinarySearchFunc(b.code, i, func(s span, i int) int { return s.start - i })
	return found || k > 0 && i < b.code[k-1].end
}

// nextCode is the start of the first code at or after offset i, or limit.
func (b *body) nextCode(i, limit int) int {
	for _, code := range [][]span{b.code[:b.merged], b.code[b.merged:]} {
		k, _ := slices.BinarySearchFunc(code, i, func(s span, i int) int { return s.start - i })
		if k < len(code) {
			limit = min(code[k].start, limit)
		}
	}
	return limit
}

// readHTML reads the HTML of s, a span of src outside code: the href and
// src attributes of its tags are references, its scripts and styles are
// dropped (up to their end tag, or, when they have none before the next
// code, up to that code), and a <pre> element is code up to its end tag,
// wherever CommonMark ends the block it begins (a line holding an end tag
// of script, style or textarea ends it too, a blank line ends a <div>'s).
func (b *body) readHTML(src []byte, s span) {
	for start := s.start; start < s.end; {
		z := html.NewTokenizer(bytes.NewReader(src[start:s.end]))
		at, restart := start, -1
		for restart < 0 {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			raw := z.Raw()
			tagStart := at
			at += len(raw)
			if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
				continue
			}
			switch name, _ := z.TagName(); string(name) {
			case "pre":
				end := elementEnd(src, at, len(src), "pre")
				b.code = append(b.code, span{tagStart, end})
				restart = end
			case "script", "style":
				if tt == html.SelfClosingTagToken {
					b.edits = append(b.edits, edit{span: span{tagStart, at}, kind: dropped})
					continue
				}
				end := elementEnd(src, at, b.nextCode(at, len(src)), string(name))
				b.edits = append(b.edits, edit{span: span{tagStart, end}, kind: dropped})
				b.droppedTo = max(b.droppedTo, end)
				restart = end
			default:
				b.attributes(tagStart, raw)
			}
		}
		if restart < 0 {
			break
		}
		start = restart
	}
}

// elementEnd is the end of the element named name whose start tag ends at
// i: the end of its end tag, found before limit; else limit.
func elementEnd(src []byte, i, limit int, name string) int {
	for j := i; j < limit; {
		k := bytes.Index(src[j:limit], []byte("</"))
		if k < 0 {
			break
		}
		j += k + 2
		if j+len(name) <= limit && bytes.EqualFold(src[j:j+len(name)], []byte(name)) &&
			(j+len(name) == limit || bytes.IndexByte([]byte(" \t\n\r\f/>"), src[j+len(name)]) >= 0) {
			if gt := bytes.IndexByte(src[j:limit], '>'); gt >= 0 {
				return j + gt + 1
			}
			return limit
		}
	}
	return limit
}

// attributes records the values of the href and src attributes of tag,
// the raw bytes of a start tag at offset at of the body.
func (b *body) attributes(at int, tag []byte) {
	for _, a := range tagAttributes(tag) {
		if a.name == "href" || a.name == "src" {
			b.edits = append(b.edits, edit{span: span{at + a.value.start, at + a.value.end}, kind: reference})
		}
	}
}

// attribute is an attribute of a tag: its name, lower-cased, and the span
// of its value in the tag, without the quotes.
type attribute struct {
	name  string
	value span
}

// tagAttributes reads the attributes of a start tag as HTML's tokenizer
// does, keeping where each value is.
func tagAttributes(tag []byte) []attribute {
	var attrs []attribute
	i := 1
	for i < len(tag) && !isTagSpace(tag[i]) && tag[i] != '/' && tag[i] != '>' {
		i++ // the tag's name
	}
	for i < len(tag) {
		for i < len(tag) && (isTagSpace(tag[i]) || tag[i] == '/') {
			i++
		}
		if i >= len(tag) || tag[i] == '>' {
			break
		}
		nameStart := i
		i++ // a first "=" is part of the name
		for i < len(tag) && !isTagSpace(tag[i]) && tag[i] != '/' && tag[i] != '>' && tag[i] != '=' {
			i++
		}
		a := attribute{name: strings.ToLower(string(tag[nameStart:i]))}
		for i < len(tag) && isTagSpace(tag[i]) {
			i++
		}
		if i >= len(tag) || tag[i] != '=' {
			continue // no value
		}
		i++
		for i < len(tag) && isTagSpace(tag[i]) {
			i++
		}
		switch {
		case i >= len(tag):
		case tag[i] == '"' || tag[i] == '\'':
			quote := tag[i]
			end := bytes.IndexByte(tag[i+1:], quote)
			if end < 0 {
				return attrs // an unclosed value runs past the tag
			}
			a.value = span{i + 1, i + 1 + end}
			i += end + 2
		default:
			start := i
			for i < len(tag) && !isTagSpace(tag[i]) && tag[i] != '>' {
				i++
			}
			a.value = span{start, i}
		}
		attrs = append(attrs, a)
	}
	return attrs
}

func isTagSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// postTags finds the Jekyll tags of src that name a post, with the site's
// base URL before them or not ({{ site.baseurl }}{% post_url
// 2024-05-01-name %}, {% link _posts/2024-05-01-name.md %}).
func postTags(src []byte) []edit {
	var tags []edit
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '{')
		if j < 0 {
			break
		}
		i += j
		n := 0
		if expr, m := markdown.OutputTag(src[i:]); m > 0 {
			if e := string(expr); e == "site.baseurl" || e == "site.url" {
				n = m
			}
		}
		name, args, m := markdown.LiquidTag(src[i+n:])
		if m == 0 || (name != "post_url" && name != "link") || len(args) == 0 {
			i++
			continue
		}
		ref, _, _ := bytes.Cut(args, []byte(" "))
		tags = append(tags, edit{span: span{i, i + n + m}, kind: postTag, post: string(ref)})
		i += n + m
	}
	return tags
}

// write writes src with its edits made.
func (lr linkResolver) write(src string, edits []edit) string {
	var out strings.Builder
	out.Grow(len(src) + len(src)/8)
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // inside a dropped element
		}
		out.WriteString(src[at:e.start])
		switch e.kind {
		case reference:
			out.WriteString(lr.resolve(src[e.start:e.end]))
		case demoted:
			out.WriteByte('#')
		case postTag:
			address, ok := "", false
			if lr.post != nil {
				address, ok = lr.post(e.post)
			}
			if !ok {
				address = src[e.start:e.end]
			}
			out.WriteString(address)
		}
		at = e.end
	}
	out.WriteString(src[at:])
	return out.String()
}
