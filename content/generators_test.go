package content

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGenerators loads the posts folder of a real-shaped site of each static
// site generator, with a profile.yaml of just a name and a tagline, and
// checks every derived field.
func TestGenerators(t *testing.T) {
	tests := []struct {
		name        string
		site        string // folder under testdata holding profile.yaml
		posts       string // the generator's posts folder, under site
		lastUpdated string
		want        []Insight // Body is checked by its first words
		skipped     []Skip    // Path relative to the posts folder
	}{
		{
			name:        "Hugo posts with a page bundle, a section page, a draft and a year folder",
			site:        "hugo",
			posts:       "content/posts",
			lastUpdated: "2024-04-02",
			want: []Insight{
				{
					Slug:            "blameless-incident-reviews",
					Title:           "Blameless Incident Reviews That Change Something",
					Description:     "Most incident reviews end with action items nobody does. Three changes that made ours stick.",
					Date:            "March 12, 2024",
					DateISO:         "2024-03-12",
					DateModifiedISO: "2024-04-02",
					Topic:           "Reliability",
					ReadTime:        "1 min read",
					Body:            "Every team I have worked with says",
				},
				{
					Slug:  "on-call-without-burnout",
					Title: "On-Call Without Burnout",
					Description: "On-call does not have to be miserable. After two years of running a rota for a team of six, " +
						"we page people about a third as often as we did, and nobody has asked to leave the rota.",
					Date:            "November 20, 2023",
					DateISO:         "2023-11-20",
					DateModifiedISO: "2023-11-20",
					Topic:           "on-call",
					ReadTime:        "1 min read",
					Body:            `{{< figure src="rota.svg"`,
				},
				{
					Slug:            "service-level-objectives-for-small-teams",
					Title:           "SLOs for Small Teams",
					Description:     "You do not need an SRE department to set service level objectives. You need one number your team agrees on.",
					Date:            "September 14, 2022",
					DateISO:         "2022-09-14",
					DateModifiedISO: "2023-01-10",
					Topic:           "Reliability",
					ReadTime:        "1 min read",
					Body:            "Service level objectives have a reputation",
				},
			},
			skipped: []Skip{
				{Path: "_index.md", Reason: "section page (_index), not a post"},
				{Path: "on-call-without-burnout/handover-checklist.md", Reason: "belongs to the page bundle {posts}/on-call-without-burnout/index.md"},
				{Path: "on-call-without-burnout/rota.svg", Reason: "belongs to the page bundle {posts}/on-call-without-burnout/index.md"},
				{Path: "writing-runbooks-people-read.md", Reason: "draft (draft: true)"},
			},
		},
		{
			name:        "Jekyll _posts with dated file names, categories and an unpublished post",
			site:        "jekyll",
			posts:       "_posts",
			lastUpdated: "2024-01-15",
			want: []Insight{
				{
					Slug:  "welcome-to-the-new-blog",
					Title: "Welcome to the New Blog",
					Description: "After six years on a hosted platform, this blog now lives in a Git repository and builds with Jekyll. " +
						"Old links redirect.",
					Date:            "January 15, 2024",
					DateISO:         "2024-01-15",
					DateModifiedISO: "2024-01-15",
					Topic:           "announcements",
					ReadTime:        "1 min read",
					Body:            "After six years on a hosted platform",
				},
				{
					Slug:            "testing-terraform-modules",
					Title:           "Testing Terraform Modules Before They Bite",
					Description:     "A Terraform module that nobody tests is a module that somebody will break on a Friday afternoon.",
					Date:            "September 4, 2023",
					DateISO:         "2023-09-04",
					DateModifiedISO: "2023-10-01",
					Topic:           "infrastructure",
					ReadTime:        "1 min read",
					Body:            "A Terraform module that nobody tests",
				},
			},
			skipped: []Skip{
				{Path: "2023-06-01-unfinished-thoughts-on-kubernetes.md", Reason: "not published (published: false)"},
			},
		},
		{
			name:        "Eleventy posts with tags lists, unquoted dates and a directory data file",
			site:        "eleventy",
			posts:       "posts",
			lastUpdated: "2024-02-28",
			want: []Insight{
				{
					Slug:            "accessible-forms",
					Title:           "Building Accessible Forms",
					Description:     "Forms are where most sites lose people who use assistive technology.",
					Date:            "February 10, 2024",
					DateISO:         "2024-02-10",
					DateModifiedISO: "2024-02-28",
					Topic:           "accessibility",
					ReadTime:        "1 min read",
					Body:            "Forms are where most sites lose people",
				},
				{
					Slug:            "notes-on-css-grid",
					Title:           "Notes on CSS Grid",
					Description:     "Things about CSS grid that I keep looking up, written down once.",
					Date:            "December 1, 2023",
					DateISO:         "2023-12-01",
					DateModifiedISO: "2023-12-01",
					Topic:           DefaultTopic,
					ReadTime:        "1 min read",
					Body:            "These are my notes on CSS grid",
				},
			},
			skipped: []Skip{
				{Path: "posts.json", Reason: "not Markdown"},
			},
		},
		{
			name:        "Astro content collection with pubDate, updatedDate, a draft and an MDX post",
			site:        "astro",
			posts:       "src/content/blog",
			lastUpdated: "2024-03-09",
			want: []Insight{
				{
					Slug:            "measuring-interaction-to-next-paint",
					Title:           "Measuring Interaction to Next Paint in the Field",
					Description:     "Lab tools miss most slow interactions. How to find the ones your users actually hit.",
					Date:            "March 1, 2024",
					DateISO:         "2024-03-01",
					DateModifiedISO: "2024-03-09",
					Topic:           "performance",
					ReadTime:        "1 min read",
					Body:            "Interaction to Next Paint replaced",
				},
				{
					Slug:            "first-post",
					Title:           "First post",
					Description:     "Why this blog exists, and what it will and will not cover.",
					Date:            "July 8, 2022",
					DateISO:         "2022-07-08",
					DateModifiedISO: "2022-07-08",
					Topic:           DefaultTopic,
					ReadTime:        "1 min read",
					Body:            "This blog is about making web pages fast",
				},
			},
			skipped: []Skip{
				{Path: "using-mdx.mdx", Reason: "MDX is not read, only .md and .markdown"},
				{Path: "view-transitions-draft.md", Reason: "draft (draft: true)"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			siteDir := filepath.Join("testdata", tt.site)
			postsDir := filepath.Join(siteDir, filepath.FromSlash(tt.posts))
			site, err := LoadDirs(siteDir, postsDir)
			if err != nil {
				t.Fatalf("LoadDirs() error: %v", err)
			}
			if got := site.Profile.LastUpdated; got != tt.lastUpdated {
				t.Errorf("LastUpdated = %q, want %q (the newest insight's modification date)", got, tt.lastUpdated)
			}
			if len(site.Insights) != len(tt.want) {
				t.Fatalf("got %d insights, want %d: %+v", len(site.Insights), len(tt.want), site.Insights)
			}
			for i, want := range tt.want {
				got := site.Insights[i]
				if !strings.HasPrefix(got.Body, want.Body) {
					t.Errorf("%s: Body begins %.60q, want %q", got.Slug, got.Body, want.Body)
				}
				if want.ReadTime != ReadTime(got.Body) {
					t.Errorf("%s: want.ReadTime %q is not the computed %q", got.Slug, want.ReadTime, ReadTime(got.Body))
				}
				got.Body, want.Body = "", ""
				got.DescriptionGiven = false // TestDescriptionGiven holds it
				if want.Page == "" {
					want.Page = "/insights/" + want.Slug // the default pattern, filled in
				}
				if got != want {
					t.Errorf("Insights[%d] =\n%+v\nwant\n%+v", i, got, want)
				}
			}
			var want []Skip
			for _, s := range tt.skipped {
				want = append(want, Skip{
					Path:   filepath.Join(postsDir, filepath.FromSlash(s.Path)),
					Reason: strings.ReplaceAll(filepath.FromSlash(s.Reason), "{posts}", postsDir),
				})
			}
			if !reflect.DeepEqual(site.Skipped, want) {
				t.Errorf("Skipped =\n%q\nwant\n%q", site.Skipped, want)
			}
		})
	}
}

// TestDescriptionGiven: an insight says whether its front matter gives its
// description, which then stands before the one its page carries.
func TestDescriptionGiven(t *testing.T) {
	for _, tc := range []struct {
		name, post string
		want       bool
	}{
		{"given", post("title: T", "date: 2024-05-01", "description: Mine."), true},
		{"in a theme's meta", post("title: T", "date: 2024-05-01", "meta: Mine."), true},
		{"derived", post("title: T", "date: 2024-05-01"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, err := Load(contentFS(map[string]string{"profile.yaml": validProfile, "insights/a.md": tc.post}))
			if err != nil || len(site.Insights) != 1 {
				t.Fatalf("Load: %v", err)
			}
			if got := site.Insights[0].DescriptionGiven; got != tc.want {
				t.Errorf("DescriptionGiven = %v, want %v", got, tc.want)
			}
		})
	}
}
