package site

// Reading the Markdown made of the site's pages: its first heading, and
// its paragraphs as text, through goldmark's parser.

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	mdsrc "github.com/caddy-discovery/caddy-discovery/internal/markdown"
)

// markdownParser reads CommonMark, as the converter writes it.
var markdownParser = goldmark.DefaultParser()

// dropTitle removes md's first block when it is a heading that says
// title: the module writes the title itself.
func dropTitle(md []byte, title string) []byte {
	md = bytes.TrimSpace(md)
	if title == "" {
		return md
	}
	doc := markdownParser.Parse(text.NewReader(md))
	h, ok := doc.FirstChild().(*ast.Heading)
	if !ok || h.Level > 2 || !sameWords(markdownText(h, md), title) {
		return md
	}
	end := 0
	if lines := h.Lines(); lines.Len() > 0 {
		end = lines.At(lines.Len() - 1).Stop
	}
	if next := h.NextSibling(); next != nil && next.Lines().Len() > 0 {
		end = next.Lines().At(0).Start
		// A block's first line starts after its markers (a list's "- ").
		if i := bytes.LastIndexByte(md[:end], '\n'); i >= 0 {
			end = i + 1
		}
	} else if next == nil {
		end = len(md)
	}
	return bytes.TrimSpace(md[end:])
}

// sameWords reports whether a and b are the same words, case and
// punctuation aside.
func sameWords(a, b string) bool {
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(c rune) bool {
			return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c > 127)
		}), " ")
	}
	return norm(a) == norm(b)
}

// maxAboutParagraphs is how many paragraphs of the About page the
// profile's about takes.
const maxAboutParagraphs = 20

// paragraphs are the paragraphs of md, a page's Markdown, as plain text,
// in order: headings, lists, quotes, code and images are left out.
func paragraphs(md []byte) []string {
	doc := markdownParser.Parse(text.NewReader(md))
	var out []string
	for n := doc.FirstChild(); n != nil && len(out) < maxAboutParagraphs; n = n.NextSibling() {
		if n.Kind() != ast.KindParagraph {
			continue
		}
		if t := strings.Join(strings.Fields(markdownText(n, md)), " "); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// markdownText is the text of n's inline content: link text kept, images,
// raw HTML and emphasis markers left out.
func markdownText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Image, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			b.Write(c.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if seg, ok := t.(*ast.Text); ok {
					b.Write(seg.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// templated reports whether md, a post's Markdown source, holds template
// syntax the generator renders into the page (an include, a shortcode, a
// Liquid output, a table of contents marker) outside its code: the page
// then says what the source does not. The blocks a generator shows as
// written (highlighted code, comments) are not such syntax: the module
// reads them itself.
func templated(md string) bool {
	src := []byte(md)
	if !bytes.Contains(src, []byte("{%")) && !bytes.Contains(src, []byte("{{")) && !bytes.Contains(src, []byte("[[")) {
		return false
	}
	src = mdsrc.Mask(src, mdsrc.TemplateBlocks(src), mdsrc.Code, mdsrc.Comment, mdsrc.Raw)
	// The code's bytes blanked too, the rest read as written: a tag may
	// span what the parser reads as several pieces of text.
	doc := markdownParser.Parse(text.NewReader(src))
	blank := func(seg text.Segment) {
		if src == nil || seg.Stop > len(src) {
			return
		}
		for i := seg.Start; i < seg.Stop; i++ {
			if src[i] != '\n' {
				src[i] = ' '
			}
		}
	}
	src = bytes.Clone(src)
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				blank(n.Lines().At(i))
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					blank(t.Segment)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '[':
			lower := bytes.ToLower(src[i:min(len(src), i+9)])
			if bytes.HasPrefix(lower, []byte("[[toc]]")) || bytes.HasPrefix(lower, []byte("[[_toc_]]")) {
				return true
			}
		case '{':
			_, _, liquid := mdsrc.LiquidTag(src[i:])
			_, _, shortcode := mdsrc.Shortcode(src[i:])
			_, output := mdsrc.OutputTag(src[i:])
			if liquid > 0 || shortcode > 0 || output > 0 {
				return true
			}
		}
	}
	return false
}
