package convert

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page's content is what its author wrote, not the theme's furniture
// around it: themes put inside <main>, beside or below the article, the
// author line and word count, the neighbours' titles (Newer, Older), a
// sidebar of the newest titles and the tag cloud, share buttons and the
// comment section. Left in, they are read as the post's words, and the
// words every page repeats drown the post's own in search. What the
// markup says is furniture is left out (its elements, roles and the class
// names themes give it); where the theme says nothing, a <main> holding
// one article besides links is read as the article.

// furnitureClasses are the class names (and ids) themes give their
// furniture: comment sections, the neighbours' links, lists of related
// posts, share buttons, sidebars, breadcrumbs, the post's info line.
var furnitureClasses = map[string]bool{
	"comments": true, "comment-section": true, "comments-area": true, "disqus_thread": true, "respond": true,
	"post-nav": true, "post-navigation": true, "nav-links": true, "pagination": true, "pager": true,
	"related": true, "related-posts": true, "related-articles": true, "relatedposts": true,
	"share": true, "sharing": true, "share-buttons": true, "share-links": true, "social-share": true, "sharedaddy": true,
	"sidebar": true, "breadcrumb": true, "breadcrumbs": true, "post-info": true,
}

// furnitureRoles are the ARIA roles of what is around a page's content.
var furnitureRoles = map[string]bool{
	"complementary": true, "navigation": true, "search": true, "banner": true, "contentinfo": true,
}

// furniture reports whether the element n is marked as furniture: an
// element of a furniture role, class or id, or one hidden from assistive
// technology (icons, decorations, a visual copy of what is said in words
// beside it); and whether it is an <aside> or a sidebar, which is
// furniture unless set among the paragraphs of the text, as a note is.
func furniture(n *html.Node) (marked, aside bool) {
	aside = n.DataAtom == atom.Aside
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true, false
			}
		case "role":
			if furnitureRoles[lowerASCII(a.Val)] {
				return true, false
			}
		case "aria-label":
			if strings.Contains(lowerASCII(a.Val), "breadcrumb") {
				return true, false
			}
		case "id":
			if furnitureClasses[lowerASCII(a.Val)] {
				return true, false
			}
		case "class":
			for class := range strings.FieldsSeq(a.Val) {
				class = lowerASCII(class)
				if class == "sidebar" {
					aside = true
				} else if furnitureClasses[class] {
					return true, false
				}
			}
		}
	}
	return false, aside
}

// lowerASCII is s in lower case, s itself (no copy) when it has no upper
// case ASCII letter, as class names seldom do.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// holdsParagraph reports whether n has a paragraph among its children:
// an aside there is a note of the text (a pull quote, a tip), not the
// page's.
func holdsParagraph(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.P {
			return true
		}
	}
	return false
}

// navLabels are the words themes set beside the neighbours' links;
// navSignals those of them that say the links are the neighbours.
var (
	navLabels  = map[string]bool{"next": true, "previous": true, "prev": true, "older": true, "newer": true, "post": true, "posts": true, "article": true, "entry": true, "page": true, "read": true}
	navSignals = map[string]bool{"next": true, "previous": true, "prev": true, "older": true, "newer": true}
)

// navStats is what a block holds, for telling the neighbours' links: its
// links, whether one is rel=prev or rel=next or a label says so, and
// whether it holds anything besides links and labels.
type navStats struct {
	links        int
	signal, more bool
}

// neighbours reports whether the block holds only the neighbours' links.
func (s navStats) neighbours() bool { return s.links > 0 && s.signal && !s.more }

// neighbourLinks returns the blocks of root that hold only the links to
// the neighbouring posts: links, at least one of them rel=prev or
// rel=next or labelled Next, Previous, Older or Newer, and no word but
// such labels. The outermost such block is returned, never root.
func neighbourLinks(root *html.Node) []*html.Node {
	var found []*html.Node
	var measure func(n *html.Node) navStats
	measure = func(n *html.Node) navStats {
		var s navStats
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				// Past a word of more, n is no such block, whatever else it says.
				for data := c.Data; data != "" && !s.more; {
					var w string
					w, data = nextWord(data)
					w = strings.ToLower(w)
					if navSignals[w] {
						s.signal = true
					} else if w != "" && !navLabels[w] {
						s.more = true
					}
				}
			case html.ElementNode:
				switch c.DataAtom {
				case atom.A:
					if attr(c, "href") == "" {
						s.more = true
						continue
					}
					s.links++
					if rel := attr(c, "rel"); rel != "" {
						for _, r := range strings.Fields(rel) {
							if strings.EqualFold(r, "prev") || strings.EqualFold(r, "next") || strings.EqualFold(r, "previous") {
								s.signal = true
							}
						}
					}
					// Its words are the neighbour's title; an image or code in
					// it is more.
					if holdsAny(c, atom.Img, atom.Pre, atom.Table, atom.Video, atom.Iframe) {
						s.more = true
					}
					continue
				case atom.Img, atom.Pre, atom.Table, atom.Video, atom.Audio, atom.Iframe, atom.Code, atom.Blockquote:
					s.more = true
					continue
				}
				// The blocks found inside c give way to c when c is one.
				mark := len(found)
				cs := measure(c)
				if cs.neighbours() {
					found = append(found[:mark], c)
				}
				s.links += cs.links
				s.signal = s.signal || cs.signal
				s.more = s.more || cs.more
			}
		}
		return s
	}
	measure(root)
	return found
}

// holdsAny reports whether an element of one of the kinds is inside n.
func holdsAny(n *html.Node, kinds ...atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		for _, k := range kinds {
			if c.DataAtom == k {
				return true
			}
		}
		if holdsAny(c, kinds...) {
			return true
		}
	}
	return false
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// nextWord is the first word of s (a run of letters and digits), "" when
// it has none, and what follows it.
func nextWord(s string) (word, rest string) {
	start := strings.IndexFunc(s, func(r rune) bool { return !notLetter(r) })
	if start < 0 {
		return "", ""
	}
	s = s[start:]
	end := strings.IndexFunc(s, notLetter)
	if end < 0 {
		return s, ""
	}
	return s[:end], s[end:]
}

// textSize is the size of n's text, in non-blank characters, and the part
// of it inside links.
func textSize(n *html.Node) (all, linked int) {
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				k := 0
				for _, r := range c.Data {
					if !unicode.IsSpace(r) {
						k++
					}
				}
				all += k
				if inLink {
					linked += k
				}
			case html.ElementNode:
				walk(c, inLink || c.DataAtom == atom.A)
			}
		}
	}
	walk(n, false)
	return all, linked
}

// theArticle is the one article of container, the outermost (an article
// inside another is a part of it, such as a comment), or nil when it holds
// none or several.
func theArticle(container *html.Node) *html.Node {
	var found *html.Node
	count := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && count < 2; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Article {
				found = c
				count++
				continue
			}
			walk(c)
		}
	}
	walk(container)
	if count != 1 {
		return nil
	}
	return found
}

// mostlyArticle reports whether the article is what matters in main: it
// holds at least half of main's text, or what main holds besides it is
// mostly links (lists of titles and tags the theme sets beside it).
func mostlyArticle(main, article *html.Node) bool {
	all, linked := textSize(main)
	inArticle, linkedInArticle := textSize(article)
	rest, restLinked := all-inArticle, linked-linkedInArticle
	return inArticle >= rest || 2*restLinked >= rest
}

// dropEdges removes what is at the edges of root and is the page's, not
// the content's: a <footer> directly in root, and a <header> directly in
// it unless root is a <main> and the header holds a heading (the page's
// title). An article's own header and footer are the article's.
func dropEdges(root *html.Node) {
	if root.DataAtom == atom.Article {
		return
	}
	for c := root.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && (c.DataAtom == atom.Footer ||
			c.DataAtom == atom.Header && !(root.DataAtom == atom.Main && holdsAny(c, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6))) {
			root.RemoveChild(c)
		}
		c = next
	}
}

// dropTrailingBreaks removes the thematic breaks that end root, with
// nothing after them once the furniture they set off is gone.
func dropTrailingBreaks(root *html.Node) {
	for n := root; n != nil; {
		last := n.LastChild
		for last != nil {
			hr := last.Type == html.ElementNode && last.DataAtom == atom.Hr
			blank := last.Type == html.CommentNode || last.Type == html.TextNode && strings.TrimSpace(last.Data) == ""
			if !hr && !blank {
				break
			}
			prev := last.PrevSibling
			if hr {
				n.RemoveChild(last)
			}
			last = prev
		}
		if last == nil || last.Type != html.ElementNode || last.DataAtom != atom.Div && last.DataAtom != atom.Section && last.DataAtom != atom.Article {
			return
		}
		n = last
	}
}
