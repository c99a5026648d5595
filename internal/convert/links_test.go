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
		{"an escaped bracket is text", `\[not](a-link)`, `\[not](a-link)`},
		{"fenced code", "[a](b)\n\n```md\n[x](y)\n<script>s</script>\n```\n[c](d)\n",
			"[a](https://example.com/insights/b)\n\n```md\n[x](y)\n<script>s</script>\n```\n[c](https://example.com/insights/d)\n"},
		{"a longer fence and tildes", "````\n```\n[x](y)\n````\n~~~\n[z](w)\n~~~\n[c](d)",
			"````\n```\n[x](y)\n````\n~~~\n[z](w)\n~~~\n[c](https://example.com/insights/d)"},
		{"an unclosed fence runs to the end", "```\n[x](y)\n", "```\n[x](y)\n"},
		{"indented code", "[a](b)\n\n    <script>s()</script>\n    <a href=\"/x\">x</a> [c](d)\n\n[e](f)\n",
			"[a](https://example.com/insights/b)\n\n    <script>s()</script>\n    <a href=\"/x\">x</a> [c](d)\n\n[e](https://example.com/insights/f)\n"},
		{"a code span with a link", "`<a href=\"/x\">` [a](/b)", "`<a href=\"/x\">` [a](https://example.com/b)"},
		{"a pre block", "<pre><code>&lt;p&gt;\n<script>s()</script>\n<a href=\"/x\">x</a> [c](d)\n</code></pre>\n\n[e](f)",
			"<pre><code>&lt;p&gt;\n<script>s()</script>\n<a href=\"/x\">x</a> [c](d)\n</code></pre>\n\n[e](https://example.com/insights/f)"},
		{"a pre element in HTML", "<div class=\"x\"><a href=\"/a\">a</a>\n<pre><a href=\"/b\">b</a><script>s()</script></pre>\n<img src=c.png>\n</div>\n",
			"<div class=\"x\"><a href=\"https://example.com/a\">a</a>\n<pre><a href=\"/b\">b</a><script>s()</script></pre>\n<img src=https://example.com/insights/c.png>\n</div>\n"},
		{"Liquid highlight", "[a](b)\n\n{% highlight html %}\n<script src=\"/s.js\"></script>\n<style>p { color: red }</style>\n<a href=\"/x\">[y](z)</a>\n{% endhighlight %}\n\n[c](d)\n",
			"[a](https://example.com/insights/b)\n\n{% highlight html %}\n<script src=\"/s.js\"></script>\n<style>p { color: red }</style>\n<a href=\"/x\">[y](z)</a>\n{% endhighlight %}\n\n[c](https://example.com/insights/d)\n"},
		{"Liquid highlight with whitespace control, in a paragraph", "Text\n{%- highlight js linenos -%}\ndocument.write(\"<script>x()</script>\")\n{%- endhighlight -%}\nmore [c](d)",
			"Text\n{%- highlight js linenos -%}\ndocument.write(\"<script>x()</script>\")\n{%- endhighlight -%}\nmore [c](https://example.com/insights/d)"},
		{"Hugo highlight", "{{< highlight html \"linenos=table\" >}}\n<a href=\"/x\">x</a>\n<script>s()</script>\n{{< /highlight >}}\n<a href=\"/y\">y</a>",
			"{{< highlight html \"linenos=table\" >}}\n<a href=\"/x\">x</a>\n<script>s()</script>\n{{< /highlight >}}\n<a href=\"https://example.com/y\">y</a>"},
		{"a theme's code shortcode", "{{% code lang=\"html\" %}}\n<style>p{}</style> [x](y)\n{{% / code %}}\n[c](d)",
			"{{% code lang=\"html\" %}}\n<style>p{}</style> [x](y)\n{{% / code %}}\n[c](https://example.com/insights/d)"},
		{"a highlight tag never closed is no block", "{% highlight html %}\n[a](b)\n", "{% highlight html %}\n[a](https://example.com/insights/b)\n"},
		{"no tag inside raw", "{% raw %}{% highlight html %}{% endraw %} [a](b) {% endhighlight %}",
			"{% raw %}{% highlight html %}{% endraw %} [a](https://example.com/insights/b) {% endhighlight %}"},
		{"an escaped shortcode is text", "{{</* highlight html */>}}\n[a](b)\n{{</* /highlight */>}}",
			"{{</* highlight html */>}}\n[a](https://example.com/insights/b)\n{{</* /highlight */>}}"},
		{"an unclosed script stops at code", "Text <script>var a;\n\nMore `<b>` after [a](b).\n", "Text `<b>` after [a](https://example.com/insights/b).\n"},
		{"a footnote is no reference definition", "Text[^1].\n\n[^1]: notes.html\n", "Text[^1].\n\n[^1]: notes.html\n"},
		{"a link inside a footnote", "Text[^1].\n\n[^1]: See [the notes](notes.html).\n", "Text[^1].\n\n[^1]: See [the notes](https://example.com/insights/notes.html).\n"},
		{"a reference definition in a list", "- item\n\n  [r]: /r\n", "- item\n\n  [r]: https://example.com/r\n"},
		{"a link across lines", "[a\nb](\n/c)", "[a\nb](\nhttps://example.com/c)"},
		{"a link in a quote", "> [a](b) <a href=c>c</a>", "> [a](https://example.com/insights/b) <a href=https://example.com/insights/c>c</a>"},
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
	for _, seed := range []string{"[a](b)", "``` x\n[a](b)\n```", "<img src=x>", "<script>", "<!--", "[x]: <y", "`` ` ``", "](", "\\",
		"{% highlight html %}\n<a href=x>\n{% endhighlight %}", "<pre>[a](b)\n\n[c](d)</pre>", "[a]({% post_url x %})", "[^1]: a\n", "<div>\n<script>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, md string) {
		got := AbsoluteLinks(md, "https://example.com/a/b", "https://example.com", nil)
		if !strings.ContainsAny(md, "]<") && got != md {
			t.Errorf("%q became %q", md, got)
		}
		// What a fenced block holds is as written, the block put anywhere.
		const code = "\n\n```\n<script>s()</script> [x](y) <a href=\"/z\">\n```\n"
		if fenced := AbsoluteLinks(md+code, "https://example.com/a/b", "https://example.com", nil); !strings.HasSuffix(fenced, code) &&
			!strings.Contains(md, "```") && !strings.Contains(md, "~~~") && !strings.Contains(md, "<") && !strings.Contains(md, "{") && !strings.Contains(md, "    ") && !strings.Contains(md, "\t") {
			t.Errorf("the code after %q became %q", md, fenced)
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

// TestReadBodyDemoted: the body's ATX headings are one level lower, and
// nothing else that begins with "#" is.
func TestReadBodyDemoted(t *testing.T) {
	for _, tt := range []struct{ name, md, want string }{
		{"headings", "# One\n\n## Two [a](b)\n\n###### Six\n", "## One\n\n### Two [a](https://example.com/insights/b)\n\n###### Six\n"},
		{"indented, quoted and closed", "  # A #\n> # B\n", "  ## A #\n> ## B\n"},
		{"a setext heading as written", "Title\n=====\n", "Title\n=====\n"},
		{"a hashtag", "#hashtag and #1\n", "#hashtag and #1\n"},
		{"code", "```sh\n# comment\n```\n\n    # indented\n\n{% highlight sh %}\n# comment\n{% endhighlight %}\n\n<pre>\n# pre\n</pre>\n",
			"```sh\n# comment\n```\n\n    # indented\n\n{% highlight sh %}\n# comment\n{% endhighlight %}\n\n<pre>\n# pre\n</pre>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadBodyDemoted(tt.md).Absolute("https://example.com/insights/post", "https://example.com", nil); got != tt.want {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
