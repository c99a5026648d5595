package convert

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Code is text: a page's <pre> becomes a fenced block holding what the
// reader of the page sees in it, byte for byte. Highlighters set line
// numbers beside or inside the code (Jekyll's Rouge with linenos, Hugo's
// Chroma with linenos=table or inline, Pygments, Expressive Code's
// gutter), which a reader neither reads nor copies as code: left in, they
// would be mixed into it ("1<a href=…"), so they are left out. Some wrap
// each line in an element of its own (Expressive Code's div.ec-line,
// Shiki's and Chroma's span.line): each is one line of the code, not a
// paragraph. The fence says the code's language when the page does.

// lineNumberClasses are the classes highlighters give line numbers:
// Rouge's gutter and lineno, Chroma's lnt (a table's) and ln (inline),
// Pygments' linenos, Prism's line-numbers-rows, Expressive Code's gutter
// and ln.
var lineNumberClasses = map[string]bool{"gutter": true, "rouge-gutter": true, "lineno": true, "linenos": true, "lnt": true, "ln": true,
	"line-numbers-rows": true, "line-number": true, "line-numbers": true}

// lineNumbers returns the line numbers in the code of root: the elements
// inside a <pre>, or in a table holding one, whose text is only digits and
// blanks and which are marked as line numbers (see marked) or, but for a
// line of code, hold such marks.
func lineNumbers(root *html.Node) []*html.Node {
	var found []*html.Node
	var walk func(n *html.Node, inCode bool)
	walk = func(n *html.Node, inCode bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			code := inCode || c.DataAtom == atom.Pre || c.DataAtom == atom.Table && holds(c, atom.Pre)
			// A line of code holding its number is not a number: an empty
			// line's is only digits.
			if code && onlyDigits(c) && (marked(c) || !(inCode && codeLine(c)) && hasMark(c)) {
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
	if marked(n) {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasMark(c) {
			return true
		}
	}
	return false
}

// marked reports whether the element n is marked as line numbers: by one
// of lineNumberClasses, or by a style that keeps it from being selected,
// as Chroma's inline styles do.
func marked(n *html.Node) bool {
	for _, class := range strings.Fields(attr(n, "class")) {
		if lineNumberClasses[class] {
			return true
		}
	}
	style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", "")
	return strings.Contains(style, "user-select:none")
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

// codeLineClasses are the classes highlighters give the element of one
// line of code: Shiki's and Chroma's line, Expressive Code's ec-line.
var codeLineClasses = map[string]bool{"line": true, "ec-line": true, "code-line": true}

// codeBlocks makes each <pre> of root one <code> holding its text, as the
// reader of the page sees it (see codeText), and the code's language, for
// the converter to fence as it is.
func codeBlocks(root *html.Node) {
	var pres []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Pre {
				pres = append(pres, c)
				continue
			}
			walk(c)
		}
	}
	walk(root)
	for _, pre := range pres {
		language := codeLanguage(pre)
		text := codeText(pre)
		// One <code> holding one text, made of what pre holds (the usual
		// <code> holding one text, reused).
		code, t := pre.FirstChild, (*html.Node)(nil)
		if code != nil && code.NextSibling == nil && code.Type == html.ElementNode && code.DataAtom == atom.Code {
			if t = code.FirstChild; t != nil && (t.NextSibling != nil || t.Type != html.TextNode) {
				t = nil
			}
		} else {
			code = nil
		}
		for c := pre.FirstChild; c != nil; c = pre.FirstChild {
			pre.RemoveChild(c)
		}
		if code == nil {
			code = &html.Node{Type: html.ElementNode, Data: "code", DataAtom: atom.Code}
		}
		for c := code.FirstChild; c != nil; c = code.FirstChild {
			code.RemoveChild(c)
		}
		if t == nil {
			t = &html.Node{Type: html.TextNode}
		}
		t.Data = text
		code.AppendChild(t)
		// The converter reads the language from the first class it finds,
		// the <pre>'s first.
		pre.Attr, code.Attr = nil, nil
		if language != "" {
			code.Attr = []html.Attribute{{Key: "class", Val: "language-" + language}}
		}
		pre.AppendChild(code)
	}
}

// codeText is the text of pre as its reader sees it: its text, a <br> a
// line break, each element of a line of code (a block, or one of
// codeLineClasses) one line, without a blank line between two such, and
// without buttons (copy, run), what is hidden from assistive technology
// (line numbers, markers) and what is no code (scripts, styles).
func codeText(pre *html.Node) string {
	var b strings.Builder
	// ended: a line element ended without a line break of its own; the
	// text that follows starts a line.
	ended := false
	endsLine := func() bool { s := b.String(); return s == "" || s[len(s)-1] == '\n' }
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if betweenLines(c) {
					continue
				}
				if ended && !strings.HasPrefix(c.Data, "\n") && !strings.HasPrefix(c.Data, "\r\n") {
					b.WriteByte('\n')
				}
				ended = false
				b.WriteString(c.Data)
			case html.ElementNode:
				switch c.DataAtom {
				case atom.Br:
					b.WriteByte('\n')
					ended = false
					continue
				case atom.Button, atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Svg:
					continue
				}
				if strings.EqualFold(attr(c, "aria-hidden"), "true") {
					// Not read out: line numbers, markers.
					continue
				}
				if !codeLine(c) {
					walk(c)
					continue
				}
				if !endsLine() {
					b.WriteByte('\n')
				}
				ended = false
				walk(c)
				ended = !endsLine()
			}
		}
	}
	walk(pre)
	return b.String()
}

// codeLine reports whether n, inside a <pre>, holds a line of code of its
// own: a block, or an element a highlighter marks as a line.
func codeLine(n *html.Node) bool {
	if blockInCode(n) || hasAttr(n, "data-line") {
		return true
	}
	for _, class := range strings.Fields(attr(n, "class")) {
		if codeLineClasses[class] {
			return true
		}
	}
	return false
}

// blockInCode reports the elements that are blocks, lines of their own,
// inside code.
func blockInCode(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.P, atom.Li, atom.Tr, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Figure,
		atom.Blockquote, atom.Dd, atom.Dt, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// betweenLines reports whether the text t, inside a <pre>, is blanks
// beside a block, which sets the code's lines apart itself.
func betweenLines(t *html.Node) bool {
	if strings.TrimSpace(t.Data) != "" {
		return false
	}
	prev := func(n *html.Node) *html.Node { return n.PrevSibling }
	next := func(n *html.Node) *html.Node { return n.NextSibling }
	for _, step := range []func(*html.Node) *html.Node{prev, next} {
		// Past a few comments, the text is no layout's.
		s := step(t)
		for i := 0; i < 4 && s != nil && s.Type == html.CommentNode; i++ {
			s = step(s)
		}
		if s != nil && s.Type == html.ElementNode && blockInCode(s) {
			return true
		}
	}
	return false
}

// hasAttr reports whether n has the attribute key, whatever its value.
func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

// codeLanguage is the language pre's code is in, as the page says it:
// the data-language or data-lang of the <pre> or its <code>, or their
// class language-x or lang-x, or that of the element the highlighter
// wrapped them in (Rouge's div.language-x); "" when the page does not say,
// or says it in characters a fence's info string cannot hold.
func codeLanguage(pre *html.Node) string {
	var code *html.Node
	for c := pre.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Code {
			code = c
			break
		}
	}
	candidates := []*html.Node{pre}
	if code != nil {
		candidates = append(candidates, code)
	}
	for _, key := range []string{"data-language", "data-lang"} {
		for _, n := range candidates {
			if l := infoWord(attr(n, key)); l != "" {
				return l
			}
		}
	}
	if code != nil {
		candidates = []*html.Node{code, pre}
	}
	for n, i := pre.Parent, 0; n != nil && n.Type == html.ElementNode && i < 2; n, i = n.Parent, i+1 {
		candidates = append(candidates, n)
	}
	for _, n := range candidates {
		for _, class := range strings.Fields(attr(n, "class")) {
			if l, ok := strings.CutPrefix(class, "language-"); ok {
				return infoWord(l)
			}
			if l, ok := strings.CutPrefix(class, "lang-"); ok {
				return infoWord(l)
			}
		}
	}
	return ""
}

// infoWord is l as a fence's info string: a word of letters, digits and
// + # . _ -, or "" (and for Prism's language-none).
func infoWord(l string) string {
	l = strings.TrimSpace(l)
	if l == "" || len(l) > 32 || strings.EqualFold(l, "none") {
		return ""
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+#._-", r)) {
			return ""
		}
	}
	return l
}
