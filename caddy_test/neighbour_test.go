package caddytest

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// startBackend serves h on loopback, as an app behind reverse_proxy, for
// the test's duration, and returns its address.
func startBackend(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

// backend is an app that answers every path with its own JSON.
func backend(t *testing.T) string {
	return startBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"backend":%q}`, r.URL.Path)
	})
}

// TestSiteKeepsItsOwnAPI: the module owns /api/v1 and below; the site's
// own /api/… paths reach it unchanged.
func TestSiteKeepsItsOwnAPI(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
	}
	reverse_proxy `+backend(t)+`
}
`)
	for _, path := range []string{"/api/users.json", "/api/v2/profile", "/api", "/api/", "/api/v10", "/apiv1"} {
		r := s.get(path)
		if r.StatusCode != http.StatusOK || string(r.body) != `{"backend":"`+path+`"}` {
			t.Errorf("%s: %d %s, want the backend's answer", path, r.StatusCode, r.body)
		}
		if r.Header.Get("API-Version") != "" {
			t.Errorf("%s: the module added API-Version", path)
		}
	}
	for _, path := range []string{"/api/v1", "/api/v1/profile", "/api/v1/nope"} {
		if r := s.get(path); strings.Contains(string(r.body), "backend") {
			t.Errorf("%s reached the backend: %s", path, r.body)
		}
	}
}

// TestOtherAuthorizationSchemesPassUntouched: only a Bearer credential is
// the module's business; Basic, Digest, DPoP and others are not refused.
func TestOtherAuthorizationSchemesPassUntouched(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, header := range []string{"Basic dXNlcjpwYXNz", "Digest username=\"a\", realm=\"b\"", "DPoP abc", "Token abc", "Negotiate"} {
		for _, path := range []string{"/api/v1/profile", "/llms.txt"} {
			if r := s.get(path, "Authorization", header); r.StatusCode != http.StatusOK || r.Header.Get("WWW-Authenticate") != "" {
				t.Errorf("%s with %q: %d, WWW-Authenticate %q", path, header, r.StatusCode, r.Header.Get("WWW-Authenticate"))
			}
		}
		if r := s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", header); r.StatusCode != http.StatusOK {
			t.Errorf("/mcp with %q: %d %s", header, r.StatusCode, r.body)
		}
	}
}

// TestTwoAuthorizationHeaders is a malformed request (RFC 9110 allows one
// credential), answered 400.
func TestTwoAuthorizationHeaders(t *testing.T) {
	s := startCaddy(t, sampleSite)
	req, err := http.NewRequest(http.MethodGet, base+"/api/v1/profile", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Add("Authorization", "Bearer a")
	req.Header.Add("Authorization", "Bearer b")
	s.validateProblem(s.send(req), http.StatusBadRequest, "bad_request")
}

// TestBehindBasicAuth: a site that guards everything with basic_auth, the
// module inside the same route, lets its users in.
func TestBehindBasicAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	s := startCaddy(t, `
http://localhost:9080 {
	route {
		basic_auth {
			alice `+string(hash)+`
		}
		discovery {
			content sample
			rate_limit 1500 60s
		}
		respond "site page" 200
	}
}
`)
	creds := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:correct horse"))
	for _, path := range []string{"/api/v1", "/api/v1/profile", "/llms.txt", "/openapi.json", "/"} {
		if r := s.get(path); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without credentials: %d, want basic_auth's 401", path, r.StatusCode)
		}
		r := s.get(path, "Authorization", creds)
		if r.StatusCode != http.StatusOK {
			t.Errorf("%s with alice's credentials: %d %s", path, r.StatusCode, r.body)
		}
	}
	if r := s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", creds); r.StatusCode != http.StatusOK {
		t.Errorf("/mcp with alice's credentials: %d %s", r.StatusCode, r.body)
	}
}

// TestExistingBlogContent: a Hugo site's posts folder and a profile of a
// name and a tagline are served, every response valid against the
// description, with the fields the profile lacks left out.
func TestExistingBlogContent(t *testing.T) {
	hugo, err := filepath.Abs("../content/testdata/hugo")
	if err != nil {
		t.Fatal(err)
	}
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content `+hugo+`
		insights `+filepath.Join(hugo, "content", "posts")+`
	}
}
`)
	profile := s.get("/api/v1/profile")
	s.validate(profile)
	p := profile.json(t)
	if p["name"] != "Mara Lindqvist" {
		t.Errorf("profile %s", profile.body)
	}
	for _, absent := range []string{"about", "keyFacts", "recognition", "education"} {
		if _, ok := p[absent]; ok {
			t.Errorf("the profile has %s, which profile.yaml does not", absent)
		}
	}
	list := s.get("/api/v1/insights")
	s.validate(list)
	items, _ := list.json(t)["items"].([]any)
	if len(items) < 3 {
		t.Fatalf("%d insights from the posts folder: %s", len(items), list.body)
	}
	for _, it := range items {
		slug := it.(map[string]any)["slug"].(string)
		if slug == "_index" || strings.Contains(slug, "handover") {
			t.Errorf("a section page or a bundle's resource became an insight: %s", slug)
		}
		s.validate(s.get("/api/v1/insights/" + slug))
	}
	if r := s.get("/api/v1/insights/on-call-without-burnout"); r.StatusCode != http.StatusOK {
		t.Errorf("the page bundle: %d", r.StatusCode)
	}
	for _, doc := range []string{"/llms.txt", "/llms-full.txt", "/openapi.json", "/developers"} {
		if r := s.get(doc); r.StatusCode != http.StatusOK || strings.Contains(string(r.body), "YouTube: \n") {
			t.Errorf("%s: %d", doc, r.StatusCode)
		}
	}
}
