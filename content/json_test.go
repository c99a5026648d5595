package content

import (
	"strings"
	"testing"
)

func TestJSONFrontMatter(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, in Insight)
	}{
		{
			name: "an object, then the body",
			data: `{
  "title": "Caching at the Edge",
  "date": "2024-05-01T10:00:00Z",
  "lastmod": "2024-05-03",
  "draft": false,
  "tags": ["cdn", "http"],
  "description": "Where to cache, and for how long."
}

The body of the article.
`,
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "Caching at the Edge")
				expect(t, "DateISO", in.DateISO, "2024-05-01")
				expect(t, "DateModifiedISO", in.DateModifiedISO, "2024-05-03")
				expect(t, "Topic", in.Topic, "cdn")
				expect(t, "Description", in.Description, "Where to cache, and for how long.")
				expect(t, "Body", in.Body, "The body of the article.\n")
			},
		},
		{
			name: "tabs, escapes, numbers and null",
			data: "{\n\t\"title\": \"Caf\\u00e9 \\\"Notes\\\"\",\n\t\"date\": \"2024-05-01\",\n\t\"readTime\": 6,\n\t\"weight\": 1.5e2,\n\t\"lastmod\": null\n}\nThe body.\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, `Café "Notes"`)
				expect(t, "ReadTime", in.ReadTime, "6 min read")
				expect(t, "DateModifiedISO", in.DateModifiedISO, "2024-05-01")
			},
		},
		{
			name: "braces in strings, and the body on the closing line",
			data: `{"title": "A } and a {", "date": "2024-05-01"}   The body.` + "\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "A } and a {")
				expect(t, "Body", in.Body, "The body.\n")
			},
		},
		{
			name: "a body that opens with braces of its own",
			data: "{\"title\": \"T\", \"date\": \"2024-05-01\"}\n\n{{< note >}}\n\nThe body.\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Body", in.Body, "{{< note >}}\n\nThe body.\n")
			},
		},
		{
			name: "a byte order mark and CRLF line endings",
			data: "\ufeff{\r\n\"title\": \"T\",\r\n\"date\": \"2024-05-01\"\r\n}\r\nThe body.\r\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
			},
		},
		{
			name: "Hugo's sitemap object that does not disable",
			data: `{"title": "T", "date": "2024-05-01", "sitemap": {"priority": 0.5}}` + "\nThe body.\n",
			check: func(t *testing.T, in Insight) {
				expect(t, "Title", in.Title, "T")
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

// TestJSONErrors checks each problem's whole message: a JSON post's
// problems name the lines of the file, the opening brace's being line 1.
func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"a missing comma", "{\n  \"title\": \"T\"\n  \"date\": \"2024-05-01\"\n}\nbody\n",
			"insights/x.md:3: front matter: is not valid JSON: invalid character '\"' after object key:value pair"},
		{"no closing brace", "{\n  \"title\": \"T\",\n  \"date\": \"2024-05-01\"\nbody\n",
			"insights/x.md:4: front matter: is not valid JSON: invalid character 'b' after object key:value pair"},
		{"the end of the file before the closing brace", "{\n  \"title\": \"T\",\n",
			"insights/x.md: front matter: no closing brace (}) of the JSON object"},
		{"a Liquid tag where front matter should be", "{% include note.html %}\nbody\n",
			"insights/x.md:1: front matter: is not valid JSON: invalid character '%' looking for beginning of object key string"},
		{"an empty object", "{}\nbody\n", "insights/x.md: front matter: is empty"},
		{"a title that is a number", "{\n  \"title\": 7,\n  \"date\": \"2024-05-01\",\n  \"slug\": \"no/slug\"\n}\nbody\n",
			`insights/x.md:4: slug: "no/slug" is not a slug (` + SlugGrammar + ")"},
		{"a tag that is an object", "{\n  \"title\": \"T\",\n  \"date\": \"2024-05-01\",\n  \"tags\": [\n    \"a\",\n    {\"b\": 1}\n  ]\n}\nbody\n",
			"insights/x.md:6: tags[1]: must be text, not a mapping"},
		{"the same key twice", "{\n  \"title\": \"T\",\n  \"date\": \"2024-05-01\",\n  \"Title\": \"U\"\n}\nbody\n",
			"insights/x.md:4: Title: already given on line 2"},
		{"a date that is no date", "{\n  \"title\": \"T\",\n  \"date\": \"soon\"\n}\nbody\n",
			`insights/x.md:3: date: "soon" is not a date: write it as YYYY-MM-DD, or add dateISO`},
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

func FuzzJSONFrontMatter(f *testing.F) {
	for _, seed := range []string{`{"title": "T"}` + "\nbody", "{\n\"a\": [1, {\"b\": null}]\n}", "{", `{"a":"\u00e9"}`, "{}}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		header, format, _, err := splitFrontMatter([]byte(data))
		if err != nil || format != fmJSON {
			return
		}
		var ps problems
		doc, ok := parseJSON("x.md", header, &ps)
		if !ok {
			t.Fatalf("valid JSON %q not parsed: %v", header, ps.err())
		}
		lines := strings.Count(string(header), "\n") + 1
		if doc.root != nil {
			for _, n := range doc.root.Content {
				if n.Line < 1 || n.Line > lines {
					t.Errorf("node %q at line %d of %d", n.Value, n.Line, lines)
				}
			}
		}
	})
}
