package content

import (
	"reflect"
	"strings"
	"testing"
)

// tomlPost is an insight file with TOML front matter, as Hugo writes it.
func tomlPost(frontMatter ...string) string {
	return "+++\n" + strings.Join(frontMatter, "\n") + "\n+++\nThe body of the article.\n"
}

func TestTOMLFrontMatter(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, in Insight)
	}{
		{
			name: "the keys Hugo's archetype writes",
			data: tomlPost(`title = "Tuning the Garbage Collector"`, "date = 2024-05-01T10:00:00+02:00", "draft = false",
				`tags = ["go", "performance"]`, `categories = ["Runtime"]`),
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "Tuning the Garbage Collector")
				expect(t, "DateISO", in.DateISO, "2024-05-01")
				expect(t, "Date", in.Date, "May 1, 2024")
				expect(t, "Topic", in.Topic, "Runtime")
			},
		},
		{
			name: "a local date and a local date-time",
			data: tomlPost("title = 'T'", "date = 2024-05-01", "lastmod = 2024-06-02T08:30:00"),
			check: func(t *testing.T, in Insight) {
				expect(t, "DateISO", in.DateISO, "2024-05-01")
				expect(t, "DateModifiedISO", in.DateModifiedISO, "2024-06-02")
			},
		},
		{
			name: "a date written as a string",
			data: tomlPost("title = 'T'", `date = "2024-05-01"`),
			check: func(t *testing.T, in Insight) {
				expect(t, "DateISO", in.DateISO, "2024-05-01")
			},
		},
		{
			name: "description, slug and readTime",
			data: tomlPost("title = 'T'", "date = 2024-05-01", `description = """
A description
on two lines."""`, "slug = 'tuned'", "readTime = 4"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Description", in.Description, "A description\non two lines.")
				expect(t, "Slug", in.Slug, "tuned")
				expect(t, "ReadTime", in.ReadTime, "4 min read")
			},
		},
		{
			name: "a table of its own is not read as top-level keys",
			data: tomlPost("title = 'T'", "date = 2024-05-01", "[params]", "title = 'Not the title'", "topic = 'Not the topic'"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
				expect(t, "Topic", in.Topic, DefaultTopic)
			},
		},
		{
			name: "keys matched ignoring case, as Hugo does",
			data: tomlPost("Title = 'T'", "PublishDate = 2024-05-01"),
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
				expect(t, "DateISO", in.DateISO, "2024-05-01")
			},
		},
		{
			name: "a body that holds lines of +++",
			data: "+++\ntitle = 'T'\ndate = 2024-05-01\n+++\n\nAbove.\n\n+++\n\nBelow.\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Body", in.Body, "Above.\n\n+++\n\nBelow.\n")
			},
		},
		{
			name: "CRLF line endings and a byte order mark",
			data: "\ufeff+++\r\ntitle = 'T'\r\ndate = 2024-05-01\r\n+++\r\nThe body.\r\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
				expect(t, "Body", in.Body, "The body.\n")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := loadInsight(t, "x.md", tt.data)
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			tt.check(t, in)
		})
	}
}

// TestTOMLSkipped: a TOML post the generators would not publish is
// skipped for the same reasons as a YAML one.
func TestTOMLSkipped(t *testing.T) {
	tests := []struct {
		name, data, reason string
	}{
		{"draft", tomlPost("title = 'T'", "date = 2024-05-01", "draft = true"), "draft (draft: true)"},
		{"Hugo sitemap table", tomlPost("title = 'T'", "date = 2024-05-01", "[sitemap]", "disable = true"),
			"kept private (sitemap.disable: true)"},
		{"dotted sitemap key", tomlPost("title = 'T'", "date = 2024-05-01", "sitemap.disable = true"),
			"kept private (sitemap.disable: true)"},
		{"expired", tomlPost("title = 'T'", "date = 2024-05-01", "expiryDate = 2024-06-01"), "expired (expiryDate: 2024-06-01)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := Load(contentFS(map[string]string{"profile.yaml": validProfile, "insights/x.md": tt.data}))
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if len(site.Insights) != 0 || len(site.Skipped) != 1 || site.Skipped[0].Reason != tt.reason || site.Skipped[0].Err != nil {
				t.Errorf("Insights %v, Skipped %+v; want x skipped as %q", site.Insights, site.Skipped, tt.reason)
			}
		})
	}
}

// TestTOMLErrors checks each problem's whole message: a TOML post's
// problems name the lines of the file, counting the opening +++ as line 1.
func TestTOMLErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"a value that is not TOML", tomlPost("title = 'T'", "date = soon"),
			"insights/x.md:3: front matter: expected value but found \"soon\" instead"},
		{"an unclosed string", tomlPost("title = 'T", "date = 2024-05-01"),
			"insights/x.md:2: front matter: strings cannot contain newlines"},
		{"a key given twice", tomlPost("title = 'T'", "date = 2024-05-01", "title = 'U'"),
			"insights/x.md:4: front matter: key 'title' has already been defined"},
		{"the same key in another case", tomlPost("title = 'T'", "date = 2024-05-01", "Title = 'U'"),
			"insights/x.md:4: Title: already given on line 2"},
		{"a title that is a list", tomlPost("title = ['a', 'b']", "date = 2024-05-01"),
			"insights/x.md:2: title: must be text, not a list"},
		{"a tag that is a table", tomlPost("title = 'T'", "date = 2024-05-01", "tags = [", "  'go',", "  { name = 'x' },", "]"),
			"insights/x.md:4: tags[1]: must be text, not a mapping"},
		{"a date that is no date, after a multi-line string", tomlPost("title = 'T'", "summary = '''", "date = 2024-05-01", "'''", "date = 'Spring'"),
			`insights/x.md:6: date: "Spring" is not a date: write it as YYYY-MM-DD, or add dateISO`},
		{"lastmod before date", tomlPost("title = 'T'", "date = 2024-05-01T10:00:00Z", "lastmod = 2024-04-30"),
			`insights/x.md:4: lastmod: "2024-04-30" is before date "2024-05-01T10:00:00Z"`},
		{"no title", tomlPost("date = 2024-05-01"), "insights/x.md: title: is required"},
		{"only comments", tomlPost("# nothing here"), "insights/x.md: front matter: is empty"},
		{"no closing line", "+++\ntitle = 'T'\ndate = 2024-05-01\nThe body.\n",
			"insights/x.md: front matter: no closing line of three plus signs (+++)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadInsight(t, "x.md", tt.data)
			if err == nil {
				t.Fatal("Load() error = nil, want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("Load() error =\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}

func TestTOMLKeyLines(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want map[string]int
	}{
		{"one key a line", "title = 'T'\ndate = 2024-05-01", map[string]int{"title": 1, "date": 2}},
		{"blank lines, comments and indentation", "# a comment\n\n  title = 'T' # trailing\n\tdate=2024-05-01",
			map[string]int{"title": 3, "date": 4}},
		{"quoted keys", `"title" = 'T'` + "\n'my key' = 1\n" + `"tab\tkey" = 2`,
			map[string]int{"title": 1, "my key": 2, "tab\tkey": 3}},
		{"a dotted key names its first part", "sitemap.disable = true\nsitemap.priority = 0.5\ncover . image = 'a.png'",
			map[string]int{"sitemap": 1, "cover": 3}},
		{"a multi-line string that holds key lines",
			"summary = \"\"\"\ntitle = 'not a key'\n\"\"\"\ntitle = 'T'\nbody = '''\ndate = x\n'''\ndate = 2024-05-01",
			map[string]int{"summary": 1, "title": 4, "body": 5, "date": 8}},
		{"a multi-line string that ends in quotes of its own", "a = \"\"\"x\"\"\"\"\"\nb = 1", map[string]int{"a": 1, "b": 2}},
		{"escaped quotes", `a = "say \"b = 1\""` + "\nb = 2", map[string]int{"a": 1, "b": 2}},
		{"arrays and inline tables over several lines",
			"tags = [\n  'a',\n  [ 'b' ],\n]\nauthor = {\n  name = 'x',\n}\ndate = 2024-05-01",
			map[string]int{"tags": 1, "author": 5, "date": 8}},
		{"keys after a table belong to it", "title = 'T'\n[params]\nsubtitle = 'S'\n[ sitemap ]\ndisable = true\n[[cascade]]\nx = 1",
			map[string]int{"title": 1, "params": 2, "sitemap": 4, "cascade": 6}},
		{"a quoted table name", "[\"my table\".sub]\nx = 1", map[string]int{"my table": 1}},
		{"an empty quoted key", "'' = 1\nb = 2", map[string]int{"": 1, "b": 2}},
		{"a comment that holds a key", "# title = 'x'\ntitle = 'T'", map[string]int{"title": 2}},
		{"a string that holds a comment sign", "a = 'x # y'\nb = 1", map[string]int{"a": 1, "b": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tomlKeyLines(tt.toml); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tomlKeyLines() = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzTOMLFrontMatter(f *testing.F) {
	for _, seed := range []string{
		"title = 'T'\ndate = 2024-05-01",
		"a = \"\"\"\nb = 1\n\"\"\"\n[t]\nc = [\n1,\n]",
		"x = {",
		"[[a]]\n[a.b]",
		"'q' = \"\\\"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		var ps problems
		doc, ok := parseTOML("x.md", 0, []byte(header), &ps)
		if !ok || doc.root == nil {
			return
		}
		// Every key of valid TOML is found at a line of its own.
		lines := strings.Count(header, "\n") + 1
		for i := 0; i < len(doc.root.Content); i += 2 {
			if k := doc.root.Content[i]; k.Line < 1 || k.Line > lines {
				t.Errorf("key %q at line %d of %d", k.Value, k.Line, lines)
			}
		}
	})
}
