package docs

import (
	"regexp"
	"strings"
	"testing"
)

// cardName is the server card schema's grammar of a server name.
var cardName = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

func TestCardNamespace(t *testing.T) {
	long := strings.Repeat("label.", 42) + "example" // 259 characters
	for _, tc := range []struct{ host, want string }{
		{"www.example.com", "com.example.www"},
		{"localhost", "localhost"},
		{"127.0.0.1", "1.0.0.127"},
		{"::1", "--1"},
		{"2001:db8::1", "2001-db8--1"},
		{long, ""},
	} {
		got := cardNamespace(tc.host, len("caddy-discovery"))
		name := got + "/caddy-discovery"
		if tc.want != "" && got != tc.want {
			t.Errorf("%s: namespace %q, want %q", tc.host, got, tc.want)
		}
		if !cardName.MatchString(name) || len(name) > maxCardName {
			t.Errorf("%s: %q (%d characters) is no server name", tc.host, name, len(name))
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"Ærø Ødegård public discovery API", 12, "Ærø Ødegård…"},
		{"a b c", 4, "a b…"},
	} {
		if got := clipChars(tc.s, tc.n); got != tc.want || len([]rune(got)) > tc.n {
			t.Errorf("clipChars(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
