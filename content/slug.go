package content

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSlugLength is the longest slug the API accepts, in characters.
const MaxSlugLength = 200

// SlugGrammar describes ValidSlug for error messages and documentation.
const SlugGrammar = "one path segment of 1 to 200 characters, as the site's own address writes it: any characters but a slash or a control character, and not . or .."

// SlugPattern is ValidSlug as a JSON Schema pattern (with minLength 1 and
// maxLength MaxSlugLength); it needs no lookahead, so that every regular
// expression engine reads it alike.
const SlugPattern = `^([^/\x00-\x1F\x7F-\x9F.][^/\x00-\x1F\x7F-\x9F]*|\.[^/\x00-\x1F\x7F-\x9F.][^/\x00-\x1F\x7F-\x9F]*|\.\.[^/\x00-\x1F\x7F-\x9F]+)$`

// ValidSlug reports whether s is a slug: one path segment, as the site's
// own addresses have them, so that a post keeps the name its generator
// gave it (Jekyll keeps capitals, Hugo keeps non-ASCII letters). A slug is
// 1 to MaxSlugLength characters of valid UTF-8 with no slash and no
// control character, and is not "." or "..", which name no page. Where a
// slug goes into an address it is percent-encoded as a path segment.
// The same grammar names insight files and addresses them in the API, so
// any slug the API refuses can never be the name of a published insight.
func ValidSlug(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 4*MaxSlugLength || !utf8.ValidString(s) {
		return false
	}
	n := 0
	for _, r := range s {
		if r == '/' || r < 0x20 || r >= 0x7f && r <= 0x9f {
			return false
		}
		n++
	}
	return n <= MaxSlugLength
}

// FoldSlug is s with case and punctuation set aside, as generators differ
// in how they write a name into an address: Hugo lowercases, Jekyll
// turns spaces into hyphens. "Hello_World!" and "hello-world" fold alike.
func FoldSlug(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// LastSegment is the name a page's path gives its post: its last segment
// without .html or .htm, or the folder of an index.html.
func LastSegment(path string) string {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	last := segments[len(segments)-1]
	if len(segments) > 1 && last == "index.html" {
		last = segments[len(segments)-2]
	}
	return strings.TrimSuffix(strings.TrimSuffix(last, ".html"), ".htm")
}
