package content

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/internal/markdown"
)

func TestSummarize(t *testing.T) {
	sentence := "This sentence is exactly fifty characters long ok."
	tests := []struct {
		name string
		body string
		want string
	}{
		{"one short paragraph", "A short paragraph.\n", "A short paragraph."},
		{"lines of a paragraph joined", "First line\nsecond line.\n\nNext paragraph.", "First line second line."},
		{"headings, images, shortcodes and comments passed over",
			"# Title\n\n![cover](cover.png)\n\n{{< figure src=\"a.png\" >}}\n\n<!--\nnote\n-->\n\n{% include toc.html %}\n\nThe text.\n",
			"The text."},
		{"setext heading passed over", "Title\n=====\n\nThe text.\n", "The text."},
		{"code, HTML blocks, lists, quotes and tables passed over",
			"```go\nfmt.Println()\n```\n\n    indented code\n\n<div class=\"note\">\nHTML\n</div>\n\n- a list\n- item\n\n> a quote\n\n| a | b |\n|---|---|\n\n---\n\nThe text.\n",
			"The text."},
		{"inline Markdown to plain text",
			"Some **bold**, *emphasis*, _underscore_ and `<code>`, a [link](https://example.com) and ![an image](a.png) [^1], a snake_case_name &amp; <em>HTML</em>.",
			"Some bold, emphasis, underscore and <code>, a link and , a snake_case_name & HTML."},
		{"reference links and autolinks", "See [the docs][docs] or <https://example.com>.", "See the docs or https://example.com."},
		{"a link whose destination has parentheses", "The first note names a [thing](https://example.org/wiki/Thing_(sense)) and moves on.",
			"The first note names a thing and moves on."},
		{"a destination in double parentheses", "Use [aspect.js]((https://example.org/aspect)) today.", "Use aspect.js today."},
		{"a greeting runs on into the next paragraph", "Hi!\n\nThis post is about the reasons a short first paragraph describes nothing.\n\nMore.",
			"Hi! This post is about the reasons a short first paragraph describes nothing."},
		{"cut after the last sentence that fits",
			strings.Repeat(sentence+" ", 3) + "And then a sentence that does not fit in the limit at all.",
			strings.Repeat(sentence+" ", 2) + sentence},
		{"a sentence ending in a quote", strings.Repeat("word ", 20) + "said \"stop.\" " + strings.Repeat("more ", 40),
			strings.Repeat("word ", 20) + "said \"stop.\""},
		{"cut at a word with an ellipsis when no sentence ends in time",
			strings.Repeat("abcdefghi ", 30), strings.TrimSpace(strings.Repeat("abcdefghi ", 20)) + "…"},
		{"kramdown attribute lists and extensions passed over",
			"{::options parse_block_html=\"true\" /}\n\n* TOC\n{:toc}\n\n{::comment}\nA note to self.\n{:/comment}\n\nThe lead paragraph of the post.\n{: .lead}\n\nMore.\n",
			"The lead paragraph of the post."},
		{"an inline attribute list", "Some *text*{: .x} and a [link](/a){:target=\"_blank\"}.", "Some text and a link."},
		{"a kramdown comment on one line", "{::comment}hidden{:/comment}\n\nThe text.\n", "The text."},
		{"table of contents markers passed over", "[[toc]]\n\n[TOC]\n\n[[_TOC_]]\n\nThe text.\n", "The text."},
		{"Liquid highlight and comment blocks passed over",
			"{% highlight go %}\nfmt.Println()\n{% endhighlight %}\n\n{%- comment -%}\nNot yet.\n{%- endcomment -%}\n\nThe text.\n",
			"The text."},
		{"Hugo highlight shortcode block passed over", "{{< highlight go >}}\nfmt.Println()\n{{< /highlight >}}\n\nThe text.\n", "The text."},
		{"template tags inside a paragraph",
			"Hello {{ site.title }} readers, {% if a %}now{% endif %} press {{< kbd Enter >}} or see {{% ref \"x\" %}}.",
			"Hello readers, now press or see ."},
		{"HTML comments inside a paragraph", "The text <!-- a note --> goes on.<!-- unclosed", "The text goes on."},
		{"HTML entities decoded", "Tom &amp; Jerry&#39;s&nbsp;show &ndash; &lt;live&gt;.", "Tom & Jerry's show – <live>."},
		{"a paragraph with no text passed over", "<span></span>\n\nThe text.\n", "The text."},
		{"the text before a more divider",
			"Short intro.\n\n# A heading\n\nSecond *paragraph*.\n<!--more-->\nThe rest.\n",
			"Short intro. Second paragraph."},
		{"a more divider at the end of a line", "The intro. <!-- more --> The rest.\n", "The intro."},
		{"a more divider after a list", "The intro.\n\n- a\n- b\n<!--more-->\nThe rest.\n", "The intro."},
		{"nothing but a heading before a more divider", "# Title\n<!--more-->\n\nThe first paragraph.\n\nThe second.\n",
			"The first paragraph."},
		{"a more divider only in code", "The first paragraph.\n\n```html\n<!--more-->\n```\n\nSecond.\n", "The first paragraph."},
		{"a code span holding a backtick", "Use ``a ` b`` in the text.", "Use a ` b in the text."},
		{"an escaped bracket in a link's text", "See [a \\] b](/x) in the text.", "See a ] b in the text."},
		{"a more divider in a code span", "Intro `<!--more-->` in the text.\n\nMore.", "Intro <!--more--> in the text."},
		{"a hashtag is no heading", "#hashtag at the start of a line is a word.", "#hashtag at the start of a line is a word."},
		{"a pipe is no table", "|x| is the absolute value of x, as the text says.", "|x| is the absolute value of x, as the text says."},
		{"an image tag opens no HTML block", "<img src=\"a.png\" alt=\"\"> The text goes on.", "The text goes on."},
		{"a heading underlined after two lines", "Two lines\nof title\n---\n\nThe text of the post.", "The text of the post."},
		{"a long code block with blank lines before the text", "```\n" + strings.Repeat("code\n\n", 500) + "```\n\nThe text after the code.\n", "The text after the code."},
		{"a long loose list before the text", strings.Repeat("- item\n\n", 400) + "The text after the list.\n", "The text after the list."},
		{"no paragraph at all", "# Only a heading\n\n```\ncode\n```\n", ""},
		{"empty body", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(tt.body)
			if got != tt.want {
				t.Errorf("summarize() =\n%q\nwant\n%q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > DescriptionLength {
				t.Errorf("summarize() is %d characters, more than %d", n, DescriptionLength)
			}
		})
	}
}

func FuzzSummarize(f *testing.F) {
	for _, seed := range []string{"A paragraph.", "`a` **b** [c](d) <e>", "x\x00y", strings.Repeat("é ", 300), "```\n",
		"a\n<!--more-->\nb", "{::comment}\n{:/}", "{% highlight %}\n",
		"```\n" + strings.Repeat("a\n\n", 1100) + "```\n\nThe text after a long block.", strings.Repeat("> q\n\n- i\n\n", 300) + "Hi.\n\nThe text."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got := summarize(body)
		if n := utf8.RuneCountInString(got); n > DescriptionLength {
			t.Errorf("summarize(%q) is %d characters", body, n)
		}
		// Reading a prefix first gives what reading the whole body gives.
		src := []byte(body)
		src = markdown.Mask(src, markdown.TemplateBlocks(src), markdown.Code, markdown.Comment, markdown.Raw)
		if whole := leadOf(src); leadText(body) != whole {
			t.Errorf("%q: %q from a prefix, %q from the whole", body, leadText(body), whole)
		}
	})
}
