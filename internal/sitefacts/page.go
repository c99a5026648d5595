// The facts of one HTML page, read from its bytes alone: what it is called
// and says it is (title, heading, description, canonical address, robots
// directives), where its feeds, next page and links go, the person and
// the article it describes (JSON-LD in jsonld.go, microformats in mf2.go,
// OpenGraph here), and the dates it shows. Every string is plain text and
// every list is capped, so that a page of any shape costs time and memory
// in proportion to its bytes.

package sitefacts

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The caps of what is read of a page. A string longer than its cap is cut
// (with an ellipsis), a URL longer than MaxURLBytes is dropped, and a list
// stops at its cap (the first entries, in document order, are kept).
const (
	// MaxLinks is how many distinct links Page.Links holds.
	MaxLinks = 2000
	// MaxFeedLinks is how many feed addresses Page.Feeds holds.
	MaxFeedLinks = 16
	// MaxMe is how many rel="me" targets Page.Me holds.
	MaxMe = 32
	// MaxTimes is how many <time> dates Page.Times holds.
	MaxTimes = 8
	// MaxKeywords is how many keywords an article, and categories a feed
	// item, hold.
	MaxKeywords = 32
	// MaxAuthors is how many authors an article, a feed or a feed item holds.
	MaxAuthors = 16
	// MaxPersonList is how many entries each list of a Person holds
	// (SameAs, KnowsAbout, Awards, AlumniOf).
	MaxPersonList = 32

	// MaxTitleRunes bounds titles and headlines.
	MaxTitleRunes = 300
	// MaxDescriptionRunes bounds descriptions and summaries.
	MaxDescriptionRunes = 1000
	// MaxNameRunes bounds names: of people, sites, keywords, link texts.
	MaxNameRunes = 200
	// MaxURLBytes is the longest URL returned; longer ones are dropped.
	MaxURLBytes = 2048
)

// ErrNotHTML is a body that is not an HTML page: served as another media
// type, or, served as none, whose bytes are not text.
var ErrNotHTML = errors.New("not an HTML page")

// Page is what one HTML page says about itself.
type Page struct {
	URL         string      // the address read (as given)
	Canonical   string      // <link rel=canonical> (absolute), "" when none
	NoIndex     bool        // <meta name=robots|caddy-discovery content=noindex|none>
	Lang        string      // <html lang>
	Title       string      // <title>
	Heading     string      // the first <h1> inside the content element (main, else the one article, else body), else the first h1
	Description string      // <meta name=description>, else og:description
	Author      string      // <meta name=author>
	SiteName    string      // og:site_name, else JSON-LD WebSite name
	Generator   string      // <meta name=generator>
	Feeds       []string    // <link rel=alternate> of a feed type, in order, at most MaxFeedLinks (WordPress's REST API and comment feeds left out)
	Links       []Link      // every <a href> to an http(s) URL, in document order, deduplicated by URL (first wins), at most MaxLinks
	Next        string      // pagination: <link rel=next> or <a rel=next>
	Me          []string    // rel="me" targets of <a> and <link> (any origin; mailto: and tel: kept as is), at most MaxMe
	Article     Article     // the article the page is, when it is one
	Person      *Person     // the page's own person, nil when none
	Site        WebSite     // JSON-LD WebSite: name, description, and its publisher/author when a Person
	IsList      bool        // the page is a list of posts: JSON-LD CollectionPage/Blog/ItemList or a WebSite with blogPost, an h-feed, 2+ top-level h-entry, or 2+ top-level <article> elements on a page that is not an article
	Times       []time.Time // <time datetime> inside the content element, in order, at most MaxTimes
}

// Link is one <a href> of a page.
type Link struct {
	URL   string // absolute, fragment removed
	Text  string // the anchor's text (alt of an image when no text), one line, at most MaxNameRunes
	Rel   string // its rel attribute, lowercased
	InNav bool   // inside <nav>, <header> or an element with role=navigation or a class or id containing "nav" or "menu"
}

// Article is what a page says of the article it is.
type Article struct {
	IsArticle   bool      // JSON-LD Article/BlogPosting/NewsArticle/TechArticle/ScholarlyArticle/Report/SocialMediaPosting (a top-level or @graph node, or a WebPage's mainEntity), og:type=article, or a top-level h-entry
	Headline    string    // JSON-LD headline/name, else og:title, else h-entry p-name
	Published   time.Time // JSON-LD datePublished, else article:published_time, else h-entry dt-published
	Modified    time.Time // JSON-LD dateModified, else article:modified_time, og:updated_time, else h-entry dt-updated
	Description string    // JSON-LD description, else h-entry p-summary
	Keywords    []string  // JSON-LD keywords, article:tag, h-entry p-category; deduplicated, at most MaxKeywords
	Section     string    // JSON-LD articleSection (first), else article:section
	Authors     []Person  // JSON-LD author(s), h-entry p-author; deduplicated by name, at most MaxAuthors
	BodyHTML    string    // the outer HTML of the article's body element when the page marks it (h-entry e-content, else itemprop=articleBody), "" otherwise
}

// Person is someone a page names.
type Person struct {
	Name, JobTitle, Description, URL, Email, Telephone, Image string
	SameAs                                                    []string // JSON-LD sameAs, or an h-card's further u-url values (absolute), deduplicated
	KnowsAbout                                                []string // JSON-LD knowsAbout (names)
	Awards                                                    []string // JSON-LD award
	AlumniOf                                                  []string // JSON-LD alumniOf names
	WorksFor                                                  string   // JSON-LD worksFor name
}

// WebSite is what a page's JSON-LD says of the site.
type WebSite struct {
	Name, Description string
	Publisher         *Person // when WebSite.publisher/author/creator/copyrightHolder is a Person (@id references resolved)
}

// feedTypes are the media types of <link rel=alternate> that name a feed.
var feedTypes = map[string]bool{
	"application/rss+xml":   true,
	"application/atom+xml":  true,
	"application/feed+json": true,
	"application/json":      true,
}

// ReadPage reads the facts of body, an HTML page served as contentType at
// pageURL, parsed as convert.Parse parses it (charset as declared or
// sniffed, the shape within convert's bounds), with Article.BodyHTML. It
// returns an error only for input that is not HTML at all (ErrNotHTML), or
// that the parser refuses. The reader of the site parses a page once for
// both its facts and its Markdown, with convert.Parse and ReadTree.
func ReadPage(body []byte, contentType, pageURL string) (*Page, error) {
	if !isHTML(body, contentType) {
		return nil, ErrNotHTML
	}
	doc, err := convert.Parse(context.Background(), body, contentType)
	if err != nil {
		return nil, err
	}
	p, node := ReadTree(doc, pageURL)
	if node != nil {
		p.Article.BodyHTML = outerHTML(node)
	}
	return p, nil
}

// ReadTree reads the facts of doc, a page parsed (by convert.Parse) at
// pageURL, leaving doc as it was. It returns the element the page marks as
// the article's body too (nil when it marks none), and leaves
// Article.BodyHTML empty: its caller converts that element itself.
func ReadTree(doc *html.Node, pageURL string) (*Page, *html.Node) {
	base, _ := url.Parse(pageURL)
	if base != nil && !base.IsAbs() {
		base = nil
	}
	if href := findBase(doc); href != "" {
		// A <base href> changes what the page's relative links mean.
		if b := absURL(base, href); b != "" {
			base, _ = url.Parse(b)
		}
	}
	r := &pageReader{base: base, page: &Page{URL: pageURL}, seen: make(map[string]bool)}
	r.walk(doc, false)
	r.finish(doc)
	return r.page, r.bodyNode
}

// isHTML reports whether body, served as contentType, may be an HTML page:
// a declared HTML type, or, with none declared, bytes that sniff as text.
func isHTML(body []byte, contentType string) bool {
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err == nil {
			return mt == "text/html" || mt == "application/xhtml+xml"
		}
	}
	return strings.HasPrefix(http.DetectContentType(body), "text/")
}

// pageReader gathers a page's facts in one walk of its tree.
type pageReader struct {
	base *url.URL
	page *Page
	seen map[string]bool // link URLs already in page.Links

	body, main, article *html.Node
	articles            int // <article> elements, nested ones included (as convert counts them)
	topArticles         int // <article> elements not inside another
	firstH1             string
	articleBody         *html.Node // the first itemprop=articleBody
	bodyNode            *html.Node // the element the page marks as the article's body (see Article.BodyHTML)
	jsonLD              []string   // the text of each ld+json script
	meta                map[string][]string
	canonical, next     string
	meSeen              map[string]bool
}

// walk visits n and its descendants; inNav says n is inside navigation.
func (r *pageReader) walk(n *html.Node, inNav bool) {
	if n.Type == html.ElementNode {
		switch n.DataAtom {
		case atom.Svg, atom.Math, atom.Template:
			return // foreign content and inert templates hold no facts of the page
		case atom.Html:
			if r.page.Lang == "" {
				r.page.Lang = cut(attr(n, "lang"), 35)
			}
		case atom.Title:
			if r.page.Title == "" {
				r.page.Title = plainText(textOf(n), MaxTitleRunes)
			}
		case atom.Meta:
			r.readMeta(n)
		case atom.Link:
			r.readLink(n)
		case atom.Script:
			if isJSONLD(attr(n, "type")) && len(r.jsonLD) < MaxJSONLDBlocks && n.FirstChild != nil && n.FirstChild.Type == html.TextNode {
				r.jsonLD = append(r.jsonLD, n.FirstChild.Data)
			}
			return
		case atom.Body:
			if r.body == nil {
				r.body = n
			}
		case atom.Main:
			if r.main == nil {
				r.main = n
			}
		case atom.Article:
			r.articles++
			r.article = n
			if !hasAncestor(n, atom.Article) {
				r.topArticles++
			}
		case atom.H1:
			if r.firstH1 == "" {
				r.firstH1 = plainText(textOf(n), MaxTitleRunes)
			}
		case atom.A:
			r.readAnchor(n, inNav)
		case atom.Nav, atom.Header:
			inNav = true
		}
		if !inNav && isNavigation(n) {
			inNav = true
		}
		if r.articleBody == nil && hasToken(attr(n, "itemprop"), "articlebody") {
			r.articleBody = n
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.walk(c, inNav)
	}
}

// isNavigation reports whether n is navigation by its role, class or id.
func isNavigation(n *html.Node) bool {
	if strings.EqualFold(attr(n, "role"), "navigation") {
		return true
	}
	for _, key := range []string{"class", "id"} {
		v := strings.ToLower(attr(n, key))
		if strings.Contains(v, "nav") || strings.Contains(v, "menu") {
			return true
		}
	}
	return false
}

// readMeta keeps a <meta> of those the page's facts come from, by its name
// or property (OpenGraph's are properties, which some sites write as names).
func (r *pageReader) readMeta(n *html.Node) {
	key := strings.ToLower(strings.TrimSpace(attr(n, "property")))
	if key == "" {
		key = strings.ToLower(strings.TrimSpace(attr(n, "name")))
	}
	switch key {
	case "description", "author", "generator", "robots", "caddy-discovery",
		"og:type", "og:title", "og:description", "og:site_name", "og:updated_time",
		"article:published_time", "article:modified_time", "article:tag", "article:section":
	default:
		return
	}
	if r.meta == nil {
		r.meta = make(map[string][]string)
	}
	if len(r.meta[key]) < MaxKeywords {
		r.meta[key] = append(r.meta[key], attr(n, "content"))
	}
}

// metaValue is the first value of the meta key, as plain text of at most max runes.
func (r *pageReader) metaValue(key string, max int) string {
	if v := r.meta[key]; len(v) > 0 {
		return plainText(v[0], max)
	}
	return ""
}

// readLink reads a <link>: the canonical address, feeds, the next page, rel=me.
func (r *pageReader) readLink(n *html.Node) {
	rel := strings.ToLower(attr(n, "rel"))
	href := attr(n, "href")
	if hasToken(rel, "canonical") && r.canonical == "" {
		r.canonical = absURL(r.base, href)
	}
	if hasToken(rel, "next") && r.next == "" {
		r.next = absURL(r.base, href)
	}
	if hasToken(rel, "me") {
		r.addMe(href)
	}
	if hasToken(rel, "alternate") && len(r.page.Feeds) < MaxFeedLinks {
		mt, _, _ := mime.ParseMediaType(attr(n, "type"))
		if !feedTypes[mt] {
			return
		}
		u := absURL(r.base, href)
		// WordPress names its REST API with the JSON type on every page, and
		// comment feeds (the site's, and a post's, titled so) beside the
		// posts' feed: none lists posts.
		if u == "" || strings.Contains(u, "/wp-json/") || strings.Contains(u, "rest_route=") ||
			strings.Contains(u, "/comments/feed") || strings.Contains(strings.ToLower(attr(n, "title")), "comments feed") {
			return
		}
		for _, f := range r.page.Feeds {
			if f == u {
				return
			}
		}
		r.page.Feeds = append(r.page.Feeds, u)
	}
}

// addMe keeps a rel=me target: an absolute http(s) URL, or a mailto: or
// tel: address as written.
func (r *pageReader) addMe(href string) {
	if len(r.page.Me) >= MaxMe {
		return
	}
	href = strings.TrimSpace(href)
	var me string
	if lower := strings.ToLower(href); strings.HasPrefix(lower, "mailto:") || strings.HasPrefix(lower, "tel:") {
		if len(href) <= MaxURLBytes {
			me = href
		}
	} else {
		me = absURL(r.base, href)
	}
	if me == "" || r.meSeen[me] {
		return
	}
	if r.meSeen == nil {
		r.meSeen = make(map[string]bool)
	}
	r.meSeen[me] = true
	r.page.Me = append(r.page.Me, me)
}

// readAnchor reads an <a>: a link, and rel=me or rel=next.
func (r *pageReader) readAnchor(n *html.Node, inNav bool) {
	href, ok := attrOK(n, "href")
	if !ok {
		return
	}
	rel := strings.ToLower(strings.Join(strings.Fields(attr(n, "rel")), " "))
	if hasToken(rel, "me") {
		r.addMe(href)
	}
	u := absURL(r.base, href)
	if u == "" || strings.HasPrefix(strings.TrimSpace(href), "#") {
		return // elsewhere, or a place on the page itself
	}
	if hasToken(rel, "next") && r.next == "" {
		r.next = u
	}
	if r.seen[u] || len(r.page.Links) >= MaxLinks {
		return
	}
	r.seen[u] = true
	text := plainText(textOf(n), MaxNameRunes)
	if text == "" {
		text = plainText(imageAlt(n), MaxNameRunes)
	}
	r.page.Links = append(r.page.Links, Link{URL: u, Text: text, Rel: cut(rel, MaxNameRunes), InNav: inNav})
}

// imageAlt is the alt text of the first image inside n.
func imageAlt(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.Img {
			if alt := attr(c, "alt"); strings.TrimSpace(alt) != "" {
				return alt
			}
		}
		if alt := imageAlt(c); alt != "" {
			return alt
		}
	}
	return ""
}

// finish derives the facts that need the whole page: the content element,
// the heading and dates in it, and what JSON-LD, microformats and
// OpenGraph say.
func (r *pageReader) finish(doc *html.Node) {
	p := r.page
	p.Canonical = r.canonical
	p.Next = r.next
	for _, key := range []string{"robots", "caddy-discovery"} {
		for _, v := range r.meta[key] {
			if convert.NoIndex(v) {
				p.NoIndex = true
			}
		}
	}
	p.Description = r.metaValue("description", MaxDescriptionRunes)
	if p.Description == "" {
		p.Description = r.metaValue("og:description", MaxDescriptionRunes)
	}
	p.Author = r.metaValue("author", MaxNameRunes)
	p.Generator = r.metaValue("generator", MaxNameRunes)
	p.SiteName = r.metaValue("og:site_name", MaxNameRunes)

	content := r.content()
	if content != nil {
		p.Heading = firstH1(content)
		p.Times = timesIn(content)
	}
	if p.Heading == "" {
		p.Heading = r.firstH1
	}

	ld := readJSONLD(r.jsonLD, r.base)
	mf := readMF2(doc, r.base)

	// The site, and the page's person: JSON-LD first, else the
	// representative h-card.
	p.Site = ld.webSite()
	if p.SiteName == "" {
		p.SiteName = p.Site.Name
	}
	p.Person = ld.person()
	if p.Person == nil {
		if card := mf.representativeCard(p.URL, p.Me); card != nil {
			p.Person = card.person()
		}
	}

	// The article: JSON-LD, then OpenGraph, then the top-level h-entry,
	// field by field.
	a := &p.Article
	node := ld.article()
	entry := mf.topEntry()
	if node != nil {
		ld.fillArticle(a, node)
	}
	if strings.EqualFold(r.metaValue("og:type", MaxNameRunes), "article") {
		a.IsArticle = true
	}
	if r.body != nil && hasClass(attr(r.body, "class"), "single-post") {
		// WordPress's template class of a post's own page: its themes
		// may say nothing else of it.
		a.IsArticle = true
	}
	if a.Headline == "" {
		a.Headline = r.metaValue("og:title", MaxTitleRunes)
	}
	if a.Published.IsZero() {
		a.Published = r.metaTime("article:published_time")
	}
	if a.Modified.IsZero() {
		if a.Modified = r.metaTime("article:modified_time"); a.Modified.IsZero() {
			a.Modified = r.metaTime("og:updated_time")
		}
	}
	for _, tag := range r.meta["article:tag"] {
		a.Keywords = appendUnique(a.Keywords, plainText(tag, MaxNameRunes), MaxKeywords)
	}
	if a.Section == "" {
		a.Section = r.metaValue("article:section", MaxNameRunes)
	}
	if entry != nil {
		entry.fillArticle(a)
		r.bodyNode = entry.contentNode()
	}
	if r.bodyNode == nil {
		r.bodyNode = r.articleBody
	}

	// Two <article> elements make a list only on a page that is not an
	// article itself: a post shows its related posts as articles too.
	p.IsList = ld.isList() || mf.isList() || (r.topArticles >= 2 && !a.IsArticle)
}

// metaTime is the first value of the meta key, as a time.
func (r *pageReader) metaTime(key string) time.Time {
	if v := r.meta[key]; len(v) > 0 {
		return parseTime(v[0])
	}
	return time.Time{}
}

// content is the element holding the page's content, as convert chooses
// it: its first <main>, else its one <article>, else its <body>.
func (r *pageReader) content() *html.Node {
	switch {
	case r.main != nil:
		return r.main
	case r.articles == 1:
		return r.article
	}
	return r.body
}

// firstH1 is the text of the first <h1> inside n.
func firstH1(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom == atom.Svg || c.DataAtom == atom.Math || c.DataAtom == atom.Template {
			continue
		}
		if c.DataAtom == atom.H1 {
			if h := plainText(textOf(c), MaxTitleRunes); h != "" {
				return h
			}
			continue
		}
		if h := firstH1(c); h != "" {
			return h
		}
	}
	return ""
}

// timesIn are the dates of the <time datetime> elements inside n.
func timesIn(n *html.Node) []time.Time {
	var out []time.Time
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && len(out) < MaxTimes; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Time {
				if t := parseTime(attr(c, "datetime")); !t.IsZero() {
					out = append(out, t)
				}
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// findBase is the href of the page's first <base href>.
func findBase(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Base {
		if href, ok := attrOK(n, "href"); ok {
			return href
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if href := findBase(c); href != "" {
			return href
		}
	}
	return ""
}

// hasAncestor reports whether an ancestor of n is an element a.
func hasAncestor(n *html.Node, a atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == a {
			return true
		}
	}
	return false
}

// outerHTML is n rendered as HTML.
func outerHTML(n *html.Node) string {
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return ""
	}
	return b.String()
}

// isJSONLD reports whether a script's type is JSON-LD.
func isJSONLD(typ string) bool {
	mt, _, _ := mime.ParseMediaType(typ)
	return mt == "application/ld+json"
}

// hasToken reports whether the space-separated list s holds token
// (s lowercased by the caller where case does not count).
func hasToken(s, token string) bool {
	if !strings.Contains(s, token) {
		return false
	}
	for f := range strings.FieldsSeq(s) {
		if f == token {
			return true
		}
	}
	return false
}

// attr is the value of n's attribute key, or "".
func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

// attrOK is the value of n's attribute key, and whether n has it.
func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// maxTextWalk bounds what textOf reads of an element: bytes of text and
// nodes visited. Every text it gives is cut far shorter (1 000 runes at
// most), and elements whose text is read may nest (microformats
// properties, 512 deep), so that, unbounded, the reads would add up to the
// page's size times its depth.
const maxTextWalk = 16 << 10

// textOf is the text of n and its descendants (scripts, styles and
// templates left out), blocks parted by a space, within maxTextWalk.
func textOf(n *html.Node) string {
	return textWithin(n, maxTextWalk)
}

// textWithin is textOf within budget bytes of text and nodes visited.
func textWithin(n *html.Node, budget int) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if budget--; budget < 0 {
			return
		}
		block := false
		switch {
		case n.Type == html.TextNode:
			data := n.Data
			if len(data) > budget {
				data = data[:budget]
			}
			budget -= len(data)
			b.WriteString(data)
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Template):
			return
		case n.Type == html.ElementNode && !inlineElements[n.DataAtom]:
			block = true
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil && budget >= 0; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return strings.ToValidUTF8(b.String(), "")
}

// absURL resolves ref against base (which may be nil: then ref must be
// absolute) into an absolute http(s) URL without its fragment; "" for
// another scheme, an unparseable or host-less address, or one longer than
// MaxURLBytes.
func absURL(base *url.URL, ref string) string {
	// Browsers drop tabs and newlines anywhere in an address, and spaces
	// around it.
	ref = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, ref))
	if ref == "" || len(ref) > 4*MaxURLBytes {
		return ""
	}
	var u *url.URL
	var err error
	if base != nil {
		u, err = base.Parse(ref)
	} else {
		u, err = url.Parse(ref)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	s := u.String()
	if len(s) > MaxURLBytes {
		return ""
	}
	return s
}

// plainText is s as plain text: the tags of HTML elements removed (with
// what scripts and styles hold), entities decoded, whitespace collapsed,
// and cut to max runes. A "<" that does not open an HTML element, as in
// "Vec<T>", stays as written.
func plainText(s string, max int) string {
	if strings.ContainsAny(s, "<&") {
		s = stripTags(s)
	}
	return cut(strings.Join(strings.Fields(s), " "), max)
}

// stripTags is the text of the HTML fragment s. What a script, style or
// template element holds is left out, unless the fragment never closes it:
// then the "<script>" was text ("a <script> tag", escaped in a feed).
func stripTags(s string) string {
	var b, skipped strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := ""
	for {
		switch z.Next() {
		case html.ErrorToken:
			if skip != "" {
				b.WriteString(skipped.String())
			}
			return b.String()
		case html.TextToken:
			if skip != "" {
				skipped.WriteString(html.UnescapeString(string(z.Raw())))
			} else {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			raw := string(z.Raw())
			tt := z.Token()
			switch {
			case skip != "":
				if tt.Type == html.EndTagToken && tt.Data == skip {
					skip = ""
				} else {
					skipped.WriteString(raw)
				}
			case tt.DataAtom == 0:
				// Not an HTML element: text that happens to hold a "<".
				b.WriteString(html.UnescapeString(raw))
			case tt.Type == html.StartTagToken && (tt.DataAtom == atom.Script || tt.DataAtom == atom.Style || tt.DataAtom == atom.Template):
				skip = tt.Data
				skipped.Reset()
				skipped.WriteString(html.UnescapeString(raw))
			case !inlineElements[tt.DataAtom]:
				b.WriteByte(' ') // so that words in separate blocks stay apart
			}
		}
	}
}

// inlineElements are the elements that do not part words.
var inlineElements = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Bdi: true, atom.Bdo: true, atom.Cite: true,
	atom.Code: true, atom.Data: true, atom.Dfn: true, atom.Em: true, atom.I: true, atom.Kbd: true,
	atom.Mark: true, atom.Q: true, atom.S: true, atom.Samp: true, atom.Small: true, atom.Span: true,
	atom.Strong: true, atom.Sub: true, atom.Sup: true, atom.Time: true, atom.U: true, atom.Var: true,
	atom.Wbr: true, atom.Del: true, atom.Ins: true, atom.Font: true, atom.Big: true, atom.Tt: true,
}

// cut is s cut to at most max runes, the last an ellipsis when cut.
func cut(s string, max int) string {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimSpace(s[:i]) + "…"
		}
		n++
	}
	return s
}

// appendUnique appends s to list unless it is empty, already there (case
// aside) or the list holds max entries.
func appendUnique(list []string, s string, max int) []string {
	if s == "" || len(list) >= max {
		return list
	}
	for _, have := range list {
		if strings.EqualFold(have, s) {
			return list
		}
	}
	return append(list, s)
}

// hasClass reports whether a class attribute names class.
func hasClass(attribute, class string) bool {
	for c := range strings.FieldsSeq(attribute) {
		if c == class {
			return true
		}
	}
	return false
}
