package content

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// goTypeName matches what Go and yaml.v3 put in messages and users should
// never see: Go type names, YAML tags and the decoder's own phrases.
var goTypeName = regexp.MustCompile(`content\.|(^|[\s:])yaml: |!!|\[\]string|\*bool|reflect|struct|unmarshal|map\[`)

// checkNoGoTypes fails when a message names a Go type or YAML tag.
func checkNoGoTypes(t *testing.T, err error) {
	t.Helper()
	if m := goTypeName.FindString(err.Error()); m != "" {
		t.Errorf("error names %q, a Go type or YAML detail:\n%s", m, err)
	}
}

// TestErrorLines checks that each problem is reported at the line of the
// file where it is, marked in each case by "# here".
func TestErrorLines(t *testing.T) {
	tests := []struct {
		name string
		file string // the file at fault, in contentFS
		data string
		want string // the message after "<file>:<line>: "
	}{
		{"front-matter value", "insights/x.md", post("title: T", "date: 2024-13-01 # here"),
			`date: "2024-13-01" is not a date`},
		{"front-matter duplicate key", "insights/x.md", post("title: T", "date: 2024-05-01", "title: U # here"),
			"title: already given on line 2"},
		{"front matter after CRLF and a byte order mark", "insights/x.md",
			"\ufeff" + strings.ReplaceAll(post("title: T", "", "date: 2024-05-01", "date: 2024-05-02 # here"), "\n", "\r\n"),
			"date: already given on line 4"},
		{"YAML scanner error in front matter", "insights/x.md", post("title: T", "date: 2024-05-01", "topic: a: b # here"),
			"front matter: mapping values are not allowed in this context"},
		{"YAML parser error in front matter", "insights/x.md", post("title: T", "tags:", "  - a", " - b # here"),
			"front matter: did not find expected key"},
		{"unclosed flow list in front matter", "insights/x.md", post("title: T", "tags: [a, b # here", "date: 2024-05-01"),
			"front matter: did not find expected ',' or ']'"},
		{"tab in front matter", "insights/x.md", post("title: T", "\tdate: 2024-05-01 # here"),
			"front matter: found a tab character that violates indentation"},
		{"profile.yaml unknown key", "profile.yaml", validProfile + "nickname: Ada # here\n",
			"nickname: unknown key"},
		{"profile.yaml list item", "profile.yaml", validProfile + "expertise:\n  - Pipelines\n  - \"\" # here\n",
			"expertise[1]: is required"},
		{"profile.yaml wrong kind", "profile.yaml", validProfile + "education: MSc # here\n",
			"education: must be a list, not text"},
		{"profile.yaml YAML parser error", "profile.yaml", validProfile + "expertise:\n  - a\n - b # here\n",
			"did not find expected key"},
		{"profile.yaml YAML scanner error", "profile.yaml", validProfile + "initiatives: a: b # here\n",
			"mapping values are not allowed in this context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"profile.yaml": validProfile, "insights/x.md": validInsight}
			files[tt.file] = tt.data
			_, err := loadStrict(contentFS(files))
			if err == nil {
				t.Fatal("Load() error = nil, want an error")
			}
			line := 0
			for i, l := range strings.Split(tt.data, "\n") {
				if strings.Contains(l, "# here") {
					line = i + 1
				}
			}
			if want := fmt.Sprintf("%s:%d: %s", tt.file, line, tt.want); !strings.Contains(err.Error(), want) {
				t.Errorf("Load() error =\n%s\nwant it to contain\n%s", err, want)
			}
			checkNoGoTypes(t, err)
		})
	}
}

// TestLoadReportsEverythingInOnePass checks that no problem hides another:
// an unknown key of profile.yaml does not hide its other problems, and the
// problems of several files are all reported, sorted by file then line.
func TestLoadReportsEverythingInOnePass(t *testing.T) {
	files := map[string]string{
		"profile.yaml": strings.NewReplacer(
			"name: Ada Example\n", "nickname: Ada\n",
			"email: ada@example.com", "email: nobody",
			"insight: /insights/{slug}", "insight: /insights/",
		).Replace(validProfile),
		"insights/b.md":    post("title: T", "date: 2024-05-01", "lastmod: 2024-04-01", "titel: U"),
		"insights/a.md":    post("title: T", "date: soon"),
		"insights/c.md":    post("date: 2024-05-01"),
		"insights/dup.md":  post("title: T", "date: 2022-05-01"),
		"insights/e.md":    post("title: T", "date: 2025-05-01", "slug: dup"),
		"insights/good.md": validInsight,
	}
	want := strings.Join([]string{
		`insights/a.md:3: date: "soon" is not a date: write it as YYYY-MM-DD, or add dateISO`,
		`insights/b.md:4: lastmod: "2024-04-01" is before date "2024-05-01"`,
		`insights/c.md: title: is required`,
		`insights/e.md: slug: "dup" is also the slug of insights/dup.md: set a different slug in one of them`,
		`profile.yaml:1: nickname: unknown key (allowed: name, tagline, about, keyFacts, recognition, expertise, education, contact, siteStructure, lastUpdated, companyFacts, initiatives, contentSignals, pages, security)`,
		`profile.yaml:8: contact.email: "nobody" is not an email address`,
		`profile.yaml:16: pages.insight: must contain the placeholder {slug}`,
	}, "\n")
	_, err := loadStrict(contentFS(files))
	if err == nil {
		t.Fatal("Load() error = nil, want an error")
	}
	if err.Error() != want {
		t.Errorf("Load() error =\n%s\nwant\n%s", err, want)
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 7 {
		t.Errorf("Load() error does not join the 7 problems one by one")
	}
}

// An unknown key of profile.yaml does not hide its other problems, which
// are all reported, sorted by line.
func TestProfileProblemsInOnePass(t *testing.T) {
	profile := strings.NewReplacer(
		"name: Ada Example\n", "nickname: Ada\n",
		"  form: /contact\n", "  form: /contact\n  fax: \"123\"\n",
		"email: ada@example.com", "email: nobody",
		"insight: /insights/{slug}", "insight: /insights/",
	).Replace(validProfile) + "contentSignals:\n  aiTrain: maybe\nabout: one paragraph\nkeyfacts: [Pipelines]\n"
	want := strings.Join([]string{
		`profile.yaml:1: nickname: unknown key (allowed: name, tagline, about, keyFacts, recognition, expertise, education, contact, siteStructure, lastUpdated, companyFacts, initiatives, contentSignals, pages, security)`,
		`profile.yaml:7: contact.fax: unknown key (allowed: form, phone, email, linkedin, x, substack, youtube, companyBio)`,
		`profile.yaml:9: contact.email: "nobody" is not an email address`,
		`profile.yaml:17: pages.insight: must contain the placeholder {slug}`,
		`profile.yaml:19: contentSignals.aiTrain: must be true or false, not "maybe"`,
		`profile.yaml:20: about: already given on line 3`,
		`profile.yaml:21: keyfacts: unknown key, did you mean keyFacts? (allowed: name, tagline, about, keyFacts, recognition, expertise, education, contact, siteStructure, lastUpdated, companyFacts, initiatives, contentSignals, pages, security)`,
	}, "\n")
	_, err := Load(contentFS(map[string]string{"profile.yaml": profile}))
	if err == nil || err.Error() != want {
		t.Errorf("Load() error =\n%v\nwant\n%s", err, want)
	}
}
