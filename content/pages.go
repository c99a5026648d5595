package content

import (
	"net/url"
	"regexp"
	"strings"
)

// The address of each insight's page is the site's: the loader learns it
// from the post's own front matter (permalink, url), else from the pattern
// Pages.Insight, and the site's sitemap may correct a pattern's guess
// (MatchSitemap). An address the module publishes that the site does not
// serve is a dead link in every document an agent reads.

// InsightPlaceholders are the placeholders Pages.Insight may hold.
var InsightPlaceholders = []string{"{year}", "{month}", "{day}", "{slug}"}

// placeholder matches a placeholder in a page pattern.
var placeholder = regexp.MustCompile(`\{[^{}/]*\}`)

// unknownPlaceholders returns the placeholders of pattern that are not
// InsightPlaceholders.
func unknownPlaceholders(pattern string) []string {
	var unknown []string
	for _, p := range placeholder.FindAllString(pattern, -1) {
		known := false
		for _, k := range InsightPlaceholders {
			known = known || p == k
		}
		if !known {
			unknown = append(unknown, p)
		}
	}
	return unknown
}

// FillPage is the pattern with the insight's slug and publication day
// (YYYY-MM-DD) filled in; the slug is percent-encoded as a path segment.
func FillPage(pattern, slug, dateISO string) string {
	year, month, day := "", "", ""
	if len(dateISO) == len("2006-01-02") {
		year, month, day = dateISO[:4], dateISO[5:7], dateISO[8:]
	}
	return strings.NewReplacer(
		"{slug}", url.PathEscape(slug), "{year}", year, "{month}", month, "{day}", day,
	).Replace(pattern)
}

// jekyllPlaceholder matches a placeholder of a Jekyll permalink: :title.
var jekyllPlaceholder = regexp.MustCompile(`:[a-z_]+`)

// givenPage reads the address a post's front matter gives its page:
// Jekyll's and Eleventy's permalink, Hugo's url. A Jekyll permalink's
// placeholders are filled in as Jekyll fills them (:year, :month, :day,
// :i_month, :i_day, :short_year, :title, :slug, :categories,
// :output_ext); a value the loader cannot resolve (an Eleventy template,
// another placeholder, a query) gives no address, and the pattern or the
// site's sitemap decides. ok is false when there is no usable value.
func givenPage(raw, slug, dateISO string, categories []string) (page string, ok bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.Contains(raw, "{{") || strings.Contains(raw, "{%") {
		return "", false
	}
	if !strings.HasPrefix(raw, "/") && !strings.Contains(raw, "://") {
		raw = "/" + raw // Hugo reads a url without its slash as from the root
	}
	unresolved := false
	if !strings.Contains(raw, "://") && strings.Contains(raw, ":") {
		year, month, day := "", "", ""
		if len(dateISO) == len("2006-01-02") {
			year, month, day = dateISO[:4], dateISO[5:7], dateISO[8:]
		}
		cats := make([]string, 0, len(categories))
		for _, c := range categories {
			cats = append(cats, url.PathEscape(strings.ToLower(c)))
		}
		raw = jekyllPlaceholder.ReplaceAllStringFunc(raw, func(p string) string {
			switch p {
			case ":year":
				return year
			case ":month":
				return month
			case ":day":
				return day
			case ":i_month":
				return strings.TrimPrefix(month, "0")
			case ":i_day":
				return strings.TrimPrefix(day, "0")
			case ":short_year":
				return strings.TrimPrefix(year, year[:min(2, len(year))])
			case ":title", ":slug":
				return url.PathEscape(slug)
			case ":categories":
				return strings.Join(cats, "/")
			case ":output_ext":
				return ".html"
			}
			unresolved = true
			return p
		})
		raw = strings.ReplaceAll(raw, "//", "/") // :categories of a post without any
	}
	if unresolved {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(raw, "\t\n\r") {
		return "", false
	}
	if u.Scheme != "" {
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", false
		}
		return u.String(), true
	}
	return u.EscapedPath(), true
}
