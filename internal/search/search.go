// Package search owns the ranked search of the insights, which the MCP
// tools search_insights and search answer from: an inverted index of the
// words of each insight's fields, built once per content, and a BM25
// ranking over those fields (title, topic, description, body, each with its
// weight), with filters by topic and dates and pages by cursor. A search
// costs in proportion to the query and its matches, not to the corpus.
//
// Imports from the module: content, internal/problem.
package search

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"index/suffixarray"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

type Input struct {
	Query  string `json:"query" jsonschema:"words to look for in titles, descriptions, topics and bodies"`
	Limit  int    `json:"limit,omitempty" schema:"minimum=1;maximum=50" jsonschema:"the most results to return, 1 to 50; default 10"`
	Cursor string `json:"cursor,omitempty" schema:"maxLength=64" jsonschema:"the nextCursor of the previous page of the same search (same query, topic, since and until); omit for the first page"`
	Topic  string `json:"topic,omitempty" jsonschema:"only insights with this topic (case-insensitive); omit for all"`
	Since  string `json:"since,omitempty" schema:"format=date" jsonschema:"only insights published on or after this date, YYYY-MM-DD"`
	Until  string `json:"until,omitempty" schema:"format=date" jsonschema:"only insights published on or before this date, YYYY-MM-DD"`
}

type Result struct {
	Slug    string  `json:"slug"`
	Title   string  `json:"title"`
	Topic   string  `json:"topic"`
	Date    string  `json:"date" schema:"format=date" jsonschema:"the date the insight was published"`
	URL     string  `json:"url" schema:"format=uri"`
	Score   float64 `json:"score" schema:"minimum=0" jsonschema:"the BM25 relevance, rounded to 4 decimals: higher is better; comparable within one search only"`
	Snippet string  `json:"snippet" jsonschema:"about 200 characters of the body around the first query word found there"`
}

type Output struct {
	Query      string   `json:"query"`
	Count      int      `json:"count" schema:"minimum=0" jsonschema:"the results on this page"`
	Total      int      `json:"total" schema:"minimum=0" jsonschema:"the insights matching the query and filters, on all pages"`
	Results    []Result `json:"results" jsonschema:"the best matches first: by score, then newest, then by slug"`
	NextCursor string   `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
}

// Bounds of a search query, so that one call cannot cost much: its words,
// and what they make the index read. A word costs the postings of the
// index's words it occurs in (every insight and field each holds it in);
// the query's cheapest words are searched while their postings together
// are within MaxQueryPostings, and a word found inside more than
// maxWordMatches of the index's words is not searched at all: such words
// ("e", "a") match nearly every insight and rank none. A query none of
// whose words can be searched is an error that says so.
const (
	maxQueryWords    = 16
	maxQueryWordSize = 64
	// MaxQueryPostings bounds the postings one search reads (about
	// 0.5 ms of CPU).
	MaxQueryPostings = 1 << 17
	maxWordMatches   = 8192
	// RequestPostings bounds the postings the searches of one request (an
	// MCP batch) read together.
	RequestPostings = 4 * MaxQueryPostings
)

// ErrTooBroad is a query whose every word occurs in too many places to be
// searched within the bounds.
var ErrTooBroad = errors.New("the query's words occur in too many places to search: use longer or rarer words (a word of one or two letters matches inside nearly every word)")

// ErrBudgetSpent is a search past what the searches of one request may
// read together.
var ErrBudgetSpent = errors.New("the searches of this request have read all they may: send fewer searches in one batch, or send this one again on its own")

// Budget is what the searches of one request may read, in postings. It
// is safe for concurrent use, as an MCP batch's searches may run at once.
type Budget struct{ left atomic.Int64 }

// NewBudget is a budget of n postings.
func NewBudget(n int) *Budget {
	b := new(Budget)
	b.left.Store(int64(n))
	return b
}

// spend takes n postings, reporting false, having taken nothing, when
// fewer are left.
func (b *Budget) spend(n int) bool {
	for {
		left := b.left.Load()
		if left < int64(n) {
			return false
		}
		if b.left.CompareAndSwap(left, left-int64(n)) {
			return true
		}
	}
}

type budgetKey struct{}

// WithBudget returns ctx carrying b, the budget of the searches made
// under it.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// Bounds of a page of results.
const (
	DefaultLimit = 10
	MaxLimit     = 50
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

// searchFilter is what a search keeps besides the query's words: a topic
// (compared case-insensitively, "" for any) and the first and last
// publication dates (YYYY-MM-DD, inclusive; "" for no bound).
type searchFilter struct {
	topic, since, until string
}

func (f searchFilter) admits(in *content.Insight) bool {
	return (f.topic == "" || strings.EqualFold(in.Topic, f.topic)) &&
		(f.since == "" || in.DateISO >= f.since) && (f.until == "" || in.DateISO <= f.until)
}

// searchFilterOf checks the input's filters.
func searchFilterOf(in Input) (searchFilter, error) {
	f := searchFilter{topic: strings.TrimSpace(in.Topic), since: in.Since, until: in.Until}
	for _, d := range []struct{ name, value string }{{"since", f.since}, {"until", f.until}} {
		if _, err := time.Parse(time.DateOnly, d.value); d.value != "" && err != nil {
			return searchFilter{}, fmt.Errorf("%s is %s, not a date: write it as YYYY-MM-DD", d.name, problem.Quote(d.value))
		}
	}
	if f.since != "" && f.until != "" && f.since > f.until {
		return searchFilter{}, fmt.Errorf("since (%s) is after until (%s): no insight can match", f.since, f.until)
	}
	return f, nil
}

// A cursor is the offset of the next page and a hash of the search it
// pages (the query's words and the filters), so that a cursor passed with
// another search is an error rather than a page of something else. It is
// base64url, which needs no escaping in JSON.
const cursorBytes = 12

// searchKey is the hash a cursor carries: FNV-1a of what decides the
// matches and their order.
func searchKey(words []string, f searchFilter) uint64 {
	h := fnv.New64a()
	for _, w := range words {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	for _, s := range []string{strings.ToLower(f.topic), f.since, f.until} {
		h.Write([]byte{1})
		h.Write([]byte(s))
	}
	return h.Sum64()
}

func encodeCursor(key uint64, offset int) string {
	var b [cursorBytes]byte
	binary.BigEndian.PutUint64(b[:8], key)
	binary.BigEndian.PutUint32(b[8:], uint32(offset))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// decodeCursor is the offset a cursor of the search key continues from.
func decodeCursor(cursor string, key uint64) (int, error) {
	var b [cursorBytes]byte
	// The length first: a longer cursor would be decoded past b.
	if len(cursor) != base64.RawURLEncoding.EncodedLen(cursorBytes) {
		return 0, errNotACursor(cursor)
	}
	if n, err := base64.RawURLEncoding.Decode(b[:], []byte(cursor)); err != nil || n != cursorBytes {
		return 0, errNotACursor(cursor)
	}
	if binary.BigEndian.Uint64(b[:8]) != key {
		return 0, fmt.Errorf("the cursor is from another search: a cursor continues only the search that gave it (same query, topic, since and until); omit cursor to start this one")
	}
	return int(binary.BigEndian.Uint32(b[8:])), nil
}

func errNotACursor(cursor string) error {
	return fmt.Errorf("the cursor %s is not one this server gave: pass a nextCursor unchanged, or omit cursor for the first page", problem.Quote(cursor))
}

// Search ranks the insights that hold the query's words and pass the
// filters, by BM25 over their fields (see bm25), and returns one page of
// them, each with its address as url gives it. A word matches wherever it
// occurs, inside longer words too ("contract" in "contracts"). The index
// finds the insights, so a search costs in proportion to the query and its
// matches, not to the corpus, within the bounds of MaxQueryPostings and of
// the budget ctx carries (see WithBudget), if any.
func (x *Index) Search(ctx context.Context, in Input, url func(slug string) string) (Output, error) {
	if strings.TrimSpace(in.Query) == "" {
		return Output{}, ErrEmptyQuery
	}
	filter, err := searchFilterOf(in)
	if err != nil {
		return Output{}, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	words := queryWords(in.Query)
	key := searchKey(words, filter)
	offset := 0
	if in.Cursor != "" {
		if offset, err = decodeCursor(in.Cursor, key); err != nil {
			return Output{}, err
		}
	}
	searched, cost := x.searched(words)
	if len(searched) == 0 {
		return Output{}, ErrTooBroad
	}
	if b, ok := ctx.Value(budgetKey{}).(*Budget); ok && !b.spend(cost) {
		return Output{}, ErrBudgetSpent
	}
	insights := x.corpus
	sc := x.scratch()
	defer x.release(sc)
	slot := sc.rankSlot // an insight's place in ranked
	ranked := sc.ranked[:0]
	for _, w := range searched {
		sc.found = x.find(w, sc.found, sc.findSlot)
		idf := x.idf(len(sc.found))
		for _, m := range sc.found {
			if !filter.admits(&insights[m.insight]) {
				continue
			}
			i := slot[m.insight]
			if i < 0 {
				i = int32(len(ranked))
				slot[m.insight] = i
				ranked = append(ranked, rankedInsight{insight: m.insight, at: -1})
			}
			r := &ranked[i]
			r.score += bm25(idf, &m.counts, x.norm(m.insight))
			if m.at >= 0 && (r.at < 0 || m.at < r.at) {
				r.at = m.at
			}
		}
	}
	sc.ranked = ranked
	for i := range ranked {
		r := &ranked[i]
		slot[r.insight] = -1
		r.score = math.Round(r.score*1e4) / 1e4
		r.date, r.slug = insights[r.insight].DateISO, insights[r.insight].Slug
	}
	total := len(ranked)
	page := []rankedInsight(nil)
	if offset < total {
		page = top(ranked, min(offset+limit, total))[offset:]
	}
	out := Output{Query: in.Query, Count: len(page), Total: total, Results: make([]Result, 0, len(page))}
	for _, r := range page {
		in := &insights[r.insight]
		out.Results = append(out.Results, Result{
			Slug: in.Slug, Title: in.Title, Topic: in.Topic, Date: in.DateISO, URL: url(in.Slug),
			Score: r.score, Snippet: snippet(in.Body, r.at),
		})
	}
	if next := offset + len(page); len(page) > 0 && next < total {
		out.NextCursor = encodeCursor(key, next)
	}
	return out, nil
}

var ErrEmptyQuery = errors.New("the query is empty: give one or more words to look for")

// rankedInsight is an insight a search found: its score, rounded, the
// date and slug that break ties, and the rune index in its body of the
// first query word found there (-1: none).
type rankedInsight struct {
	insight    int32
	score      float64
	date, slug string
	at         int
}

// before reports whether a ranks before b: a higher score, or the same
// score and newer, or the same date and a slug that sorts first. Slugs
// are unique, so the order is total and a page is the same on every call.
func (a rankedInsight) before(b rankedInsight) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.date != b.date {
		return a.date > b.date
	}
	return a.slug < b.slug
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
		return 1 // never equal: slugs differ
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

// The fields of an insight a search reads.
const (
	fieldTitle = iota
	fieldTopic
	fieldDescription
	fieldBody
	searchFields
)

// Ranking is BM25 (Robertson and Zaragoza) computed per field and summed
// with the fields' weights: a title match counts most, then the topic, the
// description and the body. Each field saturates on its own (k1) and is
// normalised by its length against the corpus's average for that field
// (b), so that a long body repeating a word does not outrank a title that
// names it. A query word's term frequency in a field is how often it
// occurs there, inside longer words too, which is how the index matches;
// its document frequency is the number of insights it occurs in, in any
// field. A query's score is the sum over its words.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

var fieldWeights = [searchFields]float64{3, 2, 1.5, 1}

// bm25 is one query word's score in an insight: idf, the word's counts in
// each field, and the insight's per-field length norms (see
// Index.norms).
func bm25(idf float64, counts *[searchFields]int, norms *[searchFields]float64) float64 {
	score := 0.0
	for f, n := range counts {
		if n > 0 {
			tf := float64(n)
			score += fieldWeights[f] * tf * (bm25K1 + 1) / (tf + norms[f])
		}
	}
	return idf * score
}

// bm25IDF is the inverse document frequency of a word that occurs in df of
// n insights, in its non-negative form.
func bm25IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// bm25Norms are the length norms k1 × (1 − b + b × length/average) of one
// insight's fields, from their lengths in words and the corpus's average
// lengths.
func bm25Norms(lengths, averages [searchFields]float64) [searchFields]float64 {
	var norms [searchFields]float64
	for f := range searchFields {
		relative := 1.0
		if averages[f] > 0 {
			relative = lengths[f] / averages[f]
		}
		norms[f] = bm25K1 * (1 - bm25B + bm25B*relative)
	}
	return norms
}

// Index holds every distinct word of the insights' searched fields,
// lowercase, with the insights and fields each occurs in. A query word is
// found inside the words by a suffix array, so that it matches within
// longer words as well as whole ones. Words are split at white space, which
// a query word never holds, so a query word's occurrences in a field are
// exactly its occurrences in the field's words.
type Index struct {
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
	// corpus are the insights indexed, in the content's order.
	corpus []content.Insight
	// norms are each insight's BM25 length norms, by field.
	norms     [][searchFields]float64
	scratches sync.Pool
}

func (x *Index) idf(df int) float64 { return bm25IDF(x.insights, df) }

// searchScratch is the memory of one search, kept for the next: an entry
// per insight for its place in the matches of a word and in the ranking
// (-1 between searches), and those lists.
type searchScratch struct {
	findSlot, rankSlot []int32
	found              []insightMatch
	ranked             []rankedInsight
}

func (x *Index) scratch() *searchScratch {
	if sc, ok := x.scratches.Get().(*searchScratch); ok {
		return sc
	}
	sc := &searchScratch{findSlot: make([]int32, x.insights), rankSlot: make([]int32, x.insights)}
	for i := range x.insights {
		sc.findSlot[i], sc.rankSlot[i] = -1, -1
	}
	return sc
}

func (x *Index) release(sc *searchScratch) { x.scratches.Put(sc) }

func (x *Index) norm(insight int32) *[searchFields]float64 { return &x.norms[insight] }

// posting says that a word occurs count times in one field of an insight,
// first at rune index at. Lowercasing maps each rune to one rune, so the
// index is the same in the field as written.
type posting struct {
	insight int32
	count   int32
	at      int32
}

// New indexes the searched fields of insights.
func New(insights []content.Insight) *Index {
	type occurrence struct {
		key int32 // word*searchFields + field
		posting
	}
	ids := make(map[string]int32)
	var words []string
	var occurrences []occurrence
	// last[k] is the place in occurrences of key k's latest occurrence.
	var last []int32
	lengths := make([][searchFields]float64, len(insights))
	var averages [searchFields]float64
	for i, in := range insights {
		for f, text := range [searchFields]string{in.Title, in.Topic, in.Description, in.Body} {
			eachWord(strings.ToLower(text), func(w string, at int) {
				lengths[i][f]++
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
			averages[f] += lengths[i][f]
		}
	}
	x := &Index{starts: make([]int32, len(words)+1), insights: len(insights), corpus: insights, norms: make([][searchFields]float64, len(insights))}
	for f := range averages {
		averages[f] /= float64(max(len(insights), 1))
	}
	for i := range insights {
		x.norms[i] = bm25Norms(lengths[i], averages)
	}
	keys := len(words) * searchFields
	x.first = make([]int32, keys+1)
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

// searched are the words of a query that a search reads, in the query's
// order, and the postings they cost: the cheapest first while their
// postings together are within MaxQueryPostings, none found inside more
// than maxWordMatches of the index's words.
func (x *Index) searched(words []string) ([]queryWord, int) {
	costs := make([]int, len(words))
	order := make([]int, len(words))
	holding := make([][]int32, len(words))
	for i, w := range words {
		order[i] = i
		costs[i] = -1 // too broad
		ids, ok := x.wordsHolding(w)
		if ok {
			costs[i] = 0
			for _, id := range ids {
				costs[i] += int(x.first[(id+1)*searchFields] - x.first[id*searchFields])
			}
		}
		holding[i] = ids
	}
	slices.SortStableFunc(order, func(a, b int) int { return costs[a] - costs[b] })
	take := make([]bool, len(words))
	total := 0
	for _, i := range order {
		if costs[i] >= 0 && total+costs[i] <= MaxQueryPostings {
			take[i] = true
			total += costs[i]
		}
	}
	var searched []queryWord
	for i, w := range words {
		if take[i] {
			searched = append(searched, queryWord{w, holding[i]})
		}
	}
	return searched, total
}

// queryWord is a word a search reads, with the ids of the index's words
// that hold it.
type queryWord struct {
	word string
	ids  []int32
}

// wordsHolding are the ids of the index's words that hold word, sorted;
// false when more than maxWordMatches do. The suffix array finds them, so
// the cost follows the matches.
func (x *Index) wordsHolding(word string) ([]int32, bool) {
	positions := x.suffixes.Lookup([]byte(word), maxWordMatches+1)
	if len(positions) > maxWordMatches {
		return nil, false
	}
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
	return slices.Compact(ids), true
}

// find returns the insights q occurs in, reusing found's memory. slot has
// an entry per insight, -1, and is left so.
func (x *Index) find(q queryWord, found []insightMatch, slot []int32) []insightMatch {
	found = found[:0]
	w := []byte(q.word)
	for _, id := range q.ids {
		held := x.words[x.starts[id] : x.starts[id+1]-1]
		n := bytes.Count(held, w)
		within := utf8.RuneCount(held[:bytes.Index(held, w)])
		for f := range searchFields {
			k := id*searchFields + int32(f)
			for _, p := range x.postings[x.first[k]:x.first[k+1]] {
				i := slot[p.insight]
				if i < 0 {
					i = int32(len(found))
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
	for _, m := range found {
		slot[m.insight] = -1
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
