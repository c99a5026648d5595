package search

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// testURL is the address the tests give an insight.
func testURL(slug string) string { return "https://example.com/insights/" + slug }

// grown is the sample content grown to n insights.
func grown(t testing.TB, n int) *content.Site {
	t.Helper()
	fsys, err := content.ScaledSample(n)
	if err != nil {
		t.Fatal(err)
	}
	site, err := content.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// scanSearch is the search without the index: every insight's fields
// read on every call (lowercased and scanned under the legacy ranking,
// analysed into tokens otherwise), BM25 computed from those counts, every
// match sorted. The index must give exactly its results, ranking, scores
// and pages.
func scanSearch(x *Index, in Input) Output {
	insights := x.corpus
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	words := x.queryWords(in.Query)
	// The words the index searches within its bounds: which those are is
	// the index's to say (see TestSearchBounds); what they find, the scan's.
	var searched []string
	kept, _ := x.searched(words)
	for _, q := range kept {
		searched = append(searched, q.word)
	}
	filter, err := searchFilterOf(in)
	if err != nil {
		panic(err)
	}
	sc := scanFields(x)
	scores := make([]float64, len(insights))
	matched := make([]bool, len(insights))
	at := make([]int, len(insights))
	for i := range at {
		at[i] = -1
	}
	for _, w := range searched {
		counts := make([][searchFields]float64, len(insights))
		count := sc.counter(x, w)
		df := 0
		for i := range insights {
			any := false
			for f := range searchFields {
				var first int
				counts[i][f], first = count(i, f)
				any = any || counts[i][f] > 0
				if f == fieldBody && first >= 0 && (at[i] < 0 || first < at[i]) && filter.admits(&insights[i]) {
					at[i] = first
				}
			}
			if any {
				df++
			}
		}
		idf := bm25IDF(len(insights), df)
		for i := range insights {
			if counts[i] != ([searchFields]float64{}) && filter.admits(&insights[i]) {
				norms := bm25Norms(sc.lengths[i], sc.averages)
				scores[i] += bm25(idf, &counts[i], &norms, &x.rank.weights)
				matched[i] = true
			}
		}
	}
	var all []Result
	for i, in := range insights {
		if !matched[i] {
			continue
		}
		s := snippet(in.Body, at[i])
		if x.rank.legacy {
			s = scanSnippet(in.Body, searched)
		}
		all = append(all, Result{
			Slug: in.Slug, Title: in.Title, Topic: in.Topic, Date: in.DateISO, URL: testURL(in.Slug),
			Score: math.Round(scores[i]*1e4) / 1e4, Snippet: s,
		})
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Date != b.Date {
			return a.Date > b.Date
		}
		return a.Slug < b.Slug
	})
	offset := 0
	if in.Cursor != "" {
		if offset, err = decodeCursor(in.Cursor, searchKey(words, filter)); err != nil {
			panic(err)
		}
	}
	out := Output{Query: in.Query, Total: len(all), Results: []Result{}}
	if offset < len(all) {
		out.Results = all[offset:min(offset+limit, len(all))]
	}
	out.Count = len(out.Results)
	if next := offset + out.Count; out.Count > 0 && next < len(all) {
		out.NextCursor = encodeCursor(searchKey(words, filter), next)
	}
	return out
}

// scanned are the fields of the insights scanSearch has seen, as each
// ranking reads them, their lengths in words and the average lengths, by
// the insights' first element and the index's language and ranking, so
// that the tests do not read them again on every query.
var scanned sync.Map

type scanKey struct {
	first    *content.Insight
	language string
	rank     ranking
}

type scannedFields struct {
	// lower are the fields lowercased (legacy ranking), tokens their
	// tokens analysed (otherwise).
	lower    [][searchFields]string
	tokens   [][searchFields][]scanToken
	lengths  [][searchFields]float64
	averages [searchFields]float64
	// counted are the counts of the words scanned, by word.
	mu      sync.Mutex
	counted map[string][][searchFields]wordCount
}

// wordCount is how often a word occurs in one field, and where first (-1:
// nowhere).
type wordCount struct {
	n     float64
	first int
}

// scanToken is a token of a field as the analysis makes it.
type scanToken struct {
	form, term string
	at         int
}

func scanFields(x *Index) *scannedFields {
	insights := x.corpus
	if len(insights) == 0 {
		return &scannedFields{}
	}
	key := scanKey{&insights[0], x.language, x.rank}
	if v, ok := scanned.Load(key); ok {
		return v.(*scannedFields)
	}
	sf := &scannedFields{lengths: make([][searchFields]float64, len(insights)), counted: make(map[string][][searchFields]wordCount)}
	a := newAnalyzer(x.language, x.rank.stem)
	for i, in := range insights {
		texts := [searchFields]string{in.Title, in.Topic, in.Description, in.Body}
		if x.rank.legacy {
			var lower [searchFields]string
			for f := range searchFields {
				lower[f] = strings.ToLower(texts[f])
				sf.lengths[i][f] = float64(len(strings.Fields(lower[f])))
			}
			sf.lower = append(sf.lower, lower)
		} else {
			var tokens [searchFields][]scanToken
			for f := range searchFields {
				eachToken(texts[f], func(raw string, at int, whole bool) {
					form, term := a.formTerm(a.word(raw, whole))
					tokens[f] = append(tokens[f], scanToken{form, term, at})
					if !whole {
						sf.lengths[i][f]++
					}
				})
			}
			sf.tokens = append(sf.tokens, tokens)
		}
		for f := range searchFields {
			sf.averages[f] += sf.lengths[i][f]
		}
	}
	for f := range sf.averages {
		sf.averages[f] /= float64(len(insights))
	}
	scanned.Store(key, sf)
	return sf
}

// counter is how often word occurs in each field of each insight, and the
// rune index of its first occurrence there (-1: none): under the legacy
// ranking, inside any word; otherwise its own term, and with the prefix
// weight the terms of the forms of the corpus's words it begins.
func (sf *scannedFields) counter(x *Index, word string) func(i, f int) (float64, int) {
	if x.rank.legacy {
		return func(i, f int) (float64, int) {
			return float64(strings.Count(sf.lower[i][f], word)), -1
		}
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	counts, ok := sf.counted[word]
	if !ok {
		a := newAnalyzer(x.language, x.rank.stem)
		form, term := a.formTerm(word)
		weights := map[string]float64{}
		if x.rank.prefix > 0 {
			for _, fields := range sf.tokens {
				for _, tokens := range fields {
					for _, t := range tokens {
						if strings.HasPrefix(t.form, form) {
							weights[t.term] = x.rank.prefix
						}
					}
				}
			}
		}
		weights[term] = 1
		counts = make([][searchFields]wordCount, len(sf.tokens))
		for i, fields := range sf.tokens {
			for f, tokens := range fields {
				c := wordCount{first: -1}
				for _, t := range tokens {
					if w := weights[t.term]; w > 0 {
						c.n += w
						if c.first < 0 || t.at < c.first {
							c.first = t.at
						}
					}
				}
				counts[i][f] = c
			}
		}
		sf.counted[word] = counts
	}
	return func(i, f int) (float64, int) { return counts[i][f].n, counts[i][f].first }
}

// scanSnippet is the snippet as it was before the index: the body
// lowercased and searched for the first word, whose place the window
// around it is taken at.
func scanSnippet(body string, words []string) string {
	lower := strings.ToLower(body)
	at := -1
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		return snippet(body, -1)
	}
	return snippet(body, utf8.RuneCountInString(lower[:at]))
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
	scaled := grown(t, 300)
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
		for ranking, x := range bothRankings(c.site.Insights) {
			name := c.name + ", " + ranking
			for _, q := range queries {
				if strings.TrimSpace(q) == "" {
					if _, err := x.Search(context.Background(), Input{Query: q}, testURL); err != ErrEmptyQuery {
						t.Errorf("%s: search(%q): %v, want %v", name, q, err, ErrEmptyQuery)
					}
					continue
				}
				for _, in := range []Input{
					{Limit: 0}, {Limit: 50}, {Limit: 3}, {Limit: 3, Topic: " PRIVACY "}, {Limit: 3, Topic: "data"},
					{Limit: 3, Since: "2024-01-01"}, {Limit: 3, Until: "2021-06-30"}, {Limit: 3, Since: "2020-03-01", Until: "2020-09-30", Topic: "privacy"},
				} {
					in.Query = q
					// Every page, following the cursors.
					for page := 0; ; page++ {
						got, err := x.Search(context.Background(), in, testURL)
						if err != nil {
							t.Fatalf("%s: search(%+v): %v", name, in, err)
						}
						if want := scanSearch(x, in); !reflect.DeepEqual(got, want) {
							t.Fatalf("%s: search(%+v):\n got %+v\nwant %+v", name, in, got, want)
						}
						if got.NextCursor == "" || page == 3 {
							break
						}
						in.Cursor = got.NextCursor
					}
				}
			}
		}
	}
}

// bothRankings are the indexes of insights under the ranking searches use
// and the legacy one, by name.
func bothRankings(insights []content.Insight) map[string]*Index {
	return map[string]*Index{"words understood": New(insights, ""), "legacy": newIndex(insights, defaultLanguage, legacyRanking)}
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
	x := New(site.Insights, "")
	out, err := x.Search(context.Background(), Input{Query: "ZEBRA"}, testURL)
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 3 {
		t.Fatalf("%d results, want 3", out.Count)
	}
	for _, r := range out.Results {
		if !strings.Contains(r.Snippet, "zebra") {
			t.Errorf("%s: snippet %q does not show the word", r.Slug, r.Snippet)
		}
	}
	if words := x.queryWords(strings.Repeat("ab ", 21000) + strings.Repeat("x", 100) + " Data data DATA"); len(words) != 2 {
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
	indexes := bothRankings(odd.Insights)
	for _, q := range []string{"aa", "İ", "c++ data", "\xff\xfeaa", "ss ß", "e-mail Zebra-Crossing", "straße STRASSE", "don't (data)"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if strings.TrimSpace(q) == "" {
			return
		}
		for ranking, x := range indexes {
			in := Input{Query: q, Limit: 50}
			got, err := x.Search(context.Background(), in, testURL)
			if err == ErrTooBroad {
				if words, _ := x.searched(x.queryWords(q)); len(words) != 0 {
					t.Errorf("%s: search(%q): too broad, yet %d words are searched", ranking, q, len(words))
				}
				continue
			}
			if err != nil || !reflect.DeepEqual(got, scanSearch(x, in)) {
				t.Errorf("%s: search(%q): %v\n got %+v\nwant %+v", ranking, q, err, got, scanSearch(x, in))
			}
		}
	})
}

// Pages followed by their cursors give the same results as one large
// page, in the documented order, with scores of at most 4 decimals; a
// cursor only continues its own search, and bad filters are errors that
// say what to send.
func TestSearchPages(t *testing.T) {
	site := grown(t, 120)
	x := New(site.Insights, "")
	all, err := x.Search(context.Background(), Input{Query: "data team", Limit: 50, Since: "2020-01-10"}, testURL)
	if err != nil || all.Total <= 50 || all.NextCursor == "" {
		t.Fatalf("%d of %d results, next %q, %v: want more than a page", all.Count, all.Total, all.NextCursor, err)
	}
	var paged []Result
	in := Input{Query: "DATA  team", Limit: 7, Since: "2020-01-10"}
	for {
		page, err := x.Search(context.Background(), in, testURL)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != all.Total || page.Count != len(page.Results) || page.Count > 7 {
			t.Fatalf("a page of %d (count %d) of %d, want at most 7 of %d", len(page.Results), page.Count, page.Total, all.Total)
		}
		paged = append(paged, page.Results...)
		if page.NextCursor == "" {
			break
		}
		in.Cursor = page.NextCursor
	}
	if len(paged) != all.Total || !reflect.DeepEqual(paged[:50], all.Results) {
		t.Fatalf("the pages hold %d results, want %d, the first 50 as one page", len(paged), all.Total)
	}
	for i, r := range paged {
		if math.Abs(r.Score*1e4-math.Round(r.Score*1e4)) > 1e-6 || r.Date < "2020-01-10" {
			t.Errorf("%s: score %v, date %s", r.Slug, r.Score, r.Date)
		}
		if i > 0 {
			p := paged[i-1]
			if p.Score < r.Score || p.Score == r.Score && (p.Date < r.Date || p.Date == r.Date && p.Slug >= r.Slug) {
				t.Errorf("%s (%v, %s) before %s (%v, %s)", p.Slug, p.Score, p.Date, r.Slug, r.Score, r.Date)
			}
		}
	}
	for name, tc := range map[string]struct {
		in   Input
		want string
	}{
		"empty query":          {Input{Query: " \t"}, "the query is empty"},
		"another query":        {Input{Query: "platform", Cursor: all.NextCursor}, "from another search"},
		"another filter":       {Input{Query: "data team", Cursor: all.NextCursor}, "from another search"},
		"not a cursor":         {Input{Query: "data", Cursor: "page-2"}, "not one this server gave"},
		"not a date":           {Input{Query: "data", Since: "2024-13-01"}, `since is "2024-13-01", not a date`},
		"not a day":            {Input{Query: "data", Until: "yesterday"}, `until is "yesterday", not a date`},
		"since after until":    {Input{Query: "data", Since: "2024-02-01", Until: "2024-01-31"}, "is after until"},
		"a topic of any case":  {Input{Query: "data", Topic: "pRIVACY"}, ""},
		"a page past the last": {Input{Query: "data team", Since: "2020-01-10", Cursor: encodeCursor(searchKey([]string{"data", "team"}, searchFilter{since: "2020-01-10"}), 5000)}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := x.Search(context.Background(), tc.in, testURL)
			if tc.want == "" {
				if err != nil || out.Results == nil || out.Total == 0 {
					t.Errorf("%+v, %v", out, err)
				}
				for _, r := range out.Results {
					if tc.in.Topic != "" && r.Topic != "Privacy" {
						t.Errorf("%s: topic %s", r.Slug, r.Topic)
					}
				}
				if tc.in.Cursor != "" && (out.Count != 0 || out.NextCursor != "") {
					t.Errorf("past the last page: %+v", out)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// BenchmarkSearch builds the index of 10, 1 000, 2 000 and 10 000
// insights, under the ranking searches use and the legacy one, reporting
// the bytes it keeps and what building it allocates, and runs searches
// over it: words of every title, a word of most, a prefix and a word of
// none.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10, 1000, 2000, 10000} {
		site := grown(b, n)
		for _, r := range []struct {
			name string
			rank ranking
		}{{"words", defaultRanking}, {"legacy", legacyRanking}} {
			x := newIndex(site.Insights, defaultLanguage, r.rank)
			b.Run(fmt.Sprintf("index/%d/%s", n, r.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					x = newIndex(site.Insights, defaultLanguage, r.rank)
				}
				b.ReportMetric(float64(x.kept()), "index-bytes")
			})
			for _, q := range []string{"data contracts", "warehouse cost", "the", "platf", "zyzzyva"} {
				b.Run(fmt.Sprintf("%s/%d/%s", q, n, r.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						_, _ = x.Search(context.Background(), Input{Query: q}, testURL)
					}
				})
			}
		}
	}
}

// kept is the memory the index keeps besides the insights: its words and
// forms, where each starts, the postings and where each term's start; the
// suffix array of the legacy ranking holds an int32 per byte of words.
func (x *Index) kept() int {
	n := len(x.words) + 4*len(x.starts) + len(x.forms) + 4*len(x.formStarts) + 4*len(x.formTerms) +
		4*len(x.first) + int(unsafe.Sizeof(posting{}))*len(x.postings) + int(unsafe.Sizeof([searchFields]float64{}))*len(x.norms)
	if x.suffixes != nil {
		n += 4 * len(x.words)
	}
	return n
}

// A search reads at most MaxQueryPostings whatever its words, the words too
// broad to rank being left out (and a query of nothing else an error that
// says so); the searches of one request share a budget; a cursor that is
// not one this server gave is an error, whatever its length.
func TestSearchBounds(t *testing.T) {
	x := New(grown(t, 2000).Insights, "")
	letters := "a b c d e f g h i j k l m n o p"
	if words, cost := x.searched(x.queryWords(letters)); cost > MaxQueryPostings {
		t.Errorf("16 one-letter words read %d postings (%d words), over %d", cost, len(words), MaxQueryPostings)
	}
	if _, cost := x.searched(x.queryWords("data contracts")); cost == 0 {
		t.Error("an ordinary query reads nothing")
	}
	for _, q := range []string{"e", "a e", "e t a o"} {
		if _, err := x.Search(context.Background(), Input{Query: q}, testURL); err != ErrTooBroad {
			t.Errorf("%q: %v, want %v", q, err, ErrTooBroad)
		}
	}
	out, err := x.Search(context.Background(), Input{Query: "e data"}, testURL)
	if want, _ := x.Search(context.Background(), Input{Query: "data"}, testURL); err != nil || out.Total != want.Total || len(out.Results) == 0 {
		t.Errorf("a broad word beside an ordinary one: %d results, %v; want those of the ordinary one, %d", out.Total, err, want.Total)
	}

	_, cost := x.searched(x.queryWords("data contracts warehouse"))
	ctx := WithBudget(context.Background(), NewBudget(3*cost))
	for i := range 4 {
		_, err := x.Search(ctx, Input{Query: "data contracts warehouse"}, testURL)
		want := error(nil)
		if i == 3 {
			want = ErrBudgetSpent
		}
		if err != want {
			t.Errorf("search %d of a budget of 3: %v, want %v", i+1, err, want)
		}
	}

	for _, cursor := range []string{strings.Repeat("A", 64), strings.Repeat("A", 17), strings.Repeat("A", 15), "", "%%%%%%%%%%%%%%%%", strings.Repeat("é", 32)} {
		_, err := x.Search(context.Background(), Input{Query: "data", Cursor: cursor}, testURL)
		if cursor != "" && (err == nil || !strings.Contains(err.Error(), "not one this server gave")) {
			t.Errorf("cursor %q: %v", cursor, err)
		}
	}
}
