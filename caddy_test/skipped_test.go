package caddytest

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// brokenBlog writes a content folder as real blogs have them: a good post,
// posts with keys the module does not read (a Hugo taxonomy), a post with
// no paragraph, posts the generator would not publish or the owner guards,
// and posts the module cannot use.
func brokenBlog(t *testing.T) string {
	dir := t.TempDir()
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	files := map[string]string{
		"profile.yaml":                minimalProfile,
		"insights/good.md":            "---\ntitle: Good\ndate: 2024-05-01\n---\nA good post.\n",
		"insights/taxonomy.md":        "---\ntitle: Taxonomy\ndate: 2024-05-02\ntopics: [go, caddy]\nseries: [one]\naliases: [/old/]\n---\nHugo taxonomies.\n",
		"insights/only-a-heading.md":  "---\ntitle: Only A Heading\ndate: 2024-05-03\n---\n# Heading\n",
		"insights/draft.md":           "---\ntitle: Draft\ndate: 2024-05-04\ndraft: true\n---\nNot yet.\n",
		"insights/scheduled.md":       "---\ntitle: Scheduled\ndate: " + tomorrow + "\n---\nTomorrow.\n",
		"insights/private.md":         "---\ntitle: Private\ndate: 2024-05-05\nprivate: true\n---\nMine.\n",
		"insights/no-front-matter.md": "Just text.\n",
		"insights/bad-date.md":        "---\ntitle: Bad Date\ndate: someday\n---\nWhen?\n",
	}
	for name, data := range files {
		writeFile(t, filepath.Join(dir, name), data)
	}
	return dir
}

// TestBrokenPostsAreSkipped: a content folder with posts the module cannot
// use still starts the site; each such post gets one WARN line naming the
// file, the line and what to do, the load one INFO line with its counts;
// `caddy validate` shows the same warnings and succeeds.
func TestBrokenPostsAreSkipped(t *testing.T) {
	dir := brokenBlog(t)
	caddyfile := processCaddyfile(9262, t.TempDir(), "content "+dir)
	p := startProcess(t, "Caddy", "http://localhost:9262", caddyfile)
	resp, err := http.Get("http://localhost:9262/api/v1/insights")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct{ Slug, Description string } `json:"items"`
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("insights: %d %v", resp.StatusCode, err)
	}
	var slugs []string
	for _, it := range list.Items {
		slugs = append(slugs, it.Slug)
		if it.Slug == "only-a-heading" && it.Description != "Only A Heading" {
			t.Errorf("a post with no paragraph is described as %q, want its title", it.Description)
		}
	}
	slices.Sort(slugs)
	if want := []string{"good", "only-a-heading", "taxonomy"}; !slices.Equal(slugs, want) {
		t.Errorf("published %q, want %q", slugs, want)
	}
	log := p.stop()
	for _, want := range []string{
		`"level":"warn","ts":`,
		`"msg":"post skipped: it cannot be used, and the rest of the content is served","file":"insights/bad-date.md","problems":"insights/bad-date.md:3: date: \"someday\" is not a date: write it as YYYY-MM-DD, or add dateISO"`,
		`"file":"insights/no-front-matter.md","problems":"insights/no-front-matter.md: front matter: the file must begin with a line of three hyphens (---)`,
		`"msg":"content loaded"`,
		`"insights":3,"skipped":5,"skipped_by_reason":{"cannot be used":2,"dated in the future":1,"draft":1,"kept private":1}`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s\n%s", want, log)
		}
	}
	if n := strings.Count(log, `"level":"warn","ts":`) - strings.Count(log, `"msg":"post skipped`); n != 4 {
		t.Errorf("%d WARN lines besides the skipped posts', want the 4 of every such start (admin off, no base_url, no HTTP/2 or 3 without TLS)", n)
	}
	if n := strings.Count(log, `"msg":"post skipped`); n != 2 {
		t.Errorf("%d WARN lines about posts, want one per post that cannot be used (2)", n)
	}

	config := filepath.Join(t.TempDir(), "Caddyfile")
	writeFile(t, config, caddyfile)
	validate := exec.Command(testBinary, "validate", "--config", config, "--adapter", "caddyfile")
	validate.Env = append(os.Environ(), runAsCaddy+"=1", "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := validate.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Valid configuration") || !strings.Contains(string(out), `"file":"insights/bad-date.md"`) {
		t.Errorf("caddy validate: %v\n%s", err, out)
	}
}
