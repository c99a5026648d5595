package content

import (
	"strings"
	"testing"
	"unicode/utf8"
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
		{"cut after the last sentence that fits",
			strings.Repeat(sentence+" ", 3) + "And then a sentence that does not fit in the limit at all.",
			strings.Repeat(sentence+" ", 2) + sentence},
		{"a sentence ending in a quote", strings.Repeat("word ", 20) + "said \"stop.\" " + strings.Repeat("more ", 40),
			strings.Repeat("word ", 20) + "said \"stop.\""},
		{"cut at a word with an ellipsis when no sentence ends in time",
			strings.Repeat("abcdefghi ", 30), strings.TrimSpace(strings.Repeat("abcdefghi ", 20)) + "…"},
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
	for _, seed := range []string{"A paragraph.", "`a` **b** [c](d) <e>", "x\x00y", strings.Repeat("é ", 300), "```\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got := summarize(body)
		if n := utf8.RuneCountInString(got); n > DescriptionLength {
			t.Errorf("summarize(%q) is %d characters", body, n)
		}
	})
}
