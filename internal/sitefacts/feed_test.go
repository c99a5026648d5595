package sitefacts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// date is a UTC time for the tables.
func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// sameFeed reports how got differs from want; a want item's ContentHTML is
// a prefix of the body expected.
func sameFeed(got, want *Feed) string {
	g, w := *got, *want
	g.Items, w.Items = nil, nil
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("feed\n got %+v\nwant %+v", g, w)
	}
	if len(got.Items) != len(want.Items) {
		return fmt.Sprintf("%d items, want %d", len(got.Items), len(want.Items))
	}
	for i := range want.Items {
		gi, wi := got.Items[i], want.Items[i]
		// The instant compared, not the offset: a time keeps the one the
		// feed wrote it in.
		gi.Published, gi.Updated = inUTC(gi.Published), inUTC(gi.Updated)
		if !strings.HasPrefix(gi.ContentHTML, wi.ContentHTML) || (wi.ContentHTML == "") != (gi.ContentHTML == "") {
			return fmt.Sprintf("item %d: content %q, want it to begin %q", i, gi.ContentHTML, wi.ContentHTML)
		}
		gi.ContentHTML, wi.ContentHTML = "", ""
		if !reflect.DeepEqual(gi, wi) {
			return fmt.Sprintf("item %d\n got %+v\nwant %+v", i, gi, wi)
		}
	}
	return ""
}

// TestParseFeedGenerators: the feeds real generators write, each read into
// the same shape.
func TestParseFeedGenerators(t *testing.T) {
	for _, tc := range []struct {
		name, file, contentType, url string
		want                         Feed
	}{
		{
			name: "WordPress 6 RSS 2.0 with content:encoded, dc:creator and categories",
			file: "wordpress-rss2.xml", contentType: "application/rss+xml; charset=UTF-8", url: "https://notes.example.org/feed/",
			want: Feed{
				Title: "Field Notes", Description: "Marta Lind writes about gardens & code", Home: "https://notes.example.org",
				Generator: "https://wordpress.org/?v=6.1.9",
				Items: []FeedItem{{
					Link:        "https://notes.example.org/2024/05/why-i-dont-prune-in-march/",
					Title:       "Why I don’t prune in March",
					Published:   date("2024-05-14T08:12:36Z"),
					Summary:     "Pruning early looks tidy, but the frost has other plans. Here is what three winters taught me … Continue reading",
					ContentHTML: "<p>Pruning early looks tidy, but the frost has other plans.</p>",
					Categories:  []string{"Gardening", "Seasons"},
					Authors:     []string{"Marta Lind"},
				}, {
					Link:        "https://notes.example.org/2024/04/mishaps/",
					Title:       "A <script> tag in a title & other mishaps", // escaped text in RSS: text, never markup
					Published:   date("2024-04-03T19:01:02Z"),
					Summary:     "Escaping is hard …",
					ContentHTML: "<p>Escaping is hard.</p>",
					Categories:  []string{"Code"},
					Authors:     []string{"Marta Lind"},
				}},
			},
		},
		{
			name: "WordPress's second page (?paged=2)",
			file: "wordpress-rss2-paged2.xml", url: "https://notes.example.org/feed/?paged=2",
			want: Feed{
				Title: "Field Notes", Description: "Marta Lind writes about gardens & code", Home: "https://notes.example.org",
				Generator: "https://wordpress.org/?v=6.1.9",
				Items: []FeedItem{{
					Link: "https://notes.example.org/2023/11/seed-swaps/", Title: "Seed swaps", Published: date("2023-11-18T10:00:00Z"),
					Summary: "Bring a jar.", ContentHTML: "<p>Bring a jar, take a jar.</p>", Categories: []string{"Gardening"}, Authors: []string{"Marta Lind"},
				}},
			},
		},
		{
			name: "jekyll-feed Atom: html titles, CDATA content with xml:base, category terms",
			file: "jekyll-feed.xml", url: "https://sam.example.net/feed.xml",
			want: Feed{
				Title: "Sam Okafor", Description: "Notes on distributed systems and the odd recipe.", Home: "https://sam.example.net/",
				Authors: []string{"Sam Okafor"}, Generator: "Jekyll",
				Items: []FeedItem{{
					Link: "https://sam.example.net/2024/03/09/clocks.html", Title: "Clocks are <b>hard</b>", // the HTML title shows the tag as text
					Published: date("2024-03-09T00:00:00Z"), Updated: date("2024-03-09T00:00:00Z"),
					Summary:     "Every node has its own idea of now.",
					ContentHTML: "<p>Every node has its own idea of <em>now</em>.</p>",
					Categories:  []string{"distributed", "time"}, Authors: []string{"Sam Okafor"},
				}, {
					Link: "https://sam.example.net/2023/12/01/lamport.html", Title: "Lamport, slowly",
					Published: date("2023-12-01T00:00:00Z"), Updated: date("2023-12-02T09:30:00Z"),
					Summary: "Happened-before, read slowly.", ContentHTML: "<p>Happened-before, read slowly.</p>",
					Categories: []string{"distributed"}, Authors: []string{"Sam Okafor"},
				}},
			},
		},
		{
			name: "Hugo's index.xml: escaped HTML summaries, a page with Hugo's zero date",
			file: "hugo-index.xml", url: "https://anaruiz.example/index.xml",
			want: Feed{
				Title: "Ana Ruiz", Description: "Recent content on Ana Ruiz", Home: "https://anaruiz.example/", Generator: "Hugo",
				Items: []FeedItem{{
					Link: "https://anaruiz.example/posts/type-safe-sql/", Title: "Type-safe SQL in Go", Published: date("2024-02-05T17:30:00Z"),
					Summary: "Generics meet database/sql: Vec<T> envy, cured.",
				}, {
					Link: "https://anaruiz.example/about/", Title: "About", Summary: "I write software.",
				}},
			},
		},
		{
			name: "Eleventy's Atom: xml:base on the feed and an entry, relative links, text content",
			file: "eleventy-atom.xml", url: "https://lee.example.dev/feed.xml",
			want: Feed{
				Title: "Lee's Log", Description: "Small notes, often late.", Home: "https://lee.example.dev/", Authors: []string{"Lee Park"},
				Items: []FeedItem{{
					Link: "https://lee.example.dev/blog/tabs-finally/", Title: "Tabs, finally",
					Published: date("2024-06-03T00:00:00Z"), Updated: date("2024-06-03T00:00:00Z"),
					ContentHTML: `<p>I switched to tabs. See <a href="https://lee.example.dev/blog/spaces/">spaces</a>.</p>`,
				}, {
					Link: "https://lee.example.dev/blog/plain-text/", Title: "Plain text & proud",
					Published: date("2024-05-01T12:00:00Z"), Updated: date("2024-05-01T12:00:00Z"),
					ContentHTML: "<p>Line one &lt;b&gt; stays text.</p>\n<p>Second paragraph.</p>",
				}},
			},
		},
		{
			name: "@astrojs/rss: guid as the address, RSS author, misspelt weekday, zone names, a relative link",
			file: "astro-rss.xml", url: "https://priya.example.io/rss.xml",
			want: Feed{
				Title: "Priya Shah", Description: "Design engineering notes", Home: "https://priya.example.io/",
				Items: []FeedItem{{
					Link: "https://priya.example.io/blog/container-queries/", Title: "Container queries in practice",
					Published: date("2024-01-10T00:00:00Z"), Summary: "Where they help and where they do not.",
					ContentHTML: "<p>Where they help.</p>", Categories: []string{"css", "layout"}, Authors: []string{"Priya Shah"},
				}, {
					Link: "https://priya.example.io/blog/guid-only/", Title: "No link, guid is the address",
					Published: date("2024-01-04T17:00:00Z"), Summary: "Relative",
				}, {
					Link: "https://priya.example.io/blog/relative/", Title: "Relative link", Published: date("2024-01-02T10:00:00Z"),
				}},
			},
		},
		{
			name: "JSON Feed 1.1: authors, content_html, tags, next_url, content_text escaped",
			file: "jsonfeed-1.1.json", contentType: "application/feed+json", url: "https://noor.example.com/feed.json",
			want: Feed{
				Title: "Noor's notebook", Description: "Essays on cities", Home: "https://noor.example.com/",
				Authors: []string{"Noor Haddad"}, Next: "https://noor.example.com/feed.json?page=2",
				Items: []FeedItem{{
					Link: "https://noor.example.com/essays/bus-lanes/", Title: "Bus lanes are a promise",
					Published: date("2024-02-20T13:00:00Z"), Updated: date("2024-02-21T15:15:00Z"),
					Summary: "On promises painted red.", ContentHTML: "<p>A lane painted red is a promise the city makes.</p>",
					Categories: []string{"transit", "streets"}, Authors: []string{"Noor Haddad"},
				}, {
					Link: "https://noor.example.com/notes/short/", Published: date("2024-02-19T00:00:00Z"),
					ContentHTML: "<p>A short note with &lt;no&gt; markup.</p>\n<p>And a second paragraph.</p>",
				}},
			},
		},
		{
			name: "RFC 5005 paged Atom: rel=next, the alternate link preferred to edit and JSON ones",
			file: "atom-paged.xml", url: "https://paged.example/feed.atom",
			want: Feed{
				Title: "Paged", Home: "https://paged.example/", Next: "https://paged.example/feed.atom?page=2",
				Items: []FeedItem{{
					Link: "https://paged.example/one/", Title: "One",
					Published: date("2024-01-01T10:00:00Z"), Updated: date("2024-01-01T10:00:00Z"), Categories: []string{"Ex"},
				}},
			},
		},
		{
			name: "RFC 5005 complete feed with a prev-archive link; an entry with no alternate link",
			file: "atom-archive.xml", url: "https://archive.example/feed.atom",
			want: Feed{
				Title: "Complete", Next: "https://archive.example/2023.atom", Complete: true,
				Items: []FeedItem{{
					Link: "https://archive.example/only/", Title: "Only",
					Published: date("2023-12-31T23:59:59Z"), Updated: date("2023-12-31T23:59:59Z"),
				}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/feeds/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseFeed(data, tc.contentType, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameFeed(got, &tc.want); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// rssDoc is an RSS document with the items given.
func rssDoc(items string) string {
	return `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://s.example/</link>` + items + `</channel></rss>`
}

// bomb is an entity bomb with an external entity.
const bomb = `<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<rss version="2.0"><channel><title>&lol9;</title><item><title>&lol9;&xxe;</title><link>https://s.example/a/</link><description>&lol9;</description></item></channel></rss>`

// TestParseFeedHostile: what a site may serve by mistake or malice is read
// within bounds or refused, never expanded, never a panic.
func TestParseFeedHostile(t *testing.T) {
	many := func(n int, item string) string { return strings.Repeat(item, n) }
	for _, tc := range []struct {
		name, data, contentType string
		wantErr                 error // nil: no error; errAny: some error
		check                   func(t *testing.T, f *Feed)
	}{
		{
			// What follows the cut is never parsed: here a document that never ends.
			name: "more items than MaxFeedItems: the first ones, the document closed where it was cut",
			data: `<rss version="2.0"><channel><title>T</title>` + many(MaxFeedItems+500, `<item><title>x</title><link>https://s.example/p/</link></item>`) + `<item><title>never ends`,
			check: func(t *testing.T, f *Feed) {
				if len(f.Items) != MaxFeedItems {
					t.Errorf("%d items, want %d", len(f.Items), MaxFeedItems)
				}
			},
		},
		{
			name: "more Atom entries than MaxFeedItems",
			data: `<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>` + many(MaxFeedItems, `<entry><title>e</title><link href="https://s.example/e/"/></entry>`) + `<entry><title>never ends`,
			check: func(t *testing.T, f *Feed) {
				if len(f.Items) != MaxFeedItems || f.Items[MaxFeedItems-1].Link != "https://s.example/e/" {
					t.Errorf("%d items", len(f.Items))
				}
			},
		},
		{
			name: "more JSON Feed items than MaxFeedItems",
			data: `{"version":"https://jsonfeed.org/version/1.1","items":[` + strings.TrimSuffix(many(MaxFeedItems+10, `{"url":"https://s.example/j/"},`), ",") + `],"title":"after the items"}`,
			check: func(t *testing.T, f *Feed) {
				if len(f.Items) != MaxFeedItems || f.Title != "after the items" {
					t.Errorf("%d items, title %q", len(f.Items), f.Title)
				}
			},
		},
		{
			name:    "elements nested deeper than MaxFeedDepth",
			data:    rssDoc(`<item><x:a xmlns:x="urn:x">` + many(MaxFeedDepth, "<x:a>") + many(MaxFeedDepth+1, "</x:a>") + `</item>`),
			wantErr: errAny,
		},
		{
			name: "more namespaces in scope than MaxFeedNamespaces",
			data: func() string {
				var b strings.Builder
				b.WriteString(`<rss version="2.0"`)
				for i := 0; i <= MaxFeedNamespaces; i++ {
					fmt.Fprintf(&b, ` xmlns:n%d="urn:n%d"`, i, i)
				}
				return b.String() + `><channel><title>T</title></channel></rss>`
			}(),
			wantErr: errAny,
		},
		{
			name: "scripts and markup in titles and summaries come back as text",
			data: rssDoc(`<item><title><![CDATA[<script>alert(1)</script><b>Bold</b> move]]></title><link>https://s.example/b/</link>` +
				`<description><![CDATA[<style>p{}</style><p onclick="x()">One</p><p>two</p>]]></description></item>`),
			check: func(t *testing.T, f *Feed) {
				if it := f.Items[0]; it.Title != "Bold move" || it.Summary != "One two" {
					t.Errorf("title %q, summary %q", it.Title, it.Summary)
				}
			},
		},
		{
			name: "relative, protocol-relative, javascript: and over-long links",
			data: rssDoc(`<item><link>/rel/</link></item><item><link>//cdn.example/p</link></item><item><link>javascript:alert(1)</link></item>` +
				`<item><link>https://s.example/` + strings.Repeat("a", MaxURLBytes) + `</link></item><item><link>https://s.example/frag/#top</link></item>`),
			check: func(t *testing.T, f *Feed) {
				var links []string
				for _, it := range f.Items {
					links = append(links, it.Link)
				}
				want := []string{"https://s.example/rel/", "https://cdn.example/p", "", "", "https://s.example/frag/"}
				if !reflect.DeepEqual(links, want) {
					t.Errorf("links %q, want %q", links, want)
				}
			},
		},
		{
			name: "invalid and absent dates are zero",
			data: rssDoc(`<item><pubDate>yesterday</pubDate></item><item><pubDate>Mon, 45 Foo 2024 99:99:99 +0000</pubDate></item><item></item>`),
			check: func(t *testing.T, f *Feed) {
				for i, it := range f.Items {
					if !it.Published.IsZero() {
						t.Errorf("item %d: %v", i, it.Published)
					}
				}
			},
		},
		{
			name:        "a feed in windows-1252, as declared",
			data:        "<?xml version=\"1.0\" encoding=\"windows-1252\"?><rss version=\"2.0\"><channel><title>Caf\xe9 \x93quotes\x94</title></channel></rss>",
			contentType: "text/xml",
			check: func(t *testing.T, f *Feed) {
				if f.Title != "Café “quotes”" {
					t.Errorf("title %q", f.Title)
				}
			},
		},
		{
			name: "a feed in UTF-16 with its byte order mark",
			data: utf16LE(`<?xml version="1.0" encoding="UTF-16"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Grüße</title></feed>`),
			check: func(t *testing.T, f *Feed) {
				if f.Title != "Grüße" {
					t.Errorf("title %q", f.Title)
				}
			},
		},
		{
			name: "control characters and invalid UTF-8",
			data: rssDoc("<item><title>a\x01b\xffc</title></item>"),
			check: func(t *testing.T, f *Feed) {
				if f.Items[0].Title != "ab\uFFFDc" {
					t.Errorf("title %q", f.Items[0].Title)
				}
			},
		},
		{
			name: "over-long titles and descriptions are cut",
			data: rssDoc(`<item><title>` + strings.Repeat("é", 1000) + `</title><description>` + strings.Repeat("word ", 1000) + `</description></item>`),
			check: func(t *testing.T, f *Feed) {
				it := f.Items[0]
				if n := len([]rune(it.Title)); n != MaxTitleRunes || !strings.HasSuffix(it.Title, "…") {
					t.Errorf("title of %d runes", n)
				}
				if n := len([]rune(it.Summary)); n > MaxDescriptionRunes {
					t.Errorf("summary of %d runes", n)
				}
			},
		},
		{name: "an HTML page", data: "<!DOCTYPE html><html><head><title>x</title></head></html>", wantErr: ErrNotFeed},
		{name: "JSON that is not a feed", data: `{"version":"1.0","items":[]}`, wantErr: ErrNotFeed},
		{name: "WordPress's REST API", data: `[{"id":1,"link":"https://s.example/"}]`, wantErr: ErrNotFeed},
		{name: "a sitemap", data: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://s.example/</loc></url></urlset>`, wantErr: ErrNotFeed},
		{name: "nothing", data: "", wantErr: ErrNotFeed},
		{name: "text", data: "just words", wantErr: ErrNotFeed},
		{name: "a truncated feed", data: `<rss version="2.0"><channel><title>T</title><item><title>cut`, wantErr: errAny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFeed([]byte(tc.data), tc.contentType, "https://s.example/feed/")
			switch {
			case tc.wantErr == errAny && err == nil:
				t.Fatalf("no error; read %+v", f)
			case tc.wantErr == errAny:
				return
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			case tc.wantErr != nil:
				return
			case err != nil:
				t.Fatal(err)
			}
			tc.check(t, f)
		})
	}
}

// errAny stands for any error in the tables.
var errAny = errors.New("any error")

// utf16LE is s encoded as UTF-16, little endian, after a byte order mark.
func utf16LE(s string) string {
	var b bytes.Buffer
	b.WriteString("\xff\xfe")
	for _, r := range s {
		if r > 0xffff {
			panic("outside the BMP")
		}
		b.WriteByte(byte(r))
		b.WriteByte(byte(r >> 8))
	}
	return b.String()
}

// TestParseTime: dates as sites write them.
func TestParseTime(t *testing.T) {
	for in, want := range map[string]string{
		"2024-03-09T10:20:30Z":             "2024-03-09T10:20:30Z",
		"2024-03-09T10:20:30.123+02:00":    "2024-03-09T08:20:30.123Z",
		"2024-03-09T10:20:30+0200":         "2024-03-09T08:20:30Z",
		"2024-03-09T10:20:30":              "2024-03-09T10:20:30Z",
		"2024-03-09T10:20+01:00":           "2024-03-09T09:20:00Z",
		"2024-03-09T10:20":                 "2024-03-09T10:20:00Z",
		"2024-03-09 10:20:30":              "2024-03-09T10:20:30Z",
		"2024-03-09 10:20:30 +0100":        "2024-03-09T09:20:30Z",
		"2024-03-09 10:20:30 +0000 UTC":    "2024-03-09T10:20:30Z",
		"2024-03-09":                       "2024-03-09T00:00:00Z",
		"2024-03":                          "2024-03-01T00:00:00Z",
		"Sat, 09 Mar 2024 10:20:30 +0000":  "2024-03-09T10:20:30Z",
		"Sat, 09 Mar 2024 10:20:30 GMT":    "2024-03-09T10:20:30Z",
		"Sat, 9 Mar 2024 10:20 EST":        "2024-03-09T15:20:00Z",
		"Saturday, 09 Mar 2024 10:20:30 Z": "2024-03-09T10:20:30Z",
		"Tues, 05 Mar 2024 10:20:30 +0000": "2024-03-05T10:20:30Z",
		"Sat 09 Mar 2024 10:20:30 UT":      "2024-03-09T10:20:30Z",
		"09 Sept 2024 10:20:30 +0000":      "2024-09-09T10:20:30Z",
		"Sat, 09 Mar 24 10:20:30 +0000":    "2024-03-09T10:20:30Z",
		"Sat, 09 Mar 2024 10:20:30 XYZ":    "2024-03-09T10:20:30Z",
		"Sat Mar 09 2024 10:20:30 GMT+0100 (Central European Standard Time)": "2024-03-09T09:20:30Z",
		"March 9, 2024":             "2024-03-09T00:00:00Z",
		"Mar 9, 2024 3:04 p.m.":     "2024-03-09T15:04:00Z",
		"9 March 2024":              "2024-03-09T00:00:00Z",
		"":                          "",
		"yesterday":                 "",
		"0001-01-01T00:00:00Z":      "",
		"2024-13-45":                "",
		strings.Repeat("2024 ", 40): "",
	} {
		got := parseTime(in)
		if (want == "") != got.IsZero() || (want != "" && !got.Equal(date(want))) {
			t.Errorf("%q: %v, want %q", in, got, want)
		}
	}
}

// checkURL fails t unless u is "" or an absolute http(s) URL within
// MaxURLBytes, without a fragment.
func checkURL(t *testing.T, what, u string) {
	t.Helper()
	if u == "" {
		return
	}
	if len(u) > MaxURLBytes || strings.Contains(u, "#") || (!strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://")) {
		t.Errorf("%s: %q is not an absolute http(s) URL within bounds", what, u)
	}
}

// checkText fails t unless s is one line of at most max runes.
func checkText(t *testing.T, what, s string, max int) {
	t.Helper()
	if n := len([]rune(s)); n > max || strings.ContainsAny(s, "\n\t") || s != strings.TrimSpace(s) {
		t.Errorf("%s: %q (%d runes) is not one trimmed line of at most %d runes", what, s, n, max)
	}
}

// checkTime fails t unless tm is zero or of a year a page may carry.
func checkTime(t *testing.T, what string, tm time.Time) {
	t.Helper()
	if !tm.IsZero() && !validYear(tm) {
		t.Errorf("%s: %v is not a time of a year a page may carry", what, tm)
	}
}

// inUTC is t in UTC, the zero time as it is.
func inUTC(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// checkFeed fails t where f is outside the bounds ParseFeed promises.
func checkFeed(t *testing.T, f *Feed) {
	checkText(t, "title", f.Title, MaxTitleRunes)
	checkText(t, "description", f.Description, MaxDescriptionRunes)
	checkURL(t, "home", f.Home)
	checkURL(t, "next", f.Next)
	if len(f.Items) > MaxFeedItems || len(f.Authors) > MaxAuthors {
		t.Errorf("%d items, %d authors", len(f.Items), len(f.Authors))
	}
	for _, it := range f.Items {
		checkURL(t, "link", it.Link)
		checkText(t, "item title", it.Title, MaxTitleRunes)
		checkText(t, "summary", it.Summary, MaxDescriptionRunes)
		checkTime(t, "published", it.Published)
		checkTime(t, "updated", it.Updated)
		if len(it.Categories) > MaxKeywords || len(it.Authors) > MaxAuthors {
			t.Errorf("%d categories, %d authors", len(it.Categories), len(it.Authors))
		}
		for _, c := range it.Categories {
			checkText(t, "category", c, MaxNameRunes)
		}
	}
}

// FuzzParseFeed: no input makes ParseFeed panic or return what is outside
// its bounds. The seeds are the fixtures and testdata/fuzz/FuzzParseFeed.
func FuzzParseFeed(f *testing.F) {
	files, _ := os.ReadDir("testdata/feeds")
	for _, file := range files {
		data, err := os.ReadFile("testdata/feeds/" + file.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "")
	}
	f.Fuzz(func(t *testing.T, data []byte, contentType string) {
		feed, err := ParseFeed(data, contentType, "https://s.example/feed/")
		if err != nil {
			return
		}
		checkFeed(t, feed)
	})
}

// BenchmarkParseFeed: a WordPress RSS feed of 200 posts with their bodies
// (about 600 KB).
func BenchmarkParseFeed(b *testing.B) {
	var feed strings.Builder
	feed.WriteString(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Field Notes</title><link>https://notes.example.org</link><description>Notes</description><generator>https://wordpress.org/?v=6.1.9</generator>`)
	body := strings.Repeat("<p>Pruning early looks tidy, but the frost has <em>other plans</em>; see <a href=\"https://notes.example.org/x/\">this</a>.</p>\n", 20)
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&feed, `<item><title>Post number %d &#8211; on pruning</title><link>https://notes.example.org/2024/05/post-%d/</link><dc:creator><![CDATA[Marta Lind]]></dc:creator><pubDate>Tue, 14 May 2024 08:12:36 +0000</pubDate><category><![CDATA[Gardening]]></category><category><![CDATA[Seasons]]></category><guid isPermaLink="false">https://notes.example.org/?p=%d</guid><description><![CDATA[<p>Pruning early looks tidy &#8230;</p>]]></description><content:encoded><![CDATA[%s]]></content:encoded></item>`, i, i, i, body)
	}
	feed.WriteString(`</channel></rss>`)
	data := []byte(feed.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := ParseFeed(data, "application/rss+xml", "https://notes.example.org/feed/")
		if err != nil || len(f.Items) != 200 {
			b.Fatal(err)
		}
	}
}

// TestParseFeedRefusesEntities: a feed whose document type declares
// entities (an entity bomb, an external entity) is refused whole, at
// once, and none of it expanded.
func TestParseFeedRefusesEntities(t *testing.T) {
	for name, data := range map[string]string{
		"bomb":     bomb,
		"external": `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&xxe;</title></channel></rss>`,
	} {
		t.Run(name, func(t *testing.T) {
			f, err := ParseFeed([]byte(data), "application/rss+xml", "https://s.example/feed.xml")
			if !errors.Is(err, ErrEntities) || f != nil {
				t.Errorf("ParseFeed = %v, %v; want ErrEntities", f, err)
			}
		})
	}
}
