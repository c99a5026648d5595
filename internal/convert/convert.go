// Package convert turns the HTML pages of a site into Markdown for agents:
// the part of a page that is its content (its <main>, or the one article
// that is most of it, else its one <article>, else its <body>) without
// the theme's furniture around it and what a reader of the text has no
// use for (scripts, navigation, forms, sidebars, comments, the
// neighbours' links), with code as the reader sees it, embeds as links
// and links made absolute; and it keeps what it made, within a budget,
// for the site's validators to say when it is stale. It owns the bounds
// of a conversion. It also makes the links of a post's Markdown body
// absolute for the documents that carry it off its page, code left as
// written (links.go).
//
// Imports from the module: internal/cache, internal/markdown.
package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Markdown for the rest of the site: a page the content does not name,
// asked for as Markdown, is answered with its own HTML converted, the part
// of it that is the page's content (its <main>) without what a reader of
// the text has no use for (scripts, navigation, forms). The site is asked
// for the page on every request, as only the site knows whether it
// changed; what was converted is kept, so a page is converted again only
// when the site's answer changes (see convert.go of internal/pages).

// The bounds of converting the site's pages. A page outside them is
// answered with the site's HTML, unchanged.
const (
	// MaxHTML is the largest HTML answer converted, in bytes: a
	// larger one is streamed to the client as the site sends it, so no
	// request holds more than this of the site's answer in memory.
	MaxHTML = 2 << 20
	// Timeout bounds one conversion, the wait for a conversion
	// slot included.
	Timeout = time.Second
	// Budget is the bytes of Markdown kept for the site's pages
	// (and of their keys), least recently used first out; a page whose
	// Markdown alone is larger is converted on each request and not kept.
	Budget = 8 << 20
	// Retry is how long a page that could not be converted is
	// answered with its HTML before it is tried again, unless it changes.
	Retry = time.Minute
)

// Slots is how many conversions run at once: half the CPUs (one on
// one or two), so that agents asking for pages nobody asked for before
// leave the rest to the site's other requests.
func Slots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// ErrTimeout is a conversion that ran out of Timeout.
var ErrTimeout = fmt.Errorf("conversion took longer than %s", Timeout)

// ErrNoText is a page with nothing to read once converted, such as the
// empty shell of a single-page app: its HTML is more use than an empty
// Markdown document.
var ErrNoText = errors.New("the page has no text to convert")

// ErrNoIndex is a page the site keeps out of indexes (a robots meta tag
// or an X-Robots-Tag with noindex, or a post the owner guards): what the
// site asks of crawlers holds for its Markdown too.
var ErrNoIndex = errors.New("the site keeps the page out of indexes (noindex)")

// NoIndex reports whether a robots directive (a meta tag's content or an
// X-Robots-Tag value, which may name a crawler first) says noindex.
func NoIndex(directives string) bool {
	for _, d := range strings.Split(strings.ToLower(directives), ",") {
		d = strings.TrimSpace(d)
		if before, after, ok := strings.Cut(d, ":"); ok && !strings.Contains(strings.TrimSpace(before), " ") {
			d = strings.TrimSpace(after) // "otherbot: noindex"
		}
		if d == "noindex" || d == "none" {
			return true
		}
	}
	return false
}

// pageConverter is the one HTML-to-Markdown converter: CommonMark with
// GitHub's tables and strikethrough, a link with no text (an icon's)
// left out. It is safe for concurrent use, and stops rendering once the
// context of a conversion is done.
var pageConverter = sync.OnceValue(func() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(commonmark.WithLinkEmptyContentBehavior(commonmark.LinkBehaviorSkip)),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	// The library does not watch the context: past the deadline, every
	// element renders as nothing, so the rest is skipped at once.
	conv.Register.Renderer(func(ctx converter.Context, _ converter.Writer, _ *html.Node) converter.RenderStatus {
		if ctx.Err() != nil {
			return converter.RenderSuccess
		}
		return converter.RenderTryNext
	}, converter.PriorityEarly)
	return conv
})

// Converted is a page made Markdown: its title and meta description, and
// the Markdown of its main content.
type Converted struct {
	Title, Description string
	Markdown           []byte
}

// Page converts body, an HTML page served as contentType at pageURL, to
// Markdown: that of its main content with every link and image made
// absolute, with the page's title and description beside it; the page's
// first heading is said once. It gives up with ErrTimeout when ctx is
// done first.
func Page(ctx context.Context, body []byte, contentType, pageURL string) (*Converted, error) {
	return convertPage(ctx, body, contentType, pageURL, "")
}

// Post is Page for a post whose title the caller writes itself: the
// headings and lines before the post's text that say title are left out.
func Post(ctx context.Context, body []byte, contentType, pageURL, title string) (*Converted, error) {
	return convertPage(ctx, body, contentType, pageURL, title)
}

func convertPage(ctx context.Context, body []byte, contentType, pageURL, title string) (*Converted, error) {
	doc, err := Parse(ctx, body, contentType)
	if err != nil {
		return nil, err
	}
	return convertTree(ctx, doc, pageURL, title)
}

// Parse parses body, an HTML page served as contentType, as Page does
// before converting it: its declared encoding honoured (an undeclared one
// is UTF-8 unless the bytes say otherwise), a page whose shape is past the
// bounds refused with ErrTooComplex before the parser starts, and
// ErrTimeout when ctx is done first. The reader of the site parses each
// page once with it, for its facts and for PostTree.
func Parse(ctx context.Context, body []byte, contentType string) (doc *html.Node, err error) {
	defer func() {
		// The decoders and the parser are not ours: a page they fail on is
		// skipped, as convertTree does for the converter.
		if v := recover(); v != nil {
			doc, err = nil, fmt.Errorf("parsing the HTML: %v", v)
		}
	}()
	if enc, name, certain := charset.DetermineEncoding(body, contentType); name != "utf-8" && (certain || !utf8.Valid(body)) {
		decoded, err := enc.NewDecoder().Bytes(body)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		body = decoded
	}
	if !shapeOf(body).within() {
		return nil, ErrTooComplex
	}
	doc, err = html.Parse(deadlineReader{ctx, bytes.NewReader(body)})
	switch {
	case ctx.Err() != nil:
		return nil, ErrTimeout
	case err != nil:
		return nil, fmt.Errorf("parsing the HTML: %w", err)
	}
	return doc, nil
}

// PostTree is Post for a page Parse made: doc is taken apart, so that it
// serves one conversion. When body is not nil, it is the element of doc
// the page marks as the post's body, and it alone is converted, as a page
// whose body it is.
func PostTree(ctx context.Context, doc, body *html.Node, pageURL, title string) (*Converted, error) {
	if body != nil {
		if body.Parent != nil {
			body.Parent.RemoveChild(body)
		}
		doc = &html.Node{Type: html.DocumentNode}
		root := &html.Node{Type: html.ElementNode, DataAtom: atom.Html, Data: "html"}
		head := &html.Node{Type: html.ElementNode, DataAtom: atom.Head, Data: "head"}
		wrap := &html.Node{Type: html.ElementNode, DataAtom: atom.Body, Data: "body"}
		doc.AppendChild(root)
		root.AppendChild(head)
		root.AppendChild(wrap)
		wrap.AppendChild(body)
	}
	return convertTree(ctx, doc, pageURL, title)
}

// convertTree converts doc, a parsed page, as Page does.
func convertTree(ctx context.Context, doc *html.Node, pageURL, title string) (page *Converted, err error) {
	defer func() {
		// The converter is not ours: a page it fails on is served as HTML.
		if v := recover(); v != nil {
			page, err = nil, fmt.Errorf("converting the HTML: %v", v)
		}
	}()
	p := readPage(doc)
	if p.noindex {
		return nil, ErrNoIndex
	}
	if !p.shape.within() {
		// The model erred: the converter's passes, which do not stop at the
		// deadline, must not start on this tree.
		return nil, ErrTooComplex
	}
	root := p.content()
	if root == nil {
		return nil, ErrNoText
	}
	prepare(root, title)
	// The content alone, so that nothing around it is rendered.
	root.Parent.RemoveChild(root)
	fragment := &html.Node{Type: html.DocumentNode}
	fragment.AppendChild(root)

	linkBase := pageURL
	if p.baseHref != "" {
		// A <base href> changes what the page's relative links mean.
		if pu, err := url.Parse(pageURL); err == nil {
			if bu, err := pu.Parse(p.baseHref); err == nil && (bu.Scheme == "http" || bu.Scheme == "https") {
				linkBase = bu.String()
			}
		}
	}
	md, err := pageConverter().ConvertNode(fragment, converter.WithContext(ctx), converter.WithDomain(linkBase))
	switch {
	case ctx.Err() != nil:
		return nil, ErrTimeout
	case err != nil:
		return nil, fmt.Errorf("converting the HTML: %w", err)
	case len(bytes.TrimSpace(md)) == 0:
		return nil, ErrNoText
	}
	return &Converted{Title: p.title, Description: p.description, Markdown: md}, nil
}

// parsedPage is what Page reads of a page before converting it.
type parsedPage struct {
	title, description, baseHref string
	body, main                   *html.Node
	noindex                      bool
	// shape is the tree's: its nodes, and the sum of their depths.
	shape shape
}

// readPage finds, in one walk, the page's title (its <title>, else its
// first <h1>), meta description and <base href>, and the elements its
// content may be in.
func readPage(doc *html.Node) *parsedPage {
	p := &parsedPage{}
	var h1 string
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		p.shape.nodes++
		p.shape.work += depth
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Title:
				if p.title == "" {
					p.title = textOf(n)
				}
			case atom.Meta:
				if strings.EqualFold(attr(n, "name"), "description") && p.description == "" {
					p.description = attr(n, "content")
				}
				if strings.EqualFold(attr(n, "name"), "robots") && NoIndex(attr(n, "content")) {
					p.noindex = true
				}
			case atom.Base:
				if p.baseHref == "" {
					p.baseHref = attr(n, "href")
				}
			case atom.Body:
				if p.body == nil {
					p.body = n
				}
			case atom.Main:
				if p.main == nil {
					p.main = n
				}
			case atom.H1:
				if h1 == "" {
					h1 = textOf(n)
				}
			case atom.Svg, atom.Math:
				// Foreign content: neither titles nor landmarks, but nodes.
				p.shape.add(n, depth)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	if strings.TrimSpace(p.title) == "" {
		p.title = h1
	}
	return p
}

// add counts the nodes below n, which is at depth, and their depths.
func (s *shape) add(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		s.nodes++
		s.work += depth + 1
		s.add(c, depth+1)
	}
}

// content is the element holding the page's content, with what is around
// it in the page but not the content's left out (see strip): its first
// <main>, or the one article in it when that is most of it or the rest is
// links (the theme's); without a <main>, its one <article>, else its
// <body>. It is nil for a page with neither.
func (p *parsedPage) content() *html.Node {
	container := p.main
	if container == nil {
		container = p.body
	}
	if container == nil {
		return nil
	}
	strip(container)
	root := container
	if article := theArticle(container); article != nil && (container != p.main || mostlyArticle(container, article)) {
		root = article
	}
	dropEdges(root)
	return root
}

// strip removes from root what a reader of the page's text has no use
// for: scripts (a gist's made a link first, see embeds), styles,
// templates, forms, navigation, inline SVG (icons, whose titles would
// read as stray words), the theme's furniture (see furniture) and the
// neighbours' links.
func strip(root *html.Node) {
	embeds(root)
	var drop []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		// Whether n holds a paragraph, asked once for all its asides.
		paragraphs := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Nav, atom.Form, atom.Svg:
				drop = append(drop, c)
				continue
			case atom.Pre:
				// Code is text: what is in it is the code's (see codeText).
				continue
			}
			marked, aside := furniture(c)
			if aside && paragraphs == 0 {
				paragraphs = 1
				if holdsParagraph(n) {
					paragraphs = 2
				}
			}
			if marked || aside && paragraphs == 1 {
				drop = append(drop, c)
				continue
			}
			walk(c)
		}
	}
	walk(root)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	for _, n := range neighbourLinks(root) {
		n.Parent.RemoveChild(n)
	}
}

// prepare makes root, the page's content, what the converter renders:
// line numbers out of its code and each code block its text (code.go),
// headings without their anchors, the title said once (headings.go), no
// thematic break left at its end.
func prepare(root *html.Node, title string) {
	for _, n := range lineNumbers(root) {
		n.Parent.RemoveChild(n)
	}
	codeBlocks(root)
	headingAnchors(root)
	titleRepeats(root, title)
	dropTrailingBreaks(root)
}

// attr is the value of n's attribute key, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text of n and its descendants, on one line.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
