package caddytest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// copySample writes the embedded sample content into a folder of the test.
func copySample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(content.SampleFS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(content.SampleFS(), path)
		if err == nil {
			writeFile(t, filepath.Join(dir, path), string(data))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// eventually polls check for up to 10 seconds.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	for range 50 {
		if check() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("after 10 s: %s", what)
}

// TestWatchedContentChanges: with watch on, an edited post is served
// without a reload; content that does not load keeps the previous content
// serving until it is fixed.
func TestWatchedContentChanges(t *testing.T) {
	dir := copySample(t)
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content `+dir+`
		watch
		rate_limit 1500 60s
	}
}
`)
	const slug = "hiring-your-first-data-engineer"
	post := filepath.Join(dir, "insights", slug+".md")
	original, err := os.ReadFile(post)
	if err != nil {
		t.Fatal(err)
	}
	title := func() string {
		r := s.get("/api/v1/insights/" + slug)
		if r.StatusCode != 200 {
			return ""
		}
		v, _ := r.json(t)["title"].(string)
		return v
	}
	if title() != "Hiring Your First Data Engineer" {
		t.Fatalf("title %q", title())
	}
	retitle := func(newTitle string) {
		writeFile(t, post, strings.Replace(string(original), `title: "Hiring Your First Data Engineer"`, `title: "`+newTitle+`"`, 1))
	}

	retitle("Hiring Your First Data Engineer, Revised")
	eventually(t, "the edited title is not served", func() bool { return title() == "Hiring Your First Data Engineer, Revised" })

	profile := filepath.Join(dir, "profile.yaml")
	good, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, profile, strings.Replace(string(good), "rosalind@harbourline.example", "not-an-email", 1))
	retitle("A Title That Must Not Show")
	time.Sleep(1500 * time.Millisecond) // several settle periods
	if got := title(); got != "Hiring Your First Data Engineer, Revised" {
		t.Errorf("with invalid content, the title is %q: the previous content must keep serving", got)
	}

	writeFile(t, profile, string(good))
	eventually(t, "the fixed content is not served", func() bool { return title() == "A Title That Must Not Show" })
}
