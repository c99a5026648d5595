package handlers

import (
	"bytes"
	"encoding/xml"
	"net/http"
)

// The module's sitemap (sitemaps.org 0.9) lists the site's pages that the
// content names, each insight's page with its modification date, and the
// developer portal. It lives at /sitemap-discovery.xml, which robots.txt
// names, and at /sitemap.xml too unless the site has a sitemap of its own
// there (the Caddy module asks the site first; see ProbesSitemap).

// maxSitemapURLs is the most URLs one sitemap may list (sitemaps.org); a
// site with more insights lists the newest.
const maxSitemapURLs = 50000

type sitemapURL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
}

type urlSet struct {
	XMLName xml.Name     `xml:"urlset"`
	XMLNS   string       `xml:"xmlns,attr"`
	URLs    []sitemapURL `xml:"url"`
}

// sitemap renders the sitemap for this base URL. A sitemap may only list
// addresses of its own host, so links to other sites are left out.
func (l links) sitemap() []byte {
	site := l.cfg.Site
	set := urlSet{XMLNS: "http://www.sitemaps.org/schemas/sitemap/0.9"}
	seen := make(map[string]bool)
	add := func(link, lastMod string) {
		loc := l.abs(link)
		if seen[loc] || len(set.URLs) == maxSitemapURLs || originOf(loc) != originOf(l.base) {
			return
		}
		seen[loc] = true
		set.URLs = append(set.URLs, sitemapURL{loc, lastMod})
	}
	add(site.Pages.Home, site.Profile.LastUpdated)
	add(site.Pages.About, site.Profile.LastUpdated)
	add(site.Pages.Insights, l.newestUpdate())
	if site.Profile.Contact.Form != "" {
		add(site.Profile.Contact.Form, site.Profile.LastUpdated)
	}
	for _, sl := range site.Profile.SiteStructure {
		add(sl.URL, "")
	}
	add(pathDevelopers, "")
	for _, in := range site.Insights {
		add(l.insightLink(in.Slug), in.DateModifiedISO)
	}
	var b bytes.Buffer
	b.Grow(256 + len(set.URLs)*(96+len(l.base)))
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(set); err != nil {
		panic(err) // strings only
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// serveSitemap answers /sitemap.xml, once the site has said it has none,
// with the module's sitemap.
func (s *Service) serveSitemap(w http.ResponseWriter, r *http.Request, rd *rendition) {
	doc := s.document(rd, s.byPath[pathSitemapOwn], "", pathSitemapOwn)
	serveDocument(newFields(w.Header()), w, r, doc)
}

// ProbesSitemap reports whether path is /sitemap.xml, where the module
// serves its sitemap only when the site has none: the caller asks the
// site first.
func (s *Service) ProbesSitemap(path string) bool {
	return path == pathSitemap && s.byPath[pathSitemap] != nil
}
