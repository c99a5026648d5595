package docs

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The Markdown twins of the site's pages: what an agent reads instead of
// the HTML, rendered from the catalog: the home and About pages' own
// content as the reader found it, the module's facts after it; the
// profile alone where the site was not read. Each starts with its title and a blockquote
// that points at llms.txt, the index of everything for agents.

// latestInsights is how many insights the home page's twin lists; the
// insights list's twin has them all.
const latestInsights = 10

// twinHead writes the front matter of the twin of a page (its title,
// description, canonical address and last update, which agents cite and
// judge staleness by), then its title and the pointer at llms.txt.
func twinHead(l view.Links, b *bytes.Buffer, f pages.TwinFacts) {
	pages.WriteFrontMatter(b, f)
	fmt.Fprintf(b, "# %s\n\n> The Markdown version of [%s](%s), for agents. Everything this site publishes for agents is indexed at [llms.txt](%s).\n\n",
		pages.MarkdownLine(f.Title), llmsTitle.Replace(f.URL), llmsURL.Replace(f.URL), l.Base+view.PathLLMs)
}

// pageDescription is what the site structure says of the page at url (an
// absolute address), or else fallback.
func pageDescription(l view.Links, url, fallback string) string {
	for _, sl := range l.Cat.Site.Profile.SiteStructure {
		if sl.Desc != "" && l.Abs(sl.URL) == url {
			return sl.Desc
		}
	}
	return fallback
}

// newestUpdate is the date of the newest change to the insights, or of
// the profile when there are none.
func newestUpdate(l view.Links) string {
	site := l.Cat.Site
	if len(site.Insights) == 0 {
		return site.Profile.LastUpdated
	}
	newest := site.Insights[0].DateModifiedISO
	for _, in := range site.Insights {
		newest = max(newest, in.DateModifiedISO)
	}
	return newest
}

// insightItem writes the list item of one insight, linked to its twin.
func insightItem(l view.Links, b *bytes.Buffer, i int) {
	in := l.Cat.Site.Insights[i]
	// The description cut to leave room for the topic and date, which an
	// agent choosing what to read needs whole.
	when := " (" + pages.OneLine(in.Topic) + ", " + in.Date + ")"
	llmsLink(b, in.Title, l.PageLink(l.InsightLink(in.Slug)), clip(pages.OneLine(in.Description), max(1, maxItemNote-len(when)))+when)
}

// HomeMarkdown renders the home page's twin: who the subject is, the
// site's pages, the latest insights and where agents go next.
func HomeMarkdown(l view.Links) []byte {
	site := l.Cat.Site
	p := site.Profile
	var b bytes.Buffer
	home := l.Abs(site.Pages.Home)
	twinHead(l, &b, pages.TwinFacts{Title: p.Name, Description: pageDescription(l, home, p.Tagline), URL: home, Updated: p.LastUpdated})
	if text := site.PageTexts[site.Pages.Home]; text != "" {
		// The page's own content, as the site shows it; the module's
		// facts follow.
		b.WriteString(strings.TrimSpace(text) + "\n\n")
	} else {
		b.WriteString(pages.MarkdownLine(p.Tagline) + "\n\n")
		if len(p.About) > 0 {
			b.WriteString(strings.TrimSpace(p.About[0]) + "\n\n")
		}
	}
	b.WriteString("## Pages\n\n")
	for _, sl := range sitePages(l) {
		llmsLink(&b, sl.Label, l.PageLink(sl.URL), sl.Desc)
	}
	if n := len(site.Insights); n > 0 {
		b.WriteString("\n## Latest insights\n\n")
		for i := range min(n, latestInsights) {
			insightItem(l, &b, i)
		}
		if n > latestInsights {
			llmsLink(&b, fmt.Sprintf("All %d insights", n), insightsIndex(l), "")
		}
	}
	fmt.Fprintf(&b, "\n## For agents and developers\n\nEverything on this site is also a public, read-only API: see [the developer portal](%s), or point an agent at [/llms.txt](%s).\n\n",
		l.PageLink(view.PathDevelopers), l.Base+view.PathLLMs)
	for _, rt := range l.Routes {
		if rt.Listed == view.ListMain && !strings.Contains(rt.Path, "{") {
			llmsLink(&b, rt.Summary, l.Base+rt.Path, "")
		}
	}
	return b.Bytes()
}

// insightsIndex is the address that lists every insight for agents: the
// insights list's twin, else the JSON list.
func insightsIndex(l view.Links) string {
	if twin, ok := l.TwinURL(l.Cat.Site.Pages.Insights); ok {
		return twin
	}
	return l.Base + view.PathInsights
}

// AboutMarkdown renders the about page's twin: the profile in full.
func AboutMarkdown(l view.Links) []byte {
	site := l.Cat.Site
	var b bytes.Buffer
	about := l.Abs(site.Pages.About)
	twinHead(l, &b, pages.TwinFacts{Title: "About " + site.Profile.Name, Description: pageDescription(l, about, site.Profile.Tagline), URL: about, Updated: site.Profile.LastUpdated})
	if text := site.PageTexts[site.Pages.About]; text != "" {
		// The page's own content, as the site shows it; the module adds
		// only the ways to reach the subject.
		b.WriteString(strings.TrimSpace(text) + "\n")
		if contact := contactChannels(l); len(contact) > 0 {
			b.WriteString("\n## Contact\n")
			for _, ch := range contact {
				b.WriteString("\n- " + pages.MarkdownLine(ch))
			}
			b.WriteByte('\n')
		}
	} else {
		b.WriteString(pages.MarkdownLine(site.Profile.Tagline) + "\n")
		profileSections(l, &b, false)
	}
	fmt.Fprintf(&b, "\nLast updated: %s. The same facts as JSON: %s\n", site.Profile.LastUpdated, l.Base+view.PathProfile)
	return b.Bytes()
}

// ContactMarkdown renders the contact page's twin: every way to reach the
// subject, then what the page itself is for, as the site describes it.
func ContactMarkdown(l view.Links) []byte {
	site := l.Cat.Site
	var b bytes.Buffer
	form := l.Abs(site.Profile.Contact.Form)
	description := pageDescription(l, form, "How to reach "+site.Profile.Name+".")
	twinHead(l, &b, pages.TwinFacts{Title: "Contact " + site.Profile.Name, Description: description, URL: form, Updated: site.Profile.LastUpdated})
	b.WriteString(pages.MarkdownLine(description) + "\n\n")
	b.WriteString("## How to reach " + pages.MarkdownLine(site.Profile.Name) + "\n\n")
	for _, ch := range contactChannels(l) {
		b.WriteString("- " + pages.MarkdownLine(ch) + "\n")
	}
	fmt.Fprintf(&b, "\nThe same details as JSON, under contact: %s\n", l.Base+view.PathProfile)
	return b.Bytes()
}

// InsightsMarkdown renders the insights list's twin: every insight, newest
// first, linked to its own twin.
func InsightsMarkdown(l view.Links) []byte {
	site := l.Cat.Site
	var b bytes.Buffer
	b.Grow(1024 + len(site.Insights)*(384+2*len(l.Base)))
	list := l.Abs(site.Pages.Insights)
	description := pageDescription(l, list, "")
	twinHead(l, &b, pages.TwinFacts{Title: "Insights by " + site.Profile.Name,
		Description: cmp.Or(description, "Every insight by "+site.Profile.Name+", newest first."), URL: list, Updated: newestUpdate(l)})
	if description != "" {
		// What the site's own page says of itself, as the page says it.
		b.WriteString(pages.MarkdownLine(description) + "\n\n")
	}
	if len(site.Insights) == 0 {
		b.WriteString("No insights are published yet.\n")
		return b.Bytes()
	}
	fmt.Fprintf(&b, "Newest first. The same list as JSON: %s\n\n## %d insights\n\n", l.Base+view.PathInsights, len(site.Insights))
	for i := range site.Insights {
		insightItem(l, &b, i)
	}
	return b.Bytes()
}

// InsightMarkdown renders the twin of one insight's page: its facts, then
// the body as written, its links made absolute (see convert.AbsoluteLinks).
func InsightMarkdown(l view.Links, slug string) ([]byte, error) {
	in, ok := l.Published(slug)
	if !ok {
		return nil, fmt.Errorf("no published insight %q", slug)
	}
	var b bytes.Buffer
	b.Grow(len(in.Body) + 1024)
	twinHead(l, &b, pages.TwinFacts{Title: in.Title, Description: in.Description, URL: l.Insight(slug), Updated: in.DateModifiedISO})
	body := strings.TrimSpace(in.Body)
	if !strings.HasPrefix(body, strings.TrimSuffix(in.Description, "…")) {
		// The description, unless the body begins with it, as a derived
		// one does.
		b.WriteString(pages.MarkdownLine(in.Description) + "\n\n")
	}
	if !l.Cat.Site.Anonymous {
		b.WriteString("- Author: " + pages.MarkdownLine(l.Cat.Site.Profile.Name) + "\n")
	}
	fmt.Fprintf(&b, "- Published: %s (%s)\n- Updated: %s\n- Topic: %s\n- Read time: %s\n- JSON: %s\n\n",
		in.Date, in.DateISO, in.DateModifiedISO, pages.MarkdownLine(in.Topic), in.ReadTime, l.Base+view.InsightPath(slug))
	b.WriteString(convert.AbsoluteLinks(strings.TrimSpace(in.Body), l.Insight(slug), l.Base, l.PostURL))
	b.WriteByte('\n')
	return b.Bytes(), nil
}
