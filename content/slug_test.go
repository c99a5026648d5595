package content

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidSlug(t *testing.T) {
	tests := []struct {
		name string
		slug string
		want bool
	}{
		{name: "one letter", slug: "a", want: true},
		{name: "one digit", slug: "7", want: true},
		{name: "two words", slug: "a-b", want: true},
		{name: "letters and digits", slug: "abc-123", want: true},
		{name: "longest", slug: strings.Repeat("a", MaxSlugLength), want: true},
		{name: "longest with hyphens", slug: strings.Repeat("ab-", 66) + "ab", want: true},
		{name: "longest in two-byte letters", slug: strings.Repeat("é", MaxSlugLength), want: true},
		{name: "leading hyphen", slug: "-a", want: true},
		{name: "double hyphen", slug: "a--b", want: true},
		{name: "capitals, as Jekyll keeps them", slug: "Javascript-Tips", want: true},
		{name: "underscore", slug: "a_b", want: true},
		{name: "dot", slug: "a.b", want: true},
		{name: "leading dot", slug: ".a", want: true},
		{name: "three dots", slug: "...", want: true},
		{name: "space", slug: "a b", want: true},
		{name: "non-ASCII letter", slug: "é", want: true},
		{name: "CJK", slug: "日本語", want: true},
		{name: "percent sign", slug: "100%", want: true},
		{name: "empty", slug: "", want: false},
		{name: "slash", slug: "a/b", want: false},
		{name: "only a slash", slug: "/", want: false},
		{name: "dot", slug: ".", want: false},
		{name: "dot-dot", slug: "..", want: false},
		{name: "tab", slug: "a\tb", want: false},
		{name: "newline", slug: "a\nb", want: false},
		{name: "DEL", slug: "a\x7fb", want: false},
		{name: "C1 control", slug: "a\u0085b", want: false},
		{name: "too long", slug: strings.Repeat("a", MaxSlugLength+1), want: false},
		{name: "too long in two-byte letters", slug: strings.Repeat("é", MaxSlugLength+1), want: false},
		{name: "NUL byte", slug: "a\x00b", want: false},
		{name: "invalid UTF-8", slug: "a\xffb", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidSlug(tt.slug); got != tt.want {
				t.Errorf("ValidSlug(%q) = %v, want %v", tt.slug, got, tt.want)
			}
		})
	}
}

var slugPattern = regexp.MustCompile(SlugPattern)

func FuzzValidSlug(f *testing.F) {
	for _, seed := range []string{
		"", "a", "a-b", "abc-123", "-a", "a-", "a--b", "A", "a_b", "a/b", "a.b", "é", "a\x00b", ".", "..", "...", ".a", "..a", "a\u0085",
		strings.Repeat("a", MaxSlugLength), strings.Repeat("a", MaxSlugLength+1),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := utf8.ValidString(s) && utf8.RuneCountInString(s) <= MaxSlugLength && slugPattern.MatchString(s)
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	})
}
