package handlers

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
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
// a title match counts most, then topic, description and body.
func (l links) search(query string, limit int) searchOutput {
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
			Score: score, Snippet: snippet(in.Body, words),
		})
	}
	sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Score > out.Results[j].Score })
	if len(out.Results) > limit {
		out.Results = out.Results[:limit]
	}
	out.Count = len(out.Results)
	return out
}

// snippet is about 200 characters of body around the first word found.
func snippet(body string, words []string) string {
	// Lowercasing can change a rune's length in bytes, so a match found in
	// the lowercase text is located in body by its rune index.
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
