// A site's sitemaps read from their bytes: a sitemaps.org urlset (page
// addresses with their lastmod) or sitemapindex (the addresses of more
// sitemaps). It keeps the behaviour and bounds of the site check's reader
// (internal/sitecheck): a <loc> counts wherever it is nested; an address
// is read up to 8 KiB; at most a given number of addresses are read in
// all. Unlike it, a <loc> of another namespace than the root's (Google's
// image:loc, say) is an extension's, not a page. Compressed sitemaps are
// the reader's to decompress first.

package sitefacts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// MaxSitemapLocations is how many <loc> entries ParseSitemap reads when
// asked for no particular number.
const MaxSitemapLocations = 100_000

// ErrNotSitemap is an XML document whose root is neither urlset nor
// sitemapindex (or a document that is not XML at all).
var ErrNotSitemap = errors.New("not a sitemap")

// Sitemap is what one sitemap file holds.
type Sitemap struct {
	Pages    []SitemapURL // urlset entries
	Sitemaps []string     // sitemapindex entries (absolute as written)
}

// SitemapURL is one page of a sitemap.
type SitemapURL struct {
	Loc     string    // the address as written (http(s), fragment removed; a path stays a path)
	LastMod time.Time // its lastmod; zero when absent or unparseable
}

// ParseSitemap reads a sitemaps.org urlset or sitemapindex, at most limit
// <loc> entries of it in all (MaxSitemapLocations when limit is not
// positive). An address of another scheme than http(s), or longer than
// MaxURLBytes, is skipped; a sitemap gives absolute addresses, and one
// that gives a path keeps it, for the reader to resolve.
func ParseSitemap(data []byte, limit int) (Sitemap, error) {
	if limit <= 0 {
		limit = MaxSitemapLocations
	}
	var sm Sitemap
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var root, space string // the root element's name and namespace
	var loc, lastmod strings.Builder
	var in string // "loc" or "lastmod" while inside one
	entry := SitemapURL{}
	haveLoc := false
	for n := 0; n < limit; {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if root == "" {
				return sm, ErrNotSitemap
			}
			return sm, fmt.Errorf("reading the sitemap's XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root, space = t.Name.Local, t.Name.Space
				if root != "urlset" && root != "sitemapindex" {
					return sm, ErrNotSitemap
				}
			}
			if t.Name.Space != space {
				break
			}
			switch t.Name.Local {
			case "url", "sitemap":
				entry, haveLoc = SitemapURL{}, false
			case "loc":
				in = "loc"
				loc.Reset()
			case "lastmod":
				in = "lastmod"
				lastmod.Reset()
			}
		case xml.CharData:
			switch {
			case in == "loc" && loc.Len() < 8<<10:
				loc.Write(t)
			case in == "lastmod" && lastmod.Len() < 64:
				lastmod.Write(t)
			}
		case xml.EndElement:
			if t.Name.Space != space {
				break
			}
			switch t.Name.Local {
			case "loc":
				if in != "loc" {
					break
				}
				in = ""
				n++
				if u, ok := sitemapLoc(loc.String()); ok {
					if root == "sitemapindex" {
						sm.Sitemaps = append(sm.Sitemaps, u)
					} else {
						entry.Loc, haveLoc = u, true
						sm.Pages = append(sm.Pages, entry)
					}
				}
			case "lastmod":
				if in != "lastmod" {
					break
				}
				in = ""
				entry.LastMod = parseTime(lastmod.String())
				// A lastmod may follow its loc: it belongs to the page just read.
				if haveLoc && len(sm.Pages) > 0 {
					sm.Pages[len(sm.Pages)-1].LastMod = entry.LastMod
				}
			}
		}
	}
	if root == "" {
		return sm, ErrNotSitemap
	}
	return sm, nil
}

// sitemapLoc is a sitemap's address as kept: trimmed, without its
// fragment; false for another scheme or one longer than MaxURLBytes.
func sitemapLoc(s string) (string, bool) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if s == "" || err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	if strings.Contains(s, "#") {
		u.Fragment, u.RawFragment = "", ""
		s = u.String()
	}
	if s == "" || len(s) > MaxURLBytes {
		return "", false
	}
	return s, true
}
