// A small reader of the microformats2 a personal site marks its pages
// with (https://microformats.org/wiki/microformats2-parsing): h-card
// (p-name, p-note, u-url, u-uid, u-email, p-tel, u-photo, p-job-title),
// h-entry (p-name, dt-published, dt-updated, p-summary, e-content,
// p-category, p-author) and the h-feed that holds entries. It reads class
// names on the page's own tree, with the value-class pattern only as far
// as the value, title and datetime attributes and text, and the implied
// name and url of an item that names neither. Items and values are capped.

package sitefacts

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The caps of the microformats read of one page.
const (
	// MaxMF2Items is how many microformats items of a page are read.
	MaxMF2Items = 256
	// maxMF2Values is how many values one property of an item keeps.
	maxMF2Values = 32
	// maxMF2Text bounds the text read for one property value (see
	// maxTextWalk): values are cut to 1 000 runes at most.
	maxMF2Text = 8 << 10
	// maxValueClassWalk bounds the elements looked at for the value-class
	// pattern, whose values sit just inside the property's element.
	maxValueClassWalk = 512
)

// mfItem is one microformats item: an element with an h-* class.
type mfItem struct {
	types    []string
	props    map[string][]mfValue
	children []*mfItem // items inside it that are not its properties
	node     *html.Node

	textProps, urlProps bool // it has p-* or e-*, u-* properties
	nested              bool // it has items inside it
	// classic: the item is read from microformats 1 classes (hentry,
	// vcard), whose properties have classic names too.
	classic bool
}

// mfValue is one value of a property: its text (a URL for u-*, a date for
// dt-*), the item when the property is itself one (p-author h-card), and
// the element of an e-* property.
type mfValue struct {
	text string
	item *mfItem
	node *html.Node
}

// microformats are the items of a page.
type microformats struct {
	top   []*mfItem // the items not inside another
	cards []*mfItem // every h-card, nested ones too, in document order
	feeds int       // h-feed items, anywhere
}

// readMF2 reads the microformats of the tree at root; base is the page's
// address, for relative URLs.
func readMF2(root *html.Node, base *url.URL) *microformats {
	r := &mfReader{base: base, mf: &microformats{}}
	r.walk(root, nil)
	return r.mf
}

type mfReader struct {
	base  *url.URL
	mf    *microformats
	items int
}

// walk reads the descendants of n, whose properties belong to item (nil
// outside any item).
func (r *mfReader) walk(n *html.Node, item *mfItem) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Script, atom.Style, atom.Template, atom.Svg, atom.Math:
			continue
		}
		class := attr(c, "class")
		roots, props := mfClasses(class)
		classic := false
		if len(roots) == 0 {
			roots = classicRoots(class)
			classic = len(roots) > 0
		}
		if item != nil && item.classic {
			props = append(props, classicProps(class, c)...)
		}
		if len(roots) > 0 && r.items < MaxMF2Items {
			r.items++
			child := &mfItem{types: roots, props: make(map[string][]mfValue), node: c, classic: classic}
			r.walk(c, child)
			r.imply(child)
			r.note(child)
			switch {
			case item != nil && len(props) > 0:
				values := make(map[string]mfValue, 4)
				for _, p := range props {
					v := r.valueOnce(values, c, p)
					v.item = child
					if strings.HasPrefix(p, "p-") || strings.HasPrefix(p, "e-") {
						v.text = child.first("name")
					} else if strings.HasPrefix(p, "u-") && child.first("url") != "" {
						v.text = child.first("url")
					}
					item.add(p, v)
				}
			case item != nil:
				item.nested = true
				item.children = append(item.children, child)
			default:
				r.mf.top = append(r.mf.top, child)
			}
			continue
		}
		if item != nil && len(props) > 0 {
			values := make(map[string]mfValue, 4)
			for _, p := range props {
				item.add(p, r.valueOnce(values, c, p))
			}
		}
		r.walk(c, item)
	}
}

// note records what the page needs of any item, wherever it is.
func (r *mfReader) note(it *mfItem) {
	if it.is("h-card") {
		r.mf.cards = append(r.mf.cards, it)
	}
	if it.is("h-feed") {
		r.mf.feeds++
	}
}

// mfClasses splits a class attribute into item types (h-*) and property
// names (p-*, u-*, dt-*, e-*), each kept with its prefix.
func mfClasses(class string) (roots, props []string) {
	if !strings.Contains(class, "-") {
		return nil, nil
	}
	for c := range strings.FieldsSeq(class) {
		prefix, name, ok := strings.Cut(c, "-")
		if !ok || !validMF2Name(name) {
			continue
		}
		switch prefix {
		case "h":
			roots = append(roots, c)
		case "p", "u", "dt", "e":
			props = append(props, c)
		}
	}
	return roots, props
}

// The microformats 1 classes a site's theme still writes (WordPress's
// hentry, a vcard), read as the microformats2 parsing specification's
// backward compatible parsing reads them: roots, then the properties
// inside a classic root.
var (
	classicRoot = map[string]string{"hentry": "h-entry", "vcard": "h-card", "hfeed": "h-feed"}
	classicProp = map[string]string{
		"entry-title": "p-name", "entry-summary": "p-summary", "entry-content": "e-content",
		"published": "dt-published", "updated": "dt-updated", "author": "p-author",
		"fn": "p-name", "url": "u-url", "email": "u-email", "tel": "p-tel", "note": "p-note",
		"photo": "u-photo", "title": "p-job-title", "category": "p-category",
	}
)

// classicRoots are the microformats2 types of an element's microformats 1
// root classes.
func classicRoots(class string) []string {
	var roots []string
	for c := range strings.FieldsSeq(class) {
		if t, ok := classicRoot[c]; ok {
			roots = append(roots, t)
		}
	}
	return roots
}

// classicProps are the microformats2 properties of an element's
// microformats 1 property classes, and of its rel="tag" (a category).
func classicProps(class string, n *html.Node) []string {
	var props []string
	for c := range strings.FieldsSeq(class) {
		if p, ok := classicProp[c]; ok {
			props = append(props, p)
		}
	}
	if n.DataAtom == atom.A && strings.Contains(" "+strings.ToLower(attr(n, "rel"))+" ", " tag ") {
		props = append(props, "p-category")
	}
	return props
}

// isItem reports whether a class attribute makes its element an item (an
// h-* class, or a microformats 1 root).
func isItem(class string) bool {
	if len(classicRoots(class)) > 0 {
		return true
	}
	if !strings.Contains(class, "h-") {
		return false
	}
	for c := range strings.FieldsSeq(class) {
		if name, ok := strings.CutPrefix(c, "h-"); ok && validMF2Name(name) {
			return true
		}
	}
	return false
}

// validMF2Name reports whether name is a microformats name: lowercase
// letters (and digits) in words joined by single hyphens.
func validMF2Name(name string) bool {
	if name == "" || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// add appends a value of the property (prefixed, as "p-name").
func (it *mfItem) add(prop string, v mfValue) {
	kind, name, _ := strings.Cut(prop, "-")
	switch {
	case v.item != nil:
		it.nested = true
	case kind == "p" || kind == "e":
		it.textProps = true
	case kind == "u":
		it.urlProps = true
	}
	if len(it.props[name]) < maxMF2Values {
		it.props[name] = append(it.props[name], v)
	}
}

// is reports whether the item is of type t.
func (it *mfItem) is(t string) bool {
	for _, have := range it.types {
		if have == t {
			return true
		}
	}
	return false
}

// first is the text of the first value of the property that has one.
func (it *mfItem) first(name string) string {
	for _, v := range it.props[name] {
		if v.text != "" {
			return v.text
		}
	}
	return ""
}

// valueOnce is value, read once per kind of property (p, u, dt, e) of an
// element however many properties of that kind its classes name.
func (r *mfReader) valueOnce(values map[string]mfValue, n *html.Node, prop string) mfValue {
	kind, _, _ := strings.Cut(prop, "-")
	v, ok := values[kind]
	if !ok {
		v = r.value(n, prop)
		values[kind] = v
	}
	return v
}

// value is the value of the property prop of element n, by the property's kind.
func (r *mfReader) value(n *html.Node, prop string) mfValue {
	kind, _, _ := strings.Cut(prop, "-")
	switch kind {
	case "u":
		var raw string
		switch n.DataAtom {
		case atom.A, atom.Area, atom.Link:
			raw = attr(n, "href")
		case atom.Img, atom.Audio, atom.Source, atom.Iframe:
			raw = attr(n, "src")
		case atom.Video:
			if raw = attr(n, "src"); raw == "" {
				raw = attr(n, "poster")
			}
		case atom.Object:
			raw = attr(n, "data")
		default:
			// Jekyll's minima theme writes <data class="u-url" href="/">.
			raw = attr(n, "href")
		}
		if raw == "" {
			raw = textValue(n)
		}
		// An e-mail or telephone u-* property keeps its scheme's address.
		if lower := strings.ToLower(strings.TrimSpace(raw)); strings.HasPrefix(lower, "mailto:") || strings.HasPrefix(lower, "tel:") {
			return mfValue{text: cut(strings.TrimSpace(raw), MaxNameRunes)}
		}
		return mfValue{text: absURL(r.base, raw)}
	case "dt":
		if v := valueClass(n, true); v != "" {
			return mfValue{text: v}
		}
		switch n.DataAtom {
		case atom.Time, atom.Ins, atom.Del:
			if v, ok := attrOK(n, "datetime"); ok {
				return mfValue{text: strings.TrimSpace(v)}
			}
		}
		return mfValue{text: textValue(n)}
	case "e":
		return mfValue{text: plainText(textWithin(n, maxMF2Text/4), MaxDescriptionRunes), node: n}
	}
	if v := valueClass(n, false); v != "" {
		return mfValue{text: plainText(v, MaxDescriptionRunes)}
	}
	switch n.DataAtom {
	case atom.Img, atom.Area:
		if alt, ok := attrOK(n, "alt"); ok {
			return mfValue{text: plainText(alt, MaxDescriptionRunes)}
		}
	}
	return mfValue{text: plainText(textValue(n), MaxDescriptionRunes)}
}

// textValue is the value an element carries in its attributes (abbr title,
// data or input value), else its text.
func textValue(n *html.Node) string {
	switch n.DataAtom {
	case atom.Abbr:
		if v, ok := attrOK(n, "title"); ok {
			return v
		}
	case atom.Data, atom.Input:
		if v, ok := attrOK(n, "value"); ok {
			return v
		}
	}
	return textWithin(n, maxMF2Text)
}

// valueClass is the value-class pattern's value of n: the values of its
// descendants with class "value" (their title, value or datetime
// attribute, else their text), joined; "" when it has none.
func valueClass(n *html.Node, datetime bool) string {
	var parts []string
	budget := maxValueClassWalk
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && len(parts) < 8 && budget > 0; c = c.NextSibling {
			budget--
			if c.Type != html.ElementNode {
				continue
			}
			class := attr(c, "class")
			if isItem(class) {
				continue // a nested item's values are its own
			}
			if hasToken(class, "value") || hasToken(class, "value-title") {
				v, ok := attrOK(c, "title")
				if !ok && datetime {
					v, ok = attrOK(c, "datetime")
				}
				if !ok {
					v, ok = attrOK(c, "value")
				}
				if !ok {
					v = textWithin(c, maxMF2Text)
				}
				parts = append(parts, strings.TrimSpace(v))
				continue
			}
			walk(c)
		}
	}
	walk(n)
	if datetime {
		return strings.Join(parts, "T") // "2024-01-02" and "10:00" make one date
	}
	return strings.Join(parts, "")
}

// imply sets the name and url of an item that states neither, as
// microformats2 parsing implies them: only for an item without other p-*
// or e-* (for the name), u-* (for the url) properties, or nested items.
func (r *mfReader) imply(it *mfItem) {
	if it.nested {
		return
	}
	if !it.textProps {
		n := it.node
		name := ""
		switch n.DataAtom {
		case atom.Img, atom.Area:
			name = attr(n, "alt")
		case atom.Abbr:
			name = attr(n, "title")
		}
		if name == "" {
			if only := onlyChild(n); only != nil && (only.DataAtom == atom.Img || only.DataAtom == atom.Area) {
				name = attr(only, "alt")
			}
		}
		if name == "" {
			name = textOf(n)
		}
		if name = plainText(name, MaxNameRunes); name != "" {
			it.props["name"] = []mfValue{{text: name}}
		}
	}
	if !it.urlProps {
		n := it.node
		if n.DataAtom != atom.A && n.DataAtom != atom.Area {
			if only := onlyChild(n); only != nil && (only.DataAtom == atom.A || only.DataAtom == atom.Area) {
				n = only
			}
		}
		if n.DataAtom == atom.A || n.DataAtom == atom.Area {
			if u := absURL(r.base, attr(n, "href")); u != "" {
				it.props["url"] = []mfValue{{text: u}}
			}
		}
	}
}

// onlyChild is n's one child element, nil when it has none or several.
func onlyChild(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if only != nil {
			return nil
		}
		only = c
	}
	return only
}

// representativeCard is the h-card that stands for the page
// (https://microformats.org/wiki/representative-h-card-parsing): one whose
// url and uid are the page's address, else one whose url is also a rel=me
// link, else the page's only top-level h-card; nil when none.
func (mf *microformats) representativeCard(pageURL string, me []string) *mfItem {
	page := sameURLKey(pageURL)
	for _, c := range mf.cards {
		if page != "" && c.hasValue("url", page) && c.hasValue("uid", page) {
			return c
		}
	}
	for _, c := range mf.cards {
		for _, m := range me {
			if c.hasValue("url", sameURLKey(m)) {
				return c
			}
		}
	}
	var only *mfItem
	for _, it := range mf.top {
		if it.is("h-card") {
			if only != nil {
				return nil
			}
			only = it
		}
	}
	return only
}

// hasValue reports whether a value of the property names the address key
// (see sameURLKey).
func (it *mfItem) hasValue(name, key string) bool {
	if key == "" {
		return false
	}
	for _, v := range it.props[name] {
		if sameURLKey(v.text) == key {
			return true
		}
	}
	return false
}

// sameURLKey is an address as compared for the same page: without a
// trailing slash.
func sameURLKey(u string) string {
	return strings.TrimSuffix(strings.TrimSpace(u), "/")
}

// person is the Person an h-card describes.
func (it *mfItem) person() *Person {
	p := &Person{
		Name:        cut(it.first("name"), MaxNameRunes),
		Description: it.first("note"),
		JobTitle:    cut(it.first("job-title"), MaxNameRunes),
		Image:       it.first("photo"),
		Email:       strings.TrimPrefix(it.first("email"), "mailto:"),
		Telephone:   strings.TrimPrefix(it.first("tel"), "tel:"),
	}
	for _, v := range it.props["url"] {
		if !strings.HasPrefix(v.text, "http") {
			continue
		}
		if p.URL == "" {
			p.URL = v.text
		} else if v.text != p.URL {
			p.SameAs = appendUnique(p.SameAs, v.text, MaxPersonList)
		}
	}
	if p.Name == "" {
		return nil
	}
	return p
}

// topEntry is the page's h-entry when it is an entry itself: a top-level
// h-entry (one inside an h-feed is the feed's); nil when none.
func (mf *microformats) topEntry() *mfItem {
	for _, it := range mf.top {
		if it.is("h-entry") {
			return it
		}
	}
	return nil
}

// isList reports whether the microformats say the page lists posts: an
// h-feed, or two top-level h-entry items.
func (mf *microformats) isList() bool {
	if mf.feeds > 0 {
		return true
	}
	entries := 0
	for _, it := range mf.top {
		if it.is("h-entry") {
			entries++
		}
	}
	return entries >= 2
}

// fillArticle sets, of a, what the h-entry says and a does not have yet.
func (it *mfItem) fillArticle(a *Article) {
	a.IsArticle = true
	if a.Headline == "" {
		a.Headline = cut(it.first("name"), MaxTitleRunes)
	}
	if a.Published.IsZero() {
		a.Published = parseTime(it.first("published"))
	}
	if a.Modified.IsZero() {
		a.Modified = parseTime(it.first("updated"))
	}
	if a.Description == "" {
		a.Description = it.first("summary")
	}
	for _, v := range it.props["category"] {
		a.Keywords = appendUnique(a.Keywords, cut(v.text, MaxNameRunes), MaxKeywords)
	}
	for _, v := range it.props["author"] {
		switch {
		case v.item != nil:
			if p := v.item.person(); p != nil {
				a.Authors = appendPerson(a.Authors, *p)
			}
		case v.text != "":
			a.Authors = appendPerson(a.Authors, Person{Name: cut(v.text, MaxNameRunes)})
		}
	}
}

// contentNode is the h-entry's e-content element, nil when it has none.
func (it *mfItem) contentNode() *html.Node {
	for _, v := range it.props["content"] {
		if v.node != nil {
			return v.node
		}
	}
	return nil
}
