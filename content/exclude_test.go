package content

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExclude(t *testing.T) {
	posts := func(slugs ...string) map[string]string {
		files := map[string]string{"profile.yaml": validProfile}
		for _, slug := range slugs {
			files["insights/"+slug] = post("title: T", "date: 2024-05-01", "slug: "+strings.NewReplacer("/", "-", ".md", "").Replace(slug))
		}
		return files
	}
	tree := posts("a.md", "b-wip.md", "drafts/c.md", "2019/d.md", "2019/05/e.md", "notes/drafts/f.md", "bundle/index.md")
	tree["insights/bundle/checklist.md"] = "A file of the bundle, with no front matter.\n"
	tests := []struct {
		name     string
		exclude  []string
		insights []string // slugs, sorted
		skipped  []Skip   // with the file of the bundle, always skipped
	}{
		{
			name:     "nothing excluded",
			insights: []string{"2019-05-e", "2019-d", "a", "b-wip", "bundle-index", "drafts-c", "notes-drafts-f"},
		},
		{
			name:     "a folder, at any depth, by its name",
			exclude:  []string{"drafts"},
			insights: []string{"2019-05-e", "2019-d", "a", "b-wip", "bundle-index"},
			skipped:  []Skip{{Path: "insights/drafts", Reason: "excluded (drafts)"}, {Path: "insights/notes/drafts", Reason: "excluded (drafts)"}},
		},
		{
			name:     "a folder anchored at the insights folder",
			exclude:  []string{"/drafts/"},
			insights: []string{"2019-05-e", "2019-d", "a", "b-wip", "bundle-index", "notes-drafts-f"},
			skipped:  []Skip{{Path: "insights/drafts", Reason: "excluded (/drafts/)"}},
		},
		{
			name:     "files by their name, at any depth",
			exclude:  []string{"*-wip.md", "e.md"},
			insights: []string{"2019-d", "a", "bundle-index", "drafts-c", "notes-drafts-f"},
			skipped:  []Skip{{Path: "insights/2019/05/e.md", Reason: "excluded (e.md)"}, {Path: "insights/b-wip.md", Reason: "excluded (*-wip.md)"}},
		},
		{
			name:     "a wildcard in a path",
			exclude:  []string{"2019/*"},
			insights: []string{"a", "b-wip", "bundle-index", "drafts-c", "notes-drafts-f"},
			skipped:  []Skip{{Path: "insights/2019/05", Reason: "excluded (2019/*)"}, {Path: "insights/2019/d.md", Reason: "excluded (2019/*)"}},
		},
		{
			name:     "an anchored file pattern matches the path only",
			exclude:  []string{"/d.md", "/notes/drafts/f.md"},
			insights: []string{"2019-05-e", "2019-d", "a", "b-wip", "bundle-index", "drafts-c"},
			skipped:  []Skip{{Path: "insights/notes/drafts/f.md", Reason: "excluded (/notes/drafts/f.md)"}},
		},
		{
			name:     "a folder pattern does not match a file",
			exclude:  []string{"a.md/"},
			insights: []string{"2019-05-e", "2019-d", "a", "b-wip", "bundle-index", "drafts-c", "notes-drafts-f"},
		},
		{
			name:     "the post of a page bundle",
			exclude:  []string{"bundle/index.md"},
			insights: []string{"2019-05-e", "2019-d", "a", "b-wip", "drafts-c", "notes-drafts-f"},
			skipped:  []Skip{{Path: "insights/bundle/index.md", Reason: "excluded (bundle/index.md)"}},
		},
		{
			name:     "the first pattern that matches is named",
			exclude:  []string{"*.txt", "a*", "a.md"},
			insights: []string{"2019-05-e", "2019-d", "b-wip", "bundle-index", "drafts-c", "notes-drafts-f"},
			skipped:  []Skip{{Path: "insights/a.md", Reason: "excluded (a*)"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := problemsOf(LoadWith(contentFS(tree), &Options{Exclude: tt.exclude}))
			if err != nil {
				t.Fatalf("LoadWith() error: %v", err)
			}
			var slugs []string
			for _, in := range site.Insights {
				slugs = append(slugs, in.Slug)
			}
			if strings.Join(slugs, " ") != strings.Join(tt.insights, " ") {
				t.Errorf("Insights = %q, want %q", slugs, tt.insights)
			}
			var skipped []Skip
			for _, s := range site.Skipped {
				if s.Path != "insights/bundle/checklist.md" {
					skipped = append(skipped, Skip{Path: s.Path, Reason: s.Reason, Err: s.Err})
				}
			}
			if !reflect.DeepEqual(skipped, tt.skipped) {
				t.Errorf("Skipped = %q, want %q", skipped, tt.skipped)
			}
		})
	}
}

// TestExcludeInAPostsFolder: given a posts folder of its own, patterns are
// matched against paths under it.
func TestExcludeInAPostsFolder(t *testing.T) {
	siteDir := filepath.Join("testdata", "hugo")
	postsDir := filepath.Join(siteDir, "content", "posts")
	site, err := LoadDirsWith(siteDir, postsDir, &Options{Exclude: []string{"2022", "/on-call-without-burnout/"}})
	if err != nil {
		t.Fatalf("LoadDirsWith() error: %v", err)
	}
	if len(site.Insights) != 1 || site.Insights[0].Slug != "blameless-incident-reviews" {
		t.Errorf("Insights = %+v, want only blameless-incident-reviews", site.Insights)
	}
	for _, want := range []Skip{
		{Path: filepath.Join(postsDir, "2022"), Reason: "excluded (2022)"},
		{Path: filepath.Join(postsDir, "on-call-without-burnout"), Reason: "excluded (/on-call-without-burnout/)"},
	} {
		found := false
		for _, s := range site.Skipped {
			found = found || s == want
		}
		if !found {
			t.Errorf("Skipped = %q, want it to hold %q", site.Skipped, want)
		}
	}
}

// TestExcludeBeforeFollowingLinks: an excluded link is never followed, so
// a link out of the folder that the owner excludes does not stop the load.
func TestExcludeBeforeFollowingLinks(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "profile.yaml"), validProfile)
	writeFile(t, filepath.Join(dir, "insights", "x.md"), validInsight)
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "insights", "elsewhere")); err != nil {
		t.Fatalf("cannot make a symbolic link: %v", err)
	}
	if _, err := LoadDir(dir); err == nil {
		t.Fatal("LoadDir() error = nil, want the link leading outside")
	}
	site, err := LoadDirWith(dir, &Options{Exclude: []string{"elsewhere/"}})
	if err != nil {
		t.Fatalf("LoadDirWith() error: %v", err)
	}
	if len(site.Insights) != 1 || len(site.Skipped) != 1 || site.Skipped[0].Reason != "excluded (elsewhere/)" {
		t.Errorf("Insights %v, Skipped %q; want x, and elsewhere excluded", site.Insights, site.Skipped)
	}
}

func TestExcludeMalformedPattern(t *testing.T) {
	opts := &Options{Exclude: []string{"drafts/", "[a-"}}
	fsys := contentFS(map[string]string{"profile.yaml": validProfile})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "profile.yaml"), validProfile)
	for name, load := range map[string]func() (*Site, error){
		"LoadWith":     func() (*Site, error) { return LoadWith(fsys, opts) },
		"LoadDirWith":  func() (*Site, error) { return LoadDirWith(dir, opts) },
		"LoadDirsWith": func() (*Site, error) { return LoadDirsWith(dir, dir, opts) },
	} {
		_, err := load()
		if !errors.Is(err, path.ErrBadPattern) || !strings.Contains(err.Error(), `exclude: "[a-": syntax error in pattern`) {
			t.Errorf("%s() error = %v, want the pattern named as malformed", name, err)
		}
	}
}
