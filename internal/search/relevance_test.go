package search

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// The relevance set (testdata/relevance/judgments.txt): queries with
// judged answers over fixture blogs and the sample content, and the two
// figures that say how well a ranking answers them: nDCG@10, the
// discounted gain of the first ten results against the best order of the
// judged ones (1 when the best come first), and MRR, the mean reciprocal
// rank of the first result graded 2 or more (1 when it comes first).

// judged is a query of the relevance set and its judged answers.
type judged struct {
	corpus, query string
	grades        map[string]int
}

// relevanceCorpora are the corpora of the relevance set by name: the
// fixture blogs and the sample content.
func relevanceCorpora(t testing.TB) map[string][]content.Insight {
	t.Helper()
	corpora := make(map[string][]content.Insight)
	for _, blog := range []string{"webdev", "coins", "travel"} {
		site, err := content.LoadInsightsWith(filepath.Join("testdata", "relevance", blog), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(site.Skipped) > 0 {
			t.Fatalf("%s: skipped %v", blog, site.Skipped)
		}
		corpora[blog] = site.Insights
	}
	sample, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	corpora["sample"] = sample.Insights
	return corpora
}

// judgments reads the relevance set, checking that each judged slug is
// one of its corpus's.
func judgments(t testing.TB, corpora map[string][]content.Insight) []judged {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "relevance", "judgments.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var set []judged
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		line := strings.TrimSpace(lines.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "|")
		if len(fields) != 3 {
			t.Fatalf("judgments.txt:%d: want corpus | query | slug=grade ...", n)
		}
		j := judged{corpus: strings.TrimSpace(fields[0]), query: strings.TrimSpace(fields[1]), grades: make(map[string]int)}
		insights, ok := corpora[j.corpus]
		if !ok {
			t.Fatalf("judgments.txt:%d: no corpus %q", n, j.corpus)
		}
		for _, g := range strings.Fields(fields[2]) {
			slug, grade, _ := strings.Cut(g, "=")
			v, err := strconv.Atoi(grade)
			if err != nil || v < 1 || v > 3 || !slices.ContainsFunc(insights, func(in content.Insight) bool { return in.Slug == slug }) {
				t.Fatalf("judgments.txt:%d: %q is not a slug of %s with a grade from 1 to 3", n, g, j.corpus)
			}
			j.grades[slug] = v
		}
		set = append(set, j)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return set
}

// ndcg is the normalised discounted cumulative gain of the first k of
// ranked (gain 2^grade − 1, discount log2(rank+1)), graded by grade.
func ndcg(ranked []string, grade func(slug string) int, ideal []int, k int) float64 {
	dcg := func(grades []int) float64 {
		sum := 0.0
		for i, g := range grades[:min(k, len(grades))] {
			sum += (math.Exp2(float64(g)) - 1) / math.Log2(float64(i+2))
		}
		return sum
	}
	got := make([]int, len(ranked))
	for i, slug := range ranked {
		got[i] = grade(slug)
	}
	best := slices.Clone(ideal)
	slices.SortFunc(best, func(a, b int) int { return b - a })
	if d := dcg(best); d > 0 {
		return dcg(got) / d
	}
	return 0
}

// reciprocalRank is 1/rank of the first of ranked graded 2 or more, 0
// when none is.
func reciprocalRank(ranked []string, grade func(slug string) int) float64 {
	for i, slug := range ranked {
		if grade(slug) >= 2 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// relevanceOf is the mean nDCG@10 and MRR of a ranking over queries, each
// searched in the index of its corpus; source names the judged slug an
// insight stands for (itself, or the sample insight a scaled one copies).
func relevanceOf(t testing.TB, indexes map[string]*Index, queries []judged, source func(corpus, slug string) string) (nDCG, mrr float64, each []float64) {
	t.Helper()
	for _, j := range queries {
		x := indexes[j.corpus]
		out, err := x.Search(context.Background(), Input{Query: j.query, Limit: 10}, testURL)
		if err != nil {
			t.Fatalf("%s: %q: %v", j.corpus, j.query, err)
		}
		var ranked []string
		for _, r := range out.Results {
			ranked = append(ranked, r.Slug)
		}
		grade := func(slug string) int { return j.grades[source(j.corpus, slug)] }
		var ideal []int
		for _, in := range x.corpus {
			if g := grade(in.Slug); g > 0 {
				ideal = append(ideal, g)
			}
		}
		n := ndcg(ranked, grade, ideal, 10)
		each = append(each, n)
		nDCG += n
		mrr += reciprocalRank(ranked, grade)
	}
	return nDCG / float64(len(queries)), mrr / float64(len(queries)), each
}

// relevanceSuite is the relevance set's corpora, queries and the sample
// grown to scaledSample insights, whose insights stand for the sample's
// they copy.
type relevanceSuite struct {
	corpora map[string][]content.Insight
	queries []judged
	scaled  []content.Insight
	sources map[string]string // scaled slug → sample slug
}

const scaledSample = 1000

func newRelevanceSuite(t testing.TB) *relevanceSuite {
	s := &relevanceSuite{corpora: relevanceCorpora(t)}
	s.queries = judgments(t, s.corpora)
	s.scaled = grown(t, scaledSample).Insights
	sample := s.corpora["sample"]
	s.sources = make(map[string]string)
	for _, in := range s.scaled {
		i, err := strconv.Atoi(strings.TrimPrefix(in.Slug, "insight-"))
		if err != nil {
			t.Fatalf("a scaled insight's slug: %s", in.Slug)
		}
		s.sources[in.Slug] = sample[i%len(sample)].Slug
	}
	return s
}

// figures are the relevance figures of a ranking: over the fixture blogs,
// over the sample, over the sample grown to scaledSample insights, and
// over the fixture blogs and the sample together, with each query's
// nDCG@10 in the set's order (fixture blogs and sample).
type figures struct {
	blogs, sample, scaled, all [2]float64 // nDCG@10, MRR
	each                       []float64
}

func (s *relevanceSuite) measure(t testing.TB, lang string, rank ranking) figures {
	t.Helper()
	indexes := make(map[string]*Index)
	for name, insights := range s.corpora {
		indexes[name] = newIndex(insights, languageOf(lang), rank)
	}
	itself := func(_, slug string) string { return slug }
	var f figures
	var blogs, sample []judged
	for _, j := range s.queries {
		if j.corpus == "sample" {
			sample = append(sample, j)
		} else {
			blogs = append(blogs, j)
		}
	}
	f.blogs[0], f.blogs[1], _ = relevanceOf(t, indexes, blogs, itself)
	f.sample[0], f.sample[1], _ = relevanceOf(t, indexes, sample, itself)
	f.all[0], f.all[1], f.each = relevanceOf(t, indexes, s.queries, itself)
	scaled := map[string]*Index{"sample": newIndex(s.scaled, languageOf(lang), rank)}
	f.scaled[0], f.scaled[1], _ = relevanceOf(t, scaled, sample, func(_, slug string) string { return s.sources[slug] })
	return f
}

// BenchmarkRelevance reports the relevance set's figures, nDCG@10 and MRR,
// of the ranking searches use ("now") beside the legacy one ("before"):
// over the fixture blogs, the sample, the sample grown to 1 000 insights,
// and everything; and the time each of those sets of searches takes.
func BenchmarkRelevance(b *testing.B) {
	s := newRelevanceSuite(b)
	before := s.measure(b, "", legacyRanking)
	after := s.measure(b, "", defaultRanking)
	indexes := make(map[string]*Index)
	for name, insights := range s.corpora {
		indexes[name] = New(insights, "")
	}
	scaled := map[string]*Index{"sample": New(s.scaled, "")}
	var blogs, sample []judged
	for _, j := range s.queries {
		if j.corpus == "sample" {
			sample = append(sample, j)
		} else {
			blogs = append(blogs, j)
		}
	}
	for _, c := range []struct {
		name          string
		before, after [2]float64
		queries       []judged
		indexes       map[string]*Index
	}{
		{"blogs", before.blogs, after.blogs, blogs, indexes},
		{"sample", before.sample, after.sample, sample, indexes},
		{fmt.Sprintf("sample-%d", scaledSample), before.scaled, after.scaled, sample, scaled},
		{"all", before.all, after.all, s.queries, indexes},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, j := range c.queries {
					_, _ = c.indexes[j.corpus].Search(context.Background(), Input{Query: j.query, Limit: 10}, testURL)
				}
			}
			// Printed sorted by unit: each figure before, then now.
			b.ReportMetric(c.before[0], "nDCG@10-before")
			b.ReportMetric(c.after[0], "nDCG@10-now")
			b.ReportMetric(c.before[1], "MRR-before")
			b.ReportMetric(c.after[1], "MRR-now")
		})
	}
}

// TestRelevance measures the relevance set under the ranking searches use,
// the legacy one and the ranking without each of its parts, logging each
// query whose nDCG@10 changes.
func TestRelevance(t *testing.T) {
	s := newRelevanceSuite(t)
	before := s.measure(t, "", legacyRanking)
	after := s.measure(t, "", defaultRanking)
	noPrefix, noStem := defaultRanking, defaultRanking
	noPrefix.prefix, noStem.stem = 0, false
	for _, c := range []struct {
		name string
		f    figures
	}{{"before", before}, {"after", after}, {"no prefix", s.measure(t, "", noPrefix)}, {"no stemming", s.measure(t, "", noStem)}} {
		t.Logf("%-12s blogs %.3f %.3f  sample %.3f %.3f  sample×%d %.3f %.3f  all %.3f %.3f", c.name,
			c.f.blogs[0], c.f.blogs[1], c.f.sample[0], c.f.sample[1], scaledSample, c.f.scaled[0], c.f.scaled[1], c.f.all[0], c.f.all[1])
	}
	for i, j := range s.queries {
		if before.each[i] != after.each[i] || after.each[i] < 1 {
			t.Logf("%-7s %-32q %.3f → %.3f", j.corpus, j.query, before.each[i], after.each[i])
		}
	}
	if after.all[0] <= before.all[0] || after.all[1] <= before.all[1] {
		t.Errorf("nDCG@10 %.3f and MRR %.3f, no better than the legacy ranking's %.3f and %.3f", after.all[0], after.all[1], before.all[0], before.all[1])
	}
}
