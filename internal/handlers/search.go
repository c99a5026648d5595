package handlers

import (
	"bytes"
	"index/suffixarray"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/content"
)

type searchInput struct {
	Query string `json:"query" jsonschema:"words to look for in titles, descriptions, topics and bodies"`
	Limit int    `json:"limit,omitempty" schema:"minimum=1;maximum=50" jsonschema:"the most results to return, 1 to 50; default 10"`
}

type searchResult struct {
	Slug    string  `json:"slug"`
	Title   string  `json:"title"`
	Topic   string  `json:"topic"`
	Date    string  `json:"date" schema:"format=date"`
	URL     string  `json:"url" schema:"format=uri"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

type searchOutput struct {
	Query   string         `json:"query"`
	Count   int            `json:"count" schema:"minimum=0"`
	Results []searchResult `json:"results"`
}

// Bounds of a search query, so that one call cannot cost much.
const (
	maxQueryWords    = 16
	maxQueryWordSize = 64
)

// queryWords are the distinct lowercase words of a query, at most
// maxQueryWords of at most maxQueryWordSize bytes.
func queryWords(query string) []string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(strings.ToValidUTF8(query, ""))) {
		if len(w) <= maxQueryWordSize && !slices.Contains(words, w) {
			words = append(words, w)
			if len(words) == maxQueryWords {
				break
			}
		}
	}
	return words
}

// search ranks insights by how often and where the query's words appear:
// a title match counts most, then topic, description and body. A word
// matches wherever it occurs, inside longer words too ("contract" in
// "contracts"). The index finds the insights, so a search costs in
// proportion to the query and its matches, not to the corpus.
func (l links) search(query string, limit int) searchOutput {
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	var found []insightMatch
	var ranked []rankedInsight
	slot := make(map[int32]int) // an insight's place in ranked
	for _, w := range queryWords(query) {
		found = l.cfg.searchIndex.find(w, found)
		for _, m := range found {
			i, ok := slot[m.insight]
			if !ok {
				i = len(ranked)
				slot[m.insight] = i
				ranked = append(ranked, rankedInsight{insight: m.insight, at: -1})
			}
			r := &ranked[i]
			r.score += m.score()
			if m.at >= 0 && (r.at < 0 || m.at < r.at) {
				r.at = m.at
			}
		}
	}
	best := top(ranked, limit)
	out := searchOutput{Query: query, Count: len(best), Results: make([]searchResult, 0, len(best))}
	for _, r := range best {
		in := l.cfg.Site.Insights[r.insight]
		out.Results = append(out.Results, searchResult{
			Slug: in.Slug, Title: in.Title, Topic: in.Topic, Date: in.DateISO, URL: l.insight(in.Slug),
			Score: float64(r.score), Snippet: snippet(in.Body, r.at),
		})
	}
	return out
}

// rankedInsight is an insight a search found: its score, and the rune
// index in its body of the first query word found there (-1: none).
type rankedInsight struct {
	insight int32
	score   int
	at      int
}

// before reports whether a ranks before b: a higher score, or the same
// score and earlier in the content.
func (a rankedInsight) before(b rankedInsight) bool {
	return a.score > b.score || a.score == b.score && a.insight < b.insight
}

// top returns the best k of ranked, best first, reordering ranked. It
// keeps the best k seen in a heap whose root is the worst of them, so that
// it costs O(n log k), not the O(n log n) of sorting them all.
func top(ranked []rankedInsight, k int) []rankedInsight {
	if len(ranked) > k {
		heap := ranked[:k]
		for i := k/2 - 1; i >= 0; i-- {
			siftDown(heap, i)
		}
		for _, r := range ranked[k:] {
			if r.before(heap[0]) {
				heap[0] = r
				siftDown(heap, 0)
			}
		}
		ranked = heap
	}
	slices.SortFunc(ranked, func(a, b rankedInsight) int {
		if a.before(b) {
			return -1
		}
		return 1 // never equal: insights differ
	})
	return ranked
}

// siftDown restores the heap below i: each entry ranks before its children.
func siftDown(heap []rankedInsight, i int) {
	for {
		worst, left, right := i, 2*i+1, 2*i+2
		if left < len(heap) && heap[worst].before(heap[left]) {
			worst = left
		}
		if right < len(heap) && heap[worst].before(heap[right]) {
			worst = right
		}
		if worst == i {
			return
		}
		heap[i], heap[worst] = heap[worst], heap[i]
		i = worst
	}
}

// The fields of an insight a search reads, and the weight of a word found
// in each. A body counts each query word at most maxBodyCount times, so
// that a long article does not win by length alone.
const (
	fieldTitle = iota
	fieldTopic
	fieldDescription
	fieldBody
	searchFields
)

var fieldWeights = [searchFields]int{8, 5, 3, 1}

const maxBodyCount = 20

// searchIndex holds every distinct word of the insights' searched fields,
// lowercase, with the insights and fields each occurs in. A query word is
// found inside the words by a suffix array, so that it matches within
// longer words as well as whole ones. Words are split at white space, which
// a query word never holds, so a query word's occurrences in a field are
// exactly its occurrences in the field's words.
type searchIndex struct {
	// words is every distinct word, each followed by a newline; word i
	// starts at starts[i] (starts has one more entry: the end).
	words    []byte
	starts   []int32
	suffixes *suffixarray.Index
	// postings[first[k]:first[k+1]] are where word i occurs in field f,
	// k = i*searchFields + f, in the content's order.
	first    []int32
	postings []posting
	insights int
}

// posting says that a word occurs count times in one field of an insight,
// first at rune index at. Lowercasing maps each rune to one rune, so the
// index is the same in the field as written.
type posting struct {
	insight int32
	count   int32
	at      int32
}

// newSearchIndex indexes the searched fields of insights.
func newSearchIndex(insights []content.Insight) *searchIndex {
	type occurrence struct {
		key int32 // word*searchFields + field
		posting
	}
	ids := make(map[string]int32)
	var words []string
	var occurrences []occurrence
	// last[k] is the place in occurrences of key k's latest occurrence.
	var last []int32
	for i, in := range insights {
		for f, text := range [searchFields]string{in.Title, in.Topic, in.Description, in.Body} {
			eachWord(strings.ToLower(text), func(w string, at int) {
				id, ok := ids[w]
				if !ok {
					id = int32(len(words))
					ids[w] = id
					words = append(words, w)
					last = append(last, make([]int32, searchFields)...)
				}
				key := id*searchFields + int32(f)
				if k := last[key]; len(occurrences) > 0 && occurrences[k].key == key && occurrences[k].insight == int32(i) {
					occurrences[k].count++
					return
				}
				last[key] = int32(len(occurrences))
				occurrences = append(occurrences, occurrence{key, posting{int32(i), 1, int32(at)}})
			})
		}
	}
	keys := len(words) * searchFields
	x := &searchIndex{starts: make([]int32, len(words)+1), first: make([]int32, keys+1), insights: len(insights)}
	size := 0
	for _, w := range words {
		size += len(w) + 1
	}
	x.words = make([]byte, 0, size)
	for i, w := range words {
		x.starts[i] = int32(len(x.words))
		x.words = append(append(x.words, w...), '\n')
	}
	x.starts[len(words)] = int32(len(x.words))
	x.suffixes = suffixarray.New(x.words)
	// A counting sort by key keeps each key's postings in the order they
	// were found: by insight.
	for _, o := range occurrences {
		x.first[o.key+1]++
	}
	for k := range keys {
		x.first[k+1] += x.first[k]
	}
	next := slices.Clone(x.first[:keys])
	x.postings = make([]posting, len(occurrences))
	for _, o := range occurrences {
		x.postings[next[o.key]] = o.posting
		next[o.key]++
	}
	return x
}

// eachWord calls f with each word of s, split as strings.Fields splits,
// and the rune index it starts at.
func eachWord(s string, f func(word string, at int)) {
	start, startRune, runes := -1, 0, 0
	for i, r := range s {
		switch space := unicode.IsSpace(r); {
		case space && start >= 0:
			f(s[start:i], startRune)
			start = -1
		case !space && start < 0:
			start, startRune = i, runes
		}
		runes++
	}
	if start >= 0 {
		f(s[start:], startRune)
	}
}

// insightMatch is how often a query word occurs in each field of one
// insight, counted as strings.Count counts (without overlaps), and the
// rune index of its first occurrence in the body (-1: none).
type insightMatch struct {
	insight int32
	counts  [searchFields]int
	at      int
}

func (m *insightMatch) score() int {
	score := fieldWeights[fieldBody] * min(m.counts[fieldBody], maxBodyCount)
	for f := range fieldBody {
		score += fieldWeights[f] * m.counts[f]
	}
	return score
}

// find returns the insights word occurs in, reusing found's memory. The
// suffix array finds the index's words that hold it, so the cost follows
// the matches.
func (x *searchIndex) find(word string, found []insightMatch) []insightMatch {
	found = found[:0]
	w := []byte(word)
	positions := x.suffixes.Lookup(w, -1)
	ids := make([]int32, 0, len(positions))
	for _, p := range positions {
		// The word holding position p: the last one starting at or before it.
		i, exact := slices.BinarySearch(x.starts, int32(p))
		if !exact {
			i--
		}
		ids = append(ids, int32(i))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	postings := 0
	for _, id := range ids {
		postings += int(x.first[(id+1)*searchFields] - x.first[id*searchFields])
	}
	slot := make(map[int32]int, min(postings, x.insights)) // an insight's place in found
	for _, id := range ids {
		held := x.words[x.starts[id] : x.starts[id+1]-1]
		n := bytes.Count(held, w)
		within := utf8.RuneCount(held[:bytes.Index(held, w)])
		for f := range searchFields {
			k := id*searchFields + int32(f)
			for _, p := range x.postings[x.first[k]:x.first[k+1]] {
				i, ok := slot[p.insight]
				if !ok {
					i = len(found)
					slot[p.insight] = i
					found = append(found, insightMatch{insight: p.insight, at: -1})
				}
				m := &found[i]
				m.counts[f] += n * int(p.count)
				if at := int(p.at) + within; f == fieldBody && (m.at < 0 || at < m.at) {
					m.at = at
				}
			}
		}
	}
	return found
}

// snippet is about 200 characters of body around rune index at, where the
// first query word found is (-1: from the start).
func snippet(body string, at int) string {
	i := 0
	for range max(at, 0) {
		_, size := utf8.DecodeRuneInString(body[i:])
		i += size
	}
	start := max(i-80, 0)
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
