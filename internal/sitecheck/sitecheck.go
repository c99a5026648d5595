// Package sitecheck compares what the content says about the site with
// what the site behind the module really serves: it matches insights to
// the addresses of the site's own sitemap, and reads the site's
// robots.txt for crawlers it shuts out. It is plain Go: the Caddy module
// fetches the site's files through the next handler and hands them here.
//
// Imports from the module: content, internal/agents.
package sitecheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/agents"
)

// Limits of what is read of the site.
const (
	// MaxSitemapSize is the largest sitemap file read (sitemaps.org allows
	// 50 MB uncompressed; a personal site's is far smaller).
	MaxSitemapSize = 8 << 20
	// MaxSitemaps is how many sitemap files a sitemap index may lead to.
	MaxSitemaps = 16
	// MaxLocations is how many addresses are read in all.
	MaxLocations = 100_000
)

// Sitemap is what one sitemap file holds: page addresses, or, for a
// sitemap index, the addresses of more sitemaps.
type Sitemap struct {
	Pages    []string
	Sitemaps []string
}

// ParseSitemap reads a sitemaps.org urlset or sitemapindex, at most
// MaxLocations addresses of it.
func ParseSitemap(data []byte) (Sitemap, error) {
	var sm Sitemap
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var root string
	inLoc := false
	var loc strings.Builder
	for n := 0; n < MaxLocations; {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sm, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = t.Name.Local
				if root != "urlset" && root != "sitemapindex" {
					return sm, errors.New("not a sitemap: the root element is <" + root + ">")
				}
			}
			if t.Name.Local == "loc" {
				inLoc = true
				loc.Reset()
			}
		case xml.CharData:
			if inLoc && loc.Len() < 8<<10 {
				loc.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "loc" && inLoc {
				inLoc = false
				s := strings.TrimSpace(loc.String())
				if root == "sitemapindex" {
					sm.Sitemaps = append(sm.Sitemaps, s)
				} else {
					sm.Pages = append(sm.Pages, s)
				}
				n++
			}
		}
	}
	if root == "" {
		return sm, errors.New("not a sitemap: no XML element")
	}
	return sm, nil
}

// Match is the outcome of matching insights to the site's addresses.
type Match struct {
	// Site is the site with the matched insights' pages set to the
	// address the site's sitemap has for them.
	Site *content.Site
	// Matched counts the insights whose page the sitemap gave (whether
	// or not it changed), Unmatched those it has no one address for.
	Matched, Unmatched int
	// Changed counts the insights whose page address changed.
	Changed int
}

// taxonomyFolders hold a generator's list pages, whose last segment may
// equal a post's slug (a tag "go", a post "go").
var taxonomyFolders = map[string]bool{
	"tags": true, "tag": true, "categories": true, "category": true, "topics": true, "topic": true,
	"series": true, "page": true, "author": true, "authors": true, "archive": true, "archives": true,
}

// Pages matches each insight to the one address of the sitemap whose last
// segment names it: its slug exactly, else its slug with case and
// punctuation set aside (Hugo lowercases addresses; Jekyll turns spaces
// into hyphens). An address with the insight's own page path wins; list
// pages (tags, categories, pagination) never match; where two addresses
// could be the insight's, the one under its publication year is taken,
// else neither. Only the path of an address counts: a sitemap names the
// site's public host, which need not be the one it is served at. A page
// given by the front matter is the owner's word, and stays.
func Pages(site *content.Site, pages []string) Match {
	exact := make(map[string][]string)
	loose := make(map[string][]string)
	paths := make(map[string]bool, len(pages))
	for _, loc := range pages {
		u, err := url.Parse(loc)
		if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		p := u.EscapedPath()
		if p == "" || p == "/" || paths[p] {
			continue // an address two sitemaps list is one candidate
		}
		paths[p] = true
		segments := strings.Split(strings.Trim(u.Path, "/"), "/")
		last := content.LastSegment(u.Path)
		if listPage(segments) {
			continue
		}
		names := []string{last}
		if m := datedName.FindStringSubmatch(last); m != nil {
			// Eleventy keeps a file name's date in the address; the
			// slug, as Jekyll reads it, does not.
			names = append(names, m[1])
		}
		for _, name := range names {
			exact[name] = append(exact[name], p)
			loose[content.FoldSlug(name)] = append(loose[content.FoldSlug(name)], p)
		}
	}
	m := Match{Site: site}
	var insights []content.Insight
	for i, in := range site.Insights {
		if in.PageGiven && !paths[in.Page] && paths[in.Page+"/"] {
			// The owner's address, as the site serves it: a folder.
			in.Page += "/"
		} else if in.PageGiven || !strings.HasPrefix(in.Page, "/") {
			continue // the owner's word, or a page on another site
		}
		page := ""
		if paths[in.Page] {
			page = in.Page
		} else if page = choose(exact[in.Slug], in.DateISO); page == "" {
			page = choose(loose[content.FoldSlug(in.Slug)], in.DateISO)
		}
		if page == "" {
			m.Unmatched++
			continue
		}
		m.Matched++
		if page == site.Insights[i].Page {
			continue
		}
		if insights == nil {
			insights = append([]content.Insight(nil), site.Insights...)
		}
		insights[i].Page = page
		m.Changed++
	}
	if insights != nil {
		copied := *site
		copied.Insights = insights
		m.Site = &copied
	}
	return m
}

// datedName matches an address's last segment that begins with a date,
// as an Eleventy post named 2024-06-03-name.md is served.
var datedName = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-(.+)$`)

// listPage reports whether the address is a generator's list page.
func listPage(segments []string) bool {
	for _, s := range segments[:len(segments)-1] {
		if taxonomyFolders[strings.ToLower(s)] {
			return true
		}
	}
	return false
}

// choose is the one candidate, or the one under the year of the
// publication day; "" when there is none, or no one.
func choose(candidates []string, dateISO string) string {
	switch len(candidates) {
	case 0:
		return ""
	case 1:
		return candidates[0]
	}
	found := ""
	for _, c := range candidates {
		if len(dateISO) >= 4 && strings.Contains(c, "/"+dateISO[:4]+"/") {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}

// SameOrigin returns the path of a sitemap address that robots.txt or a
// sitemap index names, when it is on the site itself: a path, or an
// absolute URL whose path is then read from the site behind the module
// (its host is the site's public one, not necessarily the one served).
func SameOrigin(link string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") || u.Path == "" {
		return "", false
	}
	return path.Clean("/" + u.EscapedPath()), true
}

// aiTrainingCrawlers are the crawlers that gather text to train models
// (agents.Families whose purpose is training), as robots.txt names them.
var aiTrainingCrawlers = func() []string {
	var names []string
	for _, f := range agents.Families {
		if f.Purpose == "training" {
			names = append(names, f.Name)
		}
	}
	return names
}()

// ShutOut returns the AI training crawlers the robots.txt keeps from the
// whole site: a group that names the crawler (or, when none does, the
// group for "*") with "Disallow: /" and no Allow.
func ShutOut(robots []byte) []string {
	type group struct {
		agents        []string
		disallowAll   bool
		allowsAnyPath bool
	}
	var groups []*group
	var g *group
	inAgents := false
	for _, line := range strings.Split(string(robots), "\n") {
		line, _, _ = strings.Cut(line, "#")
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		switch key {
		case "user-agent":
			if !inAgents {
				g = &group{}
				groups = append(groups, g)
			}
			g.agents = append(g.agents, strings.ToLower(value))
			inAgents = true
			continue
		case "disallow":
			if g != nil && value == "/" {
				g.disallowAll = true
			}
		case "allow":
			if g != nil && value != "" {
				g.allowsAnyPath = true
			}
		}
		inAgents = false
	}
	var out []string
	for _, crawler := range aiTrainingCrawlers {
		var named, star []*group
		for _, g := range groups {
			for _, a := range g.agents {
				switch a {
				case strings.ToLower(crawler):
					named = append(named, g)
				case "*":
					star = append(star, g)
				}
			}
		}
		applies := named
		if len(applies) == 0 {
			applies = star
		}
		shut, open := false, false
		for _, g := range applies {
			shut = shut || g.disallowAll
			open = open || g.allowsAnyPath
		}
		if shut && !open {
			out = append(out, crawler)
		}
	}
	return out
}
