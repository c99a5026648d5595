package sitefacts

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// samePage reports how got differs from want. Links are compared only when
// want has some; want's Article.BodyHTML is a prefix of the body expected.
func samePage(got, want *Page) string {
	g, w := *got, *want
	// The instants compared, not the offsets: a time keeps the one the
	// page wrote it in.
	g.Article.Published, g.Article.Modified = inUTC(g.Article.Published), inUTC(g.Article.Modified)
	times := make([]time.Time, len(g.Times))
	for i, tm := range g.Times {
		times[i] = inUTC(tm)
	}
	if g.Times != nil {
		g.Times = times
	}
	if w.Links != nil && !reflect.DeepEqual(g.Links, w.Links) {
		return fmt.Sprintf("links\n got %+v\nwant %+v", g.Links, w.Links)
	}
	g.Links, w.Links = nil, nil
	if !strings.HasPrefix(g.Article.BodyHTML, w.Article.BodyHTML) || (g.Article.BodyHTML == "") != (w.Article.BodyHTML == "") {
		return fmt.Sprintf("article body %q, want it to begin %q", g.Article.BodyHTML, w.Article.BodyHTML)
	}
	g.Article.BodyHTML, w.Article.BodyHTML = "", ""
	for _, f := range []string{"Person", "Site.Publisher"} {
		gp, wp := g.Person, w.Person
		if f != "Person" {
			gp, wp = g.Site.Publisher, w.Site.Publisher
		}
		if (gp == nil) != (wp == nil) || (gp != nil && !reflect.DeepEqual(*gp, *wp)) {
			return fmt.Sprintf("%s\n got %+v\nwant %+v", f, gp, wp)
		}
	}
	g.Person, w.Person, g.Site.Publisher, w.Site.Publisher = nil, nil, nil, nil
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("page\n got %+v\nwant %+v", g, w)
	}
	return ""
}

// TestReadPageGenerators: the pages real generators and themes write, each
// read into the same facts.
func TestReadPageGenerators(t *testing.T) {
	sam := Person{Name: "Sam Okafor", URL: "https://sam.example.net/", SameAs: []string{"https://github.com/samokafor-example", "https://hachyderm.io/@samokafor"}}
	ines := Person{
		Name: "Ines Moreau", Description: "Soil scientist turned gardener.", URL: "https://ines.example.fr/author/ines/",
		Image:  "https://ines.example.fr/wp-content/uploads/ines.jpg",
		SameAs: []string{"https://www.linkedin.com/in/ines-moreau-example", "https://x.com/ines_example"},
	}
	for _, tc := range []struct {
		name, file, url string
		want            Page
	}{
		{
			name: "a Jekyll post: jekyll-seo-tag's BlogPosting and OpenGraph, minima's h-entry and footer h-card",
			file: "jekyll-minima-post.html", url: "https://sam.example.net/2024/03/09/clocks.html",
			want: Page{
				Canonical: "https://sam.example.net/2024/03/09/clocks.html", Lang: "en",
				Title: "Clocks are hard | Sam Okafor", Heading: "Clocks are hard",
				Description: "Every node has its own idea of now.", Author: "Sam Okafor", SiteName: "Sam Okafor", Generator: "Jekyll v4.3.3",
				Feeds: []string{"https://sam.example.net/feed.xml"},
				Links: []Link{
					{URL: "https://sam.example.net/", Text: "Sam Okafor", Rel: "author", InNav: true},
					{URL: "https://sam.example.net/about/", Text: "About", InNav: true},
					{URL: "https://sam.example.net/2023/12/01/lamport.html", Text: "Lamport"},
					{URL: "https://sam.example.net/2024/03/09/clocks.html"},
					{URL: "https://github.com/samokafor-example", Text: "GitHub", Rel: "me"},
					{URL: "https://hachyderm.io/@samokafor", Text: "Mastodon", Rel: "me"},
				},
				Me: []string{"https://github.com/samokafor-example", "https://hachyderm.io/@samokafor"},
				Article: Article{
					IsArticle: true, Headline: "Clocks are hard",
					Published: date("2024-03-09T00:00:00Z"), Modified: date("2024-03-10T08:00:00Z"),
					Description: "Every node has its own idea of now.",
					Authors:     []Person{{Name: "Sam Okafor", URL: "https://sam.example.net/about/"}},
					BodyHTML:    `<div class="post-content e-content" itemprop="articleBody">`,
				},
				Person: &Person{Name: "Sam Okafor", URL: "https://sam.example.net/", Email: "sam@example.net"},
				Times:  []time.Time{date("2024-03-09T00:00:00Z")},
			},
		},
		{
			name: "a Jekyll home page: WebSite with a Person publisher, a list without list markup",
			file: "jekyll-minima-home.html", url: "https://sam.example.net/",
			want: Page{
				Canonical: "https://sam.example.net/", Lang: "en",
				Title:       "Sam Okafor | Notes on distributed systems and the odd recipe.",
				Description: "Notes on distributed systems and the odd recipe.", Author: "Sam Okafor", SiteName: "Sam Okafor", Generator: "Jekyll v4.3.3",
				Feeds: []string{"https://sam.example.net/feed.xml"},
				Links: []Link{
					{URL: "https://sam.example.net/", Text: "Sam Okafor", Rel: "author", InNav: true},
					{URL: "https://sam.example.net/2024/03/09/clocks.html", Text: "Clocks are hard"},
					{URL: "https://sam.example.net/2023/12/01/lamport.html", Text: "Lamport, slowly"},
					{URL: "https://sam.example.net/feed.xml", Text: "via RSS"},
				},
				Article: Article{Headline: "Sam Okafor"},
				Person:  &sam,
				Site:    WebSite{Name: "Sam Okafor", Description: "Notes on distributed systems and the odd recipe.", Publisher: &sam},
			},
		},
		{
			name: "a Hugo post: the internal OpenGraph template's article tags, a <main> with its h1",
			file: "hugo-post.html", url: "https://anaruiz.example/posts/type-safe-sql/",
			want: Page{
				Lang: "en-us", Title: "Type-safe SQL in Go | Ana Ruiz", Heading: "Type-safe SQL in Go",
				Description: "Generics meet database/sql.", SiteName: "Ana Ruiz", Generator: "Hugo 0.125.4",
				Feeds: []string{"https://anaruiz.example/index.xml"},
				Links: []Link{
					{URL: "https://anaruiz.example/posts/", Text: "Posts", InNav: true},
					{URL: "https://anaruiz.example/tags/", Text: "Tags", InNav: true},
					{URL: "https://anaruiz.example/tags/go/", Text: "Go"},
					{URL: "https://anaruiz.example/tags/sql/", Text: "SQL"},
					{URL: "https://anaruiz.example/posts/page/2/", Text: "older", Rel: "next"},
				},
				Next: "https://anaruiz.example/posts/page/2/",
				Article: Article{
					IsArticle: true, Headline: "Type-safe SQL in Go",
					Published: date("2024-02-05T17:30:00Z"), Modified: date("2024-02-07T08:00:00Z"),
					Keywords: []string{"Go", "SQL"}, Section: "posts",
				},
				Times: []time.Time{date("2024-02-05T17:30:00Z")},
			},
		},
		{
			name: "a WordPress post in Twenty Twenty-Three: no JSON-LD, the title outside the content, REST and comment feeds left out",
			file: "wordpress-tt3-post.html", url: "https://notes.example.org/2024/05/why-i-dont-prune-in-march/",
			want: Page{
				Canonical: "https://notes.example.org/2024/05/why-i-dont-prune-in-march/", Lang: "en-US",
				Title: "Why I don’t prune in March – Field Notes", Heading: "Why I don’t prune in March", Generator: "WordPress 6.1.9",
				Feeds: []string{"https://notes.example.org/feed/"},
				Links: []Link{
					{URL: "https://notes.example.org", Text: "Field Notes", Rel: "home", InNav: true},
					{URL: "https://notes.example.org/about/", Text: "About", InNav: true},
					{URL: "https://notes.example.org/category/gardening/", Text: "Gardening", Rel: "tag"},
					{URL: "https://notes.example.org/category/seasons/", Text: "Seasons", Rel: "tag"},
					{URL: "https://notes.example.org/author/marta/", Text: "Marta Lind"},
					{URL: "https://notes.example.org/2024/04/mishaps/", Text: "A script tag", Rel: "prev", InNav: true},
					{URL: "https://wordpress.org", Text: "WordPress", Rel: "nofollow"},
				},
				Times: []time.Time{date("2024-05-14T08:12:36Z")},
				// Its body's class, single-post, is WordPress's word that
				// the page is a post.
				Article: Article{IsArticle: true},
			},
		},
		{
			name: "a Yoast post: an @graph whose author, publisher and image are @id references",
			file: "yoast-post.html", url: "https://ines.example.fr/compost-measured/",
			want: Page{
				Canonical: "https://ines.example.fr/compost-measured/", Lang: "en-GB",
				Title: "Compost, measured - Ines Moreau", Heading: "Compost, measured",
				Description: "A year of weighing the compost bin.", Author: "Ines Moreau", SiteName: "Ines Moreau", Generator: "WordPress 6.5.3",
				Article: Article{
					IsArticle: true, Headline: "Compost, measured",
					Published: date("2024-01-15T07:45:12Z"), Modified: date("2024-01-16T11:02:40Z"),
					Keywords: []string{"compost", "soil"}, Section: "Garden", Authors: []Person{ines},
				},
				Person: &ines,
				Site:   WebSite{Name: "Ines Moreau", Description: "Gardens, soil and numbers", Publisher: &ines},
			},
		},
		{
			name: "a Yoast category archive: a CollectionPage, noindex",
			file: "yoast-category.html", url: "https://ines.example.fr/category/garden/",
			want: Page{
				NoIndex: true, Lang: "en-GB", Title: "Garden Archives - Ines Moreau", SiteName: "Ines Moreau",
				Person: &Person{Name: "Ines Moreau"},
				Site:   WebSite{Name: "Ines Moreau", Publisher: &Person{Name: "Ines Moreau"}},
				IsList: true,
			},
		},
		{
			name: "an IndieWeb home page: representative h-card by rel=me, an h-feed of h-entries",
			file: "indieweb-home.html", url: "https://kai.example/",
			want: Page{
				Lang: "de", Title: "Kai Berger",
				Feeds: []string{"https://kai.example/feed.json", "https://kai.example/feed.atom"},
				Links: []Link{
					{URL: "https://kai.example/", Text: "Kai Berger", Rel: "me", InNav: true},
					{URL: "https://github.com/kai-example", Text: "GitHub", Rel: "me", InNav: true},
					{URL: "https://kai.example/2024/spokes", Text: "Truing spokes"},
					{URL: "https://kai.example/2024/chains", Text: "Chains"},
					{URL: "https://kai.example/page/2", Text: "Ältere", Rel: "next"},
				},
				Next: "https://kai.example/page/2",
				Me:   []string{"https://social.example/@kai", "mailto:kai@kai.example", "https://kai.example/", "https://github.com/kai-example"},
				Person: &Person{
					Name: "Kai Berger", JobTitle: "Mechanic", Description: "Bicycle mechanic & weekend programmer.",
					URL: "https://kai.example/", Email: "kai@kai.example", Telephone: "+49 30 1234567", Image: "https://kai.example/kai.jpg",
					SameAs: []string{"https://github.com/kai-example"},
				},
				IsList: true,
				Times:  []time.Time{date("2024-04-01T07:30:00Z"), date("2024-03-01T00:00:00Z")},
			},
		},
		{
			name: "an IndieWeb post: h-entry with p-author h-card, value-class dates, categories, e-content",
			file: "indieweb-post.html", url: "https://kai.example/2024/spokes",
			want: Page{
				Lang: "de", Title: "Truing spokes – Kai Berger", Heading: "Truing spokes",
				Article: Article{
					IsArticle: true, Headline: "Truing spokes",
					Published: date("2024-04-01T07:30:00Z"), Modified: date("2024-04-02T10:00:00Z"),
					Description: "How to true a wheel without a stand.", Keywords: []string{"bikes", "repair"},
					Authors:  []Person{{Name: "Kai Berger", URL: "https://kai.example/"}},
					BodyHTML: `<div class="e-content"><p>Tension first, then <a href="/glossary#dish">dish</a>.</p></div>`,
				},
				Times: []time.Time{date("2024-04-01T07:30:00Z")},
			},
		},
		{
			name: "an about page: a ProfilePage's Person, a block that is not JSON skipped alone",
			file: "about-profile.html", url: "https://abebe.example/about/",
			want: Page{
				Lang: "en", Title: "About · Dr. Ruth Abebe", Heading: "About me",
				Person: &Person{
					Name: "Ruth Abebe", JobTitle: "Epidemiologist", Description: "I study how diseases travel. Mostly by train.",
					URL: "https://abebe.example/", Email: "ruth@abebe.example", Telephone: "+1-555-0100", Image: "https://abebe.example/img/ruth.jpg",
					SameAs:     []string{"https://orcid.org/0000-0000-0000-0000", "https://bsky.app/profile/ruth.abebe.example"},
					KnowsAbout: []string{"Epidemiology", "Public health"}, Awards: []string{"Young Investigator 2021"},
					AlumniOf: []string{"Addis Ababa University", "LSHTM"}, WorksFor: "City Health Lab",
				},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/pages/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadPage(data, "text/html; charset=utf-8", tc.url)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.URL = tc.url
			if diff := samePage(got, &tc.want); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// page is an HTML page with head and body as given.
func page(head, body string) string {
	return "<!DOCTYPE html><html><head>" + head + "</head><body>" + body + "</body></html>"
}

// TestReadPageHostile: what a page may hold by mistake or malice is read
// as text, within its caps, or refused; never a panic.
func TestReadPageHostile(t *testing.T) {
	for _, tc := range []struct {
		name, body, contentType string
		wantErr                 error
		check                   func(t *testing.T, p *Page)
	}{
		{
			name: "scripts and markup in titles, headings and descriptions come back as text",
			body: page(`<title><script>alert(1)</script>Real <b>title</b></title><meta name="description" content="&lt;img src=x onerror=alert(1)&gt;Desc">`+
				`<meta property="og:title" content="<script>x()</script>OG">`,
				`<main><h1>Head<script>alert(2)</script>ing <em>here</em></h1></main>`),
			check: func(t *testing.T, p *Page) {
				if p.Title != "Real title" || p.Heading != "Heading here" || p.Description != "Desc" || p.Article.Headline != "OG" {
					t.Errorf("title %q, heading %q, description %q, headline %q", p.Title, p.Heading, p.Description, p.Article.Headline)
				}
			},
		},
		{
			name: "a <base href>, relative, protocol-relative, javascript:, data: and over-long links",
			body: page(`<base href="https://cdn.example/root/">`,
				`<a href="rel">r</a><a href="//other.example/p">p</a><a href="javascript:alert(1)">j</a><a href=" JAVASCRIPT:alert(1)">J</a>`+
					`<a href="data:text/html,x">d</a><a href="mailto:a@b.example">m</a><a href="https://x.example/`+strings.Repeat("a", MaxURLBytes)+`">long</a>`+
					`<a href="/abs#frag"><img alt="Only an image"></a><a href="#top">top</a><a>no href</a>`),
			check: func(t *testing.T, p *Page) {
				want := []Link{
					{URL: "https://cdn.example/root/rel", Text: "r"}, {URL: "https://other.example/p", Text: "p"},
					{URL: "https://cdn.example/abs", Text: "Only an image"},
				}
				if !reflect.DeepEqual(p.Links, want) {
					t.Errorf("links %+v", p.Links)
				}
			},
		},
		{
			name: "10 000 links: MaxLinks distinct ones",
			body: page("", func() string {
				var b strings.Builder
				for i := 0; i < 10_000; i++ {
					fmt.Fprintf(&b, `<a href="/p/%d">%d</a><a href="/p/%d">again</a>`, i, i, i)
				}
				return b.String()
			}()),
			check: func(t *testing.T, p *Page) {
				if len(p.Links) != MaxLinks || p.Links[MaxLinks-1].URL != fmt.Sprintf("https://s.example/p/%d", MaxLinks-1) {
					t.Errorf("%d links, the last %+v", len(p.Links), p.Links[len(p.Links)-1])
				}
			},
		},
		{
			name: "rel=me, feeds and times beyond their caps",
			body: page(strings.Repeat(`<link rel="alternate" type="application/rss+xml" href="/f/`, 1)+`0">`+func() string {
				var b strings.Builder
				for i := 1; i < 100; i++ {
					fmt.Fprintf(&b, `<link rel="alternate" type="application/atom+xml" href="/f/%d"><link rel="me" href="https://me.example/%d">`, i, i)
				}
				return b.String()
			}(), strings.Repeat(`<time datetime="2024-01-02">x</time>`, 100)),
			check: func(t *testing.T, p *Page) {
				if len(p.Feeds) != MaxFeedLinks || len(p.Me) != MaxMe || len(p.Times) != MaxTimes {
					t.Errorf("%d feeds, %d me, %d times", len(p.Feeds), len(p.Me), len(p.Times))
				}
			},
		},
		{
			name: "a giant JSON-LD block is skipped, the others read",
			body: page(`<script type="application/ld+json">{"@type":"Person","name":"Too big","description":"`+strings.Repeat("x", MaxJSONLDBytes)+`"}</script>`+
				`<script type="application/ld+json">{"@type":"Person","name":"Small"}</script>`, ""),
			check: func(t *testing.T, p *Page) {
				if p.Person == nil || p.Person.Name != "Small" {
					t.Errorf("person %+v", p.Person)
				}
			},
		},
		{
			name: "JSON-LD with more objects than MaxJSONLDNodes and deep nesting: what is within the caps",
			body: page(`<script type="application/ld+json">[{"@type":"Person","name":"First"},`+strings.Repeat(`{"@type":"Thing","a":{"b":{}}},`, 3*MaxJSONLDNodes)+
				`{"@type":"BlogPosting","headline":"Too far"}]</script><script type="application/ld+json">`+strings.Repeat(`{"a":[`, 5000)+strings.Repeat(`]}`, 5000)+`</script>`, ""),
			check: func(t *testing.T, p *Page) {
				if p.Person == nil || p.Person.Name != "First" || p.Article.IsArticle {
					t.Errorf("person %+v, article %+v", p.Person, p.Article)
				}
			},
		},
		{
			name: "invalid dates are zero",
			body: page(`<meta property="article:published_time" content="soon"><script type="application/ld+json">{"@type":"Article","headline":"H","datePublished":"2024-02-30","dateModified":12}</script>`,
				`<main><time datetime="not a date">x</time><time datetime="2024-02-03">y</time></main>`),
			check: func(t *testing.T, p *Page) {
				if !p.Article.Published.IsZero() || !p.Article.Modified.IsZero() || len(p.Times) != 1 {
					t.Errorf("published %v, modified %v, times %v", p.Article.Published, p.Article.Modified, p.Times)
				}
			},
		},
		{
			name: "noindex from the module's own meta name, and none",
			body: page(`<meta name="caddy-discovery" content="none">`, ""),
			check: func(t *testing.T, p *Page) {
				if !p.NoIndex {
					t.Error("not noindex")
				}
			},
		},
		{
			name: "JSON-LD types and properties with schema.org prefixes, an array of types, a string author",
			body: page(`<script type="application/ld+json">{"@context":"https://schema.org","@type":["schema:BlogPosting","CreativeWork"],"schema:headline":"Prefixed","author":"Jo Doe","keywords":"a, b,,a"}</script>`, ""),
			check: func(t *testing.T, p *Page) {
				a := p.Article
				if !a.IsArticle || a.Headline != "Prefixed" || len(a.Authors) != 1 || a.Authors[0].Name != "Jo Doe" || !reflect.DeepEqual(a.Keywords, []string{"a", "b"}) {
					t.Errorf("article %+v", a)
				}
			},
		},
		{
			name: "an article's author is not the page's person",
			body: page(`<script type="application/ld+json">{"@graph":[{"@type":"BlogPosting","headline":"H","author":{"@id":"#a"}},{"@type":"Person","@id":"#a","name":"Guest Writer"}]}</script>`, ""),
			check: func(t *testing.T, p *Page) {
				if p.Person != nil || len(p.Article.Authors) != 1 || p.Article.Authors[0].Name != "Guest Writer" {
					t.Errorf("person %+v, authors %+v", p.Person, p.Article.Authors)
				}
			},
		},
		{
			name: "a post with related posts as <article>s is an article, not a list",
			body: page(`<meta property="og:type" content="article">`, `<article><h1>Post</h1></article><aside><article>Related</article><article>More</article></aside>`),
			check: func(t *testing.T, p *Page) {
				if p.IsList || !p.Article.IsArticle {
					t.Errorf("list %v, article %v", p.IsList, p.Article.IsArticle)
				}
			},
		},
		{
			name:        "a page in windows-1252, as its meta says",
			body:        "<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head></html>",
			contentType: "text/html",
			check: func(t *testing.T, p *Page) {
				if p.Title != "Café" {
					t.Errorf("title %q", p.Title)
				}
			},
		},
		{name: "an image", body: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", contentType: "image/png", wantErr: ErrNotHTML},
		{name: "binary bytes served as nothing", body: "\x00\x01\x02\x03binary", contentType: "-", wantErr: ErrNotHTML},
		{name: "JSON", body: `{"a":1}`, contentType: "application/json", wantErr: ErrNotHTML},
		{name: "elements nested deeper than the HTML parser takes", body: strings.Repeat("<div>", 600), wantErr: errAny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			switch ct {
			case "":
				ct = "text/html; charset=utf-8"
			case "-":
				ct = ""
			}
			p, err := ReadPage([]byte(tc.body), ct, "https://s.example/dir/page")
			switch {
			case tc.wantErr == errAny && err == nil:
				t.Fatal("no error")
			case tc.wantErr == errAny:
				return
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			case tc.wantErr != nil:
				return
			case err != nil:
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
}

// TestPlainText: markup removed, text kept, as the fields need it.
func TestPlainText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                              "plain",
		"  many \n\t spaces ":                "many spaces",
		"Tom &amp; Jerry":                    "Tom & Jerry",
		"<p>One</p><p>two</p>":               "One two",
		"a<b>b</b>c":                         "abc",
		"Vec<T> and Map<K, V>":               "Vec<T> and Map<K, V>", // a type named like an element (<U>) reads as markup
		"a < b > c":                          "a < b > c",
		"<script>alert(1)</script>Title":     "Title",
		"A <script> tag in a title":          "A <script> tag in a title",
		"<style>p{color:red}</style>Styled":  "Styled",
		"<!-- a comment -->Text":             "Text",
		"<img src=x onerror=alert(1)>Text":   "Text",
		"Line<br>break":                      "Line break",
		"&lt;b&gt;literal&lt;/b&gt;":         "<b>literal</b>",
		strings.Repeat("é", MaxTitleRunes):   strings.Repeat("é", MaxTitleRunes),
		strings.Repeat("é", MaxTitleRunes+1): strings.Repeat("é", MaxTitleRunes-1) + "…",
	} {
		if got := plainText(in, MaxTitleRunes); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// checkPage fails t where p is outside the bounds ReadPage promises.
func checkPage(t *testing.T, p *Page) {
	checkURL(t, "canonical", p.Canonical)
	checkURL(t, "next", p.Next)
	checkText(t, "title", p.Title, MaxTitleRunes)
	checkText(t, "heading", p.Heading, MaxTitleRunes)
	checkText(t, "description", p.Description, MaxDescriptionRunes)
	checkText(t, "site name", p.SiteName, MaxNameRunes)
	checkText(t, "headline", p.Article.Headline, MaxTitleRunes)
	if len(p.Links) > MaxLinks || len(p.Feeds) > MaxFeedLinks || len(p.Me) > MaxMe || len(p.Times) > MaxTimes ||
		len(p.Article.Keywords) > MaxKeywords || len(p.Article.Authors) > MaxAuthors {
		t.Errorf("over a cap: %d links, %d feeds, %d me, %d times, %d keywords, %d authors",
			len(p.Links), len(p.Feeds), len(p.Me), len(p.Times), len(p.Article.Keywords), len(p.Article.Authors))
	}
	seen := make(map[string]bool)
	for _, l := range p.Links {
		checkURL(t, "link", l.URL)
		checkText(t, "link text", l.Text, MaxNameRunes)
		if l.URL == "" || seen[l.URL] {
			t.Errorf("link %q empty or twice", l.URL)
		}
		seen[l.URL] = true
	}
	for _, u := range p.Feeds {
		checkURL(t, "feed", u)
	}
	for _, tm := range append(p.Times, p.Article.Published, p.Article.Modified) {
		checkTime(t, "time", tm)
	}
	people := append([]Person(nil), p.Article.Authors...)
	if p.Person != nil {
		people = append(people, *p.Person)
	}
	for _, person := range people {
		checkText(t, "name", person.Name, MaxNameRunes)
		checkURL(t, "person url", person.URL)
		checkURL(t, "image", person.Image)
		if len(person.SameAs) > MaxPersonList || len(person.KnowsAbout) > MaxPersonList {
			t.Errorf("person lists over their cap: %+v", person)
		}
	}
}

// FuzzReadPage: no input makes ReadPage panic or return what is outside
// its bounds. The seeds are the fixtures and testdata/fuzz/FuzzReadPage.
func FuzzReadPage(f *testing.F) {
	files, _ := os.ReadDir("testdata/pages")
	for _, file := range files {
		data, err := os.ReadFile("testdata/pages/" + file.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "text/html")
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		p, err := ReadPage(body, contentType, "https://s.example/dir/page")
		if err != nil {
			return
		}
		checkPage(t, p)
	})
}

// BenchmarkReadPage: a 100 KB post page: a theme's head with OpenGraph and
// a Yoast @graph, navigation, and an article of paragraphs with links.
func BenchmarkReadPage(b *testing.B) {
	head, err := os.ReadFile("testdata/pages/yoast-post.html")
	if err != nil {
		b.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(head), "<body")
	var page strings.Builder
	page.WriteString(doc + `<body><header><nav class="menu">`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&page, `<a href="/section-%d/">Section %d</a>`, i, i)
	}
	page.WriteString(`</nav></header><main><article class="h-entry"><h1 class="p-name">Compost, measured</h1><time class="dt-published" datetime="2024-01-15T07:45:12+00:00">Jan 15</time><div class="e-content">`)
	for i := 0; page.Len() < 100<<10; i++ {
		fmt.Fprintf(&page, `<p>Week %d: the bin weighed <strong>%d kg</strong>, as <a href="/notes/week-%d/">the notes</a> say; <em>compost</em> is patient.</p>`+"\n", i, i, i)
	}
	page.WriteString(`</div></article></main><footer class="h-card"><a class="u-url p-name" href="/" rel="me">Ines Moreau</a></footer></body></html>`)
	data := []byte(page.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := ReadPage(data, "text/html; charset=utf-8", "https://ines.example.fr/compost-measured/")
		if err != nil || !p.Article.IsArticle {
			b.Fatal(err)
		}
	}
}

// TestTextBounded: the text read of an element is bounded whatever it
// holds, so that nested elements whose text is read (microformats
// properties) cost no more than their depth times maxTextWalk.
func TestTextBounded(t *testing.T) {
	body := `<div class="h-entry">` + strings.Repeat(`<div class="p-name e-content p-summary">`, 400) +
		strings.Repeat("<span>word</span> ", 50_000) + strings.Repeat("</div>", 400) + `</div>`
	// Past convert's bounds, which the reader parses within: read from
	// the tree, the walk is bounded on its own.
	tree, err := html.Parse(strings.NewReader(page("", body)))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := ReadTree(tree, "https://s.example/")
	if !strings.HasPrefix(p.Article.Headline, "word word") {
		t.Errorf("headline %.40q", p.Article.Headline)
	}
	if got := textOf(&html.Node{Type: html.TextNode, Data: strings.Repeat("x", 1<<20)}); len(got) > maxTextWalk {
		t.Errorf("%d bytes of text read, bound %d", len(got), maxTextWalk)
	}
}

// TestReadPageClassicMicroformats: a theme's microformats 1 classes (an
// hentry with its entry-title, published and author vcard, as WordPress
// themes write them) are read as their microformats2 equivalents.
func TestReadPageClassicMicroformats(t *testing.T) {
	page := `<!doctype html><html><head><title>Tides | Harbour Notes</title></head><body class="blog">
<main><article class="post type-post hentry">
<h1 class="entry-title">Tides and the old pier</h1>
<abbr class="published" title="2021-03-04T10:00:00+00:00">March 4, 2021</abbr>
<span class="author vcard"><a class="url fn" href="/about/">Jo Pier</a></span>
<div class="entry-content"><p>The tide was low.</p></div>
<a rel="tag" href="/tag/tides/">tides</a>
</article></main></body></html>`
	p, err := ReadPage([]byte(page), "text/html", "https://harbour.example/2021/03/tides/")
	if err != nil {
		t.Fatal(err)
	}
	a := p.Article
	if !a.IsArticle || a.Headline != "Tides and the old pier" || !a.Published.Equal(date("2021-03-04T10:00:00Z")) ||
		len(a.Authors) != 1 || a.Authors[0].Name != "Jo Pier" || !strings.Contains(a.BodyHTML, "The tide was low.") ||
		!slices.Contains(a.Keywords, "tides") {
		t.Errorf("article %+v", a)
	}
}
