// A site's feeds read from their bytes: RSS 2.0 (and RSS 1.0), Atom (RFC
// 4287, with RFC 5005's paging and archive links) and JSON Feed 1.1, into
// one shape. gofeed's RSS and Atom parsers do the reading, behind a scan of
// the XML that keeps them within bounds they do not have themselves: the
// scan refuses a feed nested deeper than MaxFeedDepth or with more than
// MaxFeedNamespaces namespace declarations in scope (gofeed copies the
// namespaces in scope at every element, and recurses into extension
// elements), and cuts a feed after MaxFeedItems items, so that what is
// parsed is linear in the bytes. Entities a DOCTYPE declares are never
// expanded (encoding/xml does not, and the text keeps them as written).
// JSON Feed is read as a stream, its items decoded one by one up to the
// cap. Dates are read as leniently as sites write them (parseTime).

package sitefacts

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mmcdole/gofeed/atom"
	gjson "github.com/mmcdole/gofeed/json"
	"github.com/mmcdole/gofeed/rss"
	"golang.org/x/net/html/charset"
)

// The bounds of reading one feed document.
const (
	// MaxFeedItems is how many items are read from one feed document;
	// the rest are left unread.
	MaxFeedItems = 1000
	// MaxFeedDepth is how deep a feed's XML elements may nest; a deeper
	// feed is refused.
	MaxFeedDepth = 256
	// MaxFeedNamespaces is how many XML namespace declarations may be in
	// scope at once; a feed with more is refused.
	MaxFeedNamespaces = 64
)

// ErrNotFeed is a document that is not a feed: neither RSS, Atom nor JSON
// Feed (an HTML page, say).
var ErrNotFeed = errors.New("not a feed")

// Feed is one feed document.
type Feed struct {
	Title, Description string   // the feed's title and description/subtitle
	Home               string   // the site address the feed names (RSS <link>, Atom rel=alternate, JSON home_page_url)
	Authors            []string // the feed-level author names (RSS managingEditor name part or channel dc:creator, Atom author, JSON authors), at most MaxAuthors
	Generator          string   // e.g. "https://wordpress.org/?v=6.1.9", "Jekyll", "Hugo"
	Next               string   // RFC 5005 rel="next" or rel="prev-archive" (absolute), JSON Feed next_url; "" when none
	Complete           bool     // RFC 5005 <fh:complete/>
	Items              []FeedItem
}

// FeedItem is one item (entry) of a feed.
type FeedItem struct {
	Link        string    // the post's address: RSS link (else guid with isPermaLink), Atom rel=alternate (else first link), JSON url (else an http(s) id)
	Title       string    // plain text
	Published   time.Time // RSS pubDate / dc:date, Atom published (else updated), JSON date_published
	Updated     time.Time // Atom updated, JSON date_modified; zero when absent
	Summary     string    // plain text of RSS description / Atom summary / JSON summary
	ContentHTML string    // the full body as HTML: RSS content:encoded, Atom content (html/xhtml; text escaped into <p>), JSON content_html (else content_text escaped); "" when the feed carries none
	Categories  []string  // RSS category (and dc:subject), Atom category label (else term), JSON tags; deduplicated, at most MaxKeywords
	Authors     []string  // RSS author name / dc:creator, Atom author name, JSON authors[].name; at most MaxAuthors
}

// The namespace of RFC 5005's feed history elements.
const historyNamespace = "http://purl.org/syndication/history/1.0"

// ParseFeed reads data, served as contentType at feedURL. It sniffs the
// format (XML root rss/feed/rdf:RDF, or JSON with "version" starting
// https://jsonfeed.org/version/), and returns ErrNotFeed for anything else.
func ParseFeed(data []byte, contentType, feedURL string) (feed *Feed, err error) {
	defer func() {
		// The parsers are not ours: a feed they fail on is a feed not read.
		if v := recover(); v != nil {
			feed, err = nil, fmt.Errorf("reading the feed: %v", v)
		}
	}()
	base, _ := url.Parse(feedURL)
	if base != nil && !base.IsAbs() {
		base = nil
	}
	start := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(start) > 0 && start[0] == '{' {
		return parseJSONFeed(start, base)
	}
	doc, err := xmlUTF8(data, contentType)
	if err != nil {
		return nil, err
	}
	scan, err := scanFeedXML(doc, base)
	if err != nil {
		return nil, err
	}
	switch scan.root {
	case "rss", "rdf":
		rf, err := (&rss.Parser{}).Parse(bytes.NewReader(scan.data))
		if err != nil {
			return nil, fmt.Errorf("reading the RSS feed: %w", err)
		}
		return fromRSS(rf, scan), nil
	default:
		af, err := (&atom.Parser{}).Parse(bytes.NewReader(scan.data))
		if err != nil {
			return nil, fmt.Errorf("reading the Atom feed: %w", err)
		}
		return fromAtom(af, scan), nil
	}
}

// xmlEncoding finds the encoding an XML declaration names.
var xmlEncoding = regexp.MustCompile(`^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["'][^>]*\?>`)

// xmlUTF8 is an XML document as UTF-8 without the bytes XML forbids, so
// that the scan and the parser read the same text: decoded from the
// encoding its byte order mark, its declaration or its media type names
// (the declaration then says UTF-8), invalid sequences replaced, and
// control characters dropped (as gofeed drops them).
func xmlUTF8(data []byte, contentType string) ([]byte, error) {
	label := ""
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		data = data[3:]
	case bytes.HasPrefix(data, []byte("\xfe\xff")):
		label = "utf-16be"
	case bytes.HasPrefix(data, []byte("\xff\xfe")):
		label = "utf-16le"
	}
	if label != "" {
		enc, _ := charset.Lookup(label)
		decoded, err := enc.NewDecoder().Bytes(data[2:])
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", label, err)
		}
		data = decoded
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	if m := xmlEncoding.FindSubmatchIndex(data); m != nil {
		if label == "" {
			label = string(data[m[2]:m[3]])
		}
		// The document is UTF-8 from here on: so says its declaration.
		data = append([]byte(`<?xml version="1.0"?>`), data[m[1]:]...)
	} else if label == "" {
		if _, params, err := mime.ParseMediaType(contentType); err == nil {
			label = params["charset"]
		}
	}
	if enc, name := charset.Lookup(label); enc != nil && name != "utf-8" && !strings.HasPrefix(name, "utf-16") {
		decoded, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		data = decoded
	}
	clean := make([]byte, 0, len(data))
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			clean = append(clean, "\uFFFD"...)
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r':
		default:
			clean = append(clean, data[:size]...)
		}
		data = data[size:]
	}
	return clean, nil
}

// feedScan is what the scan of a feed's XML found.
type feedScan struct {
	root       string   // the root element's local name, lowercased: rss, rdf or feed
	data       []byte   // the document, cut after MaxFeedItems items
	complete   bool     // RFC 5005 fh:complete, as a child of the root or of the channel
	feedBase   *url.URL // the base of the root element: its xml:base, else the feed's address
	entryBases []*url.URL
}

// scanFeedXML walks the tokens of a feed's XML once, in constant memory
// per open element: it checks the bounds gofeed does not keep, cuts the
// document after MaxFeedItems items (closing the elements left open), and
// notes what gofeed does not keep (fh:complete, the xml:base of entries).
// ErrEntities is a feed whose document type declares XML entities.
var ErrEntities = errors.New("the feed declares XML entities (an entity bomb or an external entity): it is not read")

func scanFeedXML(data []byte, base *url.URL) (*feedScan, error) {
	type openElement struct {
		name  string // as written, prefix and all
		local string // lowercased
		decls int    // namespace declarations it makes
		base  *url.URL
	}
	type binding struct{ prefix, uri string }
	s := &feedScan{data: data, feedBase: base}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	var stack []openElement
	var bindings []binding
	items := 0
	for {
		offset := d.InputOffset()
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			if s.root == "" {
				return nil, ErrNotFeed
			}
			return nil, fmt.Errorf("reading the feed's XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			// A document type that declares entities: an entity bomb or
			// an external entity, never a feed a generator writes.
			// Entities are never expanded; the feed is refused whole,
			// so that none of it is published as written.
			if bytes.Contains(bytes.ToUpper(t), []byte("<!ENTITY")) || bytes.Contains(bytes.ToUpper(t), []byte("ENTITY ")) {
				return nil, ErrEntities
			}
		case xml.StartElement:
			if len(stack) >= MaxFeedDepth {
				return nil, fmt.Errorf("the feed's elements nest deeper than %d", MaxFeedDepth)
			}
			el := openElement{name: t.Name.Local, local: strings.ToLower(t.Name.Local), base: base}
			if t.Name.Space != "" {
				el.name = t.Name.Space + ":" + t.Name.Local
			}
			if len(stack) > 0 {
				el.base = stack[len(stack)-1].base
			}
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					bindings = append(bindings, binding{a.Name.Local, strings.TrimSpace(a.Value)})
					el.decls++
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					bindings = append(bindings, binding{"", strings.TrimSpace(a.Value)})
					el.decls++
				case a.Name.Space == "xml" && a.Name.Local == "base":
					if u, err := url.Parse(strings.TrimSpace(a.Value)); err == nil {
						if el.base != nil {
							u = el.base.ResolveReference(u)
						}
						el.base = u
					}
				}
			}
			if len(bindings) > MaxFeedNamespaces {
				return nil, fmt.Errorf("the feed declares more than %d XML namespaces", MaxFeedNamespaces)
			}
			depth := len(stack)
			parent := ""
			if depth > 0 {
				parent = stack[depth-1].local
			}
			switch {
			case depth == 0:
				s.root = el.local
				if s.root != "rss" && s.root != "rdf" && s.root != "feed" {
					return nil, ErrNotFeed
				}
				s.feedBase = el.base
			case (el.local == "item" || el.local == "entry") && (depth == 1 || parent == "channel"):
				if items++; items > MaxFeedItems {
					var cut bytes.Buffer
					cut.Write(data[:offset])
					for i := len(stack) - 1; i >= 0; i-- {
						cut.WriteString("</" + stack[i].name + ">")
					}
					s.data = cut.Bytes()
					return s, nil
				}
				if el.local == "entry" && s.root == "feed" && depth == 1 {
					s.entryBases = append(s.entryBases, el.base)
				}
			case el.local == "complete" && (depth == 1 || parent == "channel"):
				for i := len(bindings) - 1; i >= 0; i-- {
					if bindings[i].prefix == t.Name.Space {
						s.complete = bindings[i].uri == historyNamespace
						break
					}
				}
			}
			stack = append(stack, el)
		case xml.EndElement:
			if n := len(stack); n > 0 {
				bindings = bindings[:len(bindings)-stack[n-1].decls]
				stack = stack[:n-1]
			}
		}
	}
	if s.root == "" {
		return nil, ErrNotFeed
	}
	return s, nil
}

// fromRSS is the Feed of an RSS document.
func fromRSS(rf *rss.Feed, scan *feedScan) *Feed {
	f := &Feed{
		Title:       plainText(rf.Title, MaxTitleRunes),
		Description: plainText(rf.Description, MaxDescriptionRunes),
		Home:        absURL(scan.feedBase, rf.Link),
		Generator:   plainText(rf.Generator, MaxNameRunes),
		Complete:    scan.complete,
	}
	if name, _ := splitNameAddress(rf.ManagingEditor); name != "" {
		f.Authors = appendUnique(f.Authors, name, MaxAuthors)
	}
	if rf.DublinCoreExt != nil {
		for _, c := range rf.DublinCoreExt.Creator {
			f.Authors = appendUnique(f.Authors, plainText(c, MaxNameRunes), MaxAuthors)
		}
	}
	// RFC 5005 in RSS: an atom:link of the channel.
	for _, rel := range []string{"next", "prev-archive"} {
		for _, l := range rf.Extensions["atom"]["link"] {
			if f.Next == "" && strings.EqualFold(l.Attrs["rel"], rel) {
				f.Next = absURL(scan.feedBase, l.Attrs["href"])
			}
		}
	}
	for _, it := range rf.Items {
		if len(f.Items) >= MaxFeedItems {
			break
		}
		item := FeedItem{
			Link:        absURL(scan.feedBase, it.Link),
			Title:       plainText(it.Title, MaxTitleRunes),
			Summary:     plainText(it.Description, MaxDescriptionRunes),
			ContentHTML: strings.TrimSpace(it.Content),
		}
		if item.Link == "" && it.GUID != nil && !strings.EqualFold(strings.TrimSpace(it.GUID.IsPermalink), "false") {
			item.Link = absURL(scan.feedBase, it.GUID.Value)
		}
		item.Published = feedTime(it.PubDateParsed, it.PubDate)
		for _, c := range it.Categories {
			item.Categories = appendUnique(item.Categories, plainText(c.Value, MaxNameRunes), MaxKeywords)
		}
		if name, _ := splitNameAddress(it.Author); name != "" {
			item.Authors = appendUnique(item.Authors, name, MaxAuthors)
		}
		if dc := it.DublinCoreExt; dc != nil {
			if item.Published.IsZero() && len(dc.Date) > 0 {
				item.Published = parseTime(dc.Date[0])
			}
			for _, c := range dc.Creator {
				item.Authors = appendUnique(item.Authors, plainText(c, MaxNameRunes), MaxAuthors)
			}
			for _, c := range dc.Subject {
				item.Categories = appendUnique(item.Categories, plainText(c, MaxNameRunes), MaxKeywords)
			}
		}
		f.Items = append(f.Items, item)
	}
	return f
}

// splitNameAddress reads an RSS person, "jane@example.com (Jane Doe)",
// "Jane Doe <jane@example.com>" or either alone, into its name (plain
// text) and e-mail address.
func splitNameAddress(s string) (name, address string) {
	s = strings.TrimSpace(s)
	if open := strings.IndexByte(s, '('); open >= 0 && strings.HasSuffix(s, ")") {
		a, b := strings.TrimSpace(s[:open]), strings.TrimSpace(s[open+1:len(s)-1])
		if strings.Contains(a, "@") {
			return plainText(b, MaxNameRunes), a
		}
		return plainText(a, MaxNameRunes), b
	}
	if open := strings.IndexByte(s, '<'); open >= 0 && strings.HasSuffix(s, ">") {
		return plainText(s[:open], MaxNameRunes), strings.TrimSpace(s[open+1 : len(s)-1])
	}
	if strings.Contains(s, "@") && !strings.Contains(s, " ") {
		return "", s
	}
	return plainText(s, MaxNameRunes), ""
}

// fromAtom is the Feed of an Atom document.
func fromAtom(af *atom.Feed, scan *feedScan) *Feed {
	f := &Feed{
		Title:       plainText(af.Title, MaxTitleRunes),
		Description: plainText(af.Subtitle, MaxDescriptionRunes),
		Home:        atomLink(af.Links, scan.feedBase, "alternate"),
		Next:        atomLink(af.Links, scan.feedBase, "next"),
		Complete:    scan.complete,
	}
	if f.Next == "" {
		f.Next = atomLink(af.Links, scan.feedBase, "prev-archive")
	}
	if g := af.Generator; g != nil {
		if f.Generator = plainText(g.Value, MaxNameRunes); f.Generator == "" {
			f.Generator = plainText(g.URI, MaxNameRunes)
		}
	}
	for _, a := range af.Authors {
		f.Authors = appendUnique(f.Authors, plainText(a.Name, MaxNameRunes), MaxAuthors)
	}
	for i, e := range af.Entries {
		if len(f.Items) >= MaxFeedItems {
			break
		}
		entryBase := scan.feedBase
		if len(scan.entryBases) == len(af.Entries) && scan.entryBases[i] != nil {
			entryBase = scan.entryBases[i]
		}
		item := FeedItem{
			Link:    atomLink(e.Links, entryBase, "alternate"),
			Title:   plainText(e.Title, MaxTitleRunes),
			Summary: plainText(e.Summary, MaxDescriptionRunes),
			Updated: feedTime(e.UpdatedParsed, e.Updated),
		}
		if item.Link == "" && len(e.Links) > 0 {
			item.Link = absURL(entryBase, e.Links[0].Href)
		}
		if item.Published = feedTime(e.PublishedParsed, e.Published); item.Published.IsZero() {
			item.Published = item.Updated
		}
		if c := e.Content; c != nil && c.Src == "" {
			switch t := strings.ToLower(strings.TrimSpace(c.Type)); {
			case t == "html" || strings.Contains(t, "xhtml") || t == "text/html":
				item.ContentHTML = strings.TrimSpace(c.Value)
			case t == "" || t == "text" || t == "text/plain":
				item.ContentHTML = textHTML(c.Value)
			}
		}
		for _, c := range e.Categories {
			label := plainText(c.Label, MaxNameRunes)
			if label == "" {
				label = plainText(c.Term, MaxNameRunes)
			}
			item.Categories = appendUnique(item.Categories, label, MaxKeywords)
		}
		for _, a := range e.Authors {
			item.Authors = appendUnique(item.Authors, plainText(a.Name, MaxNameRunes), MaxAuthors)
		}
		f.Items = append(f.Items, item)
	}
	return f
}

// atomLink is the absolute href of the first link with the relation rel
// (an HTML one first, for alternate), "" when none.
func atomLink(links []*atom.Link, base *url.URL, rel string) string {
	found := ""
	for _, l := range links {
		if l == nil || !strings.EqualFold(strings.TrimSpace(l.Rel), rel) {
			continue
		}
		u := absURL(base, l.Href)
		if u == "" {
			continue
		}
		t := strings.ToLower(l.Type)
		if rel != "alternate" || t == "" || strings.Contains(t, "html") {
			return u
		}
		if found == "" {
			found = u
		}
	}
	return found
}

// textHTML is plain text as HTML: its paragraphs (parted by blank lines)
// escaped, each in a <p>.
func textHTML(text string) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if para = strings.TrimSpace(para); para != "" {
			b.WriteString("<p>" + html.EscapeString(para) + "</p>\n")
		}
	}
	return b.String()
}

// feedTime is the time gofeed parsed, else the text read leniently.
func feedTime(parsed *time.Time, text string) time.Time {
	if parsed != nil && !parsed.IsZero() {
		if t := *parsed; validYear(t) {
			return t
		}
	}
	return parseTime(text)
}

// parseJSONFeed reads a JSON Feed as a stream: the feed's own fields, and
// its items decoded one by one up to MaxFeedItems (the rest are skipped
// without being kept).
func parseJSONFeed(data []byte, base *url.URL) (*Feed, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, ErrNotFeed
	}
	var (
		f       Feed
		version string
		items   []gjson.Item
		author  *gjson.Author
		authors []*gjson.Author
		err     error
	)
	str := func(dst *string) {
		var v any
		if err = dec.Decode(&v); err == nil {
			*dst, _ = v.(string)
		}
	}
	for err == nil && dec.More() {
		var tok json.Token
		if tok, err = dec.Token(); err != nil {
			break
		}
		key, _ := tok.(string)
		switch key {
		case "version":
			str(&version)
		case "title":
			str(&f.Title)
		case "description":
			str(&f.Description)
		case "home_page_url":
			str(&f.Home)
		case "next_url":
			str(&f.Next)
		case "author", "authors":
			var raw json.RawMessage
			if err = dec.Decode(&raw); err == nil {
				if key == "author" {
					_ = json.Unmarshal(raw, &author)
				} else {
					_ = json.Unmarshal(raw, &authors)
				}
			}
		case "items":
			if tok, err = dec.Token(); err != nil || tok != json.Delim('[') {
				err = errors.New("items is not an array")
				break
			}
			for err == nil && dec.More() {
				var raw json.RawMessage
				if err = dec.Decode(&raw); err == nil && len(items) < MaxFeedItems {
					var it gjson.Item
					if json.Unmarshal(raw, &it) == nil {
						items = append(items, it)
					}
				}
			}
			if err == nil {
				_, err = dec.Token()
			}
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
	}
	if !strings.HasPrefix(version, "https://jsonfeed.org/version/") && !strings.HasPrefix(version, "http://jsonfeed.org/version/") {
		return nil, ErrNotFeed
	}
	if err != nil {
		return nil, fmt.Errorf("reading the JSON feed: %w", err)
	}
	f.Title = plainText(f.Title, MaxTitleRunes)
	f.Description = plainText(f.Description, MaxDescriptionRunes)
	f.Home = absURL(base, f.Home)
	f.Next = absURL(base, f.Next)
	f.Authors = jsonAuthors(authors, author)
	for _, it := range items {
		item := FeedItem{
			Link:      absURL(base, it.URL),
			Title:     plainText(it.Title, MaxTitleRunes),
			Published: parseTime(it.DatePublished),
			Updated:   parseTime(it.DateModified),
			Summary:   plainText(it.Summary, MaxDescriptionRunes),
			Authors:   jsonAuthors(it.Authors, it.Author),
		}
		if item.Link == "" {
			item.Link = absURL(nil, it.ID)
		}
		if item.ContentHTML = strings.TrimSpace(it.ContentHTML); item.ContentHTML == "" {
			item.ContentHTML = textHTML(it.ContentText)
		}
		for _, tag := range it.Tags {
			item.Categories = appendUnique(item.Categories, plainText(tag, MaxNameRunes), MaxKeywords)
		}
		f.Items = append(f.Items, item)
	}
	return &f, nil
}

// jsonAuthors are the names of a JSON Feed's authors (1.1), else of its
// author (1.0).
func jsonAuthors(authors []*gjson.Author, author *gjson.Author) []string {
	if len(authors) == 0 && author != nil {
		authors = []*gjson.Author{author}
	}
	var names []string
	for _, a := range authors {
		if a != nil {
			names = appendUnique(names, plainText(a.Name, MaxNameRunes), MaxAuthors)
		}
	}
	return names
}

// Dates, as sites write them.

// isoLayouts are the ISO 8601 forms (after a space between the date and
// the time has been made a "T"); fractional seconds need no layout.
var isoLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04:05 Z07:00",
	"2006-01-02T15:04:05 -0700",
	"2006-01-02T15:04:05 -0700 MST",
	"2006-01-02T15:04:05 MST",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01",
	"2006",
	"2006/01/02",
	"2006/01/02T15:04:05",
	"2006-1-2",
	"2006-1-2T15:04:05",
}

// textLayouts are the RFC 822 and 1123 family and the dates people write,
// after normalizeDate (no weekday, no commas, a numeric zone).
var textLayouts = []string{
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 -07:00",
	"2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04",
	"2 Jan 2006 3:04:05 PM -0700",
	"2 Jan 2006 3:04 PM",
	"2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04 -0700",
	"2 Jan 2006",
	"2 January 2006 15:04:05 -0700",
	"2 January 2006 15:04:05",
	"2 January 2006 15:04",
	"2 January 2006",
	"January 2 2006 15:04:05 -0700",
	"January 2 2006 3:04:05 PM",
	"January 2 2006 3:04 PM",
	"January 2 2006 15:04:05",
	"January 2 2006 15:04",
	"January 2 2006",
	"Jan 2 2006 15:04:05 -0700",
	"Jan 2 2006 3:04:05 PM",
	"Jan 2 2006 3:04 PM",
	"Jan 2 2006 15:04:05",
	"Jan 2 2006 15:04",
	"Jan 2 2006",
	"Jan 2 15:04:05 2006",
	"Jan 2 15:04:05 -0700 2006",
	"Jan 2 15:04:05 2006 -0700",
	"2006 January 2",
}

// zoneOffsets are the zone names dates are written with, as offsets (the
// North American and Western European readings of the ambiguous ones,
// which dominate).
var zoneOffsets = map[string]string{
	"UT": "+0000", "UTC": "+0000", "GMT": "+0000", "Z": "+0000", "WET": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
	"WEST": "+0100", "BST": "+0100", "CET": "+0100", "CEST": "+0200",
	"EET": "+0200", "EEST": "+0300", "IST": "+0530", "JST": "+0900",
	"AEST": "+1000", "AEDT": "+1100",
}

// weekdays are the weekday names and abbreviations, misspelled ones
// included, a date may begin with.
var weekdays = map[string]bool{
	"mon": true, "tue": true, "tues": true, "wed": true, "weds": true, "thu": true, "thur": true, "thurs": true,
	"fri": true, "sat": true, "sun": true, "monday": true, "tuesday": true, "wednesday": true,
	"thursday": true, "friday": true, "saturday": true, "sunday": true,
}

// parseTime reads a date as leniently as sites write them: RFC 3339 with
// or without seconds, fraction or zone, "2006-01-02", "2006-01-02
// 15:04:05", W3C partial dates ("2006-01"), RFC 1123 and 822 with their
// common misspellings (a missing or misspelt weekday, "Sept", zone names,
// "GMT+0000"), and the long forms people write ("January 2, 2006").
// It returns the time in UTC, or the zero time.
func parseTime(s string) time.Time {
	if i := strings.IndexByte(s, '('); i > 0 && len(s) < 200 {
		s = s[:i] // "... GMT+0100 (Central European Standard Time)", as JavaScript writes dates
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return validTime(t)
	}
	if s[0] >= '0' && s[0] <= '9' && len(s) >= 4 && s[3] >= '0' && s[3] <= '9' {
		iso := s
		if len(iso) > 10 && iso[10] == ' ' {
			iso = iso[:10] + "T" + strings.TrimSpace(iso[11:])
		}
		for _, layout := range isoLayouts {
			if t, err := time.Parse(layout, iso); err == nil {
				return validTime(t)
			}
		}
	}
	norm := normalizeDate(s)
	for _, layout := range textLayouts {
		if t, err := time.Parse(layout, norm); err == nil {
			return validTime(t)
		}
	}
	return time.Time{}
}

// normalizeDate rewrites a written date for textLayouts: without its
// weekday and commas, "Sept" as "Sep", "p.m." as "PM", and a zone name
// (or "GMT+0100") as its numeric offset; an unknown zone name is dropped
// (read as UTC).
func normalizeDate(s string) string {
	s = strings.NewReplacer(",", " ", "a.m.", "AM", "p.m.", "PM").Replace(s)
	fields := strings.Fields(s)
	if len(fields) > 0 && weekdays[strings.ToLower(strings.TrimSuffix(fields[0], "."))] {
		fields = fields[1:]
	}
	for i, f := range fields {
		switch upper := strings.ToUpper(f); {
		case upper == "SEPT":
			fields[i] = "Sep"
		case zoneOffsets[upper] != "":
			fields[i] = zoneOffsets[upper]
		case strings.HasPrefix(upper, "GMT+") || strings.HasPrefix(upper, "GMT-") || strings.HasPrefix(upper, "UTC+") || strings.HasPrefix(upper, "UTC-"):
			fields[i] = f[3:]
		case i == len(fields)-1 && i > 2 && isLetters(f) && upper != "AM" && upper != "PM":
			fields = fields[:i]
		}
	}
	return strings.Join(fields, " ")
}

// isLetters reports whether s is ASCII letters only.
func isLetters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return s != ""
}

// validTime is t, in the offset the site wrote it in (its day is the
// day written, whatever the time zone), when its year is one a site's
// page may carry, else the zero time.
func validTime(t time.Time) time.Time {
	if validYear(t) {
		return t
	}
	return time.Time{}
}

// validYear reports whether t's year is one a page may carry.
func validYear(t time.Time) bool {
	return t.Year() >= 1900 && t.Year() <= 2200
}
