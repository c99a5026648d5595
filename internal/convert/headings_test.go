package convert

import (
	"context"
	"strings"
	"testing"
)

// TestPageHeadingAnchors: the links themes set in headings to themselves
// (an icon, a sign) are left out, as is any link with no text; a
// heading's link that has words stays.
func TestPageHeadingAnchors(t *testing.T) {
	for _, tt := range []struct {
		name, html   string
		want, absent []string
	}{
		{"an icon hidden from assistive technology", `<h2 id="setup">Setup<a class="anchor" aria-hidden="true" href="#setup"><svg viewBox="0 0 8 8"><path d="M0 0"/></svg></a></h2>`,
			[]string{"## Setup\n"}, []string{"[]", "#setup"}},
		{"an icon", `<h2 id="setup">Setup <a class="anchor-link" href="#setup"></a></h2>`, []string{"## Setup\n"}, []string{"[]", "#setup"}},
		{"a sign after", `<h3 id="use">Use <a class="header-anchor" href="#use">#</a></h3>`, []string{"### Use\n"}, []string{"#use", "\\#"}},
		{"a sign before", `<h3 id="notes"><a href="#notes">¶</a> Notes</h3>`, []string{"### Notes\n"}, []string{"¶"}},
		{"a sign linking the page's address", `<h3 id="more">More <a href="https://example.com/posts/a/#more">🔗</a></h3>`, []string{"### More\n"}, []string{"🔗", "#more"}},
		{"a heading's link with words", `<h2 id="go"><a href="#go">Going further</a></h2>`, []string{"## [Going further](https://example.com/posts/a/#go)"}, nil},
		{"an icon's link in the text", `<p>Follow the <a href="/feed.xml"><svg viewBox="0 0 8 8"><title>RSS</title></svg></a> feed.</p>`, []string{"Follow the feed."}, []string{"[]", "feed.xml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkText(t, convertText(t, "<main>"+tt.html+"<p>Text.</p></main>"), tt.want, tt.absent)
		})
	}
}

// TestTitleSaidOnce: a post's Markdown says its title once. A post whose
// title the caller writes (Post) keeps none of the headings and lines
// that say it before the text, whatever is set before them (a date, a
// prompt sign, the site's name after it); a page (Page) keeps its first
// heading and none of its repeats. A heading that says the title after
// the text has started is the text's.
func TestTitleSaidOnce(t *testing.T) {
	const body = `<p>The first paragraph of the text proper, long enough to be read as the text itself and not as a line of the theme, with more words.</p>`
	for _, tt := range []struct {
		name, title, page string
		// headings is how many headings say the title; kept, what stays.
		headings int
		kept     []string
	}{
		{"the theme's title and the post's own heading, after a date", "Mending a kite", postInMain, 0, []string{"Apr 2, 2024", "ripstop tape"}},
		{"three times, the last with its anchor", "Mending a kite",
			`<main><article><header><p class="meta">Apr 2, 2024</p><h1>Mending a kite</h1></header><div class="content">` +
				`<h1 id="mending-a-kite">Mending a kite<a class="anchor" aria-hidden="true" href="#mending-a-kite"><svg/></a></h1>` + body + `</div></article></main>`, 0, []string{"Apr 2, 2024", "text proper"}},
		{"after a prompt sign, the site's name in the title", "Counting meteors | Night sky", postBesideSidebar, 0, []string{"count for a full hour"}},
		{"a subtitle and a breadcrumb's last step", "Mending a kite",
			`<main><p class="kicker">Mending a kite</p><h1>Mending a kite</h1><div class="crumbs"><span>Mending a kite</span></div>` + body + `</main>`, 0, []string{"text proper"}},
		{"a heading after the text has started", "Mending a kite", `<main>` + body + `<h2>Mending a kite</h2><p>Again.</p></main>`, 1, []string{"text proper", "Again."}},
		{"a page: its first heading kept", "", `<main><header><p>Apr 2, 2024</p><h1>Mending a kite</h1></header><h1>Mending a kite</h1>` + body + `</main>`, 1, []string{"Apr 2, 2024", "text proper"}},
		{"a page: another heading", "", `<main><h1>Mending a kite</h1><h2>Mending a sail</h2>` + body + `</main>`, 1, []string{"## Mending a sail"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Post(context.Background(), []byte(tt.page), "text/html", "https://example.com/posts/a/", tt.title)
			if err != nil {
				t.Fatal(err)
			}
			md := string(c.Markdown)
			title := "Mending a kite"
			if strings.Contains(tt.title, "meteors") {
				title = "Counting meteors"
			}
			n := 0
			for _, line := range strings.Split(md, "\n") {
				if strings.HasPrefix(line, "#") && strings.TrimSpace(strings.TrimLeft(line, "#")) == title || strings.TrimSpace(line) == title {
					n++
				}
			}
			if strings.Contains(md, "~$") {
				n++
			}
			if n != tt.headings {
				t.Errorf("the title is said %d times, want %d:\n%s", n, tt.headings, md)
			}
			checkText(t, md, tt.kept, nil)
		})
	}
}
