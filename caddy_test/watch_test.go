package caddytest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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

// watchedSample serves a copy of the sample content with watch on. It
// returns the folder, the file of one post and its text, and a function
// that reads the title the API serves for that post ("" if none).
func watchedSample(t *testing.T) (dir, post string, original []byte, title func() string) {
	t.Helper()
	dir = copySample(t)
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content `+dir+`
		watch
		rate_limit 1500 1s
	}
}
`)
	const slug = "hiring-your-first-data-engineer"
	post = filepath.Join(dir, "insights", slug+".md")
	original, err := os.ReadFile(post)
	if err != nil {
		t.Fatal(err)
	}
	return dir, post, original, func() string {
		r := s.get("/api/v1/insights/" + slug)
		if r.StatusCode != 200 {
			return ""
		}
		v, _ := r.json(t)["title"].(string)
		return v
	}
}

// TestWatchedContentChanges: with watch on, an edited post is served
// without a reload; content that does not load keeps the previous content
// serving until it is fixed.
func TestWatchedContentChanges(t *testing.T) {
	dir, post, original, title := watchedSample(t)
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

// TestWatchReloadsUnderConstantChange: a writer that changes a post every
// 50 ms for 10 s never leaves the content quiet for the settle time; the
// content is read again at least every watchMaxWait (2 s) all the same.
func TestWatchReloadsUnderConstantChange(t *testing.T) {
	_, post, original, title := watchedSample(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		// Each version is written beside the content and renamed into
		// place, as sync tools do, so that no reload reads half a file.
		scratch := filepath.Join(t.TempDir(), filepath.Base(post))
		for i, end := 0, time.Now().Add(10*time.Second); time.Now().Before(end); i++ {
			writeFile(t, scratch, strings.Replace(string(original), `title: "Hiring Your First Data Engineer"`,
				`title: "Revision `+strconv.Itoa(i)+`"`, 1))
			if err := os.Rename(scratch, post); err != nil {
				t.Error(err)
				return
			}
			<-tick.C
		}
	}()
	// The served title changes at each reload; the longest time it stays
	// the same while the writer runs is the longest wait for a reload.
	start := time.Now()
	last, lastChange, longest, reloads := title(), start, time.Duration(0), 0
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		case <-time.After(50 * time.Millisecond):
		}
		if now, got := time.Now(), title(); got != last {
			longest = max(longest, now.Sub(lastChange))
			last, lastChange = got, now
			reloads++
		}
	}
	longest = max(longest, time.Since(lastChange))
	t.Logf("changes every 50 ms for %s: %d reloads seen, the longest %s apart", time.Since(start).Round(time.Millisecond), reloads, longest.Round(time.Millisecond))
	// 2 s, plus the reload itself and the polling, on a loaded machine.
	if reloads < 3 || longest > 3*time.Second {
		t.Errorf("%d reloads in 10 s of constant change, the longest wait %s: want a reload at least every 2 s", reloads, longest)
	}
}
