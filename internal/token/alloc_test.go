//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package token

import "testing"

func TestVerifyAccessTokenAllocations(t *testing.T) {
	iss := newIssuer(t, Config{})
	tok, _, err := iss.IssueAccessToken()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, token string }{
		{"valid", tok},
		{"forged", flip(tok, len(tok)/2)},
		{"malformed", "dsc_!!!!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := testing.AllocsPerRun(100, func() { _, _ = iss.VerifyAccessToken(tt.token) }); n > 2 {
				t.Fatalf("VerifyAccessToken allocates %v objects, want at most 2", n)
			}
		})
	}
	bound, _, err := iss.IssueAccessTokenFor([]string{"https://a.example/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/mcp", "/api/v1/profile"} {
		if n := testing.AllocsPerRun(100, func() { _, _ = iss.VerifyAccessTokenAt(bound, "https://a.example", path) }); n > 0 {
			t.Fatalf("VerifyAccessTokenAt(%s) allocates %v objects, want 0", path, n)
		}
	}
	h := "Bearer " + tok
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseAuthorization(h) }); n != 0 {
		t.Fatalf("ParseAuthorization allocates %v objects, want 0", n)
	}
}
