package token

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		resource, target string
		want             bool
	}{
		{"https://a.example", "https://a.example/api/v1/profile", true},
		{"https://a.example", "https://a.example/mcp", true},
		{"https://a.example/mcp", "https://a.example/mcp", true},
		{"https://a.example/mcp", "https://a.example/mcp/server-card", true},
		{"https://a.example/mcp", "https://a.example/mcpx", false},
		{"https://a.example/mcp", "https://a.example/api/v1/profile", false},
		{"https://a.example", "https://a.example.evil/api", false},
		{"https://a.example", "https://a.example:8443/api", false},
		{"https://a.example", "https://b.example/api", false},
		{"https://a.example/api/", "https://a.example/api/v1", true},
	} {
		if got := Covers(tc.resource, tc.target); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.resource, tc.target, got, tc.want)
		}
		base, path := splitURL(tc.target)
		if covered, ok := coversAddress(appendResources(nil, []string{tc.resource}), base, path); !ok || covered != tc.want {
			t.Errorf("coversAddress(%q, %q) = %v, %v, want %v", tc.resource, tc.target, covered, ok, tc.want)
		}
	}
}

// splitURL cuts an absolute URL into its scheme and host, and its path.
func splitURL(u string) (base, path string) {
	i := strings.Index(u[len("https://"):], "/") + len("https://")
	return u[:i], u[i:]
}

func TestCheckResources(t *testing.T) {
	long := "https://a.example/" + strings.Repeat("p", 240)
	for name, tc := range map[string]struct {
		resources []string
		ok        bool
	}{
		"none":            {nil, true},
		"one":             {[]string{"https://a.example"}, true},
		"four":            {[]string{"https://a.example", "https://a.example/mcp", "https://a.example/api", "https://a.example/x"}, true},
		"five":            {[]string{"a", "b", "c", "d", "e"}, false},
		"empty":           {[]string{""}, false},
		"256 bytes":       {[]string{"https://a.example/" + strings.Repeat("p", 238)}, false},
		"NUL":             {[]string{"https://a.example/\x00"}, false},
		"too long in all": {[]string{long, long, long}, false},
	} {
		err := CheckResources(tc.resources)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrResources) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestBoundAccessToken(t *testing.T) {
	i := newIssuer(t, Config{})
	const base = "https://a.example"
	unbound, _, err := i.IssueAccessToken()
	if err != nil {
		t.Fatal(err)
	}
	mcp, _, err := i.IssueAccessTokenFor([]string{base + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	site, _, err := i.IssueAccessTokenFor([]string{base})
	if err != nil {
		t.Fatal(err)
	}
	both, _, err := i.IssueAccessTokenFor([]string{"https://b.example", base + "/api/v1/profile"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, token, base, path string
		want                    error
	}{
		{"unbound at the API", unbound, base, "/api/v1/profile", nil},
		{"unbound on another host", unbound, "https://b.example", "/mcp", nil},
		{"/mcp's at /mcp", mcp, base, "/mcp", nil},
		{"/mcp's at the API", mcp, base, "/api/v1/profile", ErrForeign},
		{"/mcp's on another host", mcp, "https://b.example", "/mcp", ErrForeign},
		{"the site's at /mcp", site, base, "/mcp", nil},
		{"the site's at the API", site, base, "/api/v1/insights", nil},
		{"the site's on another host", site, "https://a.example.evil", "/mcp", ErrForeign},
		{"two resources' at one", both, base, "/api/v1/profile", nil},
		{"two resources' at the other", both, "https://b.example", "/api/v1/profile", nil},
		{"two resources' elsewhere", both, base, "/mcp", ErrForeign},
	} {
		if _, err := i.VerifyAccessTokenAt(tc.token, tc.base, tc.path); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := i.VerifyAccessToken(mcp); err != nil {
		t.Errorf("VerifyAccessToken of a bound token: %v", err)
	}
	// The resources are under the MAC.
	raw, _ := base64.RawURLEncoding.DecodeString(mcp[4:])
	raw[len(raw)-33] ^= 'a' ^ 'b' // the last byte of "/mcp"
	if _, err := i.VerifyAccessTokenAt("dsc_"+base64.RawURLEncoding.EncodeToString(raw), base, "/mcb"); !errors.Is(err, ErrSignature) {
		t.Errorf("altered resource: %v", err)
	}
	if _, _, err := i.IssueAccessTokenFor([]string{"a", "b", "c", "d", "e"}); !errors.Is(err, ErrResources) {
		t.Errorf("five resources: %v", err)
	}
	max := []string{base + "/" + strings.Repeat("a", 190), base + "/" + strings.Repeat("b", 190), base + "/" + strings.Repeat("c", 70)}
	tok, _, err := i.IssueAccessTokenFor(max)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := i.VerifyAccessTokenAt(tok, base, "/"+strings.Repeat("c", 70)); err != nil || len(tok) > maxAccessLen {
		t.Errorf("the longest resources: %v, %d characters", err, len(tok))
	}
}

func TestBoundCode(t *testing.T) {
	i := newIssuer(t, Config{})
	verifier, challenge := pkce("v")
	resources := []string{"https://a.example/mcp", "https://a.example"}
	code, err := i.IssueCode("dcl_x", "http://127.0.0.1/cb", challenge, resources)
	if err != nil {
		t.Fatal(err)
	}
	got, err := i.RedeemCode(code, "dcl_x", "http://127.0.0.1/cb", verifier)
	if err != nil || len(got.Resources) != 2 || got.Resources[0] != resources[0] || got.Resources[1] != resources[1] {
		t.Errorf("RedeemCode = %+v, %v", got, err)
	}
	plain := mustCode(t, i, "dcl_x", "http://127.0.0.1/cb", challenge)
	if got, err := i.RedeemCode(plain, "dcl_x", "http://127.0.0.1/cb", verifier); err != nil || got.Resources != nil {
		t.Errorf("a code without resources: %+v, %v", got, err)
	}
	if _, err := i.IssueCode("dcl_x", "http://127.0.0.1/cb", challenge, []string{""}); !errors.Is(err, ErrResources) {
		t.Errorf("an empty resource: %v", err)
	}
}

func TestReadResourcesRefusesBadEncodings(t *testing.T) {
	for _, b := range [][]byte{nil, {0}, {1}, {1, 3, 'a'}, {1, 0}, {1, 1, 'a', 'b'}, {2, 1, 'a'}} {
		if _, ok := readResources(b); ok {
			t.Errorf("readResources(%v) accepted", b)
		}
		if _, ok := coversAddress(b, "https://a", "/"); ok {
			t.Errorf("coversAddress(%v) accepted", b)
		}
	}
}
