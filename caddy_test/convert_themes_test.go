package caddytest

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// A bare discovery in front of a small blog whose pages are built as
// themes build them (testdata/sites/themed): a post with the theme's
// author line, word count, neighbour and comment section inside <main>
// and its title three times; a post beside a sidebar of the newest titles
// and a tag cloud, with code highlighted one element a line (with line
// numbers) and the title after a prompt; a post of embedded videos, a
// gist, a clip and a figure, with headings carrying anchors. What an
// agent reads of each post (its Markdown, llms-full.txt, search) is the
// post: the theme's furniture left out, code as the reader sees it, the
// embeds as links, the title once.

// themedPosts are the themed blog's posts.
var themedPosts = []sitePost{
	{"A talk on rock pools", "2024-06-11", "/posts/a-talk-on-rock-pools/", "what lives in the pools below the lighthouse"},
	{"A tide clock in Python", "2024-05-20", "/posts/a-tide-clock-in-python/", "so that I leave the house on time"},
	{"Reading a tide table", "2024-03-04", "/posts/reading-a-tide-table/", "the height column is in metres above chart datum"},
}

// themeFurniture are words only the theme's furniture says: the author
// line and word count, the neighbours' labels, the comment section, the
// sidebar's headings and tag cloud.
var themeFurniture = []string{"tidewatcher", "512 Words", "2024-03-04 07:30", "Newer", "Driftwood", "enable JavaScript",
	"Latest Posts", "Find me here", "Periwinkles", "Tides (3)", "2024-06-11:"}

// TestBareDiscoveryOnThemedPages: the site is read as any site is (its
// person, posts, parity of each page's Markdown with its HTML), and each
// post's Markdown, as an AI crawler gets it and in llms-full.txt, is the
// post and only the post.
func TestBareDiscoveryOnThemedPages(t *testing.T) {
	site, err := filepath.Abs(filepath.Join("testdata", "sites", "themed"))
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://localhost:9381"
	p := startProcess(t, "Caddy", origin, siteCaddyfile(9381, folderSite(origin, site)))
	siteRead(t, p, origin)
	checkSite(t, origin, siteWant{person: "Ilse Varga", posts: themedPosts, original: fromFolder(site)})

	c := newSiteClient(t, origin, net.IPv4(127, 0, 0, 2))
	const python = "from datetime import datetime\n\ndef until(low):\n    return f'<a href=\"/tides/\">{low - datetime.now()}</a> to go'\n"
	for _, tt := range []struct {
		path         string
		want, absent []string
	}{{
		path:   "/posts/reading-a-tide-table/",
		want:   []string{"Mar 4, 2024", "## The columns\n", "those are the mornings for the far pools."},
		absent: []string{"[](", "#the-columns", "* * *"},
	}, {
		path: "/posts/a-tide-clock-in-python/",
		want: []string{"Posted on May 20th, 2024.", "```python\n" + python + "```\n", "```sh\n$ python3 clock.py --port north\n3:12:00 to go\n```\n",
			"as good as the table itself."},
		absent: []string{"~$", "Copy to clipboard"},
	}, {
		path: "/posts/a-talk-on-rock-pools/",
		want: []string{
			"[Video: Rock pools below the lighthouse](https://www.youtube.com/watch?v=Rk4p_0ol-Zs)",
			"[Video: www.youtube.com](https://www.youtube.com/watch?t=1030s&v=Rk4p_0ol-Zs)",
			"[Gist: ilsevarga/5eaf00d](https://gist.github.com/ilsevarga/5eaf00d)",
			"[Video: blenny.mp4](" + origin + "/media/blenny.mp4)",
			"![A beadlet anemone, closed](" + origin + "/media/anemone.jpg)", "A beadlet anemone, closed until the tide returns",
			"## Questions\n", "## The script\n", "## Clips\n",
		},
		absent: []string{"#questions", "\\#", "cannot play", "player"},
	}} {
		t.Run(tt.path, func(t *testing.T) {
			_, md := c.ask(tt.path, "User-Agent", gptBot)
			text := string(md)
			title := ""
			for _, post := range themedPosts {
				if post.path == tt.path {
					title = post.title
				}
			}
			if n := titleLines(text, title); n != 1 {
				t.Errorf("the title %q is said %d times, want once:\n%s", title, n, md)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("no %q in\n%s", w, md)
				}
			}
			for _, a := range append(tt.absent, themeFurniture...) {
				if strings.Contains(text, a) {
					t.Errorf("%q is in\n%s", a, md)
				}
			}
		})
	}

	t.Run("llms-full.txt and search", func(t *testing.T) {
		_, full := c.ask("/llms-full.txt")
		for _, a := range themeFurniture {
			if strings.Contains(string(full), a) {
				t.Errorf("%q, the theme's, is in llms-full.txt", a)
			}
		}
		for _, post := range themedPosts {
			if n := titleLines(string(full), post.title); n != 1 {
				t.Errorf("llms-full.txt says the title %q %d times, want once", post.title, n)
			}
		}
		session := c.mcp()
		for _, word := range []string{"periwinkles", "driftwood", "tidewatcher"} {
			if hits := searchInsights(t, session, word); len(hits) != 0 {
				t.Errorf("search_insights %q, a word of the theme's furniture, finds %v", word, hits)
			}
		}
		if hits := searchInsights(t, session, "datum"); len(hits) != 1 || hits[0].URL != origin+"/posts/reading-a-tide-table/" {
			t.Errorf("search_insights %q: %v, want the post that says it", "datum", hits)
		}
	})
}

// titleLines is how many lines of md say title: a heading of it, or a
// line that is only its words (after a prompt's signs).
func titleLines(md, title string) int {
	n := 0
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "#~$\\ ")
		if strings.EqualFold(line, title) {
			n++
		}
	}
	return n
}
