package handlers

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
// when the site's answer changes (see convert_serve.go).

// The bounds of converting the site's pages. A page outside them is
// answered with the site's HTML, unchanged.
const (
	// maxConvertHTML is the largest HTML answer converted, in bytes: a
	// larger one is streamed to the client as the site sends it, so no
	// request holds more than this of the site's answer in memory.
	maxConvertHTML = 2 << 20
	// convertTimeout bounds one conversion, the wait for a conversion
	// slot included.
	convertTimeout = time.Second
	// convertBudget is the bytes of Markdown kept for the site's pages
	// (and of their keys), least recently used first out; a page whose
	// Markdown alone is larger is converted on each request and not kept.
	convertBudget = 8 << 20
	// convertRetry is how long a page that could not be converted is
	// answered with its HTML before it is tried again, unless it changes.
	convertRetry = time.Minute
)

// convertSlots is how many conversions run at once: half the CPUs (one on
// one or two), so that agents asking for pages nobody asked for before
// leave the rest to the site's other requests.
func convertSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// errConvertTimeout is a conversion that ran out of convertTimeout.
var errConvertTimeout = fmt.Errorf("conversion took longer than %s", convertTimeout)

// errNoText is a page with nothing to read once converted, such as the
// empty shell of a single-page app: its HTML is more use than an empty
// Markdown document.
var errNoText = errors.New("the page has no text to convert")

// errNoIndex is a page the site keeps out of indexes (a robots meta tag
// or an X-Robots-Tag with noindex, or a post the owner guards): what the
// site asks of crawlers holds for its Markdown too.
var errNoIndex = errors.New("the site keeps the page out of indexes (noindex)")

// noindex reports whether a robots directive (a meta tag's content or an
// X-Robots-Tag value, which may name a crawler first) says noindex.
func noindex(directives string) bool {
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
// GitHub's tables and strikethrough. It is safe for concurrent use, and
// stops rendering once the context of a conversion is done.
var pageConverter = sync.OnceValue(func() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
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

// convertPage converts body, an HTML page served as contentType at
// pageURL, to Markdown: YAML front matter (its title, description, address
// and updated, when given), then the Markdown of its main content with
// every link and image made absolute. It gives up with errConvertTimeout
// when ctx is done first.
func convertPage(ctx context.Context, body []byte, contentType, pageURL, updated string) (markdown []byte, err error) {
	defer func() {
		// The converter is not ours: a page it fails on is served as HTML.
		if v := recover(); v != nil {
			markdown, err = nil, fmt.Errorf("converting the HTML: %v", v)
		}
	}()
	// Declared encodings are honoured; an undeclared one is UTF-8 unless
	// the bytes say otherwise.
	if enc, name, certain := charset.DetermineEncoding(body, contentType); name != "utf-8" && (certain || !utf8.Valid(body)) {
		decoded, err := enc.NewDecoder().Bytes(body)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		body = decoded
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parsing the HTML: %w", err)
	}
	if ctx.Err() != nil {
		return nil, errConvertTimeout
	}
	p := readPage(doc)
	if p.noindex {
		return nil, errNoIndex
	}
	root := p.content()
	if root == nil {
		return nil, errNoText
	}
	strip(root, root == p.body)
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
		return nil, errConvertTimeout
	case err != nil:
		return nil, fmt.Errorf("converting the HTML: %w", err)
	case len(bytes.TrimSpace(md)) == 0:
		return nil, errNoText
	}
	var b bytes.Buffer
	b.Grow(len(md) + 512)
	writeFrontMatter(&b, twinFacts{title: p.title, description: p.description, url: pageURL, updated: updated})
	b.Write(md)
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// parsedPage is what convertPage reads of a page before converting it.
type parsedPage struct {
	title, description, baseHref string
	body, main, article          *html.Node
	articles                     int
	noindex                      bool
}

// readPage finds, in one walk, the page's title (its <title>, else its
// first <h1>), meta description and <base href>, and the elements its
// content may be in.
func readPage(doc *html.Node) *parsedPage {
	p := &parsedPage{}
	var h1 string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
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
				if strings.EqualFold(attr(n, "name"), "robots") && noindex(attr(n, "content")) {
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
			case atom.Article:
				p.articles++
				p.article = n
			case atom.H1:
				if h1 == "" {
					h1 = textOf(n)
				}
			case atom.Svg, atom.Math:
				return // foreign content: neither titles nor landmarks
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if strings.TrimSpace(p.title) == "" {
		p.title = h1
	}
	return p
}

// content is the element holding the page's content: its first <main>,
// else its one <article>, else its <body>.
func (p *parsedPage) content() *html.Node {
	switch {
	case p.main != nil:
		return p.main
	case p.articles == 1:
		return p.article
	}
	return p.body
}

// strip removes from root what a reader of the page's text has no use
// for: scripts, styles, templates, forms, navigation and inline SVG (icons,
// whose titles would read as stray words), and, when root is the body, the
// site's header and footer (those of the body itself; an article's own
// header and footer are content).
func strip(root *html.Node, isBody bool) {
	var drop []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Nav, atom.Form, atom.Svg:
				drop = append(drop, c)
				continue
			case atom.Header, atom.Footer:
				if isBody && n == root {
					drop = append(drop, c)
					continue
				}
			}
			walk(c)
		}
	}
	walk(root)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
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
	return oneLine(b.String())
}
