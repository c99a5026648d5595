package caddytest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// siteRobots is a site's own robots.txt, with rules the module must keep.
const siteRobots = `# The site's own rules
User-agent: Googlebot
Disallow: /nogoogle/

User-agent: *
Disallow: /private/
Allow: /private/public.html

Sitemap: https://example.com/site-map.xml
`

const signal = "Content-Signal: ai-train=yes, search=yes, ai-input=yes"

// robotsBackend serves robots.txt with the given status and body, as an app
// behind reverse_proxy does, and returns its address.
func robotsBackend(t *testing.T, status int, body string) string {
	return startBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Backend", "yes")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	})
}

// assertMerged checks that got keeps every line of the site's file in
// order and carries the content signal inside the "User-agent: *" group.
func assertMerged(t *testing.T, got string) {
	t.Helper()
	lines := strings.Split(got, "\n")
	i := 0
	for _, want := range strings.Split(strings.TrimSpace(siteRobots), "\n") {
		for i < len(lines) && lines[i] != want {
			i++
		}
		if i == len(lines) {
			t.Fatalf("the site's line %q is missing or out of order in:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "User-agent: *\n"+signal+"\nDisallow: /private/\n") {
		t.Errorf("the content signal is not in the site's User-agent: * group:\n%s", got)
	}
	if strings.Count(got, "Content-Signal:") != 1 || strings.Contains(got, "Allow: /\n") {
		t.Errorf("the merge added rules:\n%s", got)
	}
}

func TestRobotsMergedBehindFileServer(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "robots.txt"), []byte(siteRobots), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+root+`
	discovery {
		content sample
	}
	file_server
}
`)
	r := s.get("/robots.txt")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("%d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	assertMerged(t, string(r.body))
	if r.Header.Get("Last-Modified") != "" {
		t.Error("the merged file carries the site file's Last-Modified")
	}
	etag := r.Header.Get("ETag")
	if r := s.get("/robots.txt", "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r.StatusCode)
	}
	if r := s.do(http.MethodHead, base+"/robots.txt", nil); r.StatusCode != http.StatusOK || len(r.body) != 0 {
		t.Errorf("HEAD: %d, %d bytes", r.StatusCode, len(r.body))
	}
}

func TestRobotsMergedBehindReverseProxy(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
	}
	reverse_proxy `+robotsBackend(t, http.StatusOK, siteRobots)+`
}
`)
	r := s.get("/robots.txt")
	assertMerged(t, string(r.body))
	if r.Header.Get("X-Backend") != "" {
		t.Error("the merged file carries the backend's headers")
	}
	if r.Header.Get("RateLimit-Policy") == "" {
		t.Error("robots.txt is an owned path but lacks RateLimit-Policy")
	}
}

func TestRobotsKeepsTheSiteSignal(t *testing.T) {
	own := "User-agent: *\nContent-Signal: ai-train=no\nDisallow: /\n"
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
	}
	reverse_proxy `+robotsBackend(t, http.StatusOK, own)+`
}
`)
	got := string(s.get("/robots.txt").body)
	if !strings.HasSuffix(got, own+"\nSitemap: "+base+"/sitemap-discovery.xml\n") || strings.Count(got, "Content-Signal:") != 1 {
		t.Errorf("the site's own signal was not kept as it is:\n%s", got)
	}
}

func TestRobotsOfASiteWithoutOne(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "index.html"), []byte("<!doctype html><title>app</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, site := range map[string]string{
		"file_server": "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\tfile_server",
		"spa":         "root * " + root + "\n\tdiscovery {\n\t\tcontent sample\n\t}\n\ttry_files {path} /index.html\n\tfile_server",
		"backend 404": "discovery {\n\t\tcontent sample\n\t}\n\treverse_proxy " + robotsBackend(t, http.StatusNotFound, "not here"),
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "http://localhost:9080 {\n\t"+site+"\n}\n")
			r := s.get("/robots.txt")
			if r.StatusCode != http.StatusOK || !strings.Contains(string(r.body), "User-agent: *\n"+signal+"\nAllow: /\n") {
				t.Errorf("%d, want the module's own file:\n%s", r.StatusCode, r.body)
			}
		})
	}
}

// TestRobotsPassesOtherAnswers: a site whose robots.txt fails or redirects
// is not replaced by a file that allows everything.
func TestRobotsPassesOtherAnswers(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusUnauthorized} {
		s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
	}
	reverse_proxy `+robotsBackend(t, status, "site says no")+`
}
`)
		if r := s.get("/robots.txt"); r.StatusCode != status || string(r.body) != "site says no" {
			t.Errorf("backend %d: got %d %q", status, r.StatusCode, r.body)
		}
	}
}
