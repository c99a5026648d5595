package oauth

import "testing"

func TestCheckRedirectURI(t *testing.T) {
	for uri, ok := range map[string]bool{
		"https://app.example/callback":           true,
		"https://app.example/cb?tenant=1":        true,
		"http://127.0.0.1/callback":              true,
		"http://127.0.0.1:8765/callback":         true,
		"http://[::1]:8765/callback":             true,
		"http://localhost:6274/oauth/callback":   true,
		"com.example.app:/oauth2redirect":        true,
		"cursor://anysphere.cursor-mcp/oauth/cb": true,
		"http://app.example/callback":            false,
		"http://10.0.0.1/callback":               false,
		"https://app.example/cb#frag":            false,
		"https://user:pw@app.example/cb":         false,
		"/relative/callback":                     false,
		"javascript:alert(1)":                    false,
		"JavaScript:alert(1)":                    false,
		"data:text/html,hi":                      false,
		"file:///etc/passwd":                     false,
		"https:///no-host":                       false,
		"https://app.example/c b":                false,
		"https://app.example\\@evil.example/":    false,
		"http://localhost.evil.example/callback": false,
		"http://127.0.0.1.nip.example/callback":  false,
		"":                                       false,
		"ftp://files.example/cb":                 false,
		"ms-settings:privacy":                    false,
		"chrome-extension://abcdefgh/cb":         false,
		"mailto:x@example.com":                   false,
		"vbscript:msgbox":                        false,
		"com.example.app:/cb#x":                  false,
		"com..app:/cb":                           false,
		"1com.example:/cb":                       false,
	} {
		if got := checkRedirectURI(uri) == ""; got != ok {
			t.Errorf("%q: accepted %v, want %v (%s)", uri, got, ok, checkRedirectURI(uri))
		}
	}
}

func TestApprovedAtOnce(t *testing.T) {
	for uri, want := range map[string]bool{
		"http://127.0.0.1:8765/callback":             true,
		"http://localhost/cb":                        true,
		"http://[::1]:1/cb":                          true,
		"com.example.app:/oauth2redirect":            true,
		"cursor://anysphere.cursor-mcp/oauth/cb":     true,
		"https://app.example/callback":               false,
		"https://localhost.evil.example/cb":          false,
		"https://127.0.0.1/cb":                       false,
		"http://127.0.0.1.evil.example/cb?x=http://": false,
	} {
		if got := approvedAtOnce(uri); got != want {
			t.Errorf("approvedAtOnce(%q) = %v, want %v", uri, got, want)
		}
	}
}

func TestRedirectMatches(t *testing.T) {
	for _, tc := range []struct {
		registered, requested string
		want                  bool
	}{
		{"https://app.example/cb", "https://app.example/cb", true},
		{"https://app.example/cb", "https://app.example/cb/", false},
		{"https://app.example/cb", "https://app.example:8443/cb", false},
		{"https://app.example/cb", "HTTPS://app.example/cb", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:51234/cb", true},
		{"http://127.0.0.1:8000/cb", "http://127.0.0.1:51234/cb", true},
		{"http://[::1]/cb", "http://[::1]:51234/cb", true},
		{"http://localhost:6274/oauth/callback", "http://localhost:9999/oauth/callback", true},
		{"http://127.0.0.1/cb", "http://127.0.0.1:51234/other", false},
		{"http://127.0.0.1/cb", "http://localhost:51234/cb", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:51234/cb?x=1", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:51234/cb#x", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:99999/cb", false},
		{"http://127.0.0.1/cb", "http://user@127.0.0.1:5000/cb", false},
		{"http://127.0.0.1/a%20b", "http://127.0.0.1:5000/a b", false},
		{"http://127.0.0.1/a%20b", "http://127.0.0.1:5000/a%20b", true},
	} {
		if got := redirectMatches(tc.registered, tc.requested); got != tc.want {
			t.Errorf("%s for %s: %v, want %v", tc.requested, tc.registered, got, tc.want)
		}
	}
}
