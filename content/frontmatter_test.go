package content

import (
	"strings"
	"testing"
)

// loadInsight loads validProfile and one insight file, insights/<name>.
func loadInsight(t *testing.T, name, data string) (Insight, error) {
	t.Helper()
	site, err := loadStrict(contentFS(map[string]string{"profile.yaml": validProfile, "insights/" + name: data}))
	if err != nil {
		return Insight{}, err
	}
	if len(site.Insights) != 1 {
		t.Fatalf("Load() = %d insights, want 1; skipped %q", len(site.Insights), site.Skipped)
	}
	return site.Insights[0], nil
}

// post is an insight file with the given front-matter lines and a body.
func post(frontMatter ...string) string {
	return "---\n" + strings.Join(frontMatter, "\n") + "\n---\nThe body of the article.\n"
}

func TestFrontMatterDates(t *testing.T) {
	tests := []struct {
		name                        string
		file                        string
		frontMatter                 []string
		date, dateISO, dateModified string
	}{
		{"unquoted ISO date", "x.md", []string{"title: T", "date: 2024-05-01"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"quoted ISO date", "x.md", []string{"title: T", `date: "2024-05-01"`},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"RFC 3339 timestamp", "x.md", []string{"title: T", "date: 2024-05-01T10:00:00Z"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"timestamp with fractional seconds and an offset", "x.md", []string{"title: T", "date: 2024-05-01T10:00:00.250+02:00"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"the day as written, whatever the offset", "x.md", []string{"title: T", "date: '2024-05-01T23:30:00-05:00'"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"Jekyll date with time and offset", "x.md", []string{"title: T", "date: 2024-05-01 10:00:00 +0000"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"YAML timestamp with a space", "x.md", []string{"title: T", "date: 2024-05-01 10:00:00"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"date without zero padding", "x.md", []string{"title: T", "date: 2024-5-1"},
			"May 1, 2024", "2024-05-01", "2024-05-01"},
		{"written-out date alone", "x.md", []string{"title: T", "date: June 21, 2023"},
			"June 21, 2023", "2023-06-21", "2023-06-21"},
		{"dateISO beside a display date, as in the original format", "x.md", []string{"title: T", "date: Spring 2024", `dateISO: "2024-04-01"`},
			"Spring 2024", "2024-04-01", "2024-04-01"},
		{"beside dateISO, date is shown as written", "x.md", []string{"title: T", "date: 2024-04-01", `dateISO: "2024-04-01"`},
			"2024-04-01", "2024-04-01", "2024-04-01"},
		{"Astro pubDate as the blog template writes it", "x.md", []string{"title: T", "pubDate: 'Jul 08 2022'"},
			"July 8, 2022", "2022-07-08", "2022-07-08"},
		{"Astro pubDate and updatedDate", "x.md", []string{"title: T", "pubDate: 2024-03-01", "updatedDate: 2024-03-09"},
			"March 1, 2024", "2024-03-01", "2024-03-09"},
		{"pubDate agreeing with date", "x.md", []string{"title: T", "date: 2024-03-01", "pubDate: 2024-03-01T08:00:00Z"},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"AstroPaper pubDatetime and modDatetime", "x.md", []string{"title: T", "pubDatetime: 2024-03-01T04:06:31.000Z", "modDatetime: 2024-03-09T10:00:00Z"},
			"March 1, 2024", "2024-03-01", "2024-03-09"},
		{"AstroPaper modDatetime left empty", "x.md", []string{"title: T", "pubDatetime: 2024-03-01T04:06:31Z", "modDatetime:"},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"AstroPaper modDatetime blank", "x.md", []string{"title: T", "pubDatetime: 2024-03-01T04:06:31Z", `modDatetime: ""`},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"pubDatetime agreeing with pubDate", "x.md", []string{"title: T", "pubDate: 2024-03-01", "pubDatetime: 2024-03-01T08:00:00Z"},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"Hugo lastmod", "x.md", []string{"title: T", "date: 2024-03-01", "lastmod: 2024-04-02T18:00:00+01:00"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"Hugo modified", "x.md", []string{"title: T", "date: 2024-03-01", "modified: 2024-04-02"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"Eleventy updated", "x.md", []string{"title: T", "date: 2024-03-01", "updated: 2024-04-02"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"dateModified", "x.md", []string{"title: T", "date: 2024-03-01", "dateModified: 2024-04-02"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"Jekyll last_modified_at", "x.md", []string{"title: T", "date: 2024-03-01", "last_modified_at: 2024-04-02 09:00:00 +0100"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"modification keys that agree", "x.md", []string{"title: T", "date: 2024-03-01", "lastmod: 2024-04-02", "updated: 2024-04-02T10:00:00Z"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"dateModifiedISO first", "x.md", []string{"title: T", `dateISO: "2024-03-01"`, `dateModifiedISO: "2024-04-02"`, "date: March 1, 2024"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"keys matched ignoring case, as Hugo does", "x.md", []string{"Title: T", "Date: 2024-03-01", "lastMod: 2024-04-02"},
			"March 1, 2024", "2024-03-01", "2024-04-02"},
		{"Hugo publishDate when there is no date", "x.md", []string{"title: T", "publishDate: 2024-03-01"},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"Hugo published date when there is no date", "x.md", []string{"title: T", "published: 2024-03-01"},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"date before publishDate", "x.md", []string{"title: T", "date: 2024-03-01", "publishDate: 2024-03-05"},
			"March 1, 2024", "2024-03-01", "2024-03-01"},
		{"a time with a field too many, as Jekyll reads it", "x.md", []string{"title: T", "date: 2024-11-18 15:04:11:57"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"Ruby's slashes", "x.md", []string{"title: T", "date: 2024/11/18 15:04"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"Ruby's day first", "x.md", []string{"title: T", "date: 18.11.2024"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"Ruby's afternoon", "x.md", []string{"title: T", "date: 2024-11-18 3:04 pm"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"ISO 8601's basic form", "x.md", []string{"title: T", "date: 20241118"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"luxon's hour alone and short offset", "x.md", []string{"title: T", "date: 2024-11-18T15", "lastmod: 2024-11-19T15:04:11+01"},
			"November 18, 2024", "2024-11-18", "2024-11-19"},
		{"a YAML timestamp with a one-digit offset", "x.md", []string{"title: T", "date: 2024-11-18 15:04:11.5 -5"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"a zone's abbreviation", "x.md", []string{"title: T", "date: 2024-11-18 15:04:11 +0100 CET"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"RFC 1123, as Hugo and Ruby read it", "x.md", []string{"title: T", "date: Mon, 18 Nov 2024 15:04:11 +0100"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"RFC 822, as Hugo reads it", "x.md", []string{"title: T", "date: 18 Nov 24 15:04 +0100"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"ANSI C, as Hugo and Ruby read it", "x.md", []string{"title: T", "date: Mon Nov 18 15:04:11 2024"},
			"November 18, 2024", "2024-11-18", "2024-11-18"},
		{"a written-out date with a time", "x.md", []string{"title: T", "date: June 21, 2023 10:00"},
			"June 21, 2023", "2023-06-21", "2023-06-21"},
		{"24:00 is the next day", "x.md", []string{"title: T", "date: 2024-11-18 24:00"},
			"November 19, 2024", "2024-11-19", "2024-11-19"},
		{"Jekyll file name date", "2024-01-15-x.md", []string{"title: T"},
			"January 15, 2024", "2024-01-15", "2024-01-15"},
		{"front matter date before the file name's", "2024-01-15-x.md", []string{"title: T", "date: 2024-01-16 09:00:00 +0000"},
			"January 16, 2024", "2024-01-16", "2024-01-16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := loadInsight(t, tt.file, post(tt.frontMatter...))
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if in.Date != tt.date || in.DateISO != tt.dateISO || in.DateModifiedISO != tt.dateModified {
				t.Errorf("Date, DateISO, DateModifiedISO = %q, %q, %q; want %q, %q, %q",
					in.Date, in.DateISO, in.DateModifiedISO, tt.date, tt.dateISO, tt.dateModified)
			}
		})
	}
}

func TestFrontMatterDerived(t *testing.T) {
	long := "This first sentence is short. " + strings.Repeat("The second one goes on and on ", 8) + "and ends."
	tests := []struct {
		name  string
		file  string
		data  string
		check func(t *testing.T, in Insight)
	}{
		{
			name: "summary as the description",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "summary: A summary."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "A summary.")
			},
		},
		{
			name: "description before summary",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "summary: A summary.", "description: A description."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "A description.")
			},
		},
		{
			name: "a folded description, trimmed and otherwise as written",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "description: >\n  Tom &amp; Jerry,\n  as written.\n"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "Tom &amp; Jerry, as written.")
			},
		},
		{
			name: "Jekyll excerpt as the description",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "excerpt: An excerpt."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "An excerpt.")
			},
		},
		{
			name: "meta, which a theme puts in the page's meta description",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "meta: The owner's words."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "The owner's words.")
			},
		},
		{
			name: "meta's description",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "meta:\n  keywords: [a]\n  description: The owner's words."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "The owner's words.")
			},
		},
		{
			name: "meta as a theme's switch is no description",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "meta: false", "subtitle: [not, text]"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "The body of the article.")
			},
		},
		{
			name: "an SEO description",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "seo:\n  description: For search.", "abstract: An abstract."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "For search.")
			},
		},
		{
			name: "metaDescription before an abstract",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "abstract: An abstract.", "metaDescription: For search."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "For search.")
			},
		},
		{
			name: "Beautiful Jekyll's share-description before its subtitle",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "subtitle: A subtitle.", "share-description: Shared."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "Shared.")
			},
		},
		{
			name: "a subtitle before the body's words",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "subtitle: A subtitle."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "A subtitle.")
			},
		},
		{
			name: "excerpt before meta",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "meta: Meta.", "excerpt: An excerpt."),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "An excerpt.")
			},
		},
		{
			name: "description from the first paragraph, cut at a sentence",
			file: "x.md",
			data: "---\ntitle: T\ndate: 2024-05-01\n---\n# Heading\n\n" + long + "\n\nSecond paragraph.\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "This first sentence is short.")
			},
		},
		{
			name: "topic from the first category",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "categories: [Data, Engineering]", "tags: [sql]"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Topic", in.Topic, "Data")
			},
		},
		{
			name: "topic from Jekyll's category",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "category: Data"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Topic", in.Topic, "Data")
			},
		},
		{
			name: "topic from the first tag that is not a collection tag",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "tags: [posts, Post, sql]"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Topic", in.Topic, "sql")
			},
		},
		{
			name: "topic key before categories",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "topic: Platforms", "categories: [Data]"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Topic", in.Topic, "Platforms")
			},
		},
		{
			name: "default topic",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "tags: []", "categories:"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Topic", in.Topic, DefaultTopic)
			},
		},
		{
			name: "readTime as a number of minutes",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "readTime: 7"),
			check: func(t *testing.T, in Insight) {
				expect(t, "ReadTime", in.ReadTime, "7 min read")
			},
		},
		{
			name: "slug overrides the file name",
			file: "Some File Name.md",
			data: post("title: T", "date: 2024-05-01", "slug: my-post"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Slug", in.Slug, "my-post")
			},
		},
		{
			name: "Jekyll file name gives the slug",
			file: "2024-05-01-my-post.md",
			data: post("title: T"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Slug", in.Slug, "my-post")
			},
		},
		{
			name: "a file name that only looks dated keeps its name",
			file: "2024-13-01-x.md",
			data: post("title: T", "date: 2024-05-01"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Slug", in.Slug, "2024-13-01-x")
			},
		},
		{
			name: "keys generators and themes write are ignored",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "layout: post", "author: Ada", "authors: [Ada]",
				"image: /a.png", "cover:\n  image: a.png", "aliases: [/old/]", "weight: 3", "permalink: /x/",
				"keywords: [a]", "series: [s]", "toc: true", "math: true", "heroImage: ./a.jpg",
				"eleventyNavigation:\n  key: X", "customThemeParam: 1", "draft: false", "published: true"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
			},
		},
		{
			name: "YAML 1.1 booleans",
			file: "x.md",
			data: post("title: T", "date: 2024-05-01", "draft: no"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
			},
		},
		{
			name: "trailing blanks after the fences, as Jekyll allows",
			file: "x.md",
			data: "--- \ntitle: T\ndate: 2024-05-01\n---\t\nThe body.\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Body", in.Body, "The body.\n")
			},
		},
		{
			name: "aliases in the front matter",
			file: "x.md",
			data: post("title: &t The Title", "date: 2024-05-01", "summary: *t"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "The Title")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := loadInsight(t, tt.file, tt.data)
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			tt.check(t, in)
		})
	}
}

// TestTopicFromOneText: a single text given to tags or categories is split
// as the generators split it, and the topic is its first term.
func TestTopicFromOneText(t *testing.T) {
	tests := []struct {
		name, data, topic string
	}{
		{"Jekyll categories, split at spaces", post("title: T", "date: 2024-05-01", "categories: Machine Learning"), "Machine"},
		{"Jekyll category, kept whole", post("title: T", "date: 2024-05-01", "category: Machine Learning"), "Machine Learning"},
		{"Jekyll tags after a collection tag", post("title: T", "date: 2024-05-01", "tags: posts go caddy"), "go"},
		{"tags with commas", post("title: T", "date: 2024-05-01", "tags: web services, go"), "web services"},
		{"a category with commas", post("title: T", "date: 2024-05-01", "category: ', Data, ML'"), "Data"},
		{"a blank tags text", post("title: T", "date: 2024-05-01", `tags: " "`), DefaultTopic},
		{"Hugo TOML categories, one term", tomlPost("title = 'T'", "date = 2024-05-01", "categories = 'Machine Learning'"), "Machine Learning"},
		{"Hugo JSON tags, one term", `{"title": "T", "date": "2024-05-01", "tags": "web performance"}` + "\nThe body.\n", "web performance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := loadInsight(t, "x.md", tt.data)
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			expect(t, "Topic", in.Topic, tt.topic)
		})
	}
}

func expect(t *testing.T, field, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", field, got, want)
	}
}

func TestDrafts(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		reason string
	}{
		{"draft: true", post("title: T", "date: 2024-05-01", "draft: true"), "draft (draft: true)"},
		{"Hugo's Draft spelling", post("title: T", "Draft: yes"), "draft (Draft: true)"},
		{"quoted true", post("title: T", `draft: "true"`), "draft (draft: true)"},
		{"Jekyll published: false", post("title: T", "date: 2024-05-01", "published: false"), "not published (published: false)"},
		{"a draft is not checked beyond its YAML", post("titel: T", "date: someday", "draft: true", "slug: Not A Slug"), "draft (draft: true)"},
		{"draft wins over published", post("title: T", "draft: true", "published: true"), "draft (draft: true)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := Load(contentFS(map[string]string{"profile.yaml": validProfile, "insights/x.md": tt.data}))
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if len(site.Insights) != 0 {
				t.Errorf("Insights = %+v, want none", site.Insights)
			}
			if want := []Skip{{Path: "insights/x.md", Reason: tt.reason}}; len(site.Skipped) != 1 || site.Skipped[0] != want[0] {
				t.Errorf("Skipped = %q, want %q", site.Skipped, want)
			}
		})
	}
}

// TestFrontMatterErrors checks the whole message of each problem, line
// numbers included, counting the opening --- as line 1.
func TestFrontMatterErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		data string
		want string
	}{
		{"a typo of title is no title", "x.md", post("titel: T", "date: 2024-05-01"),
			"insights/x.md: title: is required"},
		{"the same key twice in different cases", "x.md", post("title: T", "date: 2024-05-01", "Title: U"),
			"insights/x.md:4: Title: already given on line 2"},
		{"blank title", "x.md", post(`title: " "`, "date: 2024-05-01"),
			"insights/x.md:2: title: is required"},
		{"title is a list", "x.md", post("title: [a, b]", "date: 2024-05-01"),
			"insights/x.md:2: title: must be text, not a list"},
		{"tags is a mapping", "x.md", post("title: T", "date: 2024-05-01", "tags:\n  a: b"),
			"insights/x.md:4: tags: must be text, not a mapping"},
		{"a tag is a list", "x.md", post("title: T", "date: 2024-05-01", "tags:\n  - sql\n  - [a]"),
			"insights/x.md:6: tags[1]: must be text, not a list"},
		{"slug outside the grammar", "x.md", post("title: T", "date: 2024-05-01", "slug: my/post"),
			`insights/x.md:4: slug: "my/post" is not a slug (` + SlugGrammar + ")"},
		{"file name outside the grammar", strings.Repeat("a", MaxSlugLength+1) + ".md", post("title: T", "date: 2024-05-01"),
			`insights/` + strings.Repeat("a", MaxSlugLength+1) + `.md: file name: "` + strings.Repeat("a", MaxSlugLength+1) + `" is not a slug (` + SlugGrammar + "): rename it or set slug in the front matter"},
		{"no date anywhere", "x.md", post("title: T"),
			"insights/x.md: date: is required (or dateISO, pubDate, or a file name beginning with YYYY-MM-DD-)"},
		{"date that is not a date", "x.md", post("title: T", "date: 2024-05-01 sometime"),
			`insights/x.md:3: date: "2024-05-01 sometime" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"a month-first date, which Ruby refuses too", "x.md", post("title: T", "date: 11/18/2024"),
			`insights/x.md:3: date: "11/18/2024" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"words after a time", "x.md", post("title: T", "date: 2024-11-18T15:04:11Z junk"),
			`insights/x.md:3: date: "2024-11-18T15:04:11Z junk" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"a minute past the hour's end", "x.md", post("title: T", "date: 2024-11-18 15:60"),
			`insights/x.md:3: date: "2024-11-18 15:60" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"a written-out date with words after it", "x.md", post("title: T", "date: June 21, 2023 or so"),
			`insights/x.md:3: date: "June 21, 2023 or so" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"date that is not a calendar date", "x.md", post("title: T", "date: 2024-02-30"),
			`insights/x.md:3: date: "2024-02-30" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"free-text date alone", "x.md", post("title: T", "date: Spring 2024"),
			`insights/x.md:3: date: "Spring 2024" is not a date: write it as YYYY-MM-DD, or add dateISO`},
		{"pubDate that is not a date", "x.md", post("title: T", "pubDate: soon"),
			`insights/x.md:3: pubDate: "soon" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"pubDate and date disagree", "x.md", post("title: T", "date: 2024-05-01", "pubDate: 2024-05-02"),
			`insights/x.md:4: pubDate: "2024-05-02" is not the same day as date "2024-05-01"`},
		{"pubDatetime and date disagree", "x.md", post("title: T", "date: 2024-05-01", "pubDatetime: 2024-05-02T09:00:00Z"),
			`insights/x.md:4: pubDatetime: "2024-05-02T09:00:00Z" is not the same day as date "2024-05-01"`},
		{"modDatetime that is not a date", "x.md", post("title: T", "pubDatetime: 2024-05-01T09:00:00Z", "modDatetime: later"),
			`insights/x.md:4: modDatetime: "later" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"modDatetime before pubDatetime", "x.md", post("title: T", "pubDatetime: 2024-05-01T09:00:00Z", "modDatetime: 2024-04-01T09:00:00Z"),
			`insights/x.md:4: modDatetime: "2024-04-01T09:00:00Z" is before pubDatetime "2024-05-01T09:00:00Z"`},
		{"lastmod and updated disagree", "x.md", post("title: T", "date: 2024-05-01", "lastmod: 2024-05-03", "updated: 2024-05-04"),
			`insights/x.md:5: updated: "2024-05-04" is not the same day as lastmod "2024-05-03"`},
		{"lastmod before date", "x.md", post("title: T", "date: 2024-05-01T10:00:00Z", "lastmod: 2024-04-30"),
			`insights/x.md:4: lastmod: "2024-04-30" is before date "2024-05-01T10:00:00Z"`},
		{"lastmod before the file name's date", "2024-05-01-x.md", post("title: T", "lastmod: 2024-04-30"),
			`insights/2024-05-01-x.md:3: lastmod: "2024-04-30" is before the date in the file name (2024-05-01)`},
		{"lastmod that is not a date", "x.md", post("title: T", "date: 2024-05-01", "lastmod: yesterday"),
			`insights/x.md:4: lastmod: "yesterday" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"draft that is not a boolean", "x.md", post("title: T", "date: 2024-05-01", "draft: maybe"),
			`insights/x.md:4: draft: must be true or false, not "maybe"`},
		{"published that is neither a boolean nor a date", "x.md", post("title: T", "published: soon"),
			`insights/x.md:3: published: must be true, false or a date, not "soon"`},
		{"publishDate that is not a date, beside a date", "x.md", post("title: T", "date: 2024-05-01", "publishDate: next week"),
			`insights/x.md:4: publishDate: "next week" is not a date (YYYY-MM-DD, or with a time as in 2024-05-01T10:00:00Z)`},
		{"front matter is a list", "x.md", "---\n- a\n- b\n---\nbody\n",
			"insights/x.md:2: front matter: must be key: value lines, not a list"},
		{"every problem of the file at once", "x.md", post("titel: T", "date: soon", "slug: ..", "draft: maybe"),
			"insights/x.md: title: is required\n" +
				`insights/x.md:3: date: "soon" is not a date: write it as YYYY-MM-DD, or add dateISO` + "\n" +
				`insights/x.md:4: slug: ".." is not a slug (` + SlugGrammar + ")\n" +
				`insights/x.md:5: draft: must be true or false, not "maybe"`},
		{"a date key of the wrong kind is reported once", "x.md", post("title: T", "date: [2024-05-01]"),
			"insights/x.md:3: date: must be text, not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadInsight(t, tt.file, tt.data)
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

// FuzzParseDay: any text is read without a panic, and a date read is a
// day of the calendar between years 0 and 9999.
func FuzzParseDay(f *testing.F) {
	for _, seed := range []string{"2024-11-18 15:04:11:57", "18.11.2024", "June 21, 2023 3:04 pm", "Mon, 18 Nov 2024 15:04:11 +0100",
		"2024-11-18T15+01", "20241118", "2024-11-18 24:00", "Spring 2024", "2024-02-30"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, _, ok := parseDay(s); ok && (d.Year() < 0 || d.Year() > 10000) {
			t.Errorf("%q is read as %v", s, d)
		}
	})
}
