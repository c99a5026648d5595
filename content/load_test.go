package content

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// validProfile is the smallest profile.yaml that loads: every required field
// and nothing else.
const validProfile = `name: Ada Example
tagline: Data engineer.
about:
  - Ada builds data platforms.
contact:
  form: /contact
  phone: "+44 20 7946 0000"
  email: ada@example.com
  linkedin: https://www.linkedin.com/in/ada-example
  x: https://x.com/adaexample
  substack: https://adaexample.substack.com
  youtube: https://www.youtube.com/@adaexample
  companyBio: https://example.com/team/ada
lastUpdated: "2026-01-02"
pages:
  insight: /insights/{slug}
`

// validInsight is an insight file that loads, without a readTime.
const validInsight = `---
title: A Title
description: A description.
date: January 2, 2026
dateISO: "2026-01-02"
dateModifiedISO: "2026-01-03"
topic: Platforms
---
The body of the article.
`

// sampleReadTimes are the sample insights whose front matter sets readTime.
var sampleReadTimes = map[string]string{
	"making-public-sector-data-sharing-work": "6 min read",
}

func TestSample(t *testing.T) {
	site, err := Sample()
	if err != nil {
		t.Fatalf("Sample() error: %v", err)
	}
	if got := len(site.Insights); got < 6 {
		t.Errorf("len(Insights) = %d, want at least 6", got)
	}
	for _, field := range emptyFields("Profile", reflect.ValueOf(site.Profile)) {
		t.Errorf("%s is empty", field)
	}
	for i, in := range site.Insights {
		if !ValidSlug(in.Slug) {
			t.Errorf("Insights[%d].Slug = %q, not a valid slug", i, in.Slug)
		}
		if in.ReadTime == "" {
			t.Errorf("%s: ReadTime is empty", in.Slug)
		}
		want, ok := sampleReadTimes[in.Slug]
		if !ok {
			want = ReadTime(in.Body)
		}
		if in.ReadTime != want {
			t.Errorf("%s: ReadTime = %q, want %q", in.Slug, in.ReadTime, want)
		}
		if i == 0 {
			continue
		}
		prev := site.Insights[i-1]
		if prev.DateISO < in.DateISO || (prev.DateISO == in.DateISO && prev.Slug >= in.Slug) {
			t.Errorf("Insights not newest first: %s (%s) before %s (%s)",
				prev.Slug, prev.DateISO, in.Slug, in.DateISO)
		}
	}
	for slug := range sampleReadTimes {
		if !hasInsight(site, slug) {
			t.Errorf("sample has no insight %q", slug)
		}
	}
}

// emptyFields lists the paths of the zero strings, empty slices and empty
// slice elements within v.
func emptyFields(path string, v reflect.Value) []string {
	switch v.Kind() {
	case reflect.String:
		if strings.TrimSpace(v.String()) == "" {
			return []string{path}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{path}
		}
		var empty []string
		for i := range v.Len() {
			empty = append(empty, emptyFields(path+"["+strconv.Itoa(i)+"]", v.Index(i))...)
		}
		return empty
	case reflect.Struct:
		var empty []string
		for i := range v.NumField() {
			empty = append(empty, emptyFields(path+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
		return empty
	}
	return nil
}

func hasInsight(site *Site, slug string) bool {
	for _, in := range site.Insights {
		if in.Slug == slug {
			return true
		}
	}
	return false
}

// contentFS builds a content directory from file names and contents.
func contentFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		check func(t *testing.T, site *Site)
	}{
		{
			name:  "without an insights directory",
			files: map[string]string{"profile.yaml": validProfile},
			check: func(t *testing.T, site *Site) {
				if site.Insights == nil || len(site.Insights) != 0 {
					t.Errorf("Insights = %#v, want a non-nil empty slice", site.Insights)
				}
			},
		},
		{
			name: "skips non-Markdown files, dot-files and _-folders, saying why",
			files: map[string]string{
				"profile.yaml":             validProfile,
				"insights/x.md":            validInsight,
				"insights/notes.txt":       "not an insight",
				"insights/README":          "not an insight",
				"insights/.draft.md":       "no front matter",
				"insights/.DS_Store":       "\x00\x01",
				"insights/_drafts/bad.md":  "no front matter",
				"insights/Not_A_Slug.html": "<p>",
			},
			check: func(t *testing.T, site *Site) {
				if len(site.Insights) != 1 || site.Insights[0].Slug != "x" {
					t.Errorf("Insights = %+v, want only x", site.Insights)
				}
				want := []Skip{
					{Path: "insights/.DS_Store", Reason: "hidden"},
					{Path: "insights/.draft.md", Reason: "hidden"},
					{Path: "insights/Not_A_Slug.html", Reason: "not Markdown"},
					{Path: "insights/README", Reason: "not Markdown"},
					{Path: "insights/_drafts", Reason: "name begins with _"},
					{Path: "insights/notes.txt", Reason: "not Markdown"},
				}
				if !reflect.DeepEqual(site.Skipped, want) {
					t.Errorf("Skipped = %q\nwant %q", site.Skipped, want)
				}
			},
		},
		{
			name: "sorts newest first, then by slug",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/a.md": insightWith("dateISO", `"2024-01-01"`, "dateModifiedISO", `"2024-01-01"`),
				"insights/b.md": insightWith("dateISO", `"2025-01-01"`, "dateModifiedISO", `"2025-01-01"`),
				"insights/c.md": insightWith("dateISO", `"2024-01-01"`, "dateModifiedISO", `"2024-01-01"`),
			},
			check: func(t *testing.T, site *Site) {
				var got []string
				for _, in := range site.Insights {
					got = append(got, in.Slug)
				}
				if want := []string{"b", "a", "c"}; !reflect.DeepEqual(got, want) {
					t.Errorf("slugs = %q, want %q", got, want)
				}
			},
		},
		{
			name: "front-matter readTime overrides the computed one",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/x.md": insightWith("topic", "Platforms\nreadTime: 42 min read"),
			},
			check: func(t *testing.T, site *Site) {
				if got := site.Insights[0].ReadTime; got != "42 min read" {
					t.Errorf("ReadTime = %q, want %q", got, "42 min read")
				}
			},
		},
		{
			name: "readTime is computed when absent",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/x.md": validInsight + strings.Repeat("word ", 700),
			},
			check: func(t *testing.T, site *Site) {
				if got := site.Insights[0].ReadTime; got != "4 min read" {
					t.Errorf("ReadTime = %q, want %q", got, "4 min read")
				}
			},
		},
		{
			name: "profile sections and contact channels may be left out",
			files: map[string]string{
				"profile.yaml":  "name: Ada Example\ntagline: Data engineer.\ncontact:\n  email: ada@example.com\n  phone: \"\"\n",
				"insights/x.md": validInsight,
			},
			check: func(t *testing.T, site *Site) {
				want := Profile{
					Name: "Ada Example", Tagline: "Data engineer.",
					About: []string{}, KeyFacts: []string{}, Recognition: []string{}, Expertise: []string{}, Education: []string{},
					Contact:       Contact{Email: "ada@example.com"},
					SiteStructure: []SiteLink{},
					LastUpdated:   "2026-01-03", // the insight's dateModifiedISO
				}
				if !reflect.DeepEqual(site.Profile, want) {
					t.Errorf("Profile = %+v\nwant %+v", site.Profile, want)
				}
			},
		},
		{
			name: "front matter of the original format without the keys that can be derived",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/x.md": "---\ntitle: A Title\ndateISO: \"2026-01-02\"\nreadTime: \" \"\n---\nThe body of the article.\n",
			},
			check: func(t *testing.T, site *Site) {
				want := Insight{
					Slug: "x", Title: "A Title", Description: "The body of the article.",
					Date: "January 2, 2026", DateISO: "2026-01-02", DateModifiedISO: "2026-01-02",
					Topic: DefaultTopic, ReadTime: "1 min read", Body: "The body of the article.\n",
					Page: "/insights/x",
				}
				if got := site.Insights[0]; got != want {
					t.Errorf("Insight = %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name: "fills in defaults",
			files: map[string]string{
				"profile.yaml": strings.Replace(validProfile, "pages:\n  insight: /insights/{slug}\n", "", 1),
			},
			check: func(t *testing.T, site *Site) {
				want := Pages{Home: "/", About: "/about", Insights: "/insights", Insight: "/insights/{slug}"}
				if site.Pages != want {
					t.Errorf("Pages = %+v, want %+v", site.Pages, want)
				}
				if want := (ContentSignals{AITrain: true, Search: true, AIInput: true}); site.Signals != want {
					t.Errorf("Signals = %+v, want %+v", site.Signals, want)
				}
				p := site.Profile
				for name, list := range map[string][]string{
					"KeyFacts": p.KeyFacts, "Recognition": p.Recognition, "Expertise": p.Expertise,
					"Education": p.Education, "CompanyFacts": site.CompanyFacts, "Initiatives": site.Initiatives,
				} {
					if list == nil {
						t.Errorf("%s is nil, want an empty slice", name)
					}
				}
				if p.SiteStructure == nil {
					t.Error("SiteStructure is nil, want an empty slice")
				}
			},
		},
		{
			name: "content signals can be turned off",
			files: map[string]string{
				"profile.yaml": validProfile + "contentSignals:\n  aiTrain: false\n  search: true\n  aiInput: false\n",
			},
			check: func(t *testing.T, site *Site) {
				if want := (ContentSignals{Search: true}); site.Signals != want {
					t.Errorf("Signals = %+v, want %+v", site.Signals, want)
				}
			},
		},
		{
			name: "a security contact",
			files: map[string]string{
				"profile.yaml": validProfile + "security:\n  contact: \" mailto:security@example.com \"\n  policy: /security\n  languages:\n    - en\n    - de-CH\n",
			},
			check: func(t *testing.T, site *Site) {
				want := Security{Contact: "mailto:security@example.com", Policy: "/security", Languages: []string{"en", "de-CH"}}
				if !reflect.DeepEqual(site.Security, want) {
					t.Errorf("Security = %+v, want %+v", site.Security, want)
				}
			},
		},
		{
			name:  "no security contact",
			files: map[string]string{"profile.yaml": validProfile},
			check: func(t *testing.T, site *Site) {
				if !reflect.DeepEqual(site.Security, Security{}) {
					t.Errorf("Security = %+v, want none", site.Security)
				}
			},
		},
		{
			name: "accepts CRLF line endings and a byte order mark",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/x.md": "\ufeff" + strings.ReplaceAll(validInsight, "\n", "\r\n"),
			},
			check: func(t *testing.T, site *Site) {
				in := site.Insights[0]
				if in.Title != "A Title" || in.Topic != "Platforms" {
					t.Errorf("Title, Topic = %q, %q; want %q, %q", in.Title, in.Topic, "A Title", "Platforms")
				}
				if want := "The body of the article.\n"; in.Body != want {
					t.Errorf("Body = %q, want %q", in.Body, want)
				}
			},
		},
		{
			name: "accepts unquoted dates",
			files: map[string]string{
				"profile.yaml":  strings.Replace(validProfile, `"2026-01-02"`, "2026-01-02", 1),
				"insights/x.md": insightWith("dateISO", "2026-01-02", "dateModifiedISO", "2026-01-02"),
			},
			check: func(t *testing.T, site *Site) {
				if got := site.Profile.LastUpdated; got != "2026-01-02" {
					t.Errorf("LastUpdated = %q, want %q", got, "2026-01-02")
				}
				if got := site.Insights[0].DateISO; got != "2026-01-02" {
					t.Errorf("DateISO = %q, want %q", got, "2026-01-02")
				}
			},
		},
		{
			name: "front matter closed at the end of the file keeps the body after it",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/x.md": strings.TrimSuffix(validInsight, "\n"),
			},
			check: func(t *testing.T, site *Site) {
				if want := "The body of the article."; site.Insights[0].Body != want {
					t.Errorf("Body = %q, want %q", site.Insights[0].Body, want)
				}
			},
		},
		{
			name: "a file of exactly MaxFileSize bytes",
			files: map[string]string{
				"profile.yaml":  validProfile,
				"insights/x.md": validInsight + strings.Repeat("a", MaxFileSize-len(validInsight)),
			},
			check: func(t *testing.T, site *Site) {
				if len(site.Insights) != 1 {
					t.Errorf("len(Insights) = %d, want 1", len(site.Insights))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := Load(contentFS(tt.files))
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			tt.check(t, site)
		})
	}
}

// insightWith returns validInsight with the front-matter values of the given
// keys replaced: insightWith("title", "Other", "topic", "X").
func insightWith(keyValues ...string) string {
	lines := strings.Split(validInsight, "\n")
	for i := 0; i+1 < len(keyValues); i += 2 {
		key, value := keyValues[i], keyValues[i+1]
		found := false
		for j, line := range lines {
			if strings.HasPrefix(line, key+":") {
				lines[j] = key + ": " + value
				found = true
				break
			}
		}
		if !found {
			panic("insightWith: no front-matter key " + key)
		}
	}
	return strings.Join(lines, "\n")
}

// insightWithout returns validInsight without the front-matter line of key.
func insightWithout(key string) string {
	var kept []string
	for _, line := range strings.Split(validInsight, "\n") {
		if !strings.HasPrefix(line, key+":") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

func TestLoadErrors(t *testing.T) {
	// profile returns validProfile with old replaced by new.
	profile := func(old, new string) string {
		t.Helper()
		if !strings.Contains(validProfile, old) {
			t.Fatalf("validProfile does not contain %q", old)
		}
		return strings.Replace(validProfile, old, new, 1)
	}
	withProfile := func(data string) map[string]string {
		return map[string]string{"profile.yaml": data, "insights/x.md": validInsight}
	}
	withInsight := func(name, data string) map[string]string {
		return map[string]string{"profile.yaml": validProfile, "insights/" + name: data}
	}

	tests := []struct {
		name  string
		files map[string]string
		want  []string // each must appear in the error message
	}{
		{
			name:  "missing profile.yaml",
			files: map[string]string{"insights/x.md": validInsight},
			want:  []string{"profile.yaml: ", "file does not exist"},
		},
		{
			name:  "empty profile.yaml",
			files: withProfile(""),
			want:  []string{"profile.yaml: is empty"},
		},
		{
			name:  "profile.yaml is not a mapping",
			files: withProfile("- a\n- b\n"),
			want:  []string{"profile.yaml:1: must be a mapping of keys to values, not a list"},
		},
		{
			name:  "profile.yaml with an unknown key",
			files: withProfile(validProfile + "nickname: Ada\n"),
			want:  []string{"profile.yaml:17: nickname: unknown key (allowed: name, tagline, about, "},
		},
		{
			name:  "a security policy without a contact",
			files: withProfile(validProfile + "security:\n  policy: https://example.com/security\n"),
			want:  []string{"security.contact: is required with the rest of security"},
		},
		{
			name:  "a security contact that is a bare email address",
			files: withProfile(validProfile + "security:\n  contact: security@example.com\n"),
			want:  []string{`security.contact: "security@example.com" is not a mailto:, tel: or https: URI (for an email address, write mailto:security@example.com)`},
		},
		{
			name:  "a security contact on plain http",
			files: withProfile(validProfile + "security:\n  contact: http://example.com/report\n"),
			want:  []string{`security.contact: "http://example.com/report" is not a mailto:, tel: or https: URI`},
		},
		{
			name:  "a security policy on plain http",
			files: withProfile(validProfile + "security:\n  contact: tel:+441234567890\n  policy: http://example.com/policy\n"),
			want:  []string{`security.policy: "http://example.com/policy" is neither a path beginning with / nor an absolute https URL`},
		},
		{
			name:  "a security language that is no tag",
			files: withProfile(validProfile + "security:\n  contact: https://example.com/report\n  languages:\n    - English!\n"),
			want:  []string{`security.languages[0]: "English!" is not a language tag`},
		},
		{
			name:  "profile.yaml with an unknown contact key",
			files: withProfile(profile("  form: /contact\n", "  form: /contact\n  fax: \"123\"\n")),
			want:  []string{"profile.yaml:7: contact.fax: unknown key (allowed: form, phone, email, "},
		},
		{
			name:  "blank expertise item",
			files: withProfile(validProfile + "expertise:\n  - Pipelines\n  - \"\"\n"),
			want:  []string{"profile.yaml:19: expertise[1]: is required"},
		},
		{
			name:  "bad contact.email",
			files: withProfile(profile("email: ada@example.com", "email: ada.example.com")),
			want:  []string{`profile.yaml:8: contact.email: "ada.example.com" is not an email address`},
		},
		{
			name:  "contact.email with a display name",
			files: withProfile(profile("email: ada@example.com", `email: "Ada <ada@example.com>"`)),
			want:  []string{"profile.yaml:8: contact.email: ", "is not an email address"},
		},
		{
			name:  "contact.linkedin is not a URL",
			files: withProfile(profile("linkedin: https://www.linkedin.com/in/ada-example", "linkedin: linkedin")),
			want:  []string{`profile.yaml:9: contact.linkedin: "linkedin" is neither a path`},
		},
		{
			name:  "contact.x with a scheme other than http(s)",
			files: withProfile(profile("x: https://x.com/adaexample", "x: javascript:alert(1)")),
			want:  []string{`profile.yaml:10: contact.x: "javascript:alert(1)" is neither a path`},
		},
		{
			name:  "protocol-relative link",
			files: withProfile(profile("form: /contact", "form: //evil.example")),
			want:  []string{`profile.yaml:6: contact.form: "//evil.example" is neither a path`},
		},
		{
			name:  "siteStructure entry without a desc and with a bad url",
			files: withProfile(validProfile + "siteStructure:\n  - label: Home\n    url: home\n"),
			want: []string{
				`profile.yaml:19: siteStructure[0].url: "home" is neither a path`,
				"profile.yaml:18: siteStructure[0].desc: is required",
			},
		},
		{
			name:  "lastUpdated is not a date",
			files: withProfile(profile(`lastUpdated: "2026-01-02"`, "lastUpdated: yesterday")),
			want:  []string{`profile.yaml:14: lastUpdated: "yesterday" is not a date (YYYY-MM-DD)`},
		},
		{
			name:  "lastUpdated is not a calendar date",
			files: withProfile(profile(`lastUpdated: "2026-01-02"`, `lastUpdated: "2026-02-30"`)),
			want:  []string{`profile.yaml:14: lastUpdated: "2026-02-30" is not a date`},
		},
		{
			name:  "pages.insight without {slug}",
			files: withProfile(profile("insight: /insights/{slug}", "insight: /insights/")),
			want:  []string{"profile.yaml:16: pages.insight: must contain the placeholder {slug}"},
		},
		{
			name:  "pages.home is not a link",
			files: withProfile(validProfile + "  home: example.com\n"),
			want:  []string{`profile.yaml:17: pages.home: "example.com" is neither a path`},
		},
		{
			name:  "pages.insights is not a link",
			files: withProfile(validProfile + "  insights: insights.html\n"),
			want:  []string{`profile.yaml:17: pages.insights: "insights.html" is neither a path`},
		},
		{
			name:  "profile.yaml over MaxFileSize",
			files: withProfile(validProfile + "#" + strings.Repeat("a", MaxFileSize)),
			want:  []string{"profile.yaml: larger than 1048576 bytes"},
		},
		{
			name:  "insight file name is not a slug",
			files: withInsight(strings.Repeat("a", MaxSlugLength+1)+".md", validInsight),
			want:  []string{"insights/" + strings.Repeat("a", MaxSlugLength+1) + `.md: file name: "` + strings.Repeat("a", MaxSlugLength+1) + `" is not a slug`},
		},
		{
			name:  "insight with no front matter",
			files: withInsight("x.md", "# A Title\n\nThe body.\n"),
			want:  []string{"insights/x.md: front matter: the file must begin with a line of three hyphens"},
		},
		{
			name:  "empty insight file",
			files: withInsight("x.md", ""),
			want:  []string{"insights/x.md: front matter: the file must begin"},
		},
		{
			name:  "insight with unclosed front matter",
			files: withInsight("x.md", strings.Replace(validInsight, "\n---\n", "\n", 1)),
			want:  []string{"insights/x.md: front matter: no closing line of three hyphens"},
		},
		{
			name:  "insight with empty front matter",
			files: withInsight("x.md", "---\n---\nThe body.\n"),
			want:  []string{"insights/x.md: front matter: is empty"},
		},
		{
			name:  "insight with blank front matter",
			files: withInsight("x.md", "---\n\n---\nThe body.\n"),
			want:  []string{"insights/x.md: front matter: is empty"},
		},
		{
			name:  "duplicate front-matter key",
			files: withInsight("x.md", insightWith("topic", "Platforms\ntitle: Again")),
			want:  []string{"insights/x.md:8: title: already given on line 2"},
		},
		{
			name:  "missing title",
			files: withInsight("x.md", insightWithout("title")),
			want:  []string{"insights/x.md: title: is required"},
		},
		{
			name:  "dateISO is not a date",
			files: withInsight("x.md", insightWith("dateISO", "2 January 2026")),
			want:  []string{`insights/x.md:5: dateISO: "2 January 2026" is not a date (YYYY-MM-DD)`},
		},
		{
			name:  "dateISO without zero padding",
			files: withInsight("x.md", insightWith("dateISO", "2026-1-2")),
			want:  []string{`insights/x.md:5: dateISO: "2026-1-2" is not a date`},
		},
		{
			name:  "dateModifiedISO before dateISO",
			files: withInsight("x.md", insightWith("dateModifiedISO", `"2025-12-31"`)),
			want:  []string{`insights/x.md:6: dateModifiedISO: "2025-12-31" is before dateISO "2026-01-02"`},
		},
		{
			name:  "empty body",
			files: withInsight("x.md", strings.TrimSuffix(validInsight, "The body of the article.\n")),
			want:  []string{"insights/x.md: body: is empty"},
		},
		{
			name:  "blank body",
			files: withInsight("x.md", strings.Replace(validInsight, "The body of the article.", " \t\n\n  ", 1)),
			want:  []string{"insights/x.md: body: is empty"},
		},
		{
			name:  "no body after front matter closed at the end of the file",
			files: withInsight("x.md", strings.TrimSuffix(validInsight, "\nThe body of the article.\n")),
			want:  []string{"insights/x.md: body: is empty"},
		},
		{
			name:  "insight over MaxFileSize",
			files: withInsight("x.md", validInsight+strings.Repeat("a", MaxFileSize-len(validInsight)+1)),
			want:  []string{"insights/x.md: larger than 1048576 bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := loadStrict(contentFS(tt.files))
			if err == nil {
				t.Fatalf("Load() = %+v, nil; want an error", site)
			}
			if site != nil {
				t.Errorf("Load() returned a site with error %v", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Load() error = %q\nwant it to contain %q", err, want)
				}
			}
			checkNoGoTypes(t, err)
		})
	}
}

func TestLoadReportsEveryError(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "several fields of profile.yaml",
			files: map[string]string{
				"profile.yaml": strings.NewReplacer(
					"name: Ada Example\n", "",
					"email: ada@example.com", "email: nobody",
					"insight: /insights/{slug}", "insight: /insights/",
				).Replace(validProfile),
			},
			want: []string{
				`profile.yaml:7: contact.email: "nobody" is not an email address`,
				"profile.yaml:15: pages.insight: must contain the placeholder {slug}",
			},
		},
		{
			name: "several insight files and fields",
			files: map[string]string{
				"profile.yaml":     validProfile,
				"insights/good.md": validInsight,
				"insights/" + strings.Repeat("a", MaxSlugLength+1) + ".md": validInsight,
				"insights/no-fm.md":  "The body.\n",
				"insights/fields.md": insightWith("title", `""`, "dateISO", "soon"),
			},
			want: []string{
				"insights/" + strings.Repeat("a", MaxSlugLength+1) + `.md: file name: "` + strings.Repeat("a", MaxSlugLength+1) + `" is not a slug`,
				"insights/no-fm.md: front matter: the file must begin",
				"insights/fields.md:2: title: is required",
				`insights/fields.md:5: dateISO: "soon" is not a date`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadStrict(contentFS(tt.files))
			if err == nil {
				t.Fatal("Load() error = nil, want an error")
			}
			var joined interface{ Unwrap() []error }
			if !errors.As(err, &joined) {
				t.Errorf("Load() error %T does not join several errors", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Load() error = %q\nwant it to contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "insights/good.md") {
				t.Errorf("Load() error = %q, names the valid insights/good.md", err)
			}
		})
	}
}

func TestReadTime(t *testing.T) {
	words := func(n int) string { return strings.Repeat("word \n", n) }
	tests := []struct {
		name string
		body string
		want string
	}{
		{"no words", "", "1 min read"},
		{"one minute", words(200), "1 min read"},
		{"rounds down below a half", words(299), "1 min read"},
		{"rounds half up", words(300), "2 min read"},
		{"five minutes", words(1000), "5 min read"},
		{"Chinese, by characters", strings.Repeat("读书使人充实。", 750), "9 min read"},
		{"Japanese kana and kanji, by characters", strings.Repeat("これは日本語のブログです。", 500), "12 min read"},
		{"Korean, by syllables", strings.Repeat("한국어 블로그 글입니다. ", 300), "6 min read"},
		{"Latin words beside CJK characters", strings.Repeat("Go言語 ", 1000) + words(600), "12 min read"},
		{"punctuation is no word", strings.Repeat("「本」、(本).! ", 1000), "4 min read"},
		{"a long vowel mark within katakana", strings.Repeat("ラーメン", 500), "4 min read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadTime(tt.body); got != tt.want {
				t.Errorf("ReadTime() = %q, want %q", got, tt.want)
			}
		})
	}
}

func BenchmarkReadTime(b *testing.B) {
	for _, bench := range []struct{ name, body string }{
		{"English", strings.Repeat("A sentence of eight words, as posts have. ", MaxFileSize/42)},
		{"Japanese", strings.Repeat("これは日本語のブログです。", MaxFileSize/39)},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(int64(len(bench.body)))
			for b.Loop() {
				ReadTime(bench.body)
			}
		})
	}
}

func TestLoadDir(t *testing.T) {
	valid := t.TempDir()
	writeFile(t, filepath.Join(valid, "profile.yaml"), validProfile)
	writeFile(t, filepath.Join(valid, "insights", "x.md"), validInsight)
	broken := t.TempDir()
	writeFile(t, filepath.Join(broken, "profile.yaml"), validProfile)
	writeFile(t, filepath.Join(broken, "insights", "x.md"), insightWithout("title"))
	regular := filepath.Join(t.TempDir(), "profile.yaml")
	writeFile(t, regular, validProfile)
	missing := filepath.Join(t.TempDir(), "missing")

	tests := []struct {
		name string
		dir  string
		want []string // nil: no error
	}{
		{name: "valid directory", dir: valid},
		{name: "nonexistent path", dir: missing, want: []string{"loading content: ", missing}},
		{name: "regular file", dir: regular, want: []string{"loading content: " + regular + " is not a directory"}},
		{name: "a post that cannot be used", dir: broken, want: []string{"insights/x.md: title: is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := problemsOf(LoadDir(tt.dir))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("LoadDir() error: %v", err)
				}
				if len(site.Insights) != 1 || site.Insights[0].Slug != "x" {
					t.Errorf("Insights = %+v, want only x", site.Insights)
				}
				return
			}
			if err == nil {
				t.Fatal("LoadDir() error = nil, want an error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("LoadDir() error = %q\nwant it to contain %q", err, want)
				}
			}
		})
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzFrontMatter(f *testing.F) {
	for _, seed := range []string{
		validInsight,
		"\ufeff" + strings.ReplaceAll(validInsight, "\n", "\r\n"),
		strings.TrimSuffix(validInsight, "\n"),
		insightWith("topic", "Platforms\nreadTime: 3 min read"),
		insightWith("dateModifiedISO", `"2025-12-31"`),
		insightWith("topic", "Platforms\nauthor: Ada"),
		"---\n---\nbody\n",
		"---\n\n---\n",
		"---\ntitle: [unclosed\n---\nbody\n",
		"---\n&a [*a]\n---\nbody\n",
		"no front matter",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{
			"profile.yaml":  {Data: []byte(validProfile)},
			"insights/x.md": {Data: data},
		}
		// Whatever the post holds, the site loads: the post is an
		// insight, or it is skipped, with the problems that made it so.
		site, err := Load(fsys)
		if err != nil {
			t.Fatalf("Load() error: %v", err)
		}
		published := len(site.Insights) == 1 && site.Insights[0].Slug == "x"
		skipped := len(site.Skipped) == 1 && site.Skipped[0].Path == "insights/x.md"
		if published == skipped {
			t.Fatalf("Load() = %+v, skipped %v; want insight x or x skipped", site.Insights, site.Skipped)
		}
	})
}

// A missing or invalid date is reported once, not again as out of order;
// and the profile's errors do not hide the insights'.
func TestLoadReportsEachProblemOnce(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"invalid dateModifiedISO": {"profile.yaml": validProfile, "insights/x.md": insightWith("dateModifiedISO", "later")},
		"invalid dateISO": {"profile.yaml": validProfile,
			"insights/x.md": insightWith("dateISO", "soon", "dateModifiedISO", `"2026-01-03"`)},
	} {
		_, err := loadStrict(contentFS(files))
		if err == nil || strings.Contains(err.Error(), "is before dateISO") {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := Load(contentFS(map[string]string{"profile.yaml": "", "insights/Bad.md": "x"}))
	if err == nil || !strings.Contains(err.Error(), "profile.yaml: is empty") || !strings.Contains(err.Error(), "insights/Bad.md") {
		t.Errorf("profile and insight errors: %v", err)
	}
}

func TestLastUpdated(t *testing.T) {
	noDate := strings.Replace(validProfile, "lastUpdated: \"2026-01-02\"\n", "", 1)
	modTime := time.Date(2025, 3, 4, 23, 0, 0, 0, time.FixedZone("", -5*3600))
	tests := []struct {
		name  string
		fsys  fstest.MapFS
		want  string
		error string
	}{
		{
			name: "given in profile.yaml",
			fsys: fstest.MapFS{"profile.yaml": {Data: []byte(validProfile)}, "insights/x.md": {Data: []byte(post("title: T", "date: 2026-03-01"))}},
			want: "2026-01-02",
		},
		{
			name: "the newest modification of an insight",
			fsys: fstest.MapFS{
				"profile.yaml":  {Data: []byte(noDate)},
				"insights/a.md": {Data: []byte(post("title: A", "date: 2024-05-01", "lastmod: 2025-02-01"))},
				"insights/b.md": {Data: []byte(post("title: B", "date: 2024-06-01"))},
			},
			want: "2025-02-01",
		},
		{
			name: "the newest insight when none was modified",
			fsys: fstest.MapFS{
				"profile.yaml":  {Data: []byte(noDate)},
				"insights/a.md": {Data: []byte(post("title: A", "date: 2024-05-01"))},
				"insights/b.md": {Data: []byte(post("title: B", "date: 2024-06-01"))},
			},
			want: "2024-06-01",
		},
		{
			name: "drafts do not count",
			fsys: fstest.MapFS{
				"profile.yaml":  {Data: []byte(noDate)},
				"insights/a.md": {Data: []byte(post("title: A", "date: 2024-05-01"))},
				"insights/b.md": {Data: []byte(post("title: B", "date: 2024-06-01", "draft: true"))},
			},
			want: "2024-05-01",
		},
		{
			name: "profile.yaml's modification day, in UTC, when there are no insights",
			fsys: fstest.MapFS{"profile.yaml": {Data: []byte(noDate), ModTime: modTime}},
			want: "2025-03-05",
		},
		{
			// The catalog takes it from the site's posts, else the day read.
			name: "left to the catalog when nothing gives it",
			fsys: fstest.MapFS{"profile.yaml": {Data: []byte(noDate)}},
			want: "",
		},
		{
			name: "left to the catalog when the only post has problems",
			fsys: fstest.MapFS{
				"profile.yaml":  {Data: []byte(noDate)},
				"insights/a.md": {Data: []byte(post("title: A"))},
			},
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, err := Load(tt.fsys)
			if tt.error != "" {
				if err == nil || err.Error() != tt.error {
					t.Fatalf("Load() error = %v, want %s", err, tt.error)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if site.Profile.LastUpdated != tt.want {
				t.Errorf("LastUpdated = %q, want %q", site.Profile.LastUpdated, tt.want)
			}
		})
	}
}
