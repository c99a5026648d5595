package caddytest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
)

// apiPaths are the five versioned endpoints the specification lists, with
// one published insight standing in for {slug}.
var apiPaths = []string{
	"/api/v1",
	"/api/v1/health",
	"/api/v1/profile",
	"/api/v1/insights",
	"/api/v1/insights/the-case-for-a-boring-data-platform",
}

func TestEndpointsServeValidJSON(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, path := range append(apiPaths, "/openapi.json") {
		t.Run(path, func(t *testing.T) {
			r := s.get(path)
			if r.StatusCode != http.StatusOK {
				t.Fatalf("status %d\n%s", r.StatusCode, r.body)
			}
			s.validate(r)
			wantType := "application/json"
			for header, want := range map[string]string{
				"Content-Type":                wantType,
				"Access-Control-Allow-Origin": "*",
				"X-Content-Type-Options":      "nosniff",
			} {
				if got := r.Header.Get(header); got != want {
					t.Errorf("%s: %q, want %q", header, got, want)
				}
			}
			if !strings.Contains(r.Header.Get("Link"), `</.well-known/api-catalog>; rel="api-catalog"`) &&
				!strings.Contains(r.Header.Get("Link"), `<`+base+`/.well-known/api-catalog>; rel="api-catalog"`) {
				t.Errorf("Link %q lacks the api-catalog relation", r.Header.Get("Link"))
			}
			versioned := strings.HasPrefix(path, "/api/")
			if got := r.Header.Get("API-Version"); versioned && got != "1" || !versioned && got != "" {
				t.Errorf("API-Version %q on %s", got, path)
			}
			if versioned {
				// The specification spells the header API-Version; HTTP/1.1
				// carries the spelling the server chose.
				if _, ok := r.Header["Api-Version"]; !ok {
					t.Errorf("no API-Version header in %v", r.Header)
				}
			}
			cc := r.Header.Get("Cache-Control")
			if path == "/api/v1/health" {
				if cc != "no-store" || r.Header.Get("ETag") != "" {
					t.Errorf("health: Cache-Control %q, ETag %q; want no-store and none", cc, r.Header.Get("ETag"))
				}
			} else if !strings.HasPrefix(cc, "private, max-age=") || r.Header.Get("ETag") == "" {
				// private: the sample site has no base_url, so every
				// document names the request's Host.
				t.Errorf("Cache-Control %q, ETag %q", cc, r.Header.Get("ETag"))
			}
		})
	}
}

func TestIndexListsTheSpecEndpoints(t *testing.T) {
	s := startCaddy(t, sampleSite)
	var index struct {
		APIVersion string `json:"apiVersion"`
		Endpoints  []struct{ Method, Path, Description string }
		URLs       map[string]string `json:"urls"`
	}
	if err := json.Unmarshal(s.get("/api/v1").body, &index); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range index.Endpoints {
		got = append(got, e.Method+" "+e.Path)
		if e.Description == "" {
			t.Errorf("%s %s has no description", e.Method, e.Path)
		}
	}
	want := []string{"GET /api/v1", "GET /api/v1/health", "GET /api/v1/profile", "GET /api/v1/insights", "GET /api/v1/insights/{slug}"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %v, want %v", got, want)
	}
	wantURLs := map[string]string{
		"home":       base + "/",
		"developers": base + "/developers",
		"openapi":    base + "/openapi.json",
		"auth":       base + "/auth.md",
		"mcp":        base + "/mcp",
		"cli":        base + "/cli/discovery.mjs",
	}
	if !reflect.DeepEqual(index.URLs, wantURLs) {
		t.Errorf("urls %v, want %v", index.URLs, wantURLs)
	}
	if index.APIVersion != "1" {
		t.Errorf("apiVersion %q", index.APIVersion)
	}
}

func TestHealthIsFresh(t *testing.T) {
	s := startCaddy(t, sampleSite)
	before := time.Now().Add(-time.Second)
	h := s.get("/api/v1/health").json(t)
	checked, err := time.Parse(time.RFC3339, h["checkedAt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if checked.Before(before.Truncate(time.Second)) || checked.After(time.Now().Add(time.Second)) {
		t.Errorf("checkedAt %v is not the time of the request (%v)", checked, before)
	}
	if h["status"] != "ok" || h["url"] != base+"/api/v1/health" || h["apiVersion"] != "1" {
		t.Errorf("health %v", h)
	}
}

func TestInsightsListAndDocumentsAgree(t *testing.T) {
	s := startCaddy(t, sampleSite)
	var list struct {
		Count int              `json:"count"`
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(s.get("/api/v1/insights").body, &list); err != nil {
		t.Fatal(err)
	}
	if list.Count != len(list.Items) || list.Count < 6 {
		t.Fatalf("count %d, %d items", list.Count, len(list.Items))
	}
	for i, item := range list.Items {
		if i > 0 && item["dateISO"].(string) > list.Items[i-1]["dateISO"].(string) {
			t.Errorf("items are not newest first at %d", i)
		}
		slug := item["slug"].(string)
		r := s.get("/api/v1/insights/" + slug)
		s.validate(r)
		doc := r.json(t)
		body, _ := doc["content"].(string)
		if len(strings.Fields(body)) < 600 {
			t.Errorf("%s: content has %d words", slug, len(strings.Fields(body)))
		}
		delete(doc, "content")
		if !reflect.DeepEqual(doc, item) {
			t.Errorf("%s: document summary %v differs from list item %v", slug, doc, item)
		}
		if item["url"] != base+"/insights/"+slug {
			t.Errorf("%s: url %v", slug, item["url"])
		}
	}
}

func TestProfileURLsAreAbsolute(t *testing.T) {
	s := startCaddy(t, sampleSite)
	p := s.get("/api/v1/profile").json(t)
	urls := p["urls"].(map[string]any)
	for key, want := range map[string]string{
		"home": base + "/", "about": base + "/about", "developers": base + "/developers",
		"llmsTxt": base + "/llms.txt", "llmsFull": base + "/llms-full.txt",
		"apiCatalog": base + "/.well-known/api-catalog", "openapi": base + "/openapi.json",
	} {
		if urls[key] != want {
			t.Errorf("urls.%s = %v, want %s", key, urls[key], want)
		}
	}
	if form := p["contact"].(map[string]any)["form"]; form != base+"/contact" {
		t.Errorf("contact.form %v: a path in the content must be resolved against the base URL", form)
	}
	for _, l := range p["siteStructure"].([]any) {
		if u := l.(map[string]any)["url"].(string); !strings.HasPrefix(u, "http") {
			t.Errorf("siteStructure url %q is not absolute", u)
		}
	}
}

func TestMethods(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, path := range append(apiPaths, "/openapi.json") {
		t.Run("HEAD "+path, func(t *testing.T) {
			get, head := s.get(path), s.do(http.MethodHead, base+path, nil)
			if head.StatusCode != http.StatusOK || len(head.body) != 0 {
				t.Fatalf("status %d, %d body bytes", head.StatusCode, len(head.body))
			}
			for _, h := range []string{"Content-Type", "ETag", "Cache-Control", "API-Version", "Content-Length"} {
				if h == "Content-Length" && path == "/api/v1/health" {
					continue // health's body changes with the clock
				}
				if head.Header.Get(h) != get.Header.Get(h) {
					t.Errorf("%s: HEAD %q, GET %q", h, head.Header.Get(h), get.Header.Get(h))
				}
			}
		})
		t.Run("OPTIONS "+path, func(t *testing.T) {
			r := s.do(http.MethodOptions, base+path, nil,
				"Origin", "https://app.example", "Access-Control-Request-Method", "GET")
			if r.StatusCode != http.StatusNoContent {
				t.Fatalf("status %d", r.StatusCode)
			}
			for h, want := range map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
				"Allow":                        "GET, HEAD, OPTIONS",
			} {
				if got := r.Header.Get(h); got != want {
					t.Errorf("%s %q, want %q", h, got, want)
				}
			}
			if !strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
				t.Errorf("Access-Control-Allow-Headers %q", r.Header.Get("Access-Control-Allow-Headers"))
			}
		})
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "PROPFIND"} {
			t.Run(method+" "+path, func(t *testing.T) {
				r := s.do(method, base+path, strings.NewReader("{}"))
				s.validateProblem(r, http.StatusMethodNotAllowed, "method_not_allowed")
				if r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
					t.Errorf("Allow %q", r.Header.Get("Allow"))
				}
			})
		}
	}
}

func TestConditionalRequests(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, path := range []string{"/api/v1", "/api/v1/profile", "/api/v1/insights", "/openapi.json"} {
		etag := s.get(path).Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) {
			t.Fatalf("%s: ETag %q is not a strong tag", path, etag)
		}
		for _, tc := range []struct {
			name, inm string
			want      int
		}{
			{"same tag", etag, http.StatusNotModified},
			{"weak form of the tag", "W/" + etag, http.StatusNotModified},
			{"in a list", `"other", ` + etag, http.StatusNotModified},
			{"wildcard", "*", http.StatusNotModified},
			{"other tag", `"other"`, http.StatusOK},
		} {
			r := s.get(path, "If-None-Match", tc.inm)
			if r.StatusCode != tc.want {
				t.Errorf("%s %s: status %d, want %d", path, tc.name, r.StatusCode, tc.want)
			}
			if tc.want == http.StatusNotModified && (len(r.body) != 0 || r.Header.Get("ETag") != etag) {
				t.Errorf("%s %s: 304 with %d body bytes and ETag %q", path, tc.name, len(r.body), r.Header.Get("ETag"))
			}
		}
	}
}

func TestProblems(t *testing.T) {
	s := startCaddy(t, sampleSite)
	long := strings.Repeat("a", 8192)
	for _, tc := range []struct {
		name, path string
		status     int
		code       string
		described  bool // the path is in the OpenAPI description
	}{
		{"unknown path under /api/v1", "/api/v1/nope", 404, "not_found", false},
		{"trailing slash", "/api/v1/", 404, "not_found", false},
		{"unknown slug", "/api/v1/insights/no-such-insight", 404, "not_found", true},
		{"slug in another case", "/api/v1/insights/The-Case-For-A-Boring-Data-Platform", 404, "not_found", true},
		{"slug with a double hyphen", "/api/v1/insights/a--b", 404, "not_found", true},
		{"control character in the slug", "/api/v1/insights/a%0Ab", 400, "bad_request", true},
		{"a dot segment as a slug, encoded", "/api/v1/insights/%2E%2E", 400, "bad_request", true},
		{"8 KiB slug", "/api/v1/insights/" + long, 400, "bad_request", true},
		{"NUL in the slug", "/api/v1/insights/a%00b", 400, "bad_request", true},
		{"invalid UTF-8 in the slug", "/api/v1/insights/%ff%fe", 400, "bad_request", true},
		{"markup in the slug", "/api/v1/insights/%3Cscript%3Ealert(1)", 404, "not_found", true},
		{"markup in the path", "/api/v1/%3Cimg%20src=x%3E", 404, "not_found", false},
		{"encoded traversal", "/api/v1/insights/..%2f..%2f..%2fetc%2fpasswd", 404, "not_found", false},
		{"dot segments", "/api/v1/insights/../../etc/passwd", 404, "not_found", false},
		{"long query string", "/api/v1/nope?q=" + long, 404, "not_found", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, base+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = tc.path // send the path exactly as written
			r := s.send(req)
			p := s.validateProblem(r, tc.status, tc.code)
			if tc.described {
				s.validate(r)
			}
			if r.Header.Get("API-Version") != "1" {
				t.Errorf("API-Version %q on a problem under /api", r.Header.Get("API-Version"))
			}
			for _, raw := range []string{"<script", "<img", "\x00"} {
				if strings.Contains(string(r.body), raw) {
					t.Errorf("the body reflects %q unescaped: %s", raw, r.body)
				}
			}
			if detail, _ := p["detail"].(string); len(detail) > 512 {
				t.Errorf("the detail is %d bytes: input must not be echoed in full", len(detail))
			}
			if tc.code == "not_found" && !tc.described {
				if p["title"] != "Not Found" || !strings.Contains(p["detail"].(string), "endpoint does not exist") ||
					!strings.Contains(p["hint"].(string), base+"/openapi.json") {
					t.Errorf("not_found problem %v", p)
				}
			}
			if inst, _ := p["instance"].(string); !strings.HasPrefix(inst, base+"/api/") {
				t.Errorf("instance %q is not the requested URL", inst)
			}
		})
	}
}

func TestOtherPathsGoToTheNextHandler(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, path := range []string{"/", "/about", "/api", "/apiv1", "/developer", "/insights/the-case-for-a-boring-data-platform", "/openapi.yaml"} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			r := s.do(method, base+path, nil)
			if r.StatusCode != http.StatusOK || string(r.body) != "next handler" || r.Header.Get("API-Version") != "" {
				t.Errorf("%s %s: %d %q, headers %v", method, path, r.StatusCode, r.body, r.Header)
			}
		}
	}
}

func TestBaseURL(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		base_url https://example.com
	}
}
`)
	index := s.get("/api/v1").json(t)
	if index["openapi"] != "https://example.com/openapi.json" {
		t.Errorf("openapi %v", index["openapi"])
	}
	p := s.get("/api/v1/nope").json(t)
	if p["type"] != "https://example.com/developers#error-not-found" || p["instance"] != "https://example.com/api/v1/nope" {
		t.Errorf("problem %v", p)
	}
	if !strings.Contains(string(s.get("/openapi.json").body), `"url": "https://example.com"`) {
		t.Error("the OpenAPI servers entry does not name the base URL")
	}
}

func TestHostDerivedBaseURL(t *testing.T) {
	s := startCaddy(t, `
http://:9080 {
	discovery {
		content sample
	}
}
`)
	for _, host := range []string{"one.example", "two.example:9080"} {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/profile", nil)
		req.Host = host
		r := s.send(req)
		if u := r.json(t)["urls"].(map[string]any)["openapi"]; u != "http://"+host+"/openapi.json" {
			t.Errorf("Host %s: openapi %v", host, u)
		}
		// A document that names the request's Host is for that client:
		// no shared cache may hand it to a client of another Host.
		if cc := r.Header.Get("Cache-Control"); cc != "private, max-age=300" {
			t.Errorf("Host %s: Cache-Control %q, want private", host, cc)
		}
	}
}

// A request line in absolute form names the host it likes, whatever the
// Host header says (RFC 9112 section 3.2.2). Without base_url the CLI then
// has that host built in, and must not be stored for anyone else; with
// base_url it names the configured address, and is public.
func TestAbsoluteFormRequestLine(t *testing.T) {
	for _, tc := range []struct {
		name, directive, wantBase, wantCache string
	}{
		{"without base_url", "discovery", "http://evil.example", "private, max-age=3600"},
		{"with base_url", "discovery {\n\t\tcontent sample\n\t\tbase_url https://site.example\n\t}", "https://site.example", "public, max-age=3600"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			startCaddy(t, "http://:9080 {\n\t"+tc.directive+"\n}\n")
			conn, err := net.Dial("tcp", "localhost:9080")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "GET http://evil.example/cli/discovery.mjs HTTP/1.1\r\nHost: localhost:9080\r\nConnection: close\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"`+tc.wantBase+`"`) {
				t.Fatalf("%d; want the CLI with %s built in", resp.StatusCode, tc.wantBase)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != tc.wantCache {
				t.Errorf("Cache-Control %q, want %q", cc, tc.wantCache)
			}
		})
	}
}

func TestContentDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "profile.yaml"), minimalProfile)
	writeFile(t, filepath.Join(dir, "insights", "hello-world.md"), `---
title: Hello, world
description: The first post.
date: January 2, 2026
dateISO: 2026-01-02
dateModifiedISO: 2026-01-03
topic: Greetings
---
Hello from my own content directory.
`)
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content `+dir+`
	}
}
`)
	list := s.get("/api/v1/insights").json(t)
	if list["count"] != 1.0 {
		t.Fatalf("insights %v", list)
	}
	doc := s.get("/api/v1/insights/hello-world")
	s.validate(doc)
	d := doc.json(t)
	if d["readTime"] != "1 min read" || d["dateISO"] != "2026-01-02" || d["content"] != "Hello from my own content directory.\n" {
		t.Errorf("document %v", d)
	}
	profile := s.get("/api/v1/profile")
	s.validate(profile)
	if profile.json(t)["name"] != "Ada Example" {
		t.Errorf("profile %s", profile.body)
	}
}

func TestBadConfigurationsFailToLoad(t *testing.T) {
	broken := t.TempDir()
	writeFile(t, filepath.Join(broken, "profile.yaml"), strings.Replace(minimalProfile, "ada@example.com", "not-an-email", 1))
	assertConfigsFailToLoad(t, []configCase{
		{"missing content directory", "content /nonexistent/content", "/nonexistent/content"},
		{"invalid content", "content " + broken, "contact.email"},
		{"base URL with a path", "base_url https://example.com/site", "base_url"},
		{"base URL without a scheme", "base_url example.com", "base_url"},
		{"unknown subdirective", "colour blue", "unrecognized subdirective 'colour'"},
		{"deprecation not a date", "deprecation soon", "deprecation"},
		{"sunset before deprecation", "deprecation 2027-01-01\n\t\tsunset 2026-01-01", "sunset"},
		{"CLI name with a slash", "cli_name ../x", "cli_name"},
		{"rate limit window too short", "rate_limit 10 10ms", "rate_limit"},
		{"rate limit without a window", "rate_limit 10", "wrong argument count"},
		{"base URL from an unset variable", "base_url {env.DISCOVERY_TEST_UNSET_VARIABLE}", "base_url: {env.DISCOVERY_TEST_UNSET_VARIABLE} is empty"},
		{"content from an unset variable", "content {env.DISCOVERY_TEST_UNSET_VARIABLE}", "content: {env.DISCOVERY_TEST_UNSET_VARIABLE} is empty"},
		{"token secret from an unset variable", "token_secret {env.DISCOVERY_TEST_UNSET_VARIABLE}", "token_secret: {env.DISCOVERY_TEST_UNSET_VARIABLE} is empty"},
	})
}

// configCase is a discovery block that must fail to load, and what the
// error must say.
type configCase struct{ name, block, want string }

// assertConfigsFailToLoad loads each case's block in a site and checks
// that Caddy refuses it with an error that says what the case wants.
func assertConfigsFailToLoad(t *testing.T, cases []configCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			caddytest.AssertLoadError(t, globalOptions+`
http://localhost:9080 {
	discovery {
		`+tc.block+`
	}
}
`, "caddyfile", tc.want)
		})
	}
}

const minimalProfile = `name: Ada Example
tagline: Engineer
about: ["Ada builds things."]
keyFacts: []
recognition: []
expertise: [Engineering]
education: []
contact:
  form: /contact
  phone: "+1 555 0100"
  email: ada@example.com
  linkedin: https://www.linkedin.com/in/ada
  x: https://x.com/ada
  substack: https://ada.substack.com
  youtube: https://www.youtube.com/@ada
  companyBio: https://example.com/ada
siteStructure:
  - {label: Home, url: /, desc: The home page}
lastUpdated: 2026-01-03
`

func writeFile(t testing.TB, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
