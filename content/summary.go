package content

import (
	"bytes"
	"html"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/caddy-discovery/caddy-discovery/internal/markdown"
)

// DescriptionLength is the most characters of a description derived from
// an insight's body.
const DescriptionLength = 200

// Summarize is the description derived from a Markdown body, as a post
// without one of its own gets it (see summarize).
func Summarize(body string) string { return summarize(body) }

// summarize derives a description from a Markdown body: its first
// paragraph as plain text, or the text before a <!--more--> divider when
// the body has one (Hugo's summary divider, and the excerpt separator
// Jekyll sites set), cut after the last sentence that ends within
// DescriptionLength characters. Headings, code, HTML blocks and comments,
// lists, quotes, tables, images, tables of contents, kramdown attribute
// lists and template tags (Hugo shortcodes, Liquid, Nunjucks) are passed
// over, and HTML entities decoded. It returns "" when the body has no
// paragraph.
func summarize(body string) string {
	return cutAtSentence(leadText(body), DescriptionLength)
}

// summaryParser reads a body as CommonMark with GitHub's tables and
// strikethrough, which the generators' Markdown readers all know.
var summaryParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
		util.Prioritized(extension.NewStrikethroughParser(), 500))...),
	parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
		util.Prioritized(extension.NewTableParagraphTransformer(), 200))...),
)

// anyReference reads a reference link as a link whatever its label: a
// description is text, and the definition may be outside the body (a
// kramdown site's shared abbreviations, an include).
type anyReference struct{ parser.Context }

func (c anyReference) Reference(label string) (parser.Reference, bool) {
	if r, ok := c.Context.Reference(label); ok {
		return r, true
	}
	return parser.NewReference([]byte(label), nil, nil), true
}

// leadText returns the plain text of the body's first paragraph that has
// any (with the next ones while it is shorter than minLeadText), or of
// every paragraph before a more divider when the body has one outside
// code and comments and there is text before it. The body is read as its
// generator reads it: the template blocks of code and comment first
// (markdown.TemplateBlocks), then the Markdown, by goldmark.
func leadText(body string) string {
	src := []byte(body)
	src = markdown.Mask(src, markdown.TemplateBlocks(src), markdown.Code, markdown.Comment, markdown.Raw)
	// With no divider possible, the lead is at the start: its blocks read
	// the same in a prefix that ends at a blank line, which a paragraph,
	// a heading or a table never spans. A block that does (code, a loose
	// list) only ends sooner, and the whole body is read when the prefix
	// did not give the lead.
	if cut := leadPrefix(src); cut < len(src) && !bytes.Contains(src, []byte("<!--")) {
		if lead := leadOf(src[:cut]); len(lead) >= minLeadText {
			return lead
		}
	}
	return leadOf(src)
}

// leadPrefixSize is how much of a body leadText reads first, up to the
// next blank line.
const leadPrefixSize = 2048

// leadPrefix is the end of the first blank line after leadPrefixSize
// bytes of src, or len(src).
func leadPrefix(src []byte) int {
	if len(src) <= leadPrefixSize {
		return len(src)
	}
	if i := bytes.Index(src[leadPrefixSize:], []byte("\n\n")); i >= 0 {
		return leadPrefixSize + i + 1
	}
	return len(src)
}

// leadOf is leadText of src, a masked body.
func leadOf(src []byte) string {
	doc := summaryParser.Parse(text.NewReader(src), parser.WithContext(anyReference{parser.NewContext()}))
	divider := hasDivider(doc, src)
	var paras []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() != ast.KindParagraph {
			if divider && hasDivider(n, src) {
				if len(paras) > 0 {
					return strings.Join(paras, " ")
				}
				divider = false // nothing before it: read on
			}
			continue
		}
		if isTOCMarker(n, src) {
			continue
		}
		t, atDivider := paragraphText(n, src)
		if t != "" {
			paras = append(paras, t)
		}
		if atDivider && divider {
			if len(paras) > 0 {
				return strings.Join(paras, " ")
			}
			divider = false
		}
		if !divider && len(paras) > 0 && len(strings.Join(paras, " ")) >= minLeadText {
			return strings.Join(paras, " ")
		}
	}
	return strings.Join(paras, " ")
}

// minLeadText is the length below which the lead text runs on into the
// next paragraph: a first paragraph such as "Hi!" describes nothing.
const minLeadText = 20

// isDivider reports whether n is a more divider, <!--more-->: the end of
// the summary of a Hugo post, and of the excerpt of a Jekyll post whose
// site sets it as its excerpt_separator.
func isDivider(n ast.Node, src []byte) bool {
	var raw []byte
	switch n := n.(type) {
	case *ast.RawHTML:
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			raw = append(raw, seg.Value(src)...)
		}
	case *ast.HTMLBlock:
		if n.HTMLBlockType != ast.HTMLBlockType2 {
			return false
		}
		for i := range n.Lines().Len() {
			line := n.Lines().At(i)
			raw = append(raw, line.Value(src)...)
		}
	default:
		return false
	}
	inner, ok := bytes.CutPrefix(bytes.TrimSpace(raw), []byte("<!--"))
	inner, closed := bytes.CutSuffix(inner, []byte("-->"))
	return ok && closed && strings.EqualFold(string(bytes.TrimSpace(inner)), "more")
}

// hasDivider reports whether n holds a more divider.
func hasDivider(n ast.Node, src []byte) bool {
	found := false
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && isDivider(c, src) {
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}

// isTOCMarker reports whether a paragraph stands for a table of contents:
// markdown-it's [[toc]], Python-Markdown's [TOC], GitLab's [[_TOC_]].
func isTOCMarker(p ast.Node, src []byte) bool {
	if p.Lines().Len() != 1 {
		return false
	}
	line := p.Lines().At(0)
	switch strings.ToLower(string(bytes.TrimSpace(line.Value(src)))) {
	case "[[toc]]", "[toc]", "[[_toc_]]", "[_toc_]":
		return true
	}
	return false
}

// paragraphText is the plain text of a paragraph: its words, a link's
// text, a code span's code as written, an autolink's address; images,
// footnote markers, HTML tags and comments, template tags and kramdown
// attribute lists are left out, escapes and HTML entities decoded. It
// stops at a more divider, and reports whether it met one.
func paragraphText(p ast.Node, src []byte) (text string, atDivider bool) {
	var b, prose strings.Builder
	flush := func() {
		b.WriteString(plainProse(prose.String()))
		prose.Reset()
	}
	_ = ast.Walk(p, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			prose.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				prose.WriteByte(' ')
			}
		case *ast.String:
			prose.Write(n.Value)
		case *ast.CodeSpan:
			flush()
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			prose.Write(n.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.Image:
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if r := n.Reference; r != nil && r.Type == ast.ReferenceLinkShortcut && bytes.HasPrefix(r.Value, []byte("^")) {
				return ast.WalkSkipChildren, nil // a footnote marker, [^1]
			}
		case *ast.RawHTML:
			if isDivider(n, src) {
				atDivider = true
				return ast.WalkStop, nil
			}
		}
		return ast.WalkContinue, nil
	})
	flush()
	return strings.Join(strings.Fields(b.String()), " "), atDivider
}

// plainProse is prose as text: template tags (Liquid's, Nunjucks', Hugo's
// shortcodes), kramdown attribute lists and HTML comments left out (one
// left open runs to the end), escapes and HTML entities decoded.
func plainProse(s string) string {
	if !strings.ContainsAny(s, "{<\\&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		rest := []byte(s[i:])
		n := 0
		switch {
		case bytes.HasPrefix(rest, []byte("{{<")), bytes.HasPrefix(rest, []byte("{{%")):
			_, _, n = markdown.Shortcode(rest)
		case bytes.HasPrefix(rest, []byte("{{")):
			_, n = markdown.OutputTag(rest)
		case bytes.HasPrefix(rest, []byte("{%")):
			_, _, n = markdown.LiquidTag(rest)
		case bytes.HasPrefix(rest, []byte("{:")):
			// a kramdown attribute list or extension: {: .lead}, {::options … /}
			if end := bytes.IndexAny(rest[1:], "{}"); end >= 0 && rest[1+end] == '}' {
				n = end + 2
			}
		case bytes.HasPrefix(rest, []byte("<!--")):
			n = len(rest)
			if end := bytes.Index(rest, []byte("-->")); end >= 0 {
				n = end + len("-->")
			}
		}
		if n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return html.UnescapeString(string(util.UnescapePunctuations([]byte(b.String()))))
}

// cutAtSentence shortens s to at most limit characters, after the last
// sentence that ends in time; when none does, at the last space, marking
// the cut with an ellipsis.
func cutAtSentence(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	end := 0
	for i := 0; i < limit; i++ {
		if r[i] != '.' && r[i] != '!' && r[i] != '?' && r[i] != '…' {
			continue
		}
		j := i + 1
		for j < len(r) && strings.ContainsRune(`"')]”’»`, r[j]) {
			j++
		}
		if j <= limit && unicode.IsSpace(r[j]) {
			end = j
		}
	}
	if end > 0 {
		return string(r[:end])
	}
	cut := limit - 1
	for cut > 0 && !unicode.IsSpace(r[cut]) {
		cut--
	}
	if cut == 0 {
		cut = limit - 1
	}
	return strings.TrimRightFunc(string(r[:cut]), func(c rune) bool {
		return unicode.IsSpace(c) || unicode.IsPunct(c)
	}) + "…"
}
