package convert

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
	"io"
	"slices"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What converting a page costs follows its shape more than its size:
// html.Parse walks the stack of open elements for each tag (scope checks,
// the adoption agency), recreates the formatting elements a block closed
// for each text it meets (the active formatting elements), and the
// converter's passes walk each node's ancestors. So 2 MiB of nested end
// tags cost seconds, and 200 KB of formatting elements reopened for each
// paragraph make millions of nodes. Before parsing, the page's tokens are
// read once (shapeOf) with a model of the parser's stack that errs on the
// side of the cost, and a page over the bounds is refused at once; the
// tree the parser builds is measured again, exactly, before the
// converter's passes run (see readPage), and the parse itself stops at the
// conversion's deadline (deadlineReader).
const (
	// MaxNodes bounds the nodes of a page's tree (elements, texts,
	// comments).
	MaxNodes = 1 << 18
	// MaxWork bounds the sum, over a page's nodes and tags, of the elements
	// open around each: the walks of the stack and of the ancestors that
	// parsing and converting make.
	MaxWork = 1 << 23
	// maxModelDepth bounds the stack the model keeps: html.Parse refuses a
	// page nested deeper than 512 elements, so a model this deep is
	// already a page no parser will accept.
	maxModelDepth = 4096
)

// ErrTooComplex is a page whose HTML would cost more to parse and convert
// than the bounds allow: too many elements, or nested too deeply for its
// size. Its HTML is served.
var ErrTooComplex = errors.New("the page's HTML has too many elements, or too deeply nested ones, to convert within the bounds")

// shape is what the model counted of a page: the nodes its tree would
// have, and the work of parsing and converting it.
type shape struct {
	nodes, work int
}

func (s shape) within() bool { return s.nodes <= MaxNodes && s.work <= MaxWork }

// frame is an element the model has open.
type frame struct {
	tag tag
	// formatting: an element the parser would recreate when a block
	// closed it (one of the active formatting elements).
	formatting, foreign bool
	// The elements of a kind open since the nearest element that bounds
	// their scope, this one included: what makes a start tag close an
	// open p, li, dd or dt, or a table cell or row.
	p, li, dd, cell, row int32
}

// shapeModel follows the tokens of a page as html.Parse would, closely
// enough to bound what it does: every element a start tag opens, closed by
// its end tag or by the start tags that close it implicitly (p, li, dd,
// dt, option, table rows and cells, headings), and the active formatting
// elements with the parser's limits (three alike, one a, one nobr). Where
// it cannot tell, it counts the more costly case.
type shapeModel struct {
	shape
	stack []frame
	// open counts the open elements by name; unknown gives the names
	// without an atom one of their own.
	open    map[atom.Atom]int
	unknown map[string]atom.Atom
	// formattingKeys counts the active formatting elements by tag and
	// attributes (a hash of the raw tag), byName by tag name; formatting is
	// their number, closed those a block has closed and the next text
	// reopens.
	seed           maphash.Seed
	formattingKeys map[uint64]int
	byName         map[atom.Atom][]uint64
	formatting     int
	closed         []tag
	foreign        int
}

// shapeOf reads body's tokens and counts what parsing and converting it
// would cost, stopping as soon as the count is past the bounds.
func shapeOf(body []byte) shape {
	m := &shapeModel{open: make(map[atom.Atom]int), unknown: make(map[string]atom.Atom),
		seed: maphash.MakeSeed(), formattingKeys: make(map[uint64]int), byName: make(map[atom.Atom][]uint64)}
	// The document and its html, head and body elements, which the parser
	// makes whatever the page says.
	m.nodes = 4
	m.push(atom.Html)
	m.push(atom.Body)
	z := html.NewTokenizer(bytes.NewReader(body))
	// Tag names are read off the raw tag, as the Tokenizer's TagName
	// copies each one.
	var name [32]byte
	for m.within() && len(m.stack) <= maxModelDepth {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return m.shape
		case html.TextToken:
			m.reopen()
			m.nodes++
			m.work++
		case html.CommentToken, html.DoctypeToken:
			m.nodes++
		case html.StartTagToken, html.SelfClosingTagToken:
			raw := z.Raw()
			m.start(m.tagOf(tagName(raw, name[:0])), raw, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			m.end(m.tagOf(tagName(z.Raw(), name[:0])))
		}
	}
	// Past the bounds, or deeper than any page the parser accepts.
	m.work = max(m.work, MaxWork+1)
	return m.shape
}

// tagName appends to buf the lowercase name of the raw tag <name …> or
// </name …>.
func tagName(raw, buf []byte) []byte {
	raw = bytes.TrimPrefix(bytes.TrimPrefix(raw, []byte("<")), []byte("/"))
	for _, c := range raw {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// tag is an element's name as the model knows it: its atom, or one the
// model gives a name without its own.
type tag = atom.Atom

func (m *shapeModel) tagOf(name []byte) tag {
	if a := atom.Lookup(name); a != 0 {
		return a
	}
	t, ok := m.unknown[string(name)]
	if !ok {
		// Above every atom, which holds an offset and a length of 8 bits.
		t = tag(1<<31 | len(m.unknown))
		m.unknown[string(name)] = t
	}
	return t
}

// isFormatting reports the elements the parser keeps in its list of active
// formatting elements.
func isFormatting(t tag) bool {
	switch t {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr,
		atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// closesP reports the start tags that close an open p (in button scope).
func closesP(t tag) bool {
	switch t {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Center, atom.Details, atom.Dialog,
		atom.Dir, atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header,
		atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Search, atom.Section, atom.Summary,
		atom.Ul, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Listing, atom.Form,
		atom.Li, atom.Dd, atom.Dt, atom.Plaintext, atom.Table, atom.Xmp:
		return true
	}
	return false
}

// boundsScope reports the elements that bound the scopes the parser looks
// for a p, li, dd or table cell in.
func boundsScope(t tag) bool {
	switch t {
	case atom.Applet, atom.Caption, atom.Html, atom.Table, atom.Td, atom.Th, atom.Marquee, atom.Object,
		atom.Template, atom.Button, atom.ForeignObject, atom.Desc, atom.Title, atom.Mi, atom.Mo, atom.Mn,
		atom.Ms, atom.Mtext, atom.AnnotationXml:
		return true
	}
	return false
}

// isVoid reports the elements that never hold anything.
func isVoid(t tag) bool {
	switch t {
	case atom.Br, atom.Img, atom.Input, atom.Meta, atom.Link, atom.Hr, atom.Area, atom.Base, atom.Col,
		atom.Embed, atom.Param, atom.Source, atom.Track, atom.Wbr, atom.Keygen, atom.Image:
		return true
	}
	return false
}

func isHeading(t tag) bool {
	switch t {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// start opens the element of a start tag.
func (m *shapeModel) start(t tag, raw []byte, selfClosing bool) {
	m.nodes++
	m.work += len(m.stack) // the scope checks a start tag makes
	if m.foreign == 0 && isVoid(t) {
		if t == atom.Hr {
			m.closeP()
		} else {
			m.reopen()
		}
		return // nothing stays open
	}
	if m.foreign > 0 && selfClosing {
		return
	}
	switch {
	case m.foreign > 0:
	case closesP(t):
		m.closeP()
		switch top := m.top(); {
		case t == atom.Li && top.li > 0:
			m.popTo(atom.Li)
		case (t == atom.Dd || t == atom.Dt) && top.dd > 0:
			m.popTo(m.lastOf(atom.Dd, atom.Dt))
		case isHeading(t) && isHeading(top.tag):
			m.pop()
		case t == atom.Table:
			m.nodes++ // its tbody
		}
	case t == atom.Option || t == atom.Optgroup:
		if m.top().tag == atom.Option {
			m.pop()
		}
	case t == atom.Td || t == atom.Th:
		if m.top().cell > 0 {
			m.popTo(m.lastOf(atom.Td, atom.Th))
		}
	case t == atom.Tr:
		if m.top().row > 0 {
			m.popTo(atom.Tr)
		}
	default:
		m.reopen()
	}
	if m.foreign == 0 && isFormatting(t) {
		m.addFormatting(t, maphash.Bytes(m.seed, raw))
	}
	m.push(t)
}

// closeP closes an open p in button scope.
func (m *shapeModel) closeP() {
	if m.top().p > 0 {
		m.popTo(atom.P)
	}
}

// top is the innermost open element, or an empty frame.
func (m *shapeModel) top() frame {
	if len(m.stack) == 0 {
		return frame{}
	}
	return m.stack[len(m.stack)-1]
}

// push opens an element.
func (m *shapeModel) push(t tag) {
	f := frame{tag: t, formatting: m.foreign == 0 && isFormatting(t)}
	if top := m.top(); !boundsScope(t) {
		f.p, f.li, f.dd, f.cell, f.row = top.p, top.li, top.dd, top.cell, top.row
	}
	switch t {
	case atom.P:
		f.p++
	case atom.Li:
		f.li++
	case atom.Dd, atom.Dt:
		f.dd++
	case atom.Td, atom.Th:
		f.cell++
	case atom.Tr:
		f.row++
	case atom.Ol, atom.Ul:
		f.li = 0
	case atom.Table:
		f.row, f.cell = 0, 0
	case atom.Svg, atom.Math:
		f.foreign = true
		m.foreign++
	}
	m.stack = append(m.stack, f)
	m.open[t]++
}

// pop closes the innermost open element; a formatting one stays in the
// list, to be reopened.
func (m *shapeModel) pop() {
	f := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	m.open[f.tag]--
	if f.foreign {
		m.foreign--
	}
	if f.formatting {
		m.closed = append(m.closed, f.tag)
	}
}

// popTo closes the open elements up to and including the innermost t.
func (m *shapeModel) popTo(t tag) {
	if m.open[t] == 0 {
		return
	}
	for {
		f := m.top()
		m.pop()
		if f.tag == t {
			return
		}
	}
}

// lastOf is whichever of a and b is open innermost.
func (m *shapeModel) lastOf(a, b atom.Atom) tag {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if t := m.stack[i].tag; t == a || t == b {
			return t
		}
	}
	return a
}

// addFormatting adds a formatting element to the active list, as the
// parser does: an a or nobr replaces the one already there, and a fourth
// element alike (same tag, same attributes) replaces the first.
func (m *shapeModel) addFormatting(t tag, raw uint64) {
	m.work += m.formatting // the list is searched
	if (t == atom.A || t == atom.Nobr) && len(m.byName[t]) > 0 {
		m.removeFormatting(t)
	}
	if m.formattingKeys[raw] >= 3 {
		return
	}
	m.formattingKeys[raw]++
	m.byName[t] = append(m.byName[t], raw)
	m.formatting++
}

// removeFormatting drops the latest active formatting element t.
func (m *shapeModel) removeFormatting(t tag) {
	keys := m.byName[t]
	key := keys[len(keys)-1]
	m.byName[t] = keys[:len(keys)-1]
	m.formattingKeys[key]--
	m.formatting--
	if m.open[t] == 0 {
		// It was one a block had closed: it is not reopened.
		if i := slices.Index(m.closed, t); i >= 0 {
			m.closed = slices.Delete(m.closed, i, i+1)
		}
	}
}

// reopen recreates the formatting elements a block closed, as the parser
// does before a text or an inline element: each is a new node, open again.
func (m *shapeModel) reopen() {
	m.work += m.formatting
	closed := m.closed[:min(len(m.closed), m.formatting)]
	m.nodes += len(closed)
	m.work += len(closed) * len(m.stack)
	for i := len(closed) - 1; i >= 0; i-- {
		m.push(closed[i]) // the outermost first
	}
	m.closed = m.closed[:0]
}

// end closes the element of an end tag.
func (m *shapeModel) end(t tag) {
	m.work += len(m.stack) // the scope check, or the adoption agency's search
	if m.foreign == 0 && isFormatting(t) && len(m.byName[t]) > 0 {
		// The adoption agency: the element leaves the list, and the stack
		// if it is open there; the formatting elements it closes on the
		// way are made again (one node each).
		m.work += m.formatting
		m.removeFormatting(t)
		if m.open[t] > 0 {
			m.popTo(t)
			// Closed by its own end tag: not to be reopened.
			m.closed = m.closed[:len(m.closed)-1]
		}
		return
	}
	if m.open[t] > 0 {
		m.popTo(t)
		return
	}
	if t == atom.P || t == atom.Br {
		m.nodes++ // an end tag without its element makes an empty one
	}
}

// deadlineReader reads the page for html.Parse until ctx is done, a few
// kilobytes at a time, so that parsing stops soon after the deadline
// whatever the page holds.
type deadlineReader struct {
	ctx context.Context
	r   io.Reader
}

func (d deadlineReader) Read(p []byte) (int, error) {
	if err := d.ctx.Err(); err != nil {
		return 0, err
	}
	return d.r.Read(p[:min(len(p), 4<<10)])
}
