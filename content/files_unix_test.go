//go:build unix

package content

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// promptly runs load and fails the test if it has not returned within a
// few seconds: a loader that opens a FIFO waits for a writer forever.
func promptly(t *testing.T, load func() (*Site, error)) (*Site, error) {
	t.Helper()
	type result struct {
		site *Site
		err  error
	}
	done := make(chan result, 1)
	go func() {
		site, err := load()
		done <- result{site, err}
	}()
	select {
	case r := <-done:
		return r.site, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("the loader did not return: it is blocked on a named pipe")
		return nil, nil
	}
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

func TestLoadDirNamedPipes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "profile.yaml"), validProfile)
	writeFile(t, filepath.Join(dir, "insights", "x.md"), validInsight)
	mkfifo(t, filepath.Join(dir, "insights", "pipe.md"))
	mkfifo(t, filepath.Join(dir, "fifo"))
	symlink(t, "../fifo", filepath.Join(dir, "insights", "linked-pipe.md"))

	site, err := promptly(t, func() (*Site, error) { return problemsOf(LoadDir(dir)) })
	if err != nil {
		t.Fatalf("LoadDir() error: %v", err)
	}
	if got := slugs(site); !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("slugs = %q, want only x", got)
	}
	want := []Skip{
		{Path: "insights/linked-pipe.md", Reason: "not a regular file (named pipe)"},
		{Path: "insights/pipe.md", Reason: "not a regular file (named pipe)"},
	}
	if !reflect.DeepEqual(site.Skipped, want) {
		t.Errorf("Skipped = %q, want %q", site.Skipped, want)
	}
}

func TestLoadDirProfileIsANamedPipe(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, "profile.yaml"))
	_, err := promptly(t, func() (*Site, error) { return problemsOf(LoadDir(dir)) })
	if want := "profile.yaml: is not a regular file (named pipe)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadDir() error = %v, want it to contain %q", err, want)
	}
}

// A file swapped for a named pipe after the folder was listed is opened
// without blocking, and refused once open.
func TestRootDirOpensNamedPipesWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, "pipe.md"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = promptly(t, func() (*Site, error) {
		f, err := rootDir{root}.Open("pipe.md")
		if err != nil {
			return nil, err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if info.Mode().IsRegular() {
			return nil, errors.New("a named pipe stats as a regular file")
		}
		return nil, nil
	})
	if err != nil {
		t.Error(err)
	}
}

func TestLoadDirSymlinks(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.md"), post("title: Secret", "date: 2024-05-01"))
	writeFile(t, filepath.Join(outside, "posts", "p.md"), post("title: P", "date: 2024-05-01"))

	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		slugs []string
		want  string // the error, or "" for none
	}{
		{
			name: "file and folder links inside the content directory are followed",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "shared", "a.md"), post("title: A", "date: 2024-05-01"))
				writeFile(t, filepath.Join(dir, "shared", "more", "b.md"), post("title: B", "date: 2024-04-01"))
				symlink(t, "../shared/a.md", filepath.Join(dir, "insights", "a.md"))
				symlink(t, "../shared/more", filepath.Join(dir, "insights", "more"))
				symlink(t, ".", filepath.Join(dir, "insights", "loop"))
			},
			slugs: []string{"a", "b"},
		},
		{
			name: "a relative link out of the content directory",
			setup: func(t *testing.T, dir string) {
				rel, err := filepath.Rel(filepath.Join(dir, "insights"), filepath.Join(outside, "secret.md"))
				if err != nil {
					t.Fatal(err)
				}
				symlink(t, rel, filepath.Join(dir, "insights", "secret.md"))
			},
			want: "insights/secret.md: is a symbolic link that leads outside the content directory",
		},
		{
			name: "an absolute link out of the content directory",
			setup: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "insights", "secret.md"))
			},
			want: "insights/secret.md: is a symbolic link that leads outside the content directory",
		},
		{
			name: "a folder link out of the content directory",
			setup: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(outside, "posts"), filepath.Join(dir, "insights", "posts"))
			},
			want: "insights/posts: is a symbolic link that leads outside the content directory",
		},
		{
			name: "the insights folder linked out of the content directory",
			setup: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(outside, "posts"), filepath.Join(dir, "insights"))
			},
			want: "insights: is a symbolic link that leads outside the content directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "profile.yaml"), validProfile)
			tt.setup(t, dir)
			site, err := promptly(t, func() (*Site, error) { return problemsOf(LoadDir(dir)) })
			if tt.want != "" {
				if want := "loading content from " + dir + ": " + tt.want; err == nil || err.Error() != want {
					t.Fatalf("LoadDir() error = %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadDir() error: %v", err)
			}
			if got := slugs(site); !reflect.DeepEqual(got, tt.slugs) {
				t.Errorf("slugs = %q, want %q", got, tt.slugs)
			}
		})
	}
}

func TestLoadDirs(t *testing.T) {
	site := t.TempDir()
	writeFile(t, filepath.Join(site, "data", "profile.yaml"), "name: Ada Example\ntagline: Data engineer.\n")
	posts := filepath.Join(site, "content", "posts")
	writeFile(t, filepath.Join(posts, "a.md"), post("title: A", "date: 2024-05-01"))
	writeFile(t, filepath.Join(posts, "_index.md"), "---\ntitle: Posts\n---\n")
	broken := filepath.Join(site, "broken")
	writeFile(t, filepath.Join(broken, "b.md"), post("title: B"))
	missing := filepath.Join(site, "missing")

	tests := []struct {
		name                    string
		profileDir, insightsDir string
		want                    string // the error, or "" for none
	}{
		{name: "posts anywhere", profileDir: filepath.Join(site, "data"), insightsDir: posts},
		{name: "missing insights folder", profileDir: filepath.Join(site, "data"), insightsDir: missing,
			want: "loading content: stat " + missing + ": no such file or directory"},
		{name: "insights folder is a file", profileDir: filepath.Join(site, "data"), insightsDir: filepath.Join(posts, "a.md"),
			want: "loading content: " + filepath.Join(posts, "a.md") + " is not a directory"},
		{name: "missing profile.yaml", profileDir: posts, insightsDir: posts,
			want: "loading content: " + filepath.Join(posts, "profile.yaml") + ": file does not exist"},
		{name: "problems name the files under the folders given", profileDir: filepath.Join(site, "data"), insightsDir: broken,
			want: filepath.Join(broken, "b.md") +
				": date: is required (or dateISO, pubDate, or a file name beginning with YYYY-MM-DD-)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loaded, err := problemsOf(LoadDirs(tt.profileDir, tt.insightsDir))
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("LoadDirs() error = %v\nwant %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadDirs() error: %v", err)
			}
			if got := slugs(loaded); !reflect.DeepEqual(got, []string{"a"}) {
				t.Errorf("slugs = %q, want only a", got)
			}
			want := []Skip{{Path: filepath.Join(posts, "_index.md"), Reason: "section page (_index), not a post"}}
			if !reflect.DeepEqual(loaded.Skipped, want) {
				t.Errorf("Skipped = %q, want %q", loaded.Skipped, want)
			}
			if loaded.Profile.LastUpdated != "2024-05-01" {
				t.Errorf("LastUpdated = %q, want 2024-05-01", loaded.Profile.LastUpdated)
			}
		})
	}
}
