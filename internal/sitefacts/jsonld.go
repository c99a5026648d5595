// What a page's schema.org JSON-LD says: the article it is, the person it
// is about, the site and its publisher. Any number of
// <script type="application/ld+json"> blocks are read, each an object, an
// array or a {"@graph": [...]}; types and properties may carry a "schema:"
// or schema.org URL prefix; values may be strings, objects, arrays or
// {"@id"} references, which are resolved within the page (never fetched).
// A block that is not JSON is skipped alone; the blocks, their bytes and
// the objects looked at are capped.

package sitefacts

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"
)

// The caps of the JSON-LD read of one page.
const (
	// MaxJSONLDBlocks is how many ld+json scripts of a page are read.
	MaxJSONLDBlocks = 32
	// MaxJSONLDBytes is the largest block read; a larger one is skipped.
	MaxJSONLDBytes = 1 << 20
	// MaxJSONLDNodes is how many JSON objects of a page are looked at, in
	// all its blocks.
	MaxJSONLDNodes = 2000
	// maxJSONLDDepth is how deep objects are looked for in a block.
	maxJSONLDDepth = 32
)

// ldNode is one JSON-LD object.
type ldNode = map[string]any

// linkedData is the JSON-LD of one page.
type linkedData struct {
	base    *url.URL
	top     []ldNode // the objects at the top of a block and the members of a @graph, in document order
	inGraph []bool   // whether top[i] is a @graph member
	byID    map[string]ldNode
	budget  int // objects that may still be looked at
}

// The schema.org types an article is one of.
var articleTypes = map[string]bool{
	"Article": true, "BlogPosting": true, "NewsArticle": true, "TechArticle": true,
	"ScholarlyArticle": true, "Report": true, "SocialMediaPosting": true,
}

// The prefixes a type or property name may be written with.
var schemaPrefixes = []string{"schema:", "https://schema.org/", "http://schema.org/"}

// readJSONLD reads the text of a page's ld+json scripts; base is the page's
// address, for relative URLs.
func readJSONLD(blocks []string, base *url.URL) *linkedData {
	ld := &linkedData{base: base, byID: make(map[string]ldNode), budget: MaxJSONLDNodes}
	for _, block := range blocks {
		if len(block) > MaxJSONLDBytes {
			continue
		}
		var v any
		if json.Unmarshal(cleanJSON(block), &v) != nil {
			continue
		}
		ld.index(v, 0)
		ld.addTop(v, false, 0)
	}
	return ld
}

// cleanJSON undoes what sites wrap JSON-LD in or leave in it: comment and
// CDATA markers around it, and raw line breaks and control characters
// (invalid inside JSON strings, where editors leave them).
func cleanJSON(s string) []byte {
	s = strings.TrimSpace(s)
	for _, prefix := range []string{"<!--", "//<![CDATA[", "/*<![CDATA[*/", "<![CDATA["} {
		s = strings.TrimSpace(strings.TrimPrefix(s, prefix))
	}
	for _, suffix := range []string{"-->", "//]]>", "/*]]>*/", "]]>"} {
		s = strings.TrimSpace(strings.TrimSuffix(s, suffix))
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 {
			b[i] = ' '
		}
	}
	return b
}

// index records, by @id, every object that defines one (more than a bare
// reference), so that references resolve.
func (ld *linkedData) index(v any, depth int) {
	if depth > maxJSONLDDepth || ld.budget <= 0 {
		return
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			ld.index(e, depth+1)
		}
	case map[string]any:
		ld.budget--
		// The fullest object of an @id defines it: Yoast writes a
		// reference with a name where the full Person is further on.
		if id, ok := v["@id"].(string); ok && id != "" && !isReference(v) {
			if have, ok := ld.byID[id]; !ok || len(v) > len(have) {
				ld.byID[id] = v
			}
		}
		for _, e := range v {
			switch e.(type) {
			case []any, map[string]any:
				ld.index(e, depth+1)
			}
		}
	}
}

// addTop records the objects at the top of a block, and @graph members.
func (ld *linkedData) addTop(v any, inGraph bool, depth int) {
	if depth > 4 || len(ld.top) >= MaxJSONLDNodes {
		return
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			ld.addTop(e, inGraph, depth+1)
		}
	case map[string]any:
		if g, ok := v["@graph"]; ok {
			ld.addTop(g, true, depth+1)
		}
		if len(types(v)) > 0 {
			ld.top = append(ld.top, v)
			ld.inGraph = append(ld.inGraph, inGraph)
		}
	}
}

// isReference reports whether n only points at an object defined elsewhere.
func isReference(n ldNode) bool {
	for k := range n {
		if k != "@id" && k != "@type" && k != "@context" {
			return false
		}
	}
	return true
}

// resolve is the object v refers to when v is a reference (or a partial
// copy) of an object the page defines more fully, else v.
func (ld *linkedData) resolve(v any) any {
	if n, ok := v.(map[string]any); ok {
		if id, _ := n["@id"].(string); id != "" {
			if full, ok := ld.byID[id]; ok && len(full) > len(n) {
				return full
			}
		}
	}
	return v
}

// get is n's property key, written plain or with a schema.org prefix.
func get(n ldNode, key string) any {
	if v, ok := n[key]; ok {
		return v
	}
	for _, p := range schemaPrefixes {
		if v, ok := n[p+key]; ok {
			return v
		}
	}
	return nil
}

// types are n's @type names, without prefixes.
func types(n ldNode) []string {
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok && len(out) < 8 {
			for _, p := range schemaPrefixes {
				s = strings.TrimPrefix(s, p)
			}
			out = append(out, strings.TrimSpace(s))
		}
	}
	switch t := n["@type"].(type) {
	case string:
		add(t)
	case []any:
		for _, e := range t {
			add(e)
		}
	}
	return out
}

// hasType reports whether n is of one of the types.
func hasType(n ldNode, names ...string) bool {
	for _, t := range types(n) {
		for _, name := range names {
			if t == name {
				return true
			}
		}
	}
	return false
}

// isArticle reports whether n is an article.
func isArticle(n ldNode) bool {
	for _, t := range types(n) {
		if articleTypes[t] {
			return true
		}
	}
	return false
}

// isWebPage reports whether n is a WebPage or one of its kinds
// (ProfilePage, AboutPage, CollectionPage, ...).
func isWebPage(n ldNode) bool {
	for _, t := range types(n) {
		if strings.HasSuffix(t, "Page") {
			return true
		}
	}
	return false
}

// node is v, resolved, when it is an object.
func (ld *linkedData) node(v any) ldNode {
	n, _ := ld.resolve(v).(map[string]any)
	return n
}

// text is the plain text of v: a string, an object's @value or name, or
// the first of an array that has one.
func (ld *linkedData) text(v any, max int) string {
	return ld.textAt(v, max, 0)
}

func (ld *linkedData) textAt(v any, max, depth int) string {
	if depth > 3 {
		return ""
	}
	switch v := ld.resolve(v).(type) {
	case string:
		return plainText(v, max)
	case map[string]any:
		if s, ok := v["@value"]; ok {
			return ld.textAt(s, max, depth+1)
		}
		return ld.textAt(get(v, "name"), max, depth+1)
	case []any:
		for _, e := range v {
			if s := ld.textAt(e, max, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

// texts are the plain texts of v (an array, or one value), deduplicated,
// at most limit; with commas, a string is a list ("a, b").
func (ld *linkedData) texts(v any, commas bool, limit int) []string {
	var out []string
	add := func(e any) {
		s, isString := e.(string)
		if commas && isString {
			for _, part := range strings.Split(s, ",") {
				out = appendUnique(out, plainText(part, MaxNameRunes), limit)
			}
			return
		}
		out = appendUnique(out, ld.text(e, MaxNameRunes), limit)
	}
	if list, ok := v.([]any); ok {
		for _, e := range list {
			if len(out) >= limit {
				break
			}
			add(e)
		}
	} else if v != nil {
		add(v)
	}
	return out
}

// link is the absolute URL of v: a string, an object's url, contentUrl or
// @id, or the first of an array that has one.
func (ld *linkedData) link(v any) string {
	return ld.linkAt(v, 0)
}

func (ld *linkedData) linkAt(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch v := ld.resolve(v).(type) {
	case string:
		return absURL(ld.base, v)
	case map[string]any:
		for _, key := range []string{"url", "contentUrl", "@id"} {
			if u := ld.linkAt(get(v, key), depth+1); u != "" {
				return u
			}
		}
	case []any:
		for _, e := range v {
			if u := ld.linkAt(e, depth+1); u != "" {
				return u
			}
		}
	}
	return ""
}

// links are the absolute URLs of v, deduplicated, at most limit.
func (ld *linkedData) links(v any, limit int) []string {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []string
	for _, e := range list {
		if len(out) >= limit {
			break
		}
		out = appendUnique(out, ld.link(e), limit)
	}
	return out
}

// time is the date of v.
func (ld *linkedData) time(v any) time.Time {
	return parseTime(ld.text(v, 100))
}

// personOf is the Person n describes; nil when it has no name.
func (ld *linkedData) personOf(n ldNode) *Person {
	p := &Person{Name: ld.text(get(n, "name"), MaxNameRunes)}
	if p.Name == "" {
		p.Name = plainText(ld.text(get(n, "givenName"), MaxNameRunes)+" "+ld.text(get(n, "familyName"), MaxNameRunes), MaxNameRunes)
	}
	if p.Name == "" {
		return nil
	}
	p.JobTitle = ld.text(get(n, "jobTitle"), MaxNameRunes)
	p.Description = ld.text(get(n, "description"), MaxDescriptionRunes)
	p.URL = ld.link(get(n, "url"))
	p.Email = strings.TrimPrefix(ld.text(get(n, "email"), MaxNameRunes), "mailto:")
	p.Telephone = strings.TrimPrefix(ld.text(get(n, "telephone"), MaxNameRunes), "tel:")
	p.Image = ld.link(get(n, "image"))
	p.SameAs = ld.links(get(n, "sameAs"), MaxPersonList)
	p.KnowsAbout = ld.texts(get(n, "knowsAbout"), false, MaxPersonList)
	p.Awards = ld.texts(get(n, "award"), false, MaxPersonList)
	if len(p.Awards) == 0 {
		p.Awards = ld.texts(get(n, "awards"), false, MaxPersonList)
	}
	p.AlumniOf = ld.texts(get(n, "alumniOf"), false, MaxPersonList)
	p.WorksFor = ld.text(get(n, "worksFor"), MaxNameRunes)
	return p
}

// personIn is the first Person among v (one value or an array).
func (ld *linkedData) personIn(v any) *Person {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, e := range list {
		if n := ld.node(e); n != nil && hasType(n, "Person") {
			if p := ld.personOf(n); p != nil {
				return p
			}
		}
	}
	return nil
}

// article is the object of the article the page is: a top-level or @graph
// object of an article type, or a WebPage's mainEntity of one; nil when
// none.
func (ld *linkedData) article() ldNode {
	for _, n := range ld.top {
		if isArticle(n) {
			return n
		}
		if isWebPage(n) {
			if m := ld.node(get(n, "mainEntity")); m != nil && isArticle(m) {
				return m
			}
		}
	}
	return nil
}

// fillArticle sets what the article object n says.
func (ld *linkedData) fillArticle(a *Article, n ldNode) {
	a.IsArticle = true
	if a.Headline = ld.text(get(n, "headline"), MaxTitleRunes); a.Headline == "" {
		a.Headline = ld.text(get(n, "name"), MaxTitleRunes)
	}
	a.Published = ld.time(get(n, "datePublished"))
	a.Modified = ld.time(get(n, "dateModified"))
	a.Description = ld.text(get(n, "description"), MaxDescriptionRunes)
	a.Keywords = ld.texts(get(n, "keywords"), true, MaxKeywords)
	a.Section = ld.text(get(n, "articleSection"), MaxNameRunes)
	authors, ok := get(n, "author").([]any)
	if !ok {
		authors = []any{get(n, "author")}
	}
	for _, v := range authors {
		var p *Person
		switch v := ld.resolve(v).(type) {
		case string:
			if name := plainText(v, MaxNameRunes); name != "" {
				p = &Person{Name: name}
			}
		case map[string]any:
			p = ld.personOf(v)
		}
		if p != nil {
			a.Authors = appendPerson(a.Authors, *p)
		}
	}
}

// appendPerson appends p unless one of the same name is there, or the list
// is full.
func appendPerson(list []Person, p Person) []Person {
	if p.Name == "" || len(list) >= MaxAuthors {
		return list
	}
	for _, have := range list {
		if strings.EqualFold(have.Name, p.Name) {
			return list
		}
	}
	return append(list, p)
}

// authorIDs are the @ids that the page's articles name as their authors.
func (ld *linkedData) authorIDs() map[string]bool {
	ids := make(map[string]bool)
	for _, n := range ld.top {
		if !isArticle(n) {
			continue
		}
		authors, ok := get(n, "author").([]any)
		if !ok {
			authors = []any{get(n, "author")}
		}
		for _, v := range authors {
			if m, ok := v.(map[string]any); ok {
				if id, _ := m["@id"].(string); id != "" {
					ids[id] = true
				}
			}
		}
	}
	return ids
}

// person is the page's own person: a top-level Person (one of its own, or
// a @graph member that is not only an article's author), else the
// mainEntity or about of a ProfilePage or AboutPage, else the WebSite's
// publisher, author, creator or copyright holder; nil when none.
func (ld *linkedData) person() *Person {
	authors := ld.authorIDs()
	for i, n := range ld.top {
		if !hasType(n, "Person") {
			continue
		}
		if id, _ := n["@id"].(string); ld.inGraph[i] && id != "" && authors[id] {
			continue
		}
		if p := ld.personOf(n); p != nil {
			return p
		}
	}
	for _, n := range ld.top {
		if hasType(n, "ProfilePage", "AboutPage") {
			for _, key := range []string{"mainEntity", "about"} {
				if p := ld.personIn(get(n, key)); p != nil {
					return p
				}
			}
		}
	}
	return ld.webSite().Publisher
}

// webSite is what the page's first WebSite object says.
func (ld *linkedData) webSite() WebSite {
	for _, n := range ld.top {
		if !hasType(n, "WebSite") {
			continue
		}
		w := WebSite{
			Name:        ld.text(get(n, "name"), MaxNameRunes),
			Description: ld.text(get(n, "description"), MaxDescriptionRunes),
		}
		if w.Name == "" {
			w.Name = ld.text(get(n, "alternateName"), MaxNameRunes)
		}
		for _, key := range []string{"publisher", "author", "creator", "copyrightHolder"} {
			if w.Publisher = ld.personIn(get(n, key)); w.Publisher != nil {
				break
			}
		}
		return w
	}
	return WebSite{}
}

// isList reports whether the JSON-LD says the page lists posts.
func (ld *linkedData) isList() bool {
	for _, n := range ld.top {
		if hasType(n, "CollectionPage", "Blog", "ItemList") {
			return true
		}
		if hasType(n, "WebSite") {
			if posts, ok := get(n, "blogPost").([]any); ok && len(posts) > 0 {
				return true
			}
		}
	}
	return false
}
