package convert

import (
	"net/url"
	"regexp"
	"strings"
)

// An insight's body is written for its page on the site: its relative
// links and images mean something there only. The documents that carry
// the body elsewhere (the insight's twin, llms-full.txt) make them
// absolute, and leave out the scripts and styles a page may embed, which
// an agent reading the text cannot use. The API's content is the body as
// written.

// AbsoluteLinks returns md, a Markdown body written for the page at page
// (an absolute URL), with the destinations of its inline links and images
// and of its link reference definitions, and the href and src attributes
// of its HTML, made absolute: a path that begins with "/" on base, any
// other relative reference against page. A Jekyll tag that names another
// post ({% post_url 2024-05-01-name %}, {% link _posts/….md %}) becomes
// that post's address, found by post (nil finds none). Its <script> and
// <style> elements are dropped. Code spans and fenced code blocks are
// left as written.
func AbsoluteLinks(md, page, base string, post func(name string) (string, bool)) string {
	if !strings.ContainsAny(md, "]<") {
		return md // nothing to rewrite: the common case of plain prose
	}
	pageURL, err := url.Parse(page)
	if err != nil || !pageURL.IsAbs() {
		return md
	}
	lr := linkResolver{page: pageURL, base: base, post: post}
	var b strings.Builder
	b.Grow(len(md) + len(md)/8)
	var text strings.Builder // the lines since the last fence
	var fence string         // the open fence, "" outside one
	flush := func() {
		lr.rewrite(&b, lr.postTags(text.String()))
		text.Reset()
	}
	for line := range strings.SplitAfterSeq(md, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			b.WriteString(line)
			if closesFence(trimmed, fence) {
				fence = ""
			}
		case opensFence(trimmed) != "":
			flush()
			fence = opensFence(trimmed)
			b.WriteString(line)
		default:
			text.WriteString(line)
		}
	}
	flush()
	return b.String()
}

// opensFence is the fence a line (without its indentation) opens: three
// or more backticks or tildes, or "".
func opensFence(line string) string {
	if len(line) < 3 || line[0] != '`' && line[0] != '~' {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	if n < 3 || line[0] == '`' && strings.Contains(line[n:], "`") {
		return "" // an info string may not hold a backtick
	}
	return line[:n]
}

// closesFence reports whether a line (without its indentation) closes
// fence: at least as many of its character, and nothing else.
func closesFence(line, fence string) bool {
	n := len(line) - len(strings.TrimLeft(line, fence[:1]))
	return n >= len(fence) && strings.TrimSpace(line[n:]) == ""
}

// linkResolver makes a body's references absolute.
type linkResolver struct {
	page *url.URL
	base string
	post func(name string) (string, bool)
}

// postTag is a Jekyll tag that gives another post's address, with the
// site's base URL before it or not: {% post_url 2024-05-01-name %},
// {{ site.baseurl }}{% link _posts/2024-05-01-name.md %}.
var postTag = regexp.MustCompile(`(?:\{\{\s*site\.(?:base)?url\s*\}\})?\{%-?\s*(?:post_url|link)\s+([^%\s]+)\s*-?%\}`)

// postTags replaces the tags that name a post the content has with its
// address; any other tag is left as written.
func (lr linkResolver) postTags(text string) string {
	if lr.post == nil || !strings.Contains(text, "{%") {
		return text
	}
	return postTag.ReplaceAllStringFunc(text, func(tag string) string {
		name := postTag.FindStringSubmatch(tag)[1]
		if address, ok := lr.post(name); ok {
			return address
		}
		return tag
	})
}

// resolve is ref made absolute; an absolute ref, or one that does not
// parse, is returned as it is.
func (lr linkResolver) resolve(ref string) string {
	switch {
	case ref == "":
		return ref
	case strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "//"):
		return lr.base + ref
	}
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" {
		return ref
	}
	return lr.page.ResolveReference(u).String()
}

var (
	// referenceDefinition is a link reference definition up to its
	// destination; a footnote ("[^1]: text") is not one.
	referenceDefinition = regexp.MustCompile(`^ {0,3}\[[^\]^][^\]]*\]:[ \t]*`)
	// urlAttribute is an href or src attribute of an HTML tag, up to its
	// value, and the value.
	urlAttribute = regexp.MustCompile(`(?i)(\s(?:href|src)\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>` + "`" + `]+)`)
)

// rewrite writes text, Markdown outside fenced code, to b with its
// references made absolute and its scripts and styles dropped.
func (lr linkResolver) rewrite(b *strings.Builder, text string) {
	for i := 0; i < len(text); {
		if i == 0 || text[i-1] == '\n' {
			if m := referenceDefinition.FindStringIndex(text[i:]); m != nil {
				b.WriteString(text[i : i+m[1]])
				i += m[1]
				i += lr.destination(b, text[i:])
				continue
			}
		}
		switch c := text[i]; c {
		case '\\':
			end := min(i+2, len(text))
			b.WriteString(text[i:end])
			i = end
		case '`':
			i += codeSpan(b, text[i:])
		case ']':
			b.WriteByte(c)
			i++
			if i < len(text) && text[i] == '(' {
				b.WriteByte('(')
				i++
				skipped := len(text[i:]) - len(strings.TrimLeft(text[i:], " \t"))
				b.WriteString(text[i : i+skipped])
				i += skipped
				i += lr.destination(b, text[i:])
			}
		case '<':
			i += lr.tag(b, text[i:])
		default:
			b.WriteByte(c)
			i++
		}
	}
}

// destination writes the link destination s begins with, made absolute,
// and returns its length: <…>, or a run of non-space characters with
// balanced parentheses.
func (lr linkResolver) destination(b *strings.Builder, s string) int {
	if strings.HasPrefix(s, "<") {
		end := strings.IndexAny(s, ">\n")
		if end < 0 || s[end] != '>' {
			return 0
		}
		b.WriteString("<" + lr.resolve(s[1:end]) + ">")
		return end + 1
	}
	depth, n := 0, 0
scan:
	for ; n < len(s); n++ {
		switch s[n] {
		case ' ', '\t', '\n', '\r':
			break scan
		case '\\':
			n++
		case '(':
			depth++
		case ')':
			if depth == 0 {
				break scan
			}
			depth--
		}
	}
	n = min(n, len(s))
	b.WriteString(lr.resolve(s[:n]))
	return n
}

// codeSpan writes the code span s begins with as it is, and returns its
// length; a run of backticks that no run of the same length closes is
// only backticks.
func codeSpan(b *strings.Builder, s string) int {
	n := len(s) - len(strings.TrimLeft(s, "`"))
	for i := n; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			break
		}
		run := len(s[i+j:]) - len(strings.TrimLeft(s[i+j:], "`"))
		if run == n {
			b.WriteString(s[:i+j+run])
			return i + j + run
		}
		i += j + run
	}
	b.WriteString(s[:n])
	return n
}

// tag writes the HTML s begins with and returns its length: a script or
// style element is dropped whole (to the end of s when it is not closed,
// as a browser would); a comment is kept as it is; a tag has its href and
// src values made absolute. Anything else is a "<".
func (lr linkResolver) tag(b *strings.Builder, s string) int {
	for _, name := range []string{"script", "style"} {
		if len(s) > len(name)+1 && strings.EqualFold(s[1:1+len(name)], name) && strings.ContainsRune(" \t\n/>", rune(s[1+len(name)])) {
			lower := strings.ToLower(s)
			end := strings.Index(lower, "</"+name)
			if end < 0 {
				return len(s)
			}
			if close := strings.IndexByte(s[end:], '>'); close >= 0 {
				return end + close + 1
			}
			return len(s)
		}
	}
	if strings.HasPrefix(s, "<!--") {
		end := strings.Index(s, "-->")
		if end < 0 {
			end = len(s) - len("-->")
		}
		b.WriteString(s[:end+len("-->")])
		return end + len("-->")
	}
	if len(s) < 2 || !isLetter(s[1]) {
		b.WriteByte('<')
		return 1
	}
	end := tagEnd(s)
	b.WriteString(urlAttribute.ReplaceAllStringFunc(s[:end], func(attr string) string {
		m := urlAttribute.FindStringSubmatch(attr)
		value, quote := m[2], ""
		if value[0] == '"' || value[0] == '\'' {
			value, quote = value[1:len(value)-1], value[:1]
		}
		return m[1] + quote + lr.resolve(value) + quote
	}))
	return end
}

// tagEnd is the length of the tag s begins with: up to its ">" outside
// quoted values, or all of s.
func tagEnd(s string) int {
	var quote byte
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		}
	}
	return len(s)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
