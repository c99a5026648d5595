package content

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// link is a symbolic link in a MapFS.
func link(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
}

// withFiles is a content directory of validProfile and the given files,
// where a string is a file's content and a *fstest.MapFile is taken as is.
func withFiles(files map[string]any) fstest.MapFS {
	fsys := fstest.MapFS{"profile.yaml": {Data: []byte(validProfile)}}
	for name, f := range files {
		switch f := f.(type) {
		case string:
			fsys[name] = &fstest.MapFile{Data: []byte(f)}
		case *fstest.MapFile:
			fsys[name] = f
		}
	}
	return fsys
}

func slugs(site *Site) []string {
	var s []string
	for _, in := range site.Insights {
		s = append(s, in.Slug)
	}
	return s
}

func TestLoadFiles(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]any
		slugs   []string // newest first
		skipped []Skip
	}{
		{
			name: ".md and .markdown",
			files: map[string]any{
				"insights/a.md":       post("title: A", "date: 2024-05-02"),
				"insights/b.markdown": post("title: B", "date: 2024-05-01"),
				"insights/c.MD":       post("title: C", "date: 2024-05-03"),
			},
			slugs: []string{"c", "a", "b"},
		},
		{
			name: "year and month folders",
			files: map[string]any{
				"insights/2023/old.md":    post("title: A", "date: 2023-05-01"),
				"insights/2024/05/new.md": post("title: B", "date: 2024-05-01"),
			},
			slugs: []string{"new", "old"},
		},
		{
			name: "Hugo page bundle: the index is the post, the rest belongs to it",
			files: map[string]any{
				"insights/my-post/index.md":         post("title: A", "date: 2024-05-01"),
				"insights/my-post/notes.md":         "no front matter",
				"insights/my-post/images/a.png":     "\x89PNG",
				"insights/my-post/cover.jpg":        "\xff\xd8",
				"insights/2024/other-post/index.md": post("title: B", "date: 2024-04-01"),
			},
			slugs: []string{"my-post", "other-post"},
			skipped: []Skip{
				{Path: "insights/my-post/cover.jpg", Reason: "belongs to the page bundle insights/my-post/index.md"},
				{Path: "insights/my-post/images", Reason: "belongs to the page bundle insights/my-post/index.md"},
				{Path: "insights/my-post/notes.md", Reason: "belongs to the page bundle insights/my-post/index.md"},
			},
		},
		{
			name: "Hugo section pages and an index of the insights folder",
			files: map[string]any{
				"insights/_index.md":      "---\ntitle: Insights\n---\n",
				"insights/index.md":       "A list page.",
				"insights/2024/_index.md": "---\ntitle: 2024\n---\n",
				"insights/2024/a.md":      post("title: A", "date: 2024-05-01"),
			},
			slugs: []string{"a"},
			skipped: []Skip{
				{Path: "insights/2024/_index.md", Reason: "section page (_index), not a post"},
				{Path: "insights/_index.md", Reason: "section page (_index), not a post"},
				{Path: "insights/index.md", Reason: "index page of the insights folder, not a post"},
			},
		},
		{
			name: "names beginning with _ or .",
			files: map[string]any{
				"insights/a.md":          post("title: A", "date: 2024-05-01"),
				"insights/_partial.md":   "{{ partial }}",
				"insights/_drafts/b.md":  post("title: B", "date: 2024-05-01"),
				"insights/.git/HEAD":     "ref: refs/heads/main",
				"insights/.hidden.md":    "x",
				"insights/draft.md.swp":  "x",
				"insights/using-mdx.mdx": post("title: M", "date: 2024-05-01"),
			},
			slugs: []string{"a"},
			skipped: []Skip{
				{Path: "insights/.git", Reason: "hidden"},
				{Path: "insights/.hidden.md", Reason: "hidden"},
				{Path: "insights/_drafts", Reason: "name begins with _"},
				{Path: "insights/_partial.md", Reason: "name begins with _"},
				{Path: "insights/draft.md.swp", Reason: "not Markdown"},
				{Path: "insights/using-mdx.mdx", Reason: "MDX is not read, only .md and .markdown"},
			},
		},
		{
			name: "Jekyll file names and drafts",
			files: map[string]any{
				"insights/2024-01-15-my-post.md":     post("title: A"),
				"insights/2024-02-01-unpublished.md": post("title: B", "published: false"),
			},
			slugs: []string{"my-post"},
			skipped: []Skip{
				{Path: "insights/2024-02-01-unpublished.md", Reason: "not published (published: false)"},
			},
		},
		{
			name: "symbolic links inside the content directory are followed",
			files: map[string]any{
				"shared/linked.md":   post("title: L", "date: 2024-05-01"),
				"shared/more/m.md":   post("title: M", "date: 2024-04-01"),
				"insights/linked.md": link("../shared/linked.md"),
				"insights/more":      link("../shared/more"),
				"insights/chain.md":  link("via.md"),
				"insights/via.md":    link("real.md"),
				"insights/real.md":   post("title: R", "date: 2024-03-01"),
				"insights/again":     link("."),
				"insights/notes.txt": link("../shared/linked.md"),
			},
			slugs: []string{"linked", "m", "chain", "real", "via"},
			skipped: []Skip{
				{Path: "insights/again", Reason: "same folder as insights"},
				{Path: "insights/notes.txt", Reason: "not Markdown"},
			},
		},
		{
			name: "the insights folder may itself be a link inside the content directory",
			files: map[string]any{
				"posts/a.md": post("title: A", "date: 2024-05-01"),
				"insights":   link("posts"),
			},
			slugs: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := Load(withFiles(tt.files))
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if got := slugs(site); !reflect.DeepEqual(got, tt.slugs) {
				t.Errorf("slugs = %q, want %q", got, tt.slugs)
			}
			if !reflect.DeepEqual(site.Skipped, tt.skipped) {
				t.Errorf("Skipped =\n%q\nwant\n%q", site.Skipped, tt.skipped)
			}
		})
	}
}

func TestLoadFilesErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]any
		want  string
	}{
		{
			name:  "link out of the content directory",
			files: map[string]any{"insights/x.md": link("../../etc/passwd")},
			want:  "insights/x.md: is a symbolic link that leads outside the content directory",
		},
		{
			name:  "absolute link",
			files: map[string]any{"insights/x.md": link("/etc/passwd")},
			want:  "insights/x.md: is a symbolic link that leads outside the content directory",
		},
		{
			name:  "link to a folder out of the content directory",
			files: map[string]any{"insights/more": link("../..")},
			want:  "insights/more: is a symbolic link that leads outside the content directory",
		},
		{
			name:  "link through a link out of the content directory",
			files: map[string]any{"insights/up": link("../insights"), "insights/x.md": link("up/../../outside.md")},
			want:  "insights/x.md: is a symbolic link that leads outside the content directory",
		},
		{
			name:  "insights folder linked out of the content directory",
			files: map[string]any{"insights": link("../blog/posts")},
			want:  "insights: is a symbolic link that leads outside the content directory",
		},
		{
			name:  "profile.yaml linked out of the content directory",
			files: map[string]any{"profile.yaml": link("../secrets.yaml")},
			want:  "profile.yaml: is a symbolic link that leads outside the content directory",
		},
		{
			name:  "dangling link",
			files: map[string]any{"insights/x.md": link("missing.md")},
			want:  "insights/x.md: file does not exist",
		},
		{
			name:  "link loop",
			files: map[string]any{"insights/x.md": link("y.md"), "insights/y.md": link("x.md")},
			want: "insights/x.md: is a symbolic link that resolves through more than 40 links\n" +
				"insights/y.md: is a symbolic link that resolves through more than 40 links",
		},
		{
			name:  "insights is a file",
			files: map[string]any{"insights": "not a folder"},
			want:  "insights: is not a folder",
		},
		{
			name: "two files with one slug",
			files: map[string]any{
				"insights/2023/post.md": post("title: A", "date: 2023-05-01"),
				"insights/2024/post.md": post("title: B", "date: 2024-05-01"),
			},
			want: `insights/2024/post.md: slug: "post" is also the slug of insights/2023/post.md: set a different slug in one of them`,
		},
		{
			name: "a slug that takes another file's name",
			files: map[string]any{
				"insights/a.md": post("title: A", "date: 2023-05-01"),
				"insights/b.md": post("title: B", "date: 2024-05-01", "slug: a"),
			},
			want: `insights/b.md: slug: "a" is also the slug of insights/a.md: set a different slug in one of them`,
		},
		{
			name:  "bundle folder outside the slug grammar",
			files: map[string]any{"insights/" + strings.Repeat("a", MaxSlugLength+1) + "/index.md": post("title: A", "date: 2023-05-01")},
			want:  `insights/` + strings.Repeat("a", MaxSlugLength+1) + `/index.md: folder name: "` + strings.Repeat("a", MaxSlugLength+1) + `" is not a slug (` + SlugGrammar + "): rename it or set slug in the front matter",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadStrict(withFiles(tt.files))
			if err == nil {
				t.Fatal("Load() error = nil, want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("Load() error =\n%s\nwant\n%s", err, tt.want)
			}
			checkNoGoTypes(t, err)
		})
	}
}
