package docs

import (
	"bytes"
	"encoding/xml"
	"fmt"

	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The module's sitemap (sitemaps.org 0.9) lists the site's pages that the
// content names, each insight's page with its modification date, and the
// developer portal. It lives at /sitemap-discovery.xml, which robots.txt
// names, and at /sitemap.xml too unless the site has a sitemap of its own
// there (the Caddy module asks the site first; see SiteFirst).

// maxSitemapURLs is the most URLs one sitemap may list (sitemaps.org); a
// site with more insights lists the newest.
const maxSitemapURLs = 50000

type sitemapURL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
	// label names the page in the Markdown sitemap, link is its address as
	// the content gives it.
	label, link string
}

type urlSet struct {
	XMLName xml.Name     `xml:"urlset"`
	XMLNS   string       `xml:"xmlns,attr"`
	URLs    []sitemapURL `xml:"url"`
}

// sitemapURLs are the addresses the sitemaps list for this base URL: the
// pages the content names, the developer portal, then every insight's
// page, newest first. A sitemap may only list addresses of its own host, so
// links to other sites are left out.
func sitemapURLs(l view.Links) []sitemapURL {
	site := l.Cat.Site
	var urls []sitemapURL
	seen := make(map[string]bool)
	add := func(link, lastMod, label string) {
		loc := l.Abs(link)
		if seen[loc] || len(urls) == maxSitemapURLs || origin.Of(loc) != origin.Of(l.Base) {
			return
		}
		seen[loc] = true
		urls = append(urls, sitemapURL{loc, lastMod, label, link})
	}
	add(site.Pages.Home, site.Profile.LastUpdated, "Home")
	add(site.Pages.About, site.Profile.LastUpdated, "About")
	add(site.Pages.Insights, newestUpdate(l), "Insights")
	if site.Profile.Contact.Form != "" {
		add(site.Profile.Contact.Form, site.Profile.LastUpdated, "Contact")
	}
	for _, sl := range site.Profile.SiteStructure {
		add(sl.URL, "", sl.Label)
	}
	add(view.PathDevelopers, "", "Developers")
	for _, in := range site.Insights {
		add(l.InsightLink(in.Slug), in.DateModifiedISO, in.Title)
	}
	return urls
}

// Sitemap renders the sitemaps.org sitemap for this base URL.
func Sitemap(l view.Links) []byte {
	set := urlSet{XMLNS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: sitemapURLs(l)}
	var b bytes.Buffer
	b.Grow(256 + len(set.URLs)*(96+len(l.Base)))
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(set); err != nil {
		panic(err) // strings only
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// SitemapMarkdown renders /sitemap.md: the same addresses as the XML
// sitemap for agents that read rather than parse, each with its Markdown
// twin when it has one and its last update.
func SitemapMarkdown(l view.Links) []byte {
	urls := sitemapURLs(l)
	var b bytes.Buffer
	b.Grow(512 + len(urls)*(160+2*len(l.Base)))
	fmt.Fprintf(&b, "# Sitemap of %s's site\n\n> Every page of this site named in its content, with its Markdown version for agents and its last update. "+
		"The same addresses as XML: %s. Everything published for agents is indexed at [llms.txt](%s).\n\n",
		pages.MarkdownLine(l.Cat.Site.Profile.Name), l.Base+view.PathSitemapOwn, l.Base+view.PathLLMs)
	for _, u := range urls {
		b.WriteString("- [")
		b.WriteString(llmsTitle.Replace(clip(pages.OneLine(u.label), maxItemTitle)))
		b.WriteString("](")
		b.WriteString(llmsURL.Replace(u.Loc))
		b.WriteByte(')')
		if twin := l.PageLink(u.link); twin != u.Loc {
			b.WriteString(": Markdown ")
			b.WriteString(llmsURL.Replace(twin))
		}
		if u.LastMod != "" {
			b.WriteString(", updated ")
			b.WriteString(u.LastMod)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
