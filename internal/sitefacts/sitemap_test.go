package sitefacts

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParseSitemap: the sitemaps generators write, and what a sitemap may
// hold by mistake or malice.
func TestParseSitemap(t *testing.T) {
	file := func(name string) string {
		data, err := os.ReadFile("testdata/sitemaps/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	urlset := func(entries string) string {
		return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + entries + `</urlset>`
	}
	for _, tc := range []struct {
		name, data string
		limit      int
		want       Sitemap
		wantErr    error
	}{
		{
			name: "WordPress's own sitemap index, behind its stylesheet",
			data: file("wordpress-index.xml"),
			want: Sitemap{Sitemaps: []string{
				"https://notes.example.org/wp-sitemap-posts-post-1.xml", "https://notes.example.org/wp-sitemap-posts-page-1.xml",
				"https://notes.example.org/wp-sitemap-taxonomies-category-1.xml", "https://notes.example.org/wp-sitemap-users-1.xml",
			}},
		},
		{
			name: "WordPress's posts, with and without lastmod",
			data: file("wordpress-posts.xml"),
			want: Sitemap{Pages: []SitemapURL{
				{Loc: "https://notes.example.org/2024/05/why-i-dont-prune-in-march/", LastMod: date("2024-05-14T08:12:40Z")},
				{Loc: "https://notes.example.org/2024/04/mishaps/", LastMod: date("2024-04-03T19:01:02Z")},
				{Loc: "https://notes.example.org/2023/11/seed-swaps/"},
			}},
		},
		{
			name: "Yoast's index, its lastmods, and a comment after the root",
			data: file("yoast-index.xml"),
			want: Sitemap{Sitemaps: []string{"https://ines.example.fr/post-sitemap.xml", "https://ines.example.fr/page-sitemap.xml"}},
		},
		{
			name: "Yoast's posts: image:loc is an image's, not a page's",
			data: file("yoast-posts.xml"),
			want: Sitemap{Pages: []SitemapURL{
				{Loc: "https://ines.example.fr/", LastMod: date("2024-01-16T11:02:40Z")},
				{Loc: "https://ines.example.fr/compost-measured/", LastMod: date("2024-01-16T11:02:40Z")},
			}},
		},
		{
			name: "Hugo's sitemap: translations as xhtml:link, a date-only lastmod, none",
			data: file("hugo.xml"),
			want: Sitemap{Pages: []SitemapURL{
				{Loc: "https://anaruiz.example/posts/type-safe-sql/", LastMod: date("2024-02-07T08:00:00Z")},
				{Loc: "https://anaruiz.example/", LastMod: date("2024-02-07T00:00:00Z")},
				{Loc: "https://anaruiz.example/tags/"},
			}},
		},
		{
			name: "jekyll-sitemap",
			data: file("jekyll.xml"),
			want: Sitemap{Pages: []SitemapURL{
				{Loc: "https://sam.example.net/2024/03/09/clocks.html", LastMod: date("2024-03-09T00:00:00Z")},
				{Loc: "https://sam.example.net/about/"},
			}},
		},
		{
			name:  "at most limit locations, in all",
			data:  urlset(strings.Repeat(`<url><loc>https://s.example/p</loc></url>`, 10)),
			limit: 3,
			want:  Sitemap{Pages: []SitemapURL{{Loc: "https://s.example/p"}, {Loc: "https://s.example/p"}, {Loc: "https://s.example/p"}}},
		},
		{
			name: "a lastmod before its loc, a lastmod that is not a date, entities in an address",
			data: urlset(`<url><lastmod>2024-01-02</lastmod><loc>https://s.example/a?x=1&amp;y=2</loc></url><url><loc>https://s.example/b</loc><lastmod>soon</lastmod></url>`),
			want: Sitemap{Pages: []SitemapURL{{Loc: "https://s.example/a?x=1&y=2", LastMod: date("2024-01-02T00:00:00Z")}, {Loc: "https://s.example/b"}}},
		},
		{
			name: "other schemes, fragments, paths, over-long addresses",
			data: urlset(`<url><loc>javascript:alert(1)</loc></url><url><loc>ftp://s.example/f</loc></url><url><loc> https://s.example/frag#x </loc></url>` +
				`<url><loc>/path/only</loc></url><url><loc>https://s.example/` + strings.Repeat("a", MaxURLBytes) + `</loc></url>`),
			want: Sitemap{Pages: []SitemapURL{{Loc: "https://s.example/frag"}, {Loc: "/path/only"}}},
		},
		{
			name: "an entity bomb: declared entities never expand",
			data: `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` +
				`<urlset><url><loc>https://s.example/&b;</loc></url></urlset>`,
			want: Sitemap{Pages: []SitemapURL{{Loc: "https://s.example/&b;"}}},
		},
		{name: "a feed", data: `<rss version="2.0"><channel></channel></rss>`, wantErr: ErrNotSitemap},
		{name: "an HTML page", data: "<!DOCTYPE html><html><body>Not found</body></html>", wantErr: ErrNotSitemap},
		{name: "gzip bytes", data: "\x1f\x8b\x08\x00\x00\x00\x00\x00", wantErr: ErrNotSitemap},
		{name: "nothing", data: "", wantErr: ErrNotSitemap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSitemap([]byte(tc.data), tc.limit)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range got.Pages {
				got.Pages[i].LastMod = inUTC(got.Pages[i].LastMod) // the instant, not the offset written
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestParseSitemapBound: with no limit given, MaxSitemapLocations are read.
func TestParseSitemapBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("<sitemapindex>")
	for i := 0; i < MaxSitemapLocations+5; i++ {
		fmt.Fprintf(&b, "<sitemap><loc>https://s.example/%d.xml</loc></sitemap>", i)
	}
	b.WriteString("</sitemapindex>")
	sm, err := ParseSitemap([]byte(b.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Sitemaps) != MaxSitemapLocations {
		t.Errorf("%d sitemaps read, want %d", len(sm.Sitemaps), MaxSitemapLocations)
	}
}

// FuzzParseSitemap: no input makes ParseSitemap panic, read more than its
// limit, or return an address of another scheme or beyond MaxURLBytes.
func FuzzParseSitemap(f *testing.F) {
	files, _ := os.ReadDir("testdata/sitemaps")
	for _, file := range files {
		data, err := os.ReadFile("testdata/sitemaps/" + file.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		sm, err := ParseSitemap(data, limit)
		if err != nil {
			return
		}
		max := limit
		if max <= 0 {
			max = MaxSitemapLocations
		}
		if len(sm.Pages)+len(sm.Sitemaps) > max {
			t.Errorf("%d entries read, limit %d", len(sm.Pages)+len(sm.Sitemaps), limit)
		}
		for _, u := range append(sm.Sitemaps, func() (locs []string) {
			for _, p := range sm.Pages {
				locs = append(locs, p.Loc)
				checkTime(t, "lastmod", p.LastMod)
			}
			return locs
		}()...) {
			lower := strings.ToLower(u)
			if u == "" || len(u) > MaxURLBytes || strings.Contains(u, "#") || (strings.Contains(lower, ":") && !strings.HasPrefix(lower, "http") && !strings.HasPrefix(u, "/")) {
				t.Errorf("address %q kept", u)
			}
		}
	})
}
