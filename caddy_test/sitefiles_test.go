package caddytest

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestSiteFilesComeFirst: a site that has files of its own where the
// module has documents keeps them. Its own llms.txt is served as the site
// wrote it, whole and first, with the module's section after it; its own
// openapi.json, AI catalog and /index.md are served as they are, and the
// module's documents it does not have are the module's. A site that
// answers every address alike (a catch-all) has no such files.
func TestSiteFilesComeFirst(t *testing.T) {
	const ownLLMs = "# Field Notes\n\n> Small tools, the web, and what breaks.\n\n## Posts\n\n- [Hello](https://field-notes.example/hello/): the first post\n"
	const ownOpenAPI = `{"openapi":"3.1.0","info":{"title":"The site's own API","version":"2"},"paths":{}}`
	root := siteFiles(t, map[string]string{
		"llms.txt":                      ownLLMs,
		"openapi.json":                  ownOpenAPI,
		".well-known/ai-catalog.json":   `{"specVersion":"1.0","entries":[]}`,
		"index.md":                      "# The site's own Markdown home\n",
		"posts/hello/index.html":        "<!doctype html><title>Hello</title>",
		"not-a-catch-all/index.html":    "<!doctype html><title>x</title>",
		filepath.Join("about", "x.txt"): "x",
	})
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+root+`
	discovery {
		content sample
		rate_limit 1500 60s
	}
	file_server
}
`)
	// The first answer of the module waits for the first catalog, which
	// knows the site's files.
	llms := s.get("/llms.txt")
	if llms.StatusCode != http.StatusOK || !strings.HasPrefix(string(llms.body), ownLLMs[:len(ownLLMs)-1]) {
		t.Fatalf("/llms.txt: %d, does not begin with the site's own file:\n%s", llms.StatusCode, llms.body)
	}
	body := string(llms.body)
	if !strings.Contains(body, "\n## API and documents for agents\n\n- [") || !strings.Contains(body, base+"/openapi.json") && !strings.Contains(body, base+"/api/v1") {
		t.Errorf("/llms.txt: the module's section is missing:\n%s", body)
	}
	if strings.Count(body, "\n# ") != 0 || !strings.HasPrefix(body, "# Field Notes\n") {
		t.Errorf("/llms.txt has a second H1 or lost the site's:\n%s", body)
	}
	for path, want := range map[string]string{
		"/openapi.json":                ownOpenAPI,
		"/.well-known/ai-catalog.json": `{"specVersion":"1.0","entries":[]}`,
		"/index.md":                    "# The site's own Markdown home\n",
	} {
		r := s.get(path)
		if r.StatusCode != http.StatusOK || string(r.body) != want {
			t.Errorf("%s: %d, the module hid the site's own file:\n%s", path, r.StatusCode, r.body)
		}
	}
	// What the site does not have stays the module's.
	if r := s.get("/auth.md"); r.StatusCode != http.StatusOK || !strings.Contains(string(r.body), "auth.md") {
		t.Errorf("/auth.md: %d", r.StatusCode)
	}
	if r := s.get("/api/v1"); r.StatusCode != http.StatusOK {
		t.Errorf("/api/v1: %d", r.StatusCode)
	}
}

// TestCatchAllSiteHasNoFilesOfItsOwn: a site that answers every address
// with the same answer (a single-page app's try_files, a respond) has no
// llms.txt or openapi.json of its own: the module's are served.
func TestCatchAllSiteHasNoFilesOfItsOwn(t *testing.T) {
	for name, site := range map[string]string{
		"respond": `respond "the same text everywhere" 200`,
		"spa":     "root * " + siteFiles(t, nil) + "\n\ttry_files {path} /index.html\n\tfile_server",
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "http://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t\trate_limit 1500 60s\n\t}\n\t"+site+"\n}\n")
			if r := s.get("/llms.txt"); r.StatusCode != http.StatusOK || !strings.HasPrefix(string(r.body), "# Rosalind Achterberg\n") {
				t.Errorf("/llms.txt: %d, not the module's:\n%.200s", r.StatusCode, r.body)
			}
			if r := s.get("/openapi.json"); r.StatusCode != http.StatusOK || !strings.Contains(string(r.body), `"openapi": "3.1.0"`) {
				t.Errorf("/openapi.json: %d, not the module's:\n%.200s", r.StatusCode, r.body)
			}
		})
	}
}
