package convert

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A post's title is said once. Themes say it again above the text (in
// the article's header, as a subtitle, after a prompt such as "~$ "),
// and the post's own first heading often says it too; the module writes
// the title of a post itself. Headings carry their own anchor links (an
// icon, a "#", a "¶"), which read as empty links or stray signs.

// Bounds of a page's lead: the blocks before the text proper, where a
// title is repeated. The lead ends at the first paragraph of more than
// maxLineWords words (a line of a date, a reading time or tags is
// shorter), the first code or table, or after maxLeadWords words that say
// no title.
const (
	maxLineWords    = 12
	maxLeadWords    = 40
	maxLeadElements = 500
	// maxTitleWords bounds the words an element may have to say a title.
	maxTitleWords = 40
)

// headingAnchors removes from root the links a heading carries to itself:
// a link inside a heading to a fragment (of this page, by its address or
// by the fragment alone), with no letter or digit in its text.
func headingAnchors(root *html.Node) {
	var drop []*html.Node
	var walk func(n *html.Node, inHeading bool)
	walk = func(n *html.Node, inHeading bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.DataAtom == atom.Pre {
				continue
			}
			if inHeading && c.DataAtom == atom.A && strings.Contains(attr(c, "href"), "#") && !hasWord(c) {
				drop = append(drop, c)
				continue
			}
			walk(c, inHeading || isHeading(c.DataAtom))
		}
	}
	walk(root, false)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// hasWord reports whether the text of n has a letter or a digit, or n
// holds an image.
func hasWord(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.IndexFunc(c.Data, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0:
			return true
		case c.Type == html.ElementNode && (c.DataAtom == atom.Img || hasWord(c)):
			return true
		}
	}
	return false
}

// titleRepeats removes from root's lead the elements that say the title
// again. With title given (a post's, which the caller writes itself),
// every heading and line of the lead that says it goes; without, the
// lead's first heading is the title, kept, and the elements after it
// that say it again go. An element says a title when its words are the
// title's, case, punctuation and signs (a prompt's "~$") aside, or those
// of one side of a title such as "Post | Site".
func titleRepeats(root *html.Node, title string) {
	titles := titleForms(title)
	words, visited := 0, 0
	var drop []*html.Node
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visited++
			if visited > maxLeadElements || words > maxLeadWords {
				return false
			}
			switch c.Type {
			case html.TextNode:
				words += len(strings.FieldsFunc(c.Data, notLetter))
			case html.ElementNode:
				switch c.DataAtom {
				case atom.Pre, atom.Table:
					return false
				}
				said := wordsOf(c, maxTitleWords)
				if isParagraph(c.DataAtom) && !titles[said] && (said == "" && hasWord(c) || strings.Count(said, " ") >= maxLineWords) {
					return false // the text proper
				}
				switch {
				case said == "":
				case titles[said]:
					drop = append(drop, c)
					continue
				case len(titles) == 0 && (c.DataAtom == atom.H1 || c.DataAtom == atom.H2):
					// The page's own title, said first.
					titles = titleForms(said)
					continue
				}
				if !walk(c) {
					return false
				}
			}
		}
		return true
	}
	walk(root)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// titleForms are the word forms (see normalWords) a title is said in:
// all of it, and the first and last parts of a title such as
// "Post | Site".
func titleForms(title string) map[string]bool {
	forms := make(map[string]bool)
	if w := normalWords(title); w != "" {
		forms[w] = true
	}
	for _, sep := range []string{" | ", " – ", " — ", " - ", " · ", " :: ", " » "} {
		if parts := strings.Split(title, sep); len(parts) > 1 {
			for _, part := range []string{parts[0], parts[len(parts)-1]} {
				if w := normalWords(part); w != "" {
					forms[w] = true
				}
			}
		}
	}
	return forms
}

// normalWords is s's words, lowercase, one space apart: letters and
// digits, all else a separator.
func normalWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), notLetter), " ")
}

// wordsOf is the words of n's text as normalWords has them, "" when it
// has none, or more than max words (or than a title's worth of elements).
func wordsOf(n *html.Node, max int) string {
	var b strings.Builder
	limit := 8 * max // bytes of text, elements
	nodes := 0
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if nodes++; nodes > limit {
				return false
			}
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				// A block's words are apart from those around it.
				inline := isInline(c.DataAtom)
				if !inline {
					b.WriteByte(' ')
				}
				if !walk(c) {
					return false
				}
				if !inline {
					b.WriteByte(' ')
				}
			}
			if b.Len() > limit {
				return false
			}
		}
		return true
	}
	if !walk(n) {
		return ""
	}
	words := normalWords(b.String())
	if strings.Count(words, " ") >= max {
		return ""
	}
	return words
}

// isInline reports the elements that set text within a line.
func isInline(a atom.Atom) bool {
	switch a {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Cite, atom.Code, atom.Data, atom.Dfn, atom.Em, atom.I,
		atom.Kbd, atom.Mark, atom.Q, atom.S, atom.Samp, atom.Small, atom.Span, atom.Strong, atom.Sub, atom.Sup,
		atom.Time, atom.U, atom.Var:
		return true
	}
	return false
}

// isParagraph reports the elements that hold a paragraph of text.
func isParagraph(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Li, atom.Blockquote, atom.Dd:
		return true
	}
	return false
}
