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
	"sort"
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
// index's terms it matches (every insight and field each occurs in); the
// query's cheapest words are searched while their postings together are
// within MaxQueryPostings, and a word that begins more than maxWordMatches
// of the index's forms, or whose longer words hold more than
// maxPrefixPostings postings, is not searched at all: such words ("e",
// "a", and "the" on a large site) begin words of nearly every insight and
// rank none. A query none of whose words can be searched is an error that
// says so.
const (
	maxQueryWords    = 16
	maxQueryWordSize = 64
	// MaxQueryPostings bounds the postings one search reads (about
	// 0.5 ms of CPU).
	MaxQueryPostings  = 1 << 17
	maxWordMatches    = 8192
	maxPrefixPostings = MaxQueryPostings / 4
	// RequestPostings bounds the postings the searches of one request (an
	// MCP batch) read together.
	RequestPostings = 4 * MaxQueryPostings
)

// ErrTooBroad is a query whose every word occurs in too many places to be
// searched within the bounds.
var ErrTooBroad = errors.New("the query's words occur in too many places to search: use longer or rarer words (a word of one or two letters begins words of nearly every insight)")

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

// legacyQueryWords are the distinct lowercase words of a query as the
// legacy ranking reads them, at most maxQueryWords of at most
// maxQueryWordSize bytes.
func legacyQueryWords(query string) []string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(query)) {
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
// them, each with its address as url gives it. A word matches its other
// forms ("sunsets" finds "sunset", "resume" finds "résumé"), the same word
// written with punctuation or without ("e-mail" and "email"), and, with
// less weight, the longer words it begins ("platf" finds "platform"); see
// analyze.go. The index finds the insights, so a search costs in
// proportion to the query and its matches, not to the corpus, within the
// bounds of MaxQueryPostings and of the budget ctx carries (see
// WithBudget), if any.
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
	words := x.queryWords(in.Query)
	key := searchKey(words, filter)
	offset := 0
	if in.Cursor != "" {
		if offset, err = decodeCursor(in.Cursor, key); err != nil {
			return Output{}, err
		}
	}
	if len(words) == 0 {
		// Punctuation alone, or words too long to be any: nothing holds them.
		return Output{Query: in.Query, Results: []Result{}}, nil
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
			r.score += bm25(idf, &m.counts, x.norm(m.insight), &x.rank.weights)
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
// names it. A query word's term frequency in a field is how often its
// terms occur there, each with its match's weight (see ranking); its
// document frequency is the number of insights they occur in, in any
// field. A query's score is the sum over its words.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// ranking is how an index finds a query's words and weighs them.
type ranking struct {
	// legacy is the ranking before words were understood: words split at
	// white space and lowercased, and a query word matching inside any
	// word, as often as it occurs there. It is kept to measure the ranking
	// against (BenchmarkRelevance).
	legacy bool
	// stem says that words are stemmed (false only to measure what
	// stemming brings).
	stem bool
	// prefix is the weight of a term only begun by a query word, beside 1
	// for the word's own term; 0: whole terms only.
	prefix float64
	// weights are the fields' weights.
	weights [searchFields]float64
}

var (
	defaultRanking = ranking{stem: true, prefix: 0.5, weights: [searchFields]float64{3, 2, 1.5, 1}}
	legacyRanking  = ranking{legacy: true, weights: [searchFields]float64{3, 2, 1.5, 1}}
)

// bm25 is one query word's score in an insight: idf, the word's weighted
// counts in each field, the insight's per-field length norms (see
// Index.norms) and the fields' weights.
func bm25(idf float64, counts *[searchFields]float64, norms, weights *[searchFields]float64) float64 {
	score := 0.0
	for f, tf := range counts {
		if tf > 0 {
			score += weights[f] * tf * (bm25K1 + 1) / (tf + norms[f])
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

// Index holds every distinct term of the insights' searched fields, with
// the insights and fields each occurs in, and every distinct form of their
// words with its term: a query word is found as a term whole (binary
// search over the sorted terms) and at the beginning of forms (the sorted
// forms from the first it begins), so that it matches its own term and the
// terms of the longer words it begins.
type Index struct {
	// words is every distinct term, each followed by a newline; term i
	// starts at starts[i] (starts has one more entry: the end). Sorted,
	// except under the legacy ranking, where they are the lowercase words
	// in the order found and suffixes finds a query word inside them.
	words    []byte
	starts   []int32
	suffixes *suffixarray.Index
	// forms is every distinct form, sorted, each followed by a newline,
	// form i starting at formStarts[i] (one more entry: the end) and
	// indexed under term formTerms[i]. A form stemmed otherwise in another
	// word ("cree" of "créée" and of "crée" in French) is there once per
	// term.
	forms      []byte
	formStarts []int32
	formTerms  []int32
	// postings[first[k]:first[k+1]] are where term i occurs in field f,
	// k = i*searchFields + f, in the content's order.
	first    []int32
	postings []posting
	insights int
	// corpus are the insights indexed, in the content's order.
	corpus []content.Insight
	// norms are each insight's BM25 length norms, by field.
	norms [][searchFields]float64
	// language is the language code the words are stemmed in, rank how
	// they are found and weighed.
	language  string
	rank      ranking
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

// posting says that a term occurs count times in one field of an insight,
// first at rune index at.
type posting struct {
	insight int32
	count   int32
	at      int32
}

// New indexes the searched fields of insights, stemming their words in
// the language lang names (a language tag, such as a site's <html lang>;
// see languageOf).
func New(insights []content.Insight, lang string) *Index {
	return newIndex(insights, languageOf(lang), defaultRanking)
}

// vocabulary gives the terms of a text their ids, in the order it first
// meets them.
type vocabulary interface {
	// each calls f with the id of each term of text, the rune index it
	// starts at, and whether it counts in the text's length in words.
	each(text string, f func(id int32, at int, counted bool))
	// keep puts the terms met in x, with what finds them, and returns each
	// id's place among them (nil: its id).
	keep(x *Index) []int32
}

// newIndex is New with the language code lang (a key of stemmers) and the
// ranking rank.
func newIndex(insights []content.Insight, lang string, rank ranking) *Index {
	type occurrence struct {
		key int32 // term*searchFields + field
		posting
	}
	var vocab vocabulary
	if rank.legacy {
		vocab = &legacyWords{ids: make(map[string]int32)}
	} else {
		vocab = &termBuilder{analyzer: newAnalyzer(lang, rank.stem), seen: make(map[string]int32),
			ids: make(map[string]int32), forms: make(map[formOf]struct{})}
	}
	var occurrences []occurrence
	// last[k] is the place in occurrences of key k's latest occurrence.
	var last []int32
	lengths := make([][searchFields]float64, len(insights))
	var averages [searchFields]float64
	for i, in := range insights {
		for f, text := range [searchFields]string{in.Title, in.Topic, in.Description, in.Body} {
			vocab.each(text, func(id int32, at int, counted bool) {
				if counted {
					lengths[i][f]++
				}
				if n := int(id+1) * searchFields; n > len(last) {
					last = append(last, make([]int32, n-len(last))...)
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
	x := &Index{insights: len(insights), corpus: insights, norms: make([][searchFields]float64, len(insights)),
		language: lang, rank: rank}
	for f := range averages {
		averages[f] /= float64(max(len(insights), 1))
	}
	for i := range insights {
		x.norms[i] = bm25Norms(lengths[i], averages)
	}
	if place := vocab.keep(x); place != nil {
		for i := range occurrences {
			o := &occurrences[i]
			o.key = place[o.key/searchFields]*searchFields + o.key%searchFields
		}
	}
	keys := (len(x.starts) - 1) * searchFields
	x.first = make([]int32, keys+1)
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

// joinWords is words each followed by a newline, and where each starts
// (with one more entry: the end).
func joinWords(words []string) ([]byte, []int32) {
	size := 0
	for _, w := range words {
		size += len(w) + 1
	}
	joined := make([]byte, 0, size)
	starts := make([]int32, len(words)+1)
	for i, w := range words {
		starts[i] = int32(len(joined))
		joined = append(append(joined, w...), '\n')
	}
	starts[len(words)] = int32(len(joined))
	return joined, starts
}

// termBuilder is the vocabulary of the words understood: each token's
// term, by the token as written (a text repeats its words, so each is
// analysed once), and the forms met.
type termBuilder struct {
	analyzer
	seen  map[string]int32
	ids   map[string]int32
	terms []string
	forms map[formOf]struct{}
}

// formOf is a form of a word and the term it is indexed under.
type formOf struct {
	form string
	term int32
}

func (v *termBuilder) each(text string, f func(id int32, at int, counted bool)) {
	eachToken(text, func(raw string, at int, whole bool) {
		id, ok := v.seen[raw]
		if !ok {
			form, term := v.formTerm(v.word(raw, whole))
			if id, ok = v.ids[term]; !ok {
				id = int32(len(v.terms))
				v.ids[term] = id
				v.terms = append(v.terms, term)
			}
			v.forms[formOf{form, id}] = struct{}{}
			v.seen[raw] = id
		}
		f(id, at, !whole)
	})
}

// keep keeps the terms sorted, and the forms sorted with their terms.
func (v *termBuilder) keep(x *Index) []int32 {
	order := make([]int32, len(v.terms))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(v.terms[a], v.terms[b]) })
	place := make([]int32, len(order))
	sorted := make([]string, len(order))
	for i, id := range order {
		place[id], sorted[i] = int32(i), v.terms[id]
	}
	x.words, x.starts = joinWords(sorted)
	forms := make([]formOf, 0, len(v.forms))
	for f := range v.forms {
		forms = append(forms, formOf{f.form, place[f.term]})
	}
	slices.SortFunc(forms, func(a, b formOf) int {
		if c := strings.Compare(a.form, b.form); c != 0 {
			return c
		}
		return int(a.term - b.term)
	})
	names := make([]string, len(forms))
	x.formTerms = make([]int32, len(forms))
	for i, f := range forms {
		names[i], x.formTerms[i] = f.form, f.term
	}
	x.forms, x.formStarts = joinWords(names)
	return place
}

// legacyWords is the vocabulary of the legacy ranking: the lowercase
// words, split at white space.
type legacyWords struct {
	ids   map[string]int32
	words []string
}

func (v *legacyWords) each(text string, f func(id int32, at int, counted bool)) {
	// Lowercasing maps each rune to one rune, so a rune index is the same
	// in the field as written.
	eachWord(strings.ToLower(text), func(w string, at int) {
		id, ok := v.ids[w]
		if !ok {
			id = int32(len(v.words))
			v.ids[w] = id
			v.words = append(v.words, w)
		}
		f(id, at, true)
	})
}

// keep keeps the words in the order met, and a suffix array over them.
func (v *legacyWords) keep(x *Index) []int32 {
	x.words, x.starts = joinWords(v.words)
	x.suffixes = suffixarray.New(x.words)
	return nil
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

// insightMatch is how often a query word's terms occur in each field of
// one insight, weighed as their matches are, and the rune index of the
// first occurrence in the body (-1: none).
type insightMatch struct {
	insight int32
	counts  [searchFields]float64
	at      int
}

// searched are the words of a query that a search reads, in the query's
// order, and the postings they cost: the cheapest first while their
// postings together are within MaxQueryPostings, none too broad (see
// matches).
func (x *Index) searched(words []string) ([]queryWord, int) {
	costs := make([]int, len(words))
	order := make([]int, len(words))
	matches := make([][]match, len(words))
	a := newAnalyzer(x.language, x.rank.stem)
	for i, w := range words {
		order[i] = i
		costs[i] = -1 // too broad
		if ms, ok := x.matches(w, &a); ok {
			costs[i] = 0
			for _, m := range ms {
				costs[i] += x.postingsOf(m.id)
			}
			matches[i] = ms
		}
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
			searched = append(searched, queryWord{w, matches[i]})
		}
	}
	return searched, total
}

// queryWord is a word a search reads, with the terms it matches.
type queryWord struct {
	word    string
	matches []match
}

// match is a term a query word matches: its id, the weight of its
// occurrences, and the rune index of the word within the term's (legacy
// ranking only: elsewhere a match is at the term's start).
type match struct {
	id     int32
	weight float64
	within int32
}

// postingsOf is how many postings term id has, in all fields.
func (x *Index) postingsOf(id int32) int {
	return int(x.first[(id+1)*searchFields] - x.first[id*searchFields])
}

// matches are the terms word matches, sorted by id: its own term, with
// weight 1, and those of the forms it begins, with the ranking's prefix
// weight; false, the word too broad, when it begins more than
// maxWordMatches forms or the terms of those hold more than
// maxPrefixPostings postings. Under the legacy ranking, the words it
// occurs in, each weighed by how often, and false when it occurs more than
// maxWordMatches times in all words. The sorted forms (or the suffix
// array) find them, so the cost follows the matches.
func (x *Index) matches(word string, a *analyzer) ([]match, bool) {
	if x.rank.legacy {
		return x.legacyMatches(word)
	}
	form, term := a.formTerm(word)
	var ms []match
	own, found := x.termID(term)
	if found {
		ms = append(ms, match{id: own, weight: 1})
	}
	if x.rank.prefix == 0 {
		return ms, true
	}
	from, to := x.formsBegun(form)
	if to-from > maxWordMatches {
		return nil, false
	}
	for _, id := range x.formTerms[from:to] {
		if !found || id != own {
			ms = append(ms, match{id: id, weight: x.rank.prefix})
		}
	}
	slices.SortFunc(ms, func(a, b match) int { return int(a.id - b.id) })
	ms = slices.CompactFunc(ms, func(a, b match) bool { return a.id == b.id })
	begun := 0
	for _, m := range ms {
		if !found || m.id != own {
			begun += x.postingsOf(m.id)
		}
	}
	if begun > maxPrefixPostings {
		return nil, false
	}
	return ms, true
}

// termID is the id of term, if the index holds it.
func (x *Index) termID(term string) (int32, bool) {
	n := len(x.starts) - 1
	i := sort.Search(n, func(i int) bool { return string(x.word(i)) >= term })
	return int32(i), i < n && string(x.word(i)) == term
}

func (x *Index) word(i int) []byte { return x.words[x.starts[i] : x.starts[i+1]-1] }

// formsBegun are the forms that begin with prefix: formTerms[from:to].
func (x *Index) formsBegun(prefix string) (from, to int) {
	n := len(x.formStarts) - 1
	form := func(i int) []byte { return x.forms[x.formStarts[i] : x.formStarts[i+1]-1] }
	from = sort.Search(n, func(i int) bool { return string(form(i)) >= prefix })
	to = from + sort.Search(n-from, func(i int) bool { return !bytes.HasPrefix(form(from+i), []byte(prefix)) })
	return from, to
}

// legacyMatches are the words of the legacy ranking that hold word, and
// how often each does, as strings.Count counts (without overlaps); false
// when word occurs more than maxWordMatches times in them.
func (x *Index) legacyMatches(word string) ([]match, bool) {
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
	ids = slices.Compact(ids)
	ms := make([]match, len(ids))
	w := []byte(word)
	for i, id := range ids {
		held := x.word(int(id))
		ms[i] = match{id: id, weight: float64(bytes.Count(held, w)), within: int32(utf8.RuneCount(held[:bytes.Index(held, w)]))}
	}
	return ms, true
}

// find returns the insights q occurs in, reusing found's memory. slot has
// an entry per insight, -1, and is left so.
func (x *Index) find(q queryWord, found []insightMatch, slot []int32) []insightMatch {
	found = found[:0]
	for _, t := range q.matches {
		for f := range searchFields {
			k := t.id*searchFields + int32(f)
			for _, p := range x.postings[x.first[k]:x.first[k+1]] {
				i := slot[p.insight]
				if i < 0 {
					i = int32(len(found))
					slot[p.insight] = i
					found = append(found, insightMatch{insight: p.insight, at: -1})
				}
				m := &found[i]
				m.counts[f] += t.weight * float64(p.count)
				if at := int(p.at) + int(t.within); f == fieldBody && (m.at < 0 || at < m.at) {
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
