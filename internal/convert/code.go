package convert

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Code is text: a page's <pre> becomes a fenced block holding what the
// reader of the page sees in it, byte for byte. Highlighters set line
// numbers beside or inside the code (Jekyll's Rouge with linenos, Hugo's
// Chroma with linenos=table or inline, Pygments), which a reader neither
// reads nor copies as code: left in, they would be mixed into it ("1<a
// href=…"), so they are left out.

// lineNumberClasses are the classes highlighters give line numbers:
// Rouge's gutter and lineno, Chroma's lnt (a table's) and ln (inline),
// Pygments' linenos.
var lineNumberClasses = map[string]bool{"gutter": true, "rouge-gutter": true, "lineno": true, "linenos": true, "lnt": true, "ln": true}

// lineNumbers returns the line numbers in the code of root: the elements
// inside a <pre>, or in a table holding one, whose text is only digits and
// blanks and which are marked as line numbers (by one of
// lineNumberClasses, or by a style that keeps them from being selected, as
// Chroma's inline styles do) or hold such marks.
func lineNumbers(root *html.Node) []*html.Node {
	var found []*html.Node
	var walk func(n *html.Node, inCode bool)
	walk = func(n *html.Node, inCode bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			code := inCode || c.DataAtom == atom.Pre || c.DataAtom == atom.Table && holds(c, atom.Pre)
			if code && onlyDigits(c) && hasMark(c) {
				found = append(found, c)
				continue
			}
			walk(c, code)
		}
	}
	walk(root, false)
	return found
}

// hasMark reports whether n or an element in it is marked as line
// numbers.
func hasMark(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, class := range strings.Fields(attr(n, "class")) {
		if lineNumberClasses[class] {
			return true
		}
	}
	if style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", ""); strings.Contains(style, "user-select:none") {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasMark(c) {
			return true
		}
	}
	return false
}

// onlyDigits reports whether the text of n is only digits and blanks.
func onlyDigits(n *html.Node) bool {
	if n.Type == html.TextNode {
		return strings.Trim(n.Data, "0123456789 \t\r\n") == ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !onlyDigits(c) {
			return false
		}
	}
	return true
}

// holds reports whether an element of kind a is inside n.
func holds(n *html.Node, a atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == a || holds(c, a)) {
			return true
		}
	}
	return false
}
