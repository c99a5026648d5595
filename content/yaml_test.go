package content

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"title", "title", 0},
		{"titel", "title", 1},
		{"descripton", "description", 1},
		{"tag", "tags", 1},
		{"udpated", "updated", 1},
		{"toc", "topic", 2},
		{"", "date", 4},
		{"math", "date", 2},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := editDistance(tt.b, tt.a); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// TestUnknownFrontMatterKeysAreIgnored: a front-matter key the loader does
// not read is never an error, whatever it is: a generator's or a theme's
// key, a Hugo taxonomy (topics is no typo of topic), or even a real typo
// (the post is then read without that key).
func TestUnknownFrontMatterKeysAreIgnored(t *testing.T) {
	keys := []string{
		"topics", "series", "aliases", "author", "authors", "images", "image", "layout",
		"weight", "keywords", "toc", "menu", "customParam", "hero", "og_image", "robots", "sidebar", "lang",
		"eleventyNavigation", "eleventyComputed", "heroImage", "redirect_from", "canonicalURL",
		"titel", "descripton", "tag", "drfat", "slgu",
	}
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			for _, value := range []string{"x", "[a, b]", "{nested: {map: 1}}"} {
				in, err := loadInsight(t, "x.md", post("title: T", "date: 2024-05-01", key+": "+value))
				if err != nil {
					t.Fatalf("%s: %s: %v", key, value, err)
				}
				if in.Title != "T" || in.Slug != "x" {
					t.Errorf("%s: %s: %+v", key, value, in)
				}
			}
		})
	}
}

// TestParseYAMLLines checks that a syntax error is reported at its line in
// the file, "# here", whether yaml.v3's scanner or its parser found it, and
// after the offset of front matter, which begins on the file's second line.
func TestParseYAMLLines(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		offset int
		want   string
	}{
		{"scanner error", "a: 1\nb: c: d # here\n", 0, "mapping values are not allowed in this context"},
		{"parser error", "a:\n  - x\n - y # here\n", 0, "did not find expected key"},
		{"unclosed flow list", "a: 1\nb: [x, y # here\nc: 3\n", 0, "did not find expected ',' or ']'"},
		{"tab", "a: 1\n\tb: 2 # here\n", 0, "found a tab character that violates indentation"},
		{"after the opening line of front matter", "a:\n  - x\n - y # here\n", 1, "did not find expected key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps problems
			if _, ok := parseYAML("f", tt.offset, "", []byte(tt.yaml), &ps); ok || len(ps) != 1 {
				t.Fatalf("parseYAML() = %v, %v; want one problem", ok, ps.err())
			}
			line := tt.offset + 1 + strings.Count(tt.yaml[:strings.Index(tt.yaml, "# here")], "\n")
			if want := (&problem{file: "f", line: line, msg: tt.want}).Error(); ps[0].Error() != want {
				t.Errorf("problem = %q, want %q", ps[0], want)
			}
		})
	}
}
