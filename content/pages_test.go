package content

import (
	"maps"
	"strings"
	"testing"
)

// TestInsightPages: every insight's page address is the one its site
// serves: the front matter's own (Jekyll's and Eleventy's permalink,
// Hugo's url), else the pattern pages.insight with the slug and the
// publication day filled in; a slug keeps the case and the characters of
// the file name, percent-encoded in the address.
func TestInsightPages(t *testing.T) {
	tests := []struct {
		name, pattern, file string
		frontMatter         []string
		slug, page          string
		given               bool
	}{
		{name: "default pattern", file: "first-post.md", frontMatter: []string{"date: 2024-05-01"},
			slug: "first-post", page: "/insights/first-post"},
		{name: "Jekyll keeps capitals", pattern: "/{year}/{month}/{day}/{slug}/", file: "2015-05-21-Javascript-Tips.md",
			slug: "Javascript-Tips", page: "/2015/05/21/Javascript-Tips/"},
		{name: "date placeholders zero-padded", pattern: "/posts/{year}/{month}/{slug}.html", file: "x.md", frontMatter: []string{"date: 2024-3-7"},
			slug: "x", page: "/posts/2024/03/x.html"},
		{name: "underscore and dot kept", pattern: "/blog/{slug}/", file: "v1.2_notes.md", frontMatter: []string{"date: 2024-05-01"},
			slug: "v1.2_notes", page: "/blog/v1.2_notes/"},
		{name: "non-ASCII slug percent-encoded", file: "x.md", frontMatter: []string{"date: 2024-05-01", "slug: café"},
			slug: "café", page: "/insights/caf%C3%A9"},
		{name: "space percent-encoded", file: "x.md", frontMatter: []string{"date: 2024-05-01", `slug: "a b"`},
			slug: "a b", page: "/insights/a%20b"},
		{name: "absolute pattern", pattern: "https://blog.example.com/{slug}/", file: "x.md", frontMatter: []string{"date: 2024-05-01"},
			slug: "x", page: "https://blog.example.com/x/"},
		{name: "Jekyll permalink wins", pattern: "/{year}/{slug}/", file: "x.md", frontMatter: []string{"date: 2024-05-01", "permalink: /about-x/"},
			slug: "x", page: "/about-x/", given: true},
		{name: "Jekyll permalink placeholders", file: "2024-05-01-Big-News.md", frontMatter: []string{"categories: [Tech, Go]", "permalink: /:categories/:year/:month/:day/:title:output_ext"},
			slug: "Big-News", page: "/tech/go/2024/05/01/Big-News.html", given: true},
		{name: "Jekyll permalink without categories", file: "2024-05-01-x.md", frontMatter: []string{"permalink: /:categories/:title/"},
			slug: "x", page: "/x/", given: true},
		{name: "Hugo url", file: "x.md", frontMatter: []string{"date: 2024-05-01", "url: /my/own/address/"},
			slug: "x", page: "/my/own/address/", given: true},
		{name: "Hugo url without its slash", file: "x.md", frontMatter: []string{"date: 2024-05-01", "url: notes/x/"},
			slug: "x", page: "/notes/x/", given: true},
		{name: "Hugo url of a folder, without the slash", file: "x.md", frontMatter: []string{"date: 2024-05-01", "url: /2020/01/02/no-slash"},
			slug: "x", page: "/2020/01/02/no-slash/", given: true},
		{name: "Hugo url of a file", file: "x.md", frontMatter: []string{"date: 2024-05-01", "url: /2020/01/03/with-ext.html"},
			slug: "x", page: "/2020/01/03/with-ext.html", given: true},
		{name: "Jekyll permalink without a slash stays", file: "x.md", frontMatter: []string{"date: 2024-05-01", "permalink: /notes/x"},
			slug: "x", page: "/notes/x", given: true},
		{name: "permalink before url", file: "x.md", frontMatter: []string{"date: 2024-05-01", "url: /u/", "permalink: /p/"},
			slug: "x", page: "/p/", given: true},
		{name: "non-ASCII permalink percent-encoded", file: "x.md", frontMatter: []string{"date: 2024-05-01", "permalink: /blog/héllo/"},
			slug: "x", page: "/blog/h%C3%A9llo/", given: true},
		{name: "Eleventy template permalink is the pattern's", file: "x.md", frontMatter: []string{"date: 2024-05-01", `permalink: "/blog/{{ page.fileSlug }}/"`},
			slug: "x", page: "/insights/x"},
		{name: "unknown Jekyll placeholder is the pattern's", file: "x.md", frontMatter: []string{"date: 2024-05-01", "permalink: /:collection/:name/"},
			slug: "x", page: "/insights/x"},
		{name: "permalink with a query is the pattern's", file: "x.md", frontMatter: []string{"date: 2024-05-01", "permalink: /x?y=1"},
			slug: "x", page: "/insights/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile := validProfile
			if tt.pattern != "" {
				profile = withPattern(tt.pattern)
			}
			site, err := loadStrict(contentFS(map[string]string{
				"profile.yaml":        profile,
				"insights/" + tt.file: post(append([]string{"title: T"}, tt.frontMatter...)...),
			}))
			if err != nil {
				t.Fatal(err)
			}
			if len(site.Insights) != 1 {
				t.Fatalf("%d insights, skipped %v", len(site.Insights), site.Skipped)
			}
			in := site.Insights[0]
			if in.Slug != tt.slug || in.Page != tt.page || in.PageGiven != tt.given {
				t.Errorf("slug %q, page %q (given %v); want %q, %q (given %v)", in.Slug, in.Page, in.PageGiven, tt.slug, tt.page, tt.given)
			}
		})
	}
}

// TestPermalinkFalseIsNotPublished: Eleventy writes no page for
// permalink: false, so the post is not published.
func TestPermalinkFalseIsNotPublished(t *testing.T) {
	site, err := loadStrict(contentFS(map[string]string{
		"profile.yaml":   validProfile,
		"insights/a.md":  post("title: A", "date: 2024-05-01"),
		"insights/no.md": post("title: B", "date: 2024-05-01", "permalink: false"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(site.Insights) != 1 || len(site.Skipped) != 1 || site.Skipped[0].Reason != "not published (permalink: false)" {
		t.Errorf("insights %v, skipped %v", site.Insights, site.Skipped)
	}
}

// TestInsightPatternPlaceholders: a placeholder pages.insight does not
// know is a load error naming the ones it knows, as an unknown Caddy
// placeholder is.
func TestInsightPatternPlaceholders(t *testing.T) {
	for pattern, want := range map[string]string{
		"/{year}/{slug}/{title}/":       `pages.insight: {title} is not a placeholder: the placeholders are {year}, {month}, {day}, {slug}`,
		"/{yyyy}/{mm}/{slug}":           `pages.insight: {yyyy} and {mm} are not placeholders`,
		"/{year}/{month}/{day}/":        `pages.insight: must contain the placeholder {slug}`,
		"/posts/{Slug}/":                `pages.insight: {Slug} is not a placeholder`,
		"/{year}/{month}/{day}/{slug}/": "",
	} {
		_, err := Load(contentFS(map[string]string{"profile.yaml": withPattern(pattern)}))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", pattern, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want it to contain %q", pattern, err, want)
		}
	}
}

// withPattern is validProfile with pages.insight set to pattern.
func withPattern(pattern string) string {
	return strings.Replace(validProfile, "insight: /insights/{slug}", "insight: \""+pattern+"\"", 1)
}

// TestGuardedPostsAreKnown: a post the owner keeps off every surface is
// skipped, with its slug and page address, so that the module serves
// nothing of that page either; a draft is not guarded (its page does not
// exist yet).
func TestGuardedPostsAreKnown(t *testing.T) {
	site, err := LoadWith(contentFS(map[string]string{
		"profile.yaml":                     withPattern("/{year}/{month}/{slug}/"),
		"insights/open.md":                 post("title: Open", "date: 2024-05-01"),
		"insights/secret.md":               post("title: S", "date: 2024-05-02", "private: true"),
		"insights/Hidden.md":               post("title: H", "date: 2024-05-03", "noindex: true", "permalink: /h/"),
		"insights/off-map.md":              post("title: O", "date: 2024-05-04", "sitemap: false"),
		"insights/wip.md":                  post("title: W", "date: 2024-05-05", "draft: true"),
		"insights/2024-05-06-Left-Out.md":  post("title: L"),
		"insights/private/folder/index.md": post("title: F", "date: 2024-05-07"),
	}), &Options{Exclude: []string{"*Left-Out.md", "private/"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, s := range site.Skipped {
		if s.Guarded() {
			got[s.Path] = [2]string{s.Slug, s.Page}
		}
	}
	want := map[string][2]string{
		"insights/secret.md":              {"secret", "/2024/05/secret/"},
		"insights/Hidden.md":              {"Hidden", "/h/"},
		"insights/off-map.md":             {"off-map", "/2024/05/off-map/"},
		"insights/2024-05-06-Left-Out.md": {"Left-Out", "/2024/05/Left-Out/"},
	}
	if !maps.Equal(got, want) {
		t.Errorf("guarded %v, want %v", got, want)
	}
	if len(site.Insights) != 1 || site.Insights[0].Slug != "open" {
		t.Errorf("insights %v", site.Insights)
	}
}
