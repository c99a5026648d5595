package site

// The person and the site as the site describes them: the profile's
// fields the owner's files leave empty are taken from here.

import (
	"cmp"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/sitefacts"
)

// sourced is a value and what on the site said it.
type sourced[T any] struct {
	value  T
	source string
}

// derived is what the site says of its person.
type derived struct {
	// person reports that the site names a person, not only itself.
	person                                       bool
	name, tagline                                sourced[string]
	about                                        sourced[[]string]
	keyFacts, recognition, expertise, education  sourced[[]string]
	email, phone, linkedin, x, substack, youtube sourced[string]
	siteName                                     string
}

// derive reads the person and the site out of snap.
func derive(snap *Snapshot) *derived {
	d := &derived{}
	home, about := snap.Home, (*sitefacts.Page)(nil)
	if snap.About != nil {
		about = snap.About.Facts
	}
	var feedTitle, feedDescription string
	var feedAuthors []string
	for _, f := range snap.Feeds {
		feedTitle = cmp.Or(feedTitle, f.Title)
		feedDescription = cmp.Or(feedDescription, f.Description)
		feedAuthors = append(feedAuthors, f.Authors...)
	}
	if home != nil {
		d.siteName = cmp.Or(aName(home.SiteName), aName(home.Site.Name))
	}
	d.siteName = cmp.Or(d.siteName, aName(feedTitle))
	if home != nil && d.siteName == "" {
		d.siteName = aName(home.Title)
	}

	// Who: the person the site's pages state, in order of how plainly
	// they say it is the site's own.
	var person *sitefacts.Person
	var from string
	named := func(p *sitefacts.Person) bool { return p != nil && aName(p.Name) != "" }
	switch {
	case home != nil && named(home.Person):
		person, from = home.Person, "the home page's Person (JSON-LD or h-card)"
	case about != nil && named(about.Person):
		person, from = about.Person, "the About page's Person (JSON-LD or h-card)"
	case home != nil && named(home.Site.Publisher):
		person, from = home.Site.Publisher, "the home page's WebSite publisher (JSON-LD)"
	}
	if person == nil {
		if a, n := commonAuthor(snap); named(a) && n > 0 {
			person, from = a, "the posts' author (JSON-LD or h-entry)"
		}
	}
	switch {
	case person != nil:
		// A theme's h-card that names the site's title (minima's, when
		// the owner set no author) is the site speaking, not a person.
		d.person = !strings.EqualFold(strings.TrimSpace(person.Name), strings.TrimSpace(d.siteName))
		d.name = sourced[string]{person.Name, from}
	case mostCommon(itemAuthors(snap)) != "":
		d.person = true
		d.name = sourced[string]{mostCommon(itemAuthors(snap)), "the feed entries' author"}
	case mostCommon(feedAuthors) != "":
		d.person = true
		d.name = sourced[string]{mostCommon(feedAuthors), "the feed's author"}
	case home != nil && home.Author != "":
		d.person = true
		d.name = sourced[string]{home.Author, `the home page's <meta name="author">`}
	default:
		d.name = sourced[string]{d.siteName, "the site's name"}
	}

	// What they do: their own description, else the site's.
	var siteDescription string
	if home != nil {
		siteDescription = cmp.Or(home.Site.Description, home.Description)
	}
	siteDescription = cmp.Or(siteDescription, feedDescription)
	switch {
	case person != nil && person.Description != "":
		d.tagline = sourced[string]{firstSentence(person.Description), from}
	case person != nil && person.JobTitle != "":
		t := person.JobTitle
		if person.WorksFor != "" {
			t += " at " + person.WorksFor
		}
		d.tagline = sourced[string]{t, from}
	case siteDescription != "":
		d.tagline = sourced[string]{siteDescription, "the site's description"}
	}

	switch {
	case snap.About != nil && len(prose(paragraphs(snap.About.Markdown))) > 0:
		d.about = sourced[[]string]{prose(paragraphs(snap.About.Markdown)), "the About page " + snap.About.Path}
	case person != nil && person.Description != "":
		d.about = sourced[[]string]{[]string{person.Description}, from}
	case home != nil && !home.IsList && len(snap.Posts) == 0 && len(prose(paragraphs(snap.Texts[snap.HomePath]))) > 0:
		// A one-page site: its home page is its About page.
		d.about = sourced[[]string]{prose(paragraphs(snap.Texts[snap.HomePath])), "the home page"}
	}
	if person != nil {
		if person.JobTitle != "" {
			fact := person.JobTitle
			if person.WorksFor != "" {
				fact += " at " + person.WorksFor
			}
			d.keyFacts = sourced[[]string]{[]string{fact}, from}
		}
		d.recognition = sourced[[]string]{person.Awards, from}
		d.expertise = sourced[[]string]{person.KnowsAbout, from}
		d.education = sourced[[]string]{person.AlumniOf, from}
		d.email = sourced[string]{strings.TrimPrefix(person.Email, "mailto:"), from}
		d.phone = sourced[string]{strings.TrimPrefix(person.Telephone, "tel:"), from}
	}

	// Where else: the person's sameAs and the pages' rel="me" links.
	var me []string
	if person != nil {
		me = append(me, person.SameAs...)
	}
	for _, p := range []*sitefacts.Page{home, about} {
		if p != nil {
			me = append(me, p.Me...)
		}
	}
	for _, link := range me {
		d.contactLink(link, false)
	}
	// Then the profiles the home and About pages link without rel="me"
	// (a theme's footer of social links).
	for _, p := range []*sitefacts.Page{home, about} {
		if p == nil {
			continue
		}
		for _, l := range p.Links {
			d.contactLink(l.URL, true)
		}
	}
	return d
}

// aName is s when it can name a person or a site: not an address
// (og:site_name is sometimes the site's URL).
func aName(s string) string {
	if strings.Contains(s, "://") || strings.HasPrefix(s, "www.") {
		return ""
	}
	return strings.TrimSpace(s)
}

// prose are the paragraphs that say something: a label ("Preferred
// socials:"), a line of a few words or a row of a table is none.
func prose(paragraphs []string) []string {
	var out []string
	for _, p := range paragraphs {
		if strings.HasSuffix(p, ":") || len(strings.Fields(p)) < 5 || strings.Count(p, "|") >= 2 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// contactLink files a link to one of the person's profiles elsewhere under
// the contact channel it is, the first of each kind. A plain link (one
// the site does not mark rel="me") counts only when its address is a
// profile's, not a post's (x.com/ada, not x.com/ada/status/1).
func (d *derived) contactLink(link string, plain bool) {
	const src = `the site's rel="me" and sameAs links`
	set := func(s *sourced[string], v string) {
		if s.value == "" {
			*s = sourced[string]{v, src}
		}
	}
	switch {
	case strings.HasPrefix(link, "mailto:"):
		addr := strings.TrimPrefix(link, "mailto:")
		if i := strings.IndexByte(addr, '?'); i >= 0 {
			addr = addr[:i]
		}
		if unescaped, err := url.PathUnescape(addr); err == nil && emailLike.MatchString(unescaped) {
			set(&d.email, unescaped)
		}
		return
	case strings.HasPrefix(link, "tel:"):
		set(&d.phone, strings.TrimPrefix(link, "tel:"))
		return
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if plain {
		if strings.HasPrefix(link, "mailto:") || strings.HasPrefix(link, "tel:") || !profilePath(host, u.Path) {
			return
		}
	}
	switch {
	case host == "linkedin.com" || strings.HasSuffix(host, ".linkedin.com"):
		set(&d.linkedin, link)
	case host == "x.com" || host == "twitter.com" || host == "mobile.twitter.com":
		set(&d.x, link)
	case strings.HasSuffix(host, ".substack.com") || host == "substack.com":
		set(&d.substack, link)
	case host == "youtube.com" || host == "m.youtube.com" || host == "youtu.be":
		set(&d.youtube, link)
	}
}

// emailLike is enough of an address's shape to take a mailto: link for
// one.
var emailLike = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// commonAuthor is the Person most posts name as their author, and how
// many do.
func commonAuthor(snap *Snapshot) (*sitefacts.Person, int) {
	counts := make(map[string]int)
	byName := make(map[string]*sitefacts.Person)
	for _, p := range snap.Posts {
		if p.Facts == nil {
			continue
		}
		for i := range p.Facts.Article.Authors {
			a := &p.Facts.Article.Authors[i]
			if a.Name == "" {
				continue
			}
			counts[a.Name]++
			if prev := byName[a.Name]; prev == nil || richer(a, prev) {
				byName[a.Name] = a
			}
		}
	}
	best := ""
	for _, name := range slices.Sorted(mapsKeys(counts)) {
		if counts[name] > counts[best] {
			best = name
		}
	}
	return byName[best], counts[best]
}

// richer reports whether a says more of the person than b.
func richer(a, b *sitefacts.Person) bool {
	score := func(p *sitefacts.Person) int {
		n := len(p.SameAs)
		for _, s := range []string{p.JobTitle, p.Description, p.URL, p.Email, p.Image} {
			if s != "" {
				n++
			}
		}
		return n
	}
	return score(a) > score(b)
}

// itemAuthors are the authors the feeds' entries name.
func itemAuthors(snap *Snapshot) []string {
	var names []string
	for _, p := range snap.Posts {
		if p.Item != nil {
			names = append(names, p.Item.Authors...)
		}
	}
	return names
}

// mostCommon is the name that comes most often in names (the first of
// equals in sorted order), "" for none.
func mostCommon(names []string) string {
	counts := make(map[string]int)
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			counts[n]++
		}
	}
	best := ""
	for _, n := range slices.Sorted(mapsKeys(counts)) {
		if counts[n] > counts[best] {
			best = n
		}
	}
	return best
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// firstSentence is the first sentence of s, or s when it has one.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && i > 20 {
			return s[:i+1]
		}
	}
	return s
}

// profilePath reports whether path is a profile's on host: a LinkedIn
// /in/name, a one-segment X, YouTube @handle or channel, a Substack's home.
func profilePath(host, path string) bool {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case strings.HasSuffix(host, "linkedin.com"):
		return len(segments) == 2 && segments[0] == "in"
	case host == "x.com" || host == "twitter.com":
		return len(segments) == 1 && segments[0] != "" && segments[0] != "intent" && segments[0] != "share"
	case strings.HasSuffix(host, "youtube.com"):
		return len(segments) <= 2 && segments[0] != "" && (strings.HasPrefix(segments[0], "@") || segments[0] == "c" || segments[0] == "channel")
	case strings.HasSuffix(host, ".substack.com"):
		return len(segments) == 1 && segments[0] == ""
	}
	return false
}
