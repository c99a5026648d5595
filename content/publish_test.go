package content

import (
	"strings"
	"testing"
	"time"
)

// TestAPostNeverStopsTheSite: posts the loader cannot use are skipped, each
// with its problems (file, line, key, and what to do), and the rest load.
func TestAPostNeverStopsTheSite(t *testing.T) {
	site, err := Load(contentFS(map[string]string{
		"profile.yaml":       validProfile,
		"insights/good.md":   validInsight,
		"insights/no-fm.md":  "The body, and no front matter.\n",
		"insights/fields.md": insightWith("title", `""`, "dateISO", "soon"),
		"insights/toml.md":   "+++\ntitle = 'T'\ndate = soon\n+++\nbody\n",
		"insights/dup.md":    insightWith("topic", "Platforms\nslug: good"),
	}))
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	if len(site.Insights) != 1 || site.Insights[0].Slug != "good" {
		t.Fatalf("Insights = %+v, want only good", site.Insights)
	}
	want := map[string]string{
		"insights/dup.md":    `insights/dup.md:8: slug: "good" is also the slug of insights/good.md: set a different slug in one of them`,
		"insights/fields.md": "insights/fields.md:2: title: is required\n" + `insights/fields.md:5: dateISO: "soon" is not a date (YYYY-MM-DD)`,
		"insights/no-fm.md":  "insights/no-fm.md: front matter: the file must begin with a line of three hyphens (---) for YAML front matter",
		"insights/toml.md":   "insights/toml.md:3: front matter: ",
	}
	if len(site.Skipped) != len(want) {
		t.Fatalf("Skipped = %v, want %d", site.Skipped, len(want))
	}
	for _, skip := range site.Skipped {
		if skip.Err == nil || skip.Reason != reasonUnusable || !strings.HasPrefix(skip.Err.Error(), want[skip.Path]) {
			t.Errorf("%s skipped as %q, %v; want %q", skip.Path, skip.Reason, skip.Err, want[skip.Path])
		}
	}
}

// TestPostsThatAreNotOut: what the generators would not publish, the loader
// does not either, and a post the owner guards stays out; each is skipped
// with its reason, not as a problem.
func TestPostsThatAreNotOut(t *testing.T) {
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	tests := []struct {
		name, frontMatter, reason string
	}{
		{"draft", "draft: true", "draft (draft: true)"},
		{"Jekyll published: false", "published: false", "not published (published: false)"},
		{"dated in the future", "date: " + tomorrow, "dated in the future (" + tomorrow + ")"},
		{"Hugo publishDate in the future beside a date", "publishDate: " + tomorrow, "dated in the future (publishDate: " + tomorrow + ")"},
		{"Hugo published date in the future beside a date", "published: " + tomorrow + "T08:00:00Z", "dated in the future (published: " + tomorrow + "T08:00:00Z)"},
		{"Hugo expiryDate passed", "expiryDate: " + yesterday, "expired (expiryDate: " + yesterday + ")"},
		{"Hugo expirydate, case aside", "expirydate: " + yesterday + "T10:00:00Z", "expired (expirydate: " + yesterday + "T10:00:00Z)"},
		{"private: true", "private: true", "kept private (private: true)"},
		{"noindex: true", "noindex: true", "kept private (noindex: true)"},
		{"jekyll-sitemap sitemap: false", "sitemap: false", "kept private (sitemap: false)"},
		{"Hugo sitemap disable", "sitemap:\n  disable: true", "kept private (sitemap.disable: true)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := []string{"title: T", "date: 2024-05-01", tt.frontMatter}
			if strings.HasPrefix(tt.frontMatter, "date:") {
				lines = []string{"title: T", tt.frontMatter}
			}
			site, err := Load(contentFS(map[string]string{"profile.yaml": validProfile, "insights/x.md": post(lines...)}))
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if len(site.Insights) != 0 || len(site.Skipped) != 1 || site.Skipped[0].Reason != tt.reason || site.Skipped[0].Err != nil {
				t.Errorf("Insights %v, Skipped %+v; want x skipped as %q", site.Insights, site.Skipped, tt.reason)
			}
		})
	}
	for _, out := range []string{"private: false", "noindex: false", "sitemap: true", "expiryDate: 2999-01-01", "publishDate: " + yesterday, "sitemap:\n  priority: 0.5", "lastmod: " + yesterday} {
		site, err := Load(contentFS(map[string]string{"profile.yaml": validProfile, "insights/x.md": post("title: T", "date: 2024-05-01", out)}))
		if err != nil || len(site.Insights) != 1 {
			t.Errorf("%s: Insights %v, Skipped %v, %v; want x published", out, site.Insights, site.Skipped, err)
		}
	}
}

// TestDescriptionFallsBackToTheTitle: a post with no description and no
// paragraph (only a heading, a list, an image) gets its title.
func TestDescriptionFallsBackToTheTitle(t *testing.T) {
	in, err := loadInsight(t, "x.md", "---\ntitle: Only Headings Here\ndate: 2024-05-01\n---\n# Only a heading\n")
	if err != nil {
		t.Fatal(err)
	}
	if in.Description != "Only Headings Here" {
		t.Errorf("Description = %q, want the title", in.Description)
	}
}
