package pages

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Header names of the site's preferences and of the Markdown answers.
const (
	HeaderContentSignal  = "Content-Signal"
	HeaderContentUsage   = "Content-Usage"
	HeaderMarkdownTokens = "X-Markdown-Tokens"
)

// addPreferences states the site's preferences, in both vocabularies, on
// the Markdown of a page of the site, unless the site's own answer states
// preferences already (in either: the site's statement stands, as in
// robots.txt).
func addPreferences(h http.Header, c *Config) {
	if len(h[HeaderContentSignal]) > 0 || len(h[HeaderContentUsage]) > 0 {
		return
	}
	h[HeaderContentSignal] = []string{c.Signal}
	h[HeaderContentUsage] = []string{c.Usage}
}

// MarkdownTokens estimates the tokens a model spends on body: a token is
// about four characters of English text.
func MarkdownTokens(body []byte) int {
	return (utf8.RuneCount(body) + 3) / 4
}

// TwinFacts are what a twin's front matter says of its page.
type TwinFacts struct {
	Title, Description, URL, Updated string
}

// WriteFrontMatter writes the YAML front matter of a Markdown answer: its
// title, description, canonical address and last update, which agents cite
// and judge staleness by, each a double-quoted scalar.
func WriteFrontMatter(b *bytes.Buffer, f TwinFacts) {
	b.WriteString("---\n")
	for _, field := range [][2]string{{"title", OneLine(f.Title)}, {"description", OneLine(f.Description)},
		{"canonical_url", f.URL}, {"last_updated", f.Updated}} {
		if field[1] == "" {
			continue
		}
		quoted, err := YAMLString(field[1])
		if err != nil {
			panic(err) // a string always encodes
		}
		b.WriteString(field[0] + ": " + quoted + "\n")
	}
	b.WriteString("---\n\n")
}

// OneLine is s with its runs of white space made one space, on one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// MarkdownLine is s on one line as Markdown text: a "<" is escaped, so that a
// title such as "Why a <script> tag breaks feeds" reads as the words it
// is, never as HTML, in every Markdown document.
func MarkdownLine(s string) string { return markdownText.Replace(OneLine(s)) }

var markdownText = strings.NewReplacer("<", `\<`)

// YAMLString is s as a YAML double-quoted scalar (a JSON string is one),
// so that no character of the content can break the front matter.
func YAMLString(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// EtagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// "*" or any listed tag whose opaque part equals etag's.
func EtagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}
