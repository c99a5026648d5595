// Package negotiate chooses between the forms of an answer from a
// request's Accept and User-Agent: Markdown or a page's HTML, an HTML page
// or a problem document. It owns the one ranking of Accept the module
// has (RFC 9110 section 12.5.1) and imports only the agent list.
//
// Imports from the module: internal/agents.
package negotiate

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
)

// MaxRanges bounds the media ranges read from Accept: a client that sends
// more gets the default of each choice.
const MaxRanges = 64

// A choice is between a form the client must name (chosen) and the
// default (other).
type choice struct {
	// chosen are the media types that choose the named form; a wildcard
	// never does.
	chosen []string
	// other are the media types of the default, and otherType its
	// type/* range: the default's quality is that of the most specific
	// range matching it, itself, its type/* or */*.
	other     []string
	otherType string
	// otherWinsTies gives a tie to the default when it is named as
	// specifically as the chosen form; otherwise the chosen form wins
	// every tie.
	otherWinsTies bool
}

// prefers reports whether the Accept fields prefer c's named form: it is
// named with a quality above zero and at least (with otherWinsTies and
// the default named by its type, above) the default's. An Accept too long
// to read gets the default.
func (c choice) prefers(accept []string) bool {
	named := -1.0
	other := specificQuality{specificity: -1}
	read := ranges(accept, func(mediaRange string, q float64) bool {
		switch {
		case contains(c.chosen, mediaRange):
			named = max(named, q)
		case contains(c.other, mediaRange):
			other.see(q, 2)
		case mediaRange == c.otherType:
			other.see(q, 1)
		case mediaRange == "*/*":
			other.see(q, 0)
		}
		return true
	})
	if !read || named <= 0 {
		return false
	}
	if c.otherWinsTies && other.specificity == 2 {
		return named > other.q
	}
	return named >= other.q
}

func contains(types []string, mediaRange string) bool {
	for _, t := range types {
		if t == mediaRange {
			return true
		}
	}
	return false
}

var (
	htmlTypes = []string{"text/html", "application/xhtml+xml"}
	// markdownOverHTML: Markdown must be named, so "*/*" and "text/*" mean
	// HTML; "text/markdown;q=0.5, */*" means HTML, and "text/markdown,
	// text/html" Markdown.
	markdownOverHTML = choice{chosen: []string{"text/markdown"}, other: htmlTypes, otherType: "text/*"}
	// htmlOverProblem: a problem document (application/json counts as
	// naming it: a JSON client reads problems) named as specifically as
	// HTML wins a tie, so "application/json, text/html" gets JSON; a
	// wildcard does not, so "text/html, */*" gets HTML.
	htmlOverProblem = choice{chosen: htmlTypes, other: []string{"application/problem+json", "application/json"},
		otherType: "application/*", otherWinsTies: true}
)

// PrefersMarkdown reports whether the Accept fields name text/markdown
// with a quality above zero and at least that of HTML, which is the
// default.
func PrefersMarkdown(accept []string) bool { return markdownOverHTML.prefers(accept) }

// PrefersHTML reports whether the Accept fields ask for HTML before a
// problem document: what a browser's navigation sends
// ("text/html,…,*/*;q=0.8"). No Accept, "*/*" and anything unreadable get
// the problem document.
func PrefersHTML(accept []string) bool { return htmlOverProblem.prefers(accept) }

// NamesHTML reports whether the Accept fields name text/html or
// application/xhtml+xml with a quality above 0. Past MaxRanges ranges it
// answers true, so the site's HTML is served.
func NamesHTML(accept []string) bool {
	named := false
	read := ranges(accept, func(mediaRange string, q float64) bool {
		named = contains(htmlTypes, mediaRange) && q > 0
		return !named
	})
	return named || !read
}

// WantsMarkdown reports whether r, a request for a page with a Markdown
// version, is answered with it: its Accept prefers text/markdown to HTML,
// or, with byUserAgent, it comes from a known AI agent (by User-Agent)
// and its Accept names no HTML type. A browser, or an agent that asks for
// HTML by name, gets the site's HTML.
func WantsMarkdown(r *http.Request, byUserAgent bool) bool {
	accept := r.Header.Values("Accept")
	if PrefersMarkdown(accept) {
		return true
	}
	return byUserAgent && agents.IsAI(agents.Classify(r.Header.Get("User-Agent"))) && !NamesHTML(accept)
}

// ranges calls f with each media range of the Accept fields, in lower
// case, and its quality, until f returns false. It reads at most
// MaxRanges ranges and reports whether it stopped short of them.
func ranges(accept []string, f func(mediaRange string, q float64) bool) bool {
	n := 0
	for _, field := range accept {
		for item := range strings.SplitSeq(field, ",") {
			if n++; n > MaxRanges {
				return false
			}
			mediaRange, params, _ := strings.Cut(item, ";")
			if !f(strings.ToLower(strings.TrimSpace(mediaRange)), quality(params)) {
				return true
			}
		}
	}
	return true
}

// specificQuality is the quality a type gets from the Accept ranges that
// match it: that of the most specific one (RFC 9110 section 12.5.1), the
// highest among equally specific ones; 0 when none matches.
type specificQuality struct {
	q float64
	// specificity is 2 for the type itself, 1 for its type/*, 0 for */*,
	// and -1 while no range has matched.
	specificity int
}

func (s *specificQuality) see(q float64, specificity int) {
	switch {
	case specificity > s.specificity:
		s.q, s.specificity = q, specificity
	case specificity == s.specificity:
		s.q = max(s.q, q)
	}
}

// quality is the q parameter of one Accept item's parameters: 1 when
// absent, 0 when malformed (RFC 9110 allows 0 to 1, three decimals).
func quality(params string) float64 {
	for param := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(param), "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || q < 0 || q > 1 {
			return 0
		}
		return q
	}
	return 1
}
