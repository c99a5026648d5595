package site

// The catalog: what the module publishes, made from what the owner wrote
// for it and what the site says, field by field, the owner's word first.

import (
	"cmp"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/sitecheck"
	"github.com/caddy-discovery/caddy-discovery/internal/sitefacts"
)

// Catalog is a catalog and how it was made.
type Catalog struct {
	// Site is what the module publishes.
	Site *content.Site
	// Sources says where each profile field came from: "profile.yaml",
	// or the part of the site that said it (a JSON-LD Person on /, the
	// feed's author, …).
	Sources map[string]string
	// NoPerson reports that the site names no person: the profile's name
	// is the site's own.
	NoPerson bool
	// Missing names what the site does not say that the profile would
	// show (tagline, about, contact).
	Missing []string
	// Skipped are the posts left out, each with why.
	Skipped []string
	// Dropped are the owner's page addresses the site does not answer
	// 200, which the catalog leaves out (defaults) or keeps (given).
	Dropped []string
	// Matched is the match of the owner's posts to the site's sitemap,
	// when the owner's files hold the posts and the site has one.
	Matched *sitecheck.Match
}

// Build makes the catalog of owner, the owner's files (their profile
// fields may be empty; their insights are the posts when there are any,
// or ownerPosts says so), and snap, what the reader found (nil before any
// read). Build is a pure function of its arguments.
func Build(owner *content.Site, ownerPosts bool, snap *Snapshot) *Catalog {
	c := &Catalog{Sources: make(map[string]string)}
	site := *owner
	site.Profile.About = slices.Clone(owner.Profile.About)
	c.Site = &site
	if snap == nil {
		snap = &Snapshot{}
	}
	d := derive(snap)
	p := &site.Profile
	c.field("name", &p.Name, d.name)
	c.NoPerson = owner.Profile.Name == "" && !d.person
	site.Anonymous = c.NoPerson
	c.field("tagline", &p.Tagline, d.tagline)
	if len(p.About) == 0 && len(d.about.value) > 0 {
		p.About, c.Sources["about"] = d.about.value, d.about.source
	}
	listField := func(name string, have *[]string, from sourced[[]string]) {
		if len(*have) == 0 && len(from.value) > 0 {
			*have, c.Sources[name] = from.value, from.source
		}
	}
	listField("keyFacts", &p.KeyFacts, d.keyFacts)
	listField("recognition", &p.Recognition, d.recognition)
	listField("expertise", &p.Expertise, d.expertise)
	listField("education", &p.Education, d.education)
	ct := &p.Contact
	for name, pair := range map[string]struct {
		have *string
		from sourced[string]
	}{
		"contact.email": {&ct.Email, d.email}, "contact.phone": {&ct.Phone, d.phone},
		"contact.linkedin": {&ct.LinkedIn, d.linkedin}, "contact.x": {&ct.X, d.x},
		"contact.substack": {&ct.Substack, d.substack}, "contact.youtube": {&ct.YouTube, d.youtube},
		"contact.form": {&ct.Form, sourced[string]{snap.Contact, "the site's contact page"}},
	} {
		c.field(name, pair.have, pair.from)
	}
	if snap.Home != nil {
		site.Language = snap.Home.Lang
	}
	c.pages(&site, owner, snap)
	site.SiteFiles = snap.SiteFiles
	site.PageTexts = make(map[string]string)
	for _, p := range []string{site.Pages.Home, site.Pages.About} {
		if text := snap.Texts[escapedPath(p)]; len(text) > 0 && strings.HasPrefix(p, "/") {
			site.PageTexts[p] = string(text)
		}
	}
	if len(p.SiteStructure) == 0 {
		p.SiteStructure = nav(snap)
		if len(p.SiteStructure) > 0 {
			c.Sources["siteStructure"] = "the home page's navigation"
		}
	}
	if ownerPosts {
		if len(snap.SitemapPaths) > 0 {
			m := sitecheck.Pages(&site, snap.SitemapPaths)
			site.Insights = m.Site.Insights
			m.Site = nil
			c.Matched = &m
		}
		site.Insights = rendered(site.Insights, snap)
	} else {
		site.Insights, c.Skipped = posts(snap, d)
		if !owner.Pages.InsightGiven {
			site.Pages.Insight = pattern(site.Insights, site.Pages.Insight)
		}
	}
	if p.LastUpdated == "" {
		for _, in := range site.Insights {
			p.LastUpdated = max(p.LastUpdated, in.DateModifiedISO)
		}
	}
	if p.LastUpdated == "" {
		p.LastUpdated = cmp.Or(snap.At, time.Now()).UTC().Format(time.DateOnly)
	}
	for _, m := range []struct {
		name  string
		empty bool
	}{{"tagline", d.tagline.value == "" && owner.Profile.Tagline == ""}, {"about", len(p.About) == 0},
		{"contact", p.Contact == content.Contact{}}} {
		if m.empty {
			c.Missing = append(c.Missing, m.name)
		}
	}
	if p.Tagline == "" {
		// Required: the site's address says at least where the profile is.
		p.Tagline = cmp.Or(d.siteName, hostOf(snap))
	}
	if p.Name == "" {
		p.Name = hostOf(snap)
	}
	return c
}

// field sets *have to from's value when the owner left it empty.
func (c *Catalog) field(name string, have *string, from sourced[string]) {
	if *have != "" {
		c.Sources[name] = "profile.yaml"
		return
	}
	if from.value != "" {
		*have, c.Sources[name] = from.value, from.source
	}
}

// hostOf is the site's host, "" before it is known.
func hostOf(snap *Snapshot) string {
	if snap.Site == nil {
		return ""
	}
	return snap.Site.Hostname()
}

// pages settles the site's pages: those the owner named stay; a default
// address (the sample's /about) only when the site answers it 200;
// otherwise those the read found.
func (c *Catalog) pages(site, owner *content.Site, snap *Snapshot) {
	pages := &site.Pages
	if pages.Home == "" {
		pages.Home = "/"
	}
	if pages.Home == "/" && snap.HomePath != "" && snap.HomePath != "/" {
		pages.Home = snap.HomePath // the site sends its home elsewhere (a blog under /blog/)
	}
	settle := func(name string, have *string, given bool, found string) {
		if *have != "" && !given {
			if status, ok := snap.StatusOf(escapedPath(*have)); !ok || status != 200 {
				if found == "" {
					c.Dropped = append(c.Dropped, name+" "+*have)
				}
				*have = ""
			}
		}
		if *have == "" {
			*have = found
		}
	}
	about := ""
	if snap.About != nil {
		about = snap.About.Path
	}
	settle("pages.about", &pages.About, owner.Pages.AboutGiven, about)
	settle("pages.insights", &pages.Insights, owner.Pages.InsightsGiven, snap.List)
}

// escapedPath is link's path as the reader keys it, "" for a link off the
// site.
func escapedPath(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	if u.Path == "" {
		u.Path = "/"
	}
	k := u.EscapedPath()
	if u.RawQuery != "" {
		k += "?" + u.RawQuery
	}
	return k
}

// nav is the site structure the home page's navigation gives.
func nav(snap *Snapshot) []content.SiteLink {
	links := []content.SiteLink{}
	for _, n := range snap.Nav {
		label := cmp.Or(n.Label, n.Path)
		desc := cmp.Or(n.Description, label)
		links = append(links, content.SiteLink{Label: label, URL: n.Path, Desc: desc})
	}
	return links
}

// posts are the insights of the posts the read found, newest first, and
// the posts left out with why.
func posts(snap *Snapshot, d *derived) ([]content.Insight, []string) {
	insights := []content.Insight{}
	var skipped []string
	slugs := make(map[string]bool)
	siteWide := map[string]bool{}
	if snap.Home != nil {
		siteWide[snap.Home.Description] = true
		siteWide[snap.Home.Site.Description] = true
	}
	delete(siteWide, "")
	for _, p := range snap.Posts {
		in, why := insight(p, d, siteWide)
		if why != "" {
			skipped = append(skipped, p.Path+": "+why)
			continue
		}
		in.Slug = uniqueSlug(slugOf(p.Path), in.DateISO, slugs)
		insights = append(insights, in)
	}
	trimCommonSuffix(insights)
	slices.SortStableFunc(insights, func(a, b content.Insight) int {
		return cmp.Or(cmp.Compare(b.DateISO, a.DateISO), cmp.Compare(a.Slug, b.Slug))
	})
	return insights, skipped
}

// trimCommonSuffix takes off the posts' titles the suffix most of them
// end with after a separator (" | Maya's blog"): a theme's, the site's
// name under another spelling, not a word of any one post's title.
func trimCommonSuffix(insights []content.Insight) {
	if len(insights) < 3 {
		return
	}
	counts := make(map[string]int)
	for _, in := range insights {
		for _, sep := range titleSeparators {
			if i := strings.LastIndex(in.Title, sep); i > 0 {
				counts[in.Title[i:]]++
				break
			}
		}
	}
	for suffix, n := range counts {
		if n*5 < len(insights)*4 {
			continue // not four posts in five: words of the titles
		}
		for i := range insights {
			if t, ok := strings.CutSuffix(insights[i].Title, suffix); ok && strings.TrimSpace(t) != "" {
				insights[i].Title = strings.TrimSpace(t)
			}
		}
	}
}

// insight is the insight of post p, or why it cannot be one.
func insight(p Post, d *derived, siteWide map[string]bool) (content.Insight, string) {
	var facts sitefacts.Page
	if p.Facts != nil {
		facts = *p.Facts
	}
	var item sitefacts.FeedItem
	if p.Item != nil {
		item = *p.Item
	}
	a := facts.Article
	title := cmp.Or(a.Headline, item.Title, facts.Heading, trimSiteName(facts.Title, d.siteName))
	if title == "" {
		return content.Insight{}, "it has no title"
	}
	var firstTime time.Time
	if len(facts.Times) > 0 {
		firstTime = facts.Times[0]
	}
	published := firstNonZero(a.Published, item.Published, firstTime, p.LastMod, p.LastModified)
	if published.IsZero() {
		return content.Insight{}, "nothing on the page or in a feed says when it was published"
	}
	modified := published
	for _, t := range []time.Time{a.Modified, item.Updated} {
		if t.After(modified) {
			modified = t
		}
	}
	body := strings.TrimSpace(string(p.Markdown))
	description := a.Description
	if description == "" && !siteWide[facts.Description] {
		description = facts.Description
	}
	if description == "" && item.Summary != "" && !startsLike(body, item.Summary) {
		// An excerpt the owner wrote; one that is the body's first
		// words (Hugo's automatic summary, WordPress's automatic
		// excerpt) is derived better from the body itself.
		description = cutText(item.Summary, content.DescriptionLength)
	}
	if description == "" {
		description = content.Summarize(body)
	}
	if description == "" {
		description = cutText(item.Summary, content.DescriptionLength)
	}
	if body == "" {
		body = description
	}
	// A section named like a folder of the post's address (Hugo's
	// "posts") is where the post is kept, not what it is about.
	section := a.Section
	if section != "" && strings.Contains(strings.ToLower(p.Path), "/"+strings.ToLower(section)+"/") {
		section = ""
	}
	topic := ""
	for _, candidates := range [][]string{item.Categories, {section}, a.Keywords, p.Tags} {
		for _, t := range candidates {
			if t = strings.TrimSpace(t); t != "" && !strings.EqualFold(t, "uncategorized") && topic == "" {
				topic = t
			}
		}
	}
	return content.Insight{
		Title: title, Description: description,
		Date:    published.Format("January 2, 2006"),
		DateISO: published.Format(time.DateOnly), DateModifiedISO: modified.Format(time.DateOnly),
		Topic: cmp.Or(topic, content.DefaultTopic), ReadTime: content.ReadTime(body), Body: body,
		Page: p.Path, PageGiven: true,
	}, ""
}

func firstNonZero(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t // in the offset written: its day is the day the site says
		}
	}
	return time.Time{}
}

// titleSeparators part a page's title from the site's name after it.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " :: ", " » "}

// trimSiteName is a page's <title> without the site's name after (or
// before) it.
func trimSiteName(title, siteName string) string {
	if siteName == "" {
		return title
	}
	for _, sep := range titleSeparators {
		if t, ok := strings.CutSuffix(title, sep+siteName); ok {
			return strings.TrimSpace(t)
		}
		if t, ok := strings.CutPrefix(title, siteName+sep); ok {
			return strings.TrimSpace(t)
		}
	}
	return title
}

// cutText is s cut to at most n runes, at a word.
func cutText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexFunc(string(r), unicode.IsSpace); i > n/2 {
		return strings.TrimSpace(string(r)[:i]) + "…"
	}
	return string(r) + "…"
}

// slugOf is the slug a post's address gives it: its last segment without
// .html, .htm or .php; for an address by query (WordPress's ?p=12), the
// query's value.
func slugOf(key string) string {
	p, query, _ := strings.Cut(key, "?")
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	last := strings.TrimSuffix(content.LastSegment(p), ".php")
	if last == "" || last == "index" {
		if v, err := url.ParseQuery(query); err == nil {
			for _, k := range []string{"p", "page_id", "id"} {
				if v.Get(k) != "" {
					return k + "-" + v.Get(k)
				}
			}
		}
	}
	return last
}

// badSlugChars are what no slug holds.
var badSlugChars = regexp.MustCompile(`[/\x00-\x1F\x7F-\x9F]+`)

// uniqueSlug is slug made valid and unique among taken, with the year of
// dateISO, then a number, added to tell two posts of one name apart.
func uniqueSlug(slug, dateISO string, taken map[string]bool) string {
	slug = badSlugChars.ReplaceAllString(slug, "-")
	if !content.ValidSlug(slug) {
		slug = "post"
	}
	candidate := slug
	for n := 1; taken[candidate]; n++ {
		switch {
		case n == 1 && len(dateISO) >= 4:
			candidate = slug + "-" + dateISO[:4]
		default:
			candidate = slug + "-" + strconv.Itoa(n)
		}
	}
	taken[candidate] = true
	return candidate
}

// pattern is the address pattern the site's posts share (WordPress's
// /{year}/{month}/{slug}/, Jekyll's /{year}/{month}/{day}/{slug}.html),
// which describes their Markdown twins in openapi.json: the one most of
// them follow, their slug and date put back as placeholders; fallback
// when none is shared by most.
func pattern(insights []content.Insight, fallback string) string {
	counts := make(map[string]int)
	for _, in := range insights {
		u, err := url.Parse(in.Page)
		if err != nil || u.RawQuery != "" {
			continue
		}
		segments := strings.Split(u.EscapedPath(), "/")
		slugAt := -1
		for i, seg := range segments {
			name := strings.TrimSuffix(strings.TrimSuffix(seg, ".html"), ".htm")
			if unescaped, err := url.PathUnescape(name); err == nil && unescaped == in.Slug {
				slugAt = i
			}
		}
		if slugAt < 0 || len(in.DateISO) != len(time.DateOnly) {
			continue
		}
		for i, seg := range segments {
			switch {
			case i == slugAt:
				segments[i] = strings.Replace(seg, url.PathEscape(in.Slug), "{slug}", 1)
			case seg == in.DateISO[:4]:
				segments[i] = "{year}"
			case seg == in.DateISO[5:7] && i > 0 && segments[i-1] == "{year}":
				segments[i] = "{month}"
			case seg == in.DateISO[8:] && i > 0 && segments[i-1] == "{month}":
				segments[i] = "{day}"
			}
		}
		counts[strings.Join(segments, "/")]++
	}
	best, most := fallback, 0
	for p, n := range counts {
		if n > most || n == most && p < best {
			best, most = p, n
		}
	}
	if most*2 <= len(insights) {
		return fallback
	}
	return best
}

// rendered are the owner's posts as their pages show them: each whose
// source holds template syntax (an include, a shortcode) given the body
// its page shows, what the generator rendered, in place of the syntax an
// agent could not read; each whose front matter gives no description the
// one its page carries, before one derived from its text. A post whose
// page was not read keeps its source's.
func rendered(insights []content.Insight, snap *Snapshot) []content.Insight {
	var out []content.Insight
	for i, in := range insights {
		text := snap.Texts[escapedPath(in.Page)]
		if len(text) == 0 || !templated(in.Body) {
			continue
		}
		if out == nil {
			out = slices.Clone(insights)
		}
		out[i].Body = string(text)
		out[i].ReadTime = content.ReadTime(out[i].Body)
	}
	for i, in := range insights {
		// The description the page carries, the owner's own words the
		// theme put there, before one derived from the source's text.
		d := snap.Descriptions[escapedPath(in.Page)]
		if in.DescriptionGiven || d == "" || d == in.Description {
			continue
		}
		if out == nil {
			out = slices.Clone(insights)
		}
		out[i].Description = d
	}
	if out == nil {
		return insights
	}
	return out
}

// Templated are the pages of the insights whose sources hold template
// syntax: the reader reads their pages for what the generator rendered.
func Templated(insights []content.Insight) []string {
	var pages []string
	for _, in := range insights {
		if strings.HasPrefix(in.Page, "/") && templated(in.Body) {
			pages = append(pages, escapedPath(in.Page))
		}
	}
	return pages
}

// startsLike reports whether summary's first words are the first words of
// body's text: an automatic summary of it, not an excerpt of the owner's.
func startsLike(body, summary string) bool {
	words := func(s string, n int) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if out = append(out, w); len(out) == n {
				break
			}
		}
		return out
	}
	want := words(summary, 8)
	if len(want) < 3 {
		return false
	}
	return strings.Contains(strings.Join(words(content.Summarize(body)+" "+body, 400), " "), strings.Join(want, " "))
}
