package convert

import (
	"strings"
	"testing"
)

func TestAbsoluteLinks(t *testing.T) {
	const page, base = "https://example.com/insights/post", "https://example.com"
	for _, tt := range []struct {
		name, md, want string
	}{
		{"prose", "No links here.\n", "No links here.\n"},
		{"inline link", "See [the other](other-post) and [root](/about).",
			"See [the other](https://example.com/insights/other-post) and [root](https://example.com/about)."},
		{"image with a title", `![A chart](img/chart.png "The chart")`, `![A chart](https://example.com/insights/img/chart.png "The chart")`},
		{"up a level", "[up](../x)", "[up](https://example.com/x)"},
		{"fragment", "[part](#part)", "[part](https://example.com/insights/post#part)"},
		{"angle brackets", "[a](<my file.pdf>)", "[a](<https://example.com/insights/my%20file.pdf>)"},
		{"parentheses in the destination", "[w](wiki/Go_(language)) after", "[w](https://example.com/insights/wiki/Go_(language)) after"},
		{"absolute ones as they are", "[a](https://example.org/x) [m](mailto:a@example.com) [p](//cdn.example.net/x.js)",
			"[a](https://example.org/x) [m](mailto:a@example.com) [p](https://cdn.example.net/x.js)"},
		{"a link in the text of a link", "[![logo](logo.png)](/home)", "[![logo](https://example.com/insights/logo.png)](https://example.com/home)"},
		{"reference definitions", "[a][1]\n\n[1]: /docs \"Docs\"\n  [two]: <two.html>\n",
			"[a][1]\n\n[1]: https://example.com/docs \"Docs\"\n  [two]: <https://example.com/insights/two.html>\n"},
		{"a footnote is no definition", "Text[^1].\n\n[^1]: Some note.\n", "Text[^1].\n\n[^1]: Some note.\n"},
		{"HTML attributes", `<img src="/a.png" alt="a"> <a href='b.html'>b</a> <img src=c.png>`,
			`<img src="https://example.com/a.png" alt="a"> <a href='https://example.com/insights/b.html'>b</a> <img src=https://example.com/insights/c.png>`},
		{"other attributes alone", `<img data-src="x.png" srcset="y.png 2x">`, `<img data-src="x.png" srcset="y.png 2x">`},
		{"autolink", "<https://example.org/x> and a < b", "<https://example.org/x> and a < b"},
		{"script and style dropped", "Before.\n\n<script>alert(\"[x](y)\")</script>\n<STYLE type=\"text/css\">\np { color: red }\n</STYLE>\nAfter.",
			"Before.\n\n\n\nAfter."},
		{"an unclosed script drops the rest", "Before. <script>var a = 1;\nmore", "Before. "},
		{"not a script", "<scripts> and <stylesheet>", "<scripts> and <stylesheet>"},
		{"comment kept", "<!-- [x](y) <img src=z> -->", "<!-- [x](y) <img src=z> -->"},
		{"code span", "Use `[x](y)` or ``a ` [b](c)`` then [d](e)", "Use `[x](y)` or ``a ` [b](c)`` then [d](https://example.com/insights/e)"},
		{"code span with a script", "`<script>x</script>`", "`<script>x</script>`"},
		{"unclosed backticks", "``` not a fence` [a](b)", "``` not a fence` [a](https://example.com/insights/b)"},
		{"escaped bracket", `\[not](a-link)`, `\[not](https://example.com/insights/a-link)`},
		{"fenced code", "[a](b)\n\n```md\n[x](y)\n<script>s</script>\n```\n[c](d)\n",
			"[a](https://example.com/insights/b)\n\n```md\n[x](y)\n<script>s</script>\n```\n[c](https://example.com/insights/d)\n"},
		{"a longer fence and tildes", "````\n```\n[x](y)\n````\n~~~\n[z](w)\n~~~\n[c](d)",
			"````\n```\n[x](y)\n````\n~~~\n[z](w)\n~~~\n[c](https://example.com/insights/d)"},
		{"an unclosed fence runs to the end", "```\n[x](y)\n", "```\n[x](y)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := AbsoluteLinks(tt.md, page, base, nil); got != tt.want {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// FuzzAbsoluteLinks: any body is rewritten without a panic, and a body
// with nothing to rewrite is left as it is.
func FuzzAbsoluteLinks(f *testing.F) {
	for _, seed := range []string{"[a](b)", "``` x\n[a](b)\n```", "<img src=x>", "<script>", "<!--", "[x]: <y", "`` ` ``", "](", "\\"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, md string) {
		got := AbsoluteLinks(md, "https://example.com/a/b", "https://example.com", nil)
		if !strings.ContainsAny(md, "]<") && got != md {
			t.Errorf("%q became %q", md, got)
		}
	})
}

// TestPostTags: a Jekyll tag naming another post becomes that post's
// address; one naming no post the content has stays as written.
func TestPostTags(t *testing.T) {
	post := func(name string) (string, bool) {
		if name == "2015-05-21-late-night" || name == "_posts/2015-05-21-late-night.md" {
			return "https://example.com/2015/05/22/late-night/", true
		}
		return "", false
	}
	for md, want := range map[string]string{
		"See the [earlier note]({% post_url 2015-05-21-late-night %}) for context.": "See the [earlier note](https://example.com/2015/05/22/late-night/) for context.",
		"See [it]({{ site.baseurl }}{% post_url 2015-05-21-late-night %}).":         "See [it](https://example.com/2015/05/22/late-night/).",
		"See [it]({% link _posts/2015-05-21-late-night.md %}).":                     "See [it](https://example.com/2015/05/22/late-night/).",
		"See [it]({%- post_url 2015-05-21-late-night -%}).":                         "See [it](https://example.com/2015/05/22/late-night/).",
		"See [gone]({% post_url 2001-01-01-gone %}).":                               "See [gone]({% post_url 2001-01-01-gone %}).",
		"[a](x)\n```\n[it]({% post_url 2015-05-21-late-night %})\n```\n":            "[a](https://example.com/2015/06/linker/x)\n```\n[it]({% post_url 2015-05-21-late-night %})\n```\n",
	} {
		if got := AbsoluteLinks(md, "https://example.com/2015/06/linker/", "https://example.com", post); got != want {
			t.Errorf("%q:\n got %q\nwant %q", md, got, want)
		}
	}

}
