package handlers

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// scanSearch is the search as it was before the index: every insight's
// fields lowercased and scanned on every call. The index must give exactly
// its results, ranking and scores.
func scanSearch(l links, query string, limit int) searchOutput {
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	words := queryWords(query)
	out := searchOutput{Query: query, Results: []searchResult{}}
	for _, in := range l.cfg.Site.Insights {
		title, topic, desc, body := strings.ToLower(in.Title), strings.ToLower(in.Topic), strings.ToLower(in.Description), strings.ToLower(in.Body)
		score := 0.0
		for _, w := range words {
			score += 8*float64(strings.Count(title, w)) + 5*float64(strings.Count(topic, w)) +
				3*float64(strings.Count(desc, w)) + float64(min(strings.Count(body, w), 20))
		}
		if score == 0 {
			continue
		}
		out.Results = append(out.Results, searchResult{
			Slug: in.Slug, Title: in.Title, Topic: in.Topic, Date: in.DateISO, URL: l.insight(in.Slug),
			Score: score, Snippet: scanSnippet(in.Body, words),
		})
	}
	sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Score > out.Results[j].Score })
	if len(out.Results) > limit {
		out.Results = out.Results[:limit]
	}
	out.Count = len(out.Results)
	return out
}

// scanSnippet is the snippet as it was before the index: the body
// lowercased and searched for the first word.
func scanSnippet(body string, words []string) string {
	lower := strings.ToLower(body)
	at := -1
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at > 0 {
		runes := utf8.RuneCountInString(lower[:at])
		at = 0
		for range runes {
			_, size := utf8.DecodeRuneInString(body[at:])
			at += size
		}
	}
	start := max(at-80, 0)
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	end := min(start+200, len(body))
	for end < len(body) && !utf8.RuneStart(body[end]) {
		end++
	}
	s := strings.Join(strings.Fields(body[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(body) {
		s += "…"
	}
	return s
}

// oddInsights are texts where words overlap, repeat, change length when
// lowercased, or hold punctuation.
func oddInsights() []content.Insight {
	texts := []struct{ title, topic, desc, body string }{
		{"AAAA aaa", "Aa", "aaaaa", strings.Repeat("aa ", 30) + "aaa\taaaa\nAAAAAA"},
		{"İstanbul and ISTANBUL", "Straße", "STRASSE straße", "Ⱥ Ⱦ K ẞ İstanbul zebra crossing, zebra-crossing"},
		{"C++ & e.g. don't", "Data", "data, DATA; data.", "c++ c+ e.g.e.g. don't don't-stop (data)(data)"},
		{"Data contracts", "Data", "Contracts for data", strings.Repeat("data contracts ", 25)},
		{"Nothing here", "Misc", "none", "ﬁne ligatures and ǅ digraphs"},
	}
	var out []content.Insight
	for i, t := range texts {
		out = append(out, content.Insight{Slug: fmt.Sprintf("odd-%d", i), Title: t.title, Topic: t.topic,
			Description: t.desc, Body: t.body, DateISO: "2024-01-01"})
	}
	return out
}

func TestSearchIndexGivesTheScansResults(t *testing.T) {
	sample, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := content.Load(scaleContent(t, 300))
	if err != nil {
		t.Fatal(err)
	}
	odd := *sample
	odd.Insights = oddInsights()
	queries := []string{
		"data contracts", "warehouse cost", "the", "platf", "zyzzyva", "a", "e", "DATA data Data",
		"aa", "aaa", "AAAA", "istanbul", "i̇stanbul", "straße", "ss", "c++", "e.g.", "don't", "(data)", "zebra-crossing",
		"ﬁ", "ǆ", "ⱥ", "k", ".", "  ", "", "contract contracts", strings.Repeat("x", 65) + " data",
	}
	for _, c := range []struct {
		name string
		site *content.Site
	}{{"sample", sample}, {"300 insights", scaled}, {"odd texts", &odd}} {
		s, err := New(Config{Site: c.site, TokenSecret: []byte(strings.Repeat("s", 32))})
		if err != nil {
			t.Fatal(err)
		}
		l := links{base: "https://example.com", cfg: &s.cfg, routes: s.routes}
		for _, q := range queries {
			for _, limit := range []int{0, 3, 50} {
				got, want := l.search(q, limit), scanSearch(l, q, limit)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: search(%q, %d):\n got %+v\nwant %+v", c.name, q, limit, got, want)
				}
			}
		}
	}
}

// Bodies whose lowercase form has another length in bytes than the
// original: the snippet still shows the word found.
func TestSearchSnippetsAnyText(t *testing.T) {
	sample, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	site := *sample
	site.Insights = nil
	for i, body := range []string{
		strings.Repeat("İstanbul ", 100) + "zebra crossing",
		strings.Repeat("Ⱥ Ⱦ ", 200) + "zebra crossing",
		strings.Repeat("K ẞ ", 150) + "zebra crossing",
	} {
		site.Insights = append(site.Insights, content.Insight{Slug: fmt.Sprintf("odd-%d", i), Title: "Odd", Topic: "Odd",
			Description: "Odd", Body: body, DateISO: "2024-01-01"})
	}
	s, err := New(Config{Site: &site, TokenSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		t.Fatal(err)
	}
	out := links{base: "https://example.com", cfg: &s.cfg}.search("ZEBRA", 10)
	if out.Count != 3 {
		t.Fatalf("%d results, want 3", out.Count)
	}
	for _, r := range out.Results {
		if !strings.Contains(r.Snippet, "zebra") {
			t.Errorf("%s: snippet %q does not show the word", r.Slug, r.Snippet)
		}
	}
	if words := queryWords(strings.Repeat("ab ", 21000) + strings.Repeat("x", 100) + " Data data DATA"); len(words) != 2 {
		t.Errorf("query words %q: repeated, overlong and surplus words must be dropped", words)
	}
}

// FuzzSearchIndex checks the index against the scan for any query over
// texts that stress lowercasing and overlaps.
func FuzzSearchIndex(f *testing.F) {
	sample, err := content.Sample()
	if err != nil {
		f.Fatal(err)
	}
	odd := *sample
	odd.Insights = oddInsights()
	s, err := New(Config{Site: &odd, TokenSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		f.Fatal(err)
	}
	l := links{base: "https://example.com", cfg: &s.cfg, routes: s.routes}
	for _, q := range []string{"aa", "İ", "c++ data", "\xff\xfeaa", "ss ß"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if got, want := l.search(q, 50), scanSearch(l, q, 50); !reflect.DeepEqual(got, want) {
			t.Errorf("search(%q):\n got %+v\nwant %+v", q, got, want)
		}
	})
}
