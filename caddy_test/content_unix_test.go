//go:build unix

package caddytest

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin posts a Caddyfile to the admin API, as `caddy reload` does,
// and fails the test when the load has not finished within limit, rather
// than letting a loader blocked on a named pipe hang the test. It then
// opens the pipes' writing ends, so that the loader, Caddy's admin API and
// the test's cleanup (which stops Caddy through it) can go on.
func loadWithin(t *testing.T, caddyfile string, limit time.Duration, pipes []string) (int, string) {
	t.Helper()
	type result struct {
		status int
		body   string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.Post("http://localhost:2999/load", "text/caddyfile", strings.NewReader(caddyfile))
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		done <- result{resp.StatusCode, string(body), err}
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("loading the config: %v", r.err)
		}
		return r.status, r.body
	case <-timer.C:
	}
	giveUp := time.After(limit)
	for {
		for _, name := range pipes {
			// Succeeds only while a reader waits; closing it at once
			// gives that reader an empty file.
			if f, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		select {
		case <-done:
			t.Fatalf("the config load did not finish within %s: the content loader blocked on a named pipe", limit)
		case <-giveUp:
			t.Fatalf("the config load did not finish within %s, nor after its pipes were opened", limit)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func contentSite(dir string) string {
	return `
http://localhost:9080 {
	discovery {
		content ` + dir + `
		rate_limit 1500 60s
	}
}
`
}

// hostilePost is a valid insight, so that a loader that read it would
// publish it.
func hostilePost(title string) string {
	return "---\ntitle: " + title + "\ndescription: A post.\ndate: January 2, 2026\ndateISO: 2026-01-02\ntopic: Tests\n---\n" + title + ".\n"
}

func mkfifo(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Fatalf("making a named pipe: %v", err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestHostileContentDirectory reproduces the content-directory attack
// against a real Caddy. A named pipe named like a post used to hang the
// config load forever: the load now completes at once, serves the real
// posts and not the pipe. A symbolic link leading out of the directory (or
// profile.yaml made a pipe) refuses the load at once, naming the file, and
// the content loaded before keeps serving; nothing outside is published.
func TestHostileContentDirectory(t *testing.T) {
	const limit = 10 * time.Second
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.md"), hostilePost("Secret"))
	// hostile makes a content directory with one real post, a pipe named
	// like a post, and a link inside the directory to another pipe.
	hostile := func(t *testing.T) (dir string, pipes []string) {
		dir = t.TempDir()
		writeFile(t, filepath.Join(dir, "profile.yaml"), minimalProfile)
		writeFile(t, filepath.Join(dir, "insights", "hello-world.md"), hostilePost("Hello, world"))
		pipes = []string{filepath.Join(dir, "insights", "pipe.md"), filepath.Join(dir, "fifo")}
		for _, name := range pipes {
			mkfifo(t, name)
		}
		symlink(t, "../fifo", filepath.Join(dir, "insights", "linked-pipe.md"))
		return dir, pipes
	}

	s := startCaddy(t, sampleSite)
	dir, pipes := hostile(t)
	status, body := loadWithin(t, globalOptions+contentSite(dir), limit, pipes)
	if status != http.StatusOK {
		t.Fatalf("loading a content directory with named pipes: %d %s", status, body)
	}
	assertOnlyHelloWorld := func(t *testing.T, when string) {
		t.Helper()
		list := s.get("/api/v1/insights")
		s.validate(list)
		items, _ := list.json(t)["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["slug"] != "hello-world" {
			t.Fatalf("%s: insights %s, want hello-world alone", when, list.body)
		}
		for _, slug := range []string{"pipe", "linked-pipe", "secret"} {
			r := s.get("/api/v1/insights/" + slug)
			s.validateProblem(r, http.StatusNotFound, "not_found")
		}
		if full := s.get("/llms-full.txt"); strings.Contains(string(full.body), "Secret") {
			t.Errorf("%s: /llms-full.txt holds the post from outside the content directory", when)
		}
	}
	assertOnlyHelloWorld(t, "after the load")

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{
			name: "a post linked from outside",
			setup: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "insights", "secret.md"))
			},
			want: "insights/secret.md: is a symbolic link that leads outside the content directory",
		},
		{
			name: "a relative link out to a folder",
			setup: func(t *testing.T, dir string) {
				rel, err := filepath.Rel(filepath.Join(dir, "insights"), outside)
				if err != nil {
					t.Fatal(err)
				}
				symlink(t, rel, filepath.Join(dir, "insights", "elsewhere"))
			},
			want: "insights/elsewhere: is a symbolic link that leads outside the content directory",
		},
		{
			name: "profile.yaml a named pipe",
			setup: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "profile.yaml")); err != nil {
					t.Fatal(err)
				}
				mkfifo(t, filepath.Join(dir, "profile.yaml"))
			},
			want: "profile.yaml: is not a regular file (named pipe)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, pipes := hostile(t)
			tc.setup(t, dir)
			pipes = append(pipes, filepath.Join(dir, "profile.yaml"))
			status, body := loadWithin(t, globalOptions+contentSite(dir), limit, pipes)
			if status == http.StatusOK || !strings.Contains(body, tc.want) {
				t.Fatalf("the load: %d %s\nwant it refused with %q", status, body, tc.want)
			}
			assertOnlyHelloWorld(t, "after the refused load")
		})
	}
}
