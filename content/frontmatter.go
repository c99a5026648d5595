package content

import (
	"bytes"
	"errors"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// DefaultTopic is the topic of an insight whose front matter names no
// topic, category or tag.
const DefaultTopic = "General"

// displayDateLayout writes the display date derived from an ISO date:
// "July 15, 2025".
const displayDateLayout = "January 2, 2006"

// frontMatterKeys are the front-matter keys the loader reads, as the
// generators spell them. Keys are matched ignoring case, as Hugo does.
// Keys that name the same fact are listed in order of precedence:
//   - publication date: dateISO, date, pubDate (Astro), pubDatetime
//     (AstroPaper), then publishDate and published (Hugo), then a Jekyll
//     file name's date;
//   - modification date: dateModifiedISO, lastmod (Hugo), modified,
//     updated (Eleventy), updatedDate (Astro), modDatetime (AstroPaper),
//     dateModified, last_modified_at (Jekyll), else the publication date;
//     a modification key left blank, as AstroPaper leaves modDatetime
//     until a post changes, counts as absent;
//   - description: the owner's own, in the keys generators and themes
//     give it (see descriptionKeys), else the body's first paragraph;
//   - topic: topic, categories, category (Jekyll), tags, else DefaultTopic;
//     a single text in tags or categories, rather than a list, is split as
//     described at splitTerms;
//   - not published, as the generators would not publish it: draft: true,
//     published: false (Jekyll), a publication date in the future, a
//     publishDate (Hugo) in the future whatever the date, an expiryDate
//     (Hugo) in the past;
//   - the address of the post's page: permalink (Jekyll, Eleventy), url
//     (Hugo), else the pattern pages.insight; permalink: false (Eleventy)
//     writes no page, so the post is not published;
//   - guarded by the owner, kept off every surface: private: true,
//     noindex: true, sitemap: false (jekyll-sitemap), sitemap: {disable:
//     true} (Hugo) or eleventyExcludeFromCollections: true (Eleventy
//     builds the page but lists it nowhere).
//
// Every other key (taxonomies, layout, aliases, a theme's keys) is ignored.
var frontMatterKeys = []string{
	"title", "description", "summary", "excerpt", "meta", "meta_description", "metaDescription", "seo", "abstract",
	"share-description", "subtitle",
	"date", "dateISO", "pubDate", "pubDatetime", "publishDate", "published",
	"dateModifiedISO", "lastmod", "modified", "updated", "updatedDate", "modDatetime", "dateModified", "last_modified_at",
	"topic", "categories", "category", "tags",
	"slug", "readTime", "draft", "expiryDate", "private", "noindex", "sitemap",
	"permalink", "url", "eleventyExcludeFromCollections",
}

// mappingKeys may hold a mapping as well as a value.
var mappingKeys = map[string]bool{"sitemap": true, "meta": true, "seo": true}

// themeKeys are keys themes define as they please: a value of a kind the
// loader does not read in them is passed over, never an error.
var themeKeys = map[string]bool{"meta": true, "meta_description": true, "metaDescription": true, "seo": true,
	"abstract": true, "share-description": true, "subtitle": true}

// descriptionKeys give the owner's own description of a post, in order of
// precedence, each a text or, for meta and seo, a mapping's description
// (see mappingKeys): description (every generator, jekyll-seo-tag, Hugo
// and Astro themes), summary (Hugo), excerpt (Jekyll), meta (themes that
// put it in the page's <meta name="description">), meta_description and
// metaDescription (SEO front matter), seo.description, abstract (Hugo's
// academic themes), share-description and subtitle (Beautiful Jekyll,
// whose page description is the first of them).
var descriptionKeys = []string{"description", "summary", "excerpt", "meta", "meta_description", "metaDescription",
	"seo", "abstract", "share-description", "subtitle"}

// modifiedKeys name the modification date, in order of precedence;
// dateModifiedISO, first, must be YYYY-MM-DD.
var modifiedKeys = []string{"dateModifiedISO", "lastmod", "modified", "updated", "updatedDate", "modDatetime", "dateModified", "last_modified_at"}

// listKeys hold a list, or a single text that splitTerms makes one.
var listKeys = map[string]bool{"categories": true, "category": true, "tags": true}

// splitTerms makes a list of the single text s given to a list key:
//   - with a comma, it is split at the commas ("go, caddy"): no generator
//     means a tag with a comma in it, and none splits at commas itself;
//   - in a Hugo or an Eleventy site's folder (whole), s is one term, as
//     they take it ("categories: Machine Learning");
//   - else, in YAML, the tags and categories are the words of s, as Jekyll
//     makes them ("tags: go caddy web" is three tags);
//   - category, Jekyll's key for one category, is kept whole, as Jekyll
//     keeps it; so is a text in TOML or JSON, which only Hugo reads.
//
// A folder that says nothing of its generator is read as Jekyll's: its
// "tags: go web" taken whole, as the topic "go web", would be the worse
// mistake, and the more common.
func splitTerms(key, s string, format fmFormat, whole bool) []string {
	var terms []string
	switch {
	case strings.Contains(s, ","):
		terms = strings.Split(s, ",")
	case key != "category" && format == fmYAML && !whole:
		return strings.Fields(s)
	default:
		terms = []string{s}
	}
	list := terms[:0]
	for _, t := range terms {
		if t = strings.TrimSpace(t); t != "" {
			list = append(list, t)
		}
	}
	return list
}

var knownKey = lowerIndex(frontMatterKeys)

func lowerIndex(keys []string) map[string]string {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[strings.ToLower(k)] = k
	}
	return m
}

// fmValue is the value of one front-matter key.
type fmValue struct {
	key  string // as written in the file, for messages
	line int    // of the key in the file
	node *yaml.Node
	text string   // a scalar's text
	list []string // a list key's items, blank ones left out
	// invalid marks a value of the wrong kind, reported already: the key
	// is neither read nor reported again as missing.
	invalid bool
}

// frontMatter holds the keys read, by their spelling in frontMatterKeys.
type frontMatter map[string]*fmValue

func (fm frontMatter) text(key string) string {
	if f := fm[key]; f != nil {
		return strings.TrimSpace(f.text)
	}
	return ""
}

// valid returns the value of key, or nil when it is absent or invalid.
func (fm frontMatter) valid(key string) *fmValue {
	if f := fm[key]; f != nil && !f.invalid {
		return f
	}
	return nil
}

// fmFormat is the language a file's front matter is written in.
type fmFormat int

const (
	fmYAML fmFormat = iota // between lines of ---
	fmTOML                 // between lines of +++ (Hugo)
	fmJSON                 // an object that opens the file (Hugo)
)

// fences are the lines that open and close front matter, with how messages
// name them.
var fences = map[fmFormat]struct{ line, name string }{
	fmYAML: {"---", "three hyphens (---)"},
	fmTOML: {"+++", "three plus signs (+++)"},
}

// lineError is an error at a line of the file.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// errorLine is the line of err when it is a *lineError, else 0.
func errorLine(err error) int {
	if le, ok := errors.AsType[*lineError](err); ok {
		return le.line
	}
	return 0
}

// splitFrontMatter separates the front matter from the Markdown body: YAML
// fenced by lines of "---" or TOML fenced by lines of "+++" (trailing blanks
// allowed, as Jekyll allows them), or a JSON object that opens the file.
// An error may be a *lineError.
func splitFrontMatter(data []byte) (header []byte, format fmFormat, body string, err error) {
	if bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(data) > 0 && data[0] == '{' {
		header, body, err = splitJSON(data)
		return header, fmJSON, body, err
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	switch {
	case isFenceOf(first, fences[fmYAML].line):
		format = fmYAML
	case isFenceOf(first, fences[fmTOML].line):
		format = fmTOML
	default:
		return nil, 0, "", errors.New("the file must begin with a line of three hyphens (---) for YAML front matter, " +
			"of three plus signs (+++) for TOML, or with { for JSON")
	}
	fence := fences[format]
	for offset := 0; offset <= len(rest); {
		line, _, found := bytes.Cut(rest[offset:], []byte("\n"))
		if isFenceOf(line, fence.line) {
			header = rest[:offset]
			if len(bytes.TrimSpace(header)) == 0 {
				return nil, 0, "", errors.New("is empty")
			}
			if !found {
				return header, format, "", nil
			}
			return header, format, strings.TrimLeft(string(rest[offset+len(line)+1:]), "\n"), nil
		}
		if !found {
			break
		}
		offset += len(line) + 1
	}
	return nil, 0, "", errors.New("no closing line of " + fence.name)
}

func isFenceOf(line []byte, fence string) bool {
	return bytes.HasPrefix(line, []byte(fence)) && len(bytes.Trim(line[len(fence):], " \t")) == 0
}

// parseFrontMatter parses a header in its format into the node tree of a
// YAML document, so that one decoder reads every format. Problems name
// lines of the file: the header of YAML and TOML begins on its second
// line, JSON's on its first.
func parseFrontMatter(file string, format fmFormat, header []byte, ps *problems) (*yamlDoc, bool) {
	switch format {
	case fmTOML:
		return parseTOML(file, 1, header, ps)
	case fmJSON:
		return parseJSON(file, header, ps)
	}
	return parseYAML(file, 1, "front matter", header, ps)
}

// decodeFrontMatter reads the keys of a front-matter mapping written in
// format. A key it does not read is ignored: generators and themes define
// keys of their own, and a Hugo taxonomy named topics is no typo of topic.
func decodeFrontMatter(doc *yamlDoc, format fmFormat, wholeTerms bool, ps *problems) frontMatter {
	fm := make(frontMatter)
	n := doc.root
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, value := deref(n.Content[i]), deref(n.Content[i+1])
		line := doc.line(k)
		if k.Kind != yaml.ScalarNode {
			ps.add(doc.file, line, "front matter", "keys must be text, not %s", describe(k))
			continue
		}
		lower := strings.ToLower(k.Value)
		if first, dup := seen[lower]; dup {
			ps.add(doc.file, line, k.Value, "already given on line %d", first)
			continue
		}
		seen[lower] = line
		key, known := knownKey[lower]
		if !known {
			continue
		}
		if isNull(value) {
			continue
		}
		f := &fmValue{key: k.Value, line: line, node: value}
		switch {
		case listKeys[key] && value.Kind == yaml.SequenceNode:
			for j, item := range value.Content {
				item = deref(item)
				if item.Kind != yaml.ScalarNode {
					ps.add(doc.file, doc.line(item), k.Value+"["+strconv.Itoa(j)+"]", "must be text, not %s", describe(item))
				} else if s := strings.TrimSpace(item.Value); s != "" && !isNull(item) {
					f.list = append(f.list, s)
				}
			}
		case mappingKeys[key] && value.Kind == yaml.MappingNode:
		case themeKeys[key] && value.Kind != yaml.ScalarNode:
			continue
		case value.Kind != yaml.ScalarNode:
			ps.add(doc.file, line, k.Value, "must be text, not %s", describe(value))
			f.invalid = true
		case listKeys[key]:
			f.list = splitTerms(key, value.Value, format, wholeTerms)
		default:
			f.text = value.Value
		}
		fm[key] = f
	}
	return fm
}

// reasonPrivate begins the reason a post the owner guards is skipped.
const reasonPrivate = "kept private"

// unpublished returns why the front matter keeps the file from being
// published, or "" when it does not.
func unpublished(fm frontMatter, ps *problems, file string) string {
	reason := ""
	if f := fm.valid("draft"); f != nil {
		if draft, ok := parseBool(f.node); !ok {
			ps.add(file, f.line, f.key, "must be true or false, not %q", f.text)
		} else if draft {
			reason = "draft (" + f.key + ": true)"
		}
	}
	if f := fm.valid("published"); f != nil && reason == "" {
		if published, ok := parseBool(f.node); ok && !published {
			reason = "not published (" + f.key + ": false)"
		}
	}
	if f := fm.valid("permalink"); f != nil && reason == "" {
		if on, ok := parseBool(f.node); ok && !on {
			reason = "not published (" + f.key + ": false)"
		}
	}
	for _, key := range []string{"private", "noindex", "eleventyExcludeFromCollections"} {
		if f := fm.valid(key); f != nil && reason == "" {
			if on, ok := parseBool(f.node); ok && on {
				reason = reasonPrivate + " (" + f.key + ": true)"
			}
		}
	}
	if f := fm.valid("sitemap"); f != nil && reason == "" {
		if off, ok := parseBool(f.node); ok && !off {
			reason = reasonPrivate + " (" + f.key + ": false)"
		} else if f.node.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(f.node.Content); i += 2 {
				if strings.EqualFold(f.node.Content[i].Value, "disable") {
					if on, ok := parseBool(deref(f.node.Content[i+1])); ok && on {
						reason = reasonPrivate + " (" + f.key + ".disable: true)"
					}
				}
			}
		}
	}
	return reason
}

// day is a calendar day read from a front-matter key.
type day struct {
	key  string // the key it was read from, as written; or "the file name"
	raw  string // the value as written
	line int
	t    time.Time
}

func (d day) iso() string { return d.t.Format(time.DateOnly) }

func (d day) String() string {
	if d.line == 0 {
		return d.key + " (" + d.raw + ")"
	}
	return d.key + " " + strconv.Quote(d.raw)
}

// jekyllName splits a Jekyll post's file name: 2024-01-15-my-post.
var jekyllName = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})-(.+)$`)

// parseInsight reads one insight file. skip is why the file is not
// published, or "" when it is.
func parseInsight(pf postFile, data []byte, ps *problems) (in Insight, skip string) {
	file := pf.name
	header, format, body, err := splitFrontMatter(data)
	if err != nil {
		ps.add(file, errorLine(err), "front matter", "%s", err)
		return Insight{}, ""
	}
	var keyProblems problems
	doc, ok := parseFrontMatter(file, format, header, &keyProblems)
	if ok && doc.root == nil {
		keyProblems.add(file, 0, "front matter", "is empty")
		ok = false
	} else if ok && doc.root.Kind != yaml.MappingNode {
		keyProblems.add(file, doc.line(doc.root), "front matter", "must be key: value lines, not %s", describe(doc.root))
		ok = false
	}
	if !ok {
		*ps = append(*ps, keyProblems...)
		return Insight{}, ""
	}
	fm := decodeFrontMatter(doc, format, pf.wholeTerms, &keyProblems)
	if reason := unpublished(fm, &keyProblems, file); reason != "" {
		// A draft is work in progress: only its YAML has to be readable.
		if strings.HasPrefix(reason, reasonPrivate) {
			// Its page is the site's, and stays off every surface: what
			// it is called and where it is are read, leniently.
			var scratch problems
			b := insightBuilder{file: file, fm: fm, ps: &scratch}
			in.Slug = b.slug(pf)
			_, in.DateISO, _ = b.dates(pf.base)
			in.Page, in.PageGiven = b.page(in.Slug, in.DateISO)
		}
		return in, reason
	}
	*ps = append(*ps, keyProblems...)

	b := insightBuilder{file: file, fm: fm, ps: ps, groups: pf.groups}
	in = Insight{
		Slug:     b.slug(pf),
		Title:    b.title(),
		Topic:    b.topic(),
		ReadTime: b.readTime(body),
		Body:     body,
	}
	in.Date, in.DateISO, in.DateModifiedISO = b.dates(pf.base)
	if reason := b.unreleased(in.DateISO); reason != "" {
		return Insight{}, reason
	}
	in.Page, in.PageGiven = b.page(in.Slug, in.DateISO)
	in.Description, in.DescriptionGiven = b.description(body, in.Title)
	if strings.TrimSpace(body) == "" {
		ps.add(file, 0, "body", "is empty")
	} else if !utf8.ValidString(body) {
		ps.add(file, 0, "body", "is not valid UTF-8")
	}
	return in, ""
}

// insightBuilder derives an Insight's fields from one file's front matter.
type insightBuilder struct {
	file string
	fm   frontMatter
	ps   *problems
	// publish is the day Hugo publishes the post from, when the front
	// matter sets one; read by dates.
	publish *day
	// groups are the tags that only group files: never the topic.
	groups []string
}

func (b *insightBuilder) errorf(f *fmValue, format string, args ...any) {
	b.ps.add(b.file, f.line, f.key, format, args...)
}

func (b *insightBuilder) title() string {
	title := b.fm.text("title")
	if title == "" && (b.fm["title"] == nil || !b.fm["title"].invalid) {
		b.ps.add(b.file, b.line("title"), "title", "is required")
	}
	return b.fm.valid("title").textOr(title)
}

// textOr returns the value as written, keeping its spacing, or def when the
// key is absent.
func (f *fmValue) textOr(def string) string {
	if f == nil || strings.TrimSpace(f.text) == "" {
		return def
	}
	return f.text
}

func (b *insightBuilder) line(key string) int {
	if f := b.fm[key]; f != nil {
		return f.line
	}
	return 0
}

// NameSlug splits a post's file name (without its extension) as Jekyll
// does: 2024-01-15-my-post is the post my-post of 2024-01-15. A name
// without a valid date is all slug, with no date.
func NameSlug(base string) (slug, dateISO string) {
	if m := jekyllName.FindStringSubmatch(base); m != nil {
		if _, err := time.Parse(time.DateOnly, m[1]); err == nil {
			return m[2], m[1]
		}
	}
	return base, ""
}

func (b *insightBuilder) slug(pf postFile) string {
	slug, _ := NameSlug(pf.base)
	if f := b.fm.valid("slug"); f != nil && strings.TrimSpace(f.text) != "" {
		if !ValidSlug(f.text) {
			b.errorf(f, "%q is not a slug (%s)", f.text, SlugGrammar)
		}
		return f.text
	}
	if !ValidSlug(slug) {
		what := "file name"
		if pf.bundle {
			what = "folder name"
		}
		b.ps.add(b.file, 0, what, "%q is not a slug (%s): rename it or set slug in the front matter", slug, SlugGrammar)
	}
	return slug
}

// page is the address the front matter gives the post's page, if any:
// permalink, else url.
func (b *insightBuilder) page(slug, dateISO string) (string, bool) {
	var categories []string
	for _, key := range []string{"categories", "category"} {
		if f := b.fm.valid(key); f != nil && len(categories) == 0 {
			categories = f.list
		}
	}
	for _, key := range []string{"permalink", "url"} {
		if f := b.fm.valid(key); f != nil {
			if page, ok := givenPage(f.text, slug, dateISO, categories); ok {
				if key == "url" && !strings.HasSuffix(page, "/") && path.Ext(page) == "" {
					// Hugo writes a url without an extension as a folder
					// (its index.html), which the site serves with a slash.
					page += "/"
				}
				return page, true
			}
		}
	}
	return "", false
}

// dates derives the display date, the publication day and the
// modification day.
func (b *insightBuilder) dates(base string) (display, published, modified string) {
	reported := len(*b.ps)
	for _, key := range []string{"date", "dateISO", "pubDate", "pubDatetime", "publishDate", "published"} {
		if f := b.fm[key]; f != nil && f.invalid {
			reported = -1 // a date key is wrong, and that is reported already
		}
	}
	if d, ok := b.publishDay(); ok {
		b.publish = &d
	}
	var pub []day // the publication day, from each key that gives one
	if f := b.fm.valid("dateISO"); f != nil {
		if t, err := time.Parse(time.DateOnly, f.text); err != nil {
			b.errorf(f, "%q is not a date (YYYY-MM-DD)", f.text)
		} else {
			pub = append(pub, day{f.key, f.text, f.line, t})
		}
	}
	freeText := ""
	if f := b.fm.valid("date"); f != nil && len(pub) > 0 {
		// Beside dateISO, date is the display date, whatever it holds.
		display = f.text
	} else if f != nil {
		switch t, iso, ok := parseDay(f.text); {
		case ok && iso:
			pub = append(pub, day{f.key, f.text, f.line, t})
		case ok:
			display = f.text
			pub = append(pub, day{f.key, f.text, f.line, t})
		case iso:
			b.errorf(f, "%q is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)", f.text)
		default:
			// Free text such as "Spring 2024" is a display date only.
			display, freeText = f.text, f.text
		}
	}
	for _, key := range []string{"pubDate", "pubDatetime"} {
		if d, ok := b.lenientDay(key); ok {
			pub = append(pub, d)
		}
	}
	for _, d := range pub[min(1, len(pub)):] {
		if d.iso() != pub[0].iso() {
			b.ps.add(b.file, d.line, d.key, "%q is not the same day as %s", d.raw, pub[0])
		}
	}
	if len(pub) == 0 && b.publish != nil {
		pub = append(pub, *b.publish)
	}
	if _, date := NameSlug(base); len(pub) == 0 && date != "" {
		t, _ := time.Parse(time.DateOnly, date) // NameSlug checked it
		pub = append(pub, day{"the date in the file name", date, 0, t})
	}
	if len(pub) == 0 {
		switch {
		case reported < 0 || len(*b.ps) > reported:
			// A date key is wrong, and that is reported already.
		case freeText != "":
			b.ps.add(b.file, b.line("date"), b.fm["date"].key, "%q is not a date: write it as YYYY-MM-DD, or add dateISO", freeText)
		default:
			b.ps.add(b.file, 0, "date", "is required (or dateISO, pubDate, or a file name beginning with YYYY-MM-DD-)")
		}
		return display, "", ""
	}
	if display == "" {
		display = pub[0].t.Format(displayDateLayout)
	}
	published = pub[0].iso()

	var mod []day
	if f := b.fm.valid("dateModifiedISO"); f != nil {
		if t, err := time.Parse(time.DateOnly, f.text); err != nil {
			b.errorf(f, "%q is not a date (YYYY-MM-DD)", f.text)
		} else {
			mod = append(mod, day{f.key, f.text, f.line, t})
		}
	}
	for _, key := range modifiedKeys[1:] {
		if f := b.fm.valid(key); f != nil && strings.TrimSpace(f.text) == "" {
			continue // not modified yet
		}
		if d, ok := b.lenientDay(key); ok {
			mod = append(mod, d)
		}
	}
	for _, d := range mod[min(1, len(mod)):] {
		if d.iso() != mod[0].iso() {
			b.ps.add(b.file, d.line, d.key, "%q is not the same day as %s", d.raw, mod[0])
		}
	}
	modified = published
	if len(mod) > 0 {
		modified = mod[0].iso()
		if modified < published {
			b.ps.add(b.file, mod[0].line, mod[0].key, "%q is before %s", mod[0].raw, pub[0])
		}
	}
	return display, published, modified
}

// lenientDay reads a generator's date key, reporting a value that is not a
// date.
func (b *insightBuilder) lenientDay(key string) (day, bool) {
	f := b.fm.valid(key)
	if f == nil {
		return day{}, false
	}
	t, _, ok := parseDay(f.text)
	if !ok {
		b.errorf(f, "%q is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)", f.text)
		return day{}, false
	}
	return day{f.key, f.text, f.line, t}, true
}

// publishDay reads Hugo's publishDate, or its alias published when that
// holds a date rather than Jekyll's true or false: the day Hugo publishes
// the post from, whatever its date. It is the publication day when no date
// key gives one.
func (b *insightBuilder) publishDay() (day, bool) {
	if d, ok := b.lenientDay("publishDate"); ok {
		return d, true
	}
	if f := b.fm.valid("published"); f != nil {
		if _, isBool := parseBool(f.node); !isBool {
			if t, _, ok := parseDay(f.text); ok {
				return day{f.key, f.text, f.line, t}, true
			}
			b.errorf(f, "must be true, false or a date, not %q", f.text)
		}
	}
	return day{}, false
}

// description is the front matter's (see descriptionKeys), as written but
// for the blanks around it, else derived from the body, else the title.
func (b *insightBuilder) description(body, title string) (description string, given bool) {
	for _, key := range descriptionKeys {
		f := b.fm.valid(key)
		if f == nil {
			continue
		}
		if f.node.Kind == yaml.MappingNode {
			if s := strings.TrimSpace(mappingText(f.node, "description")); s != "" {
				return s, true
			}
			continue
		}
		if _, isBool := parseBool(f.node); isBool && themeKeys[key] {
			continue // meta: true, a theme's switch for the post's metadata line
		}
		if s := strings.TrimSpace(f.textOr("")); s != "" {
			return s, true
		}
	}
	if desc := summarize(body); desc != "" {
		return desc, false
	}
	return title, false
}

// mappingText is the text of a mapping's key, matched ignoring case, or "".
func mappingText(n *yaml.Node, key string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := deref(n.Content[i]), deref(n.Content[i+1]); strings.EqualFold(k.Value, key) && v.Kind == yaml.ScalarNode && !isNull(v) {
			return v.Value
		}
	}
	return ""
}

// unreleased returns why a post whose publication day is published is not
// out yet, or no longer out, as the generators decide at build time: a
// publication day after today (Jekyll's and Hugo's default), a publishDate
// (Hugo) after today even beside an earlier date, an expiryDate (Hugo)
// that has passed; "" when it is out.
func (b *insightBuilder) unreleased(published string) string {
	today := time.Now().UTC().Format(time.DateOnly)
	if published > today {
		return "dated in the future (" + published + ")"
	}
	if d := b.publish; d != nil && d.iso() > today {
		return "dated in the future (" + d.key + ": " + d.raw + ")"
	}
	if d, ok := b.lenientDay("expiryDate"); ok && d.iso() <= today {
		return "expired (" + d.key + ": " + d.raw + ")"
	}
	return ""
}

func (b *insightBuilder) topic() string {
	if s := b.fm.text("topic"); s != "" {
		return s
	}
	for _, key := range []string{"categories", "category"} {
		if f := b.fm[key]; f != nil && len(f.list) > 0 {
			return f.list[0]
		}
	}
	if f := b.fm["tags"]; f != nil {
		for _, tag := range f.list {
			if !collectionTags[strings.ToLower(tag)] && !slices.ContainsFunc(b.groups, func(g string) bool { return strings.EqualFold(g, tag) }) {
				return tag
			}
		}
	}
	return DefaultTopic
}

// bareMinutes matches a readTime written as a number of minutes.
var bareMinutes = regexp.MustCompile(`^[0-9]{1,4}$`)

func (b *insightBuilder) readTime(body string) string {
	s := b.fm.text("readTime")
	switch {
	case s == "":
		return ReadTime(body)
	case bareMinutes.MatchString(s):
		minutes, _ := strconv.Atoi(s)
		return strconv.Itoa(max(minutes, 1)) + " min read"
	}
	return b.fm["readTime"].text
}
