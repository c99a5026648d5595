package content

import (
	"regexp"
	"strings"
	"testing"
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
		{name: "empty", slug: "", want: false},
		{name: "leading hyphen", slug: "-a", want: false},
		{name: "trailing hyphen", slug: "a-", want: false},
		{name: "only a hyphen", slug: "-", want: false},
		{name: "double hyphen", slug: "a--b", want: false},
		{name: "uppercase", slug: "A", want: false},
		{name: "underscore", slug: "a_b", want: false},
		{name: "slash", slug: "a/b", want: false},
		{name: "dot", slug: "a.b", want: false},
		{name: "dot-dot", slug: "..", want: false},
		{name: "space", slug: "a b", want: false},
		{name: "non-ASCII letter", slug: "é", want: false},
		{name: "too long", slug: strings.Repeat("a", MaxSlugLength+1), want: false},
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

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func FuzzValidSlug(f *testing.F) {
	for _, seed := range []string{
		"", "a", "a-b", "abc-123", "-a", "a-", "a--b", "A", "a_b", "a/b", "a.b", "é", "a\x00b",
		strings.Repeat("a", MaxSlugLength), strings.Repeat("a", MaxSlugLength+1),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := len(s) <= MaxSlugLength && slugPattern.MatchString(s)
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	})
}
