package content

// MaxSlugLength is the longest slug the API accepts.
const MaxSlugLength = 200

// SlugGrammar describes ValidSlug for error messages and documentation.
const SlugGrammar = "lowercase letters, digits and single hyphens (no leading or trailing hyphen), 1 to 200 characters"

// ValidSlug reports whether s is a slug: lowercase ASCII letters and digits
// in runs joined by single hyphens, 1 to MaxSlugLength bytes. The same
// grammar names insight files and addresses them in the API, so any slug the
// API refuses can never be the name of a published insight.
func ValidSlug(s string) bool {
	if len(s) == 0 || len(s) > MaxSlugLength || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			if s[i-1] == '-' {
				return false
			}
		default:
			return false
		}
	}
	return true
}
