package content

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// DescriptionLength is the most characters of a description derived from
// an insight's body.
const DescriptionLength = 200

// Summarize is the description derived from a Markdown body, as a post
// without one of its own gets it (see summarize).
func Summarize(body string) string { return summarize(body) }

// summarize derives a description from a Markdown body: its first
// paragraph as plain text, or the text before a <!--more--> divider when
// the body has one (Hugo's summary divider, and the excerpt separator
// Jekyll sites set), cut after the last sentence that ends within
// DescriptionLength characters. Headings, code, HTML blocks and comments,
// lists, quotes, tables, images, tables of contents, kramdown attribute
// lists and template tags (Hugo shortcodes, Liquid, Nunjucks) are passed
// over, and HTML entities decoded. It returns "" when the body has no
// paragraph.
func summarize(body string) string {
	return cutAtSentence(leadText(body), DescriptionLength)
}

// htmlBlockTags open an HTML block rather than a paragraph.
var htmlBlockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "audio": true, "blockquote": true, "details": true,
	"div": true, "dl": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "header": true, "hr": true, "iframe": true, "img": true, "nav": true,
	"ol": true, "p": true, "picture": true, "pre": true, "script": true, "section": true, "style": true,
	"table": true, "ul": true, "video": true,
}

var (
	listItem      = regexp.MustCompile(`^([-*+]|[0-9]{1,9}[.)])(\s|$)`)
	thematicBreak = regexp.MustCompile(`^([-*_])(\s*[-*_]){2,}\s*$`)
	setextLine    = regexp.MustCompile(`^(=+|-+)\s*$`)
	imageOnly     = regexp.MustCompile(`^(\[?!\[[^\]]*\]\([^)]*\)(\]\([^)]*\))?\s*)+$`)
	htmlTagName   = regexp.MustCompile(`^</?([A-Za-z][A-Za-z0-9]*)`)
	// moreDivider ends the summary of a Hugo post, and the excerpt of a
	// Jekyll post whose site sets it as its excerpt_separator.
	moreDivider = regexp.MustCompile(`(?i)<!--\s*more\s*-->`)
	// tocMarker stands for a table of contents: markdown-it's [[toc]],
	// Python-Markdown's [TOC], GitLab's [[_TOC_]].
	tocMarker = regexp.MustCompile(`(?i)^\[\[?_?toc_?\]\]?$`)
	// templateBlockStart opens a block of code or a comment in a template
	// language: Liquid's {% highlight %} and {% comment %}, Hugo's
	// {{< highlight >}}; templateBlockEnd closes it.
	templateBlockStart = regexp.MustCompile(`^\{(%-?|\{[<%])\s*(highlight|comment)\b`)
	templateBlockEnd   = regexp.MustCompile(`\{(%-?|\{[<%])\s*(/\s*|end)(highlight|comment)\b`)
)

// leadText returns the plain text of the body's first paragraph that has
// any (with the next ones while it is shorter than minLeadText), or of
// every paragraph before a more divider when the body has one
// outside code and comments and there is text before it.
func leadText(body string) string {
	divider := moreDivider.MatchString(body)
	var paras, para []string
	// endPara ends the paragraph being read, and reports whether the text
	// wanted is complete.
	endPara := func() bool {
		if text := plainText(strings.Join(para, " ")); text != "" {
			paras = append(paras, text)
		}
		para = nil
		return len(paras) > 0 && !divider && len(strings.Join(paras, " ")) >= minLeadText
	}
	fence, inComment, skipBlock, inTemplate, inKramdown := "", false, false, false, false
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		case inComment:
			inComment = !strings.Contains(line, "-->")
			continue
		case inTemplate:
			inTemplate = !templateBlockEnd.MatchString(line)
			continue
		case inKramdown:
			inKramdown = !strings.Contains(line, "{:/")
			continue
		}
		if loc := moreDivider.FindStringIndex(line); divider && loc != nil {
			if before := strings.TrimSpace(line[:loc[0]]); before != "" && !skipBlock {
				para = append(para, before)
			}
			endPara()
			if len(paras) > 0 {
				return strings.Join(paras, " ")
			}
			divider, skipBlock = false, false // nothing before it: read on
			continue
		}
		if skipBlock {
			skipBlock = trimmed != ""
			continue
		}
		if len(para) > 0 {
			switch {
			case trimmed == "":
				if endPara() {
					return strings.Join(paras, " ")
				}
				continue
			case setextLine.MatchString(trimmed):
				para = nil // the lines were a heading
				continue
			case strings.HasPrefix(trimmed, "{:"):
				continue // an attribute list of the paragraph
			case strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
				if endPara() {
					return strings.Join(paras, " ")
				}
			default:
				para = append(para, trimmed)
				continue
			}
		}
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		case strings.HasPrefix(trimmed, "<!--"):
			inComment = !strings.Contains(trimmed, "-->")
		case strings.HasPrefix(trimmed, "#"):
			// an ATX heading
		case strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"):
			// indented code
		case templateBlockStart.MatchString(trimmed):
			inTemplate = !templateBlockEnd.MatchString(trimmed)
		case strings.HasPrefix(trimmed, "{{"), strings.HasPrefix(trimmed, "{%"):
			// a shortcode or template tag on its own line
		case strings.HasPrefix(trimmed, "{::comment"), strings.HasPrefix(trimmed, "{::nomarkdown"):
			// a kramdown extension block, closed by {:/comment},
			// {:/nomarkdown} or {:/}, unless it closes itself (… /})
			inKramdown = !strings.Contains(trimmed, "{:/") && !strings.HasSuffix(trimmed, "/}")
		case strings.HasPrefix(trimmed, "{:"):
			// a kramdown attribute list, {:toc}, or {::options … /}
		case tocMarker.MatchString(trimmed), imageOnly.MatchString(trimmed):
		case isHTMLBlock(trimmed), listItem.MatchString(trimmed), thematicBreak.MatchString(trimmed),
			strings.HasPrefix(trimmed, ">"), strings.HasPrefix(trimmed, "|"):
			skipBlock = true
		default:
			para = append(para, trimmed)
		}
	}
	endPara()
	// A divider only in code: the lead, as without one.
	for i := range paras {
		if lead := strings.Join(paras[:i+1], " "); len(lead) >= minLeadText {
			return lead
		}
	}
	return strings.Join(paras, " ")
}

// minLeadText is the length below which the lead text runs on into the
// next paragraph: a first paragraph such as "Hi!" describes nothing.
const minLeadText = 20

func isHTMLBlock(line string) bool {
	m := htmlTagName.FindStringSubmatch(line)
	return m != nil && htmlBlockTags[strings.ToLower(m[1])]
}

// codeSpan is inline code, whose text is kept as written.
var codeSpan = regexp.MustCompile("(`+)([^`]+)(`+)")

// inlineMarkup is Markdown inline syntax, with what to keep of it.
var inlineMarkup = []struct {
	pattern *regexp.Regexp
	keep    string
}{
	{regexp.MustCompile(`\{\{[<%].*?[%>]\}\}|\{%.*?%\}|\{\{.*?\}\}`), ""},
	{regexp.MustCompile(`<!--.*?(-->|$)`), ""},
	{regexp.MustCompile(`\{:[^{}]*\}`), ""},
	{regexp.MustCompile(`!\[[^\]]*\](\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\])`), ""},
	{regexp.MustCompile(`\[\^[^\]]*\]`), ""},
	{regexp.MustCompile(`\[([^\]]*)\](\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\])`), "$1"},
	{regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`), "$1"},
	{regexp.MustCompile(`</?[A-Za-z][^>]*>`), ""},
	{regexp.MustCompile(`\*\*|__`), ""},
	{regexp.MustCompile(`\*([^*\s](?:[^*]*[^*\s])?)\*`), "$1"},
	{regexp.MustCompile(`(^|[\s(])_([^_\s](?:[^_]*[^_\s])?)_([\s).,;:!?]|$)`), "$1$2$3"},
	{regexp.MustCompile(`~~`), ""},
	{regexp.MustCompile(`\\([\\\x60*_{}\[\]()#+\-.!<>~|])`), "$1"},
}

// plainText strips Markdown inline syntax and HTML from a paragraph. Code
// spans are set aside first, so that `<label>` stays as written.
func plainText(s string) string {
	var code []string
	s = strings.ReplaceAll(s, "\x00", "")
	s = codeSpan.ReplaceAllStringFunc(s, func(span string) string {
		code = append(code, strings.TrimSpace(strings.Trim(span, "`")))
		return "\x00" + strconv.Itoa(len(code)-1) + "\x00"
	})
	for _, m := range inlineMarkup {
		s = m.pattern.ReplaceAllString(s, m.keep)
	}
	s = html.UnescapeString(s)
	s = codePlaceholder.ReplaceAllStringFunc(s, func(p string) string {
		i, _ := strconv.Atoi(strings.Trim(p, "\x00"))
		return code[i]
	})
	return strings.Join(strings.Fields(s), " ")
}

var codePlaceholder = regexp.MustCompile("\x00[0-9]+\x00")

// cutAtSentence shortens s to at most limit characters, after the last
// sentence that ends in time; when none does, at the last space, marking
// the cut with an ellipsis.
func cutAtSentence(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	end := 0
	for i := 0; i < limit; i++ {
		if r[i] != '.' && r[i] != '!' && r[i] != '?' && r[i] != '…' {
			continue
		}
		j := i + 1
		for j < len(r) && strings.ContainsRune(`"')]”’»`, r[j]) {
			j++
		}
		if j <= limit && unicode.IsSpace(r[j]) {
			end = j
		}
	}
	if end > 0 {
		return string(r[:end])
	}
	cut := limit - 1
	for cut > 0 && !unicode.IsSpace(r[cut]) {
		cut--
	}
	if cut == 0 {
		cut = limit - 1
	}
	return strings.TrimRightFunc(string(r[:cut]), func(c rune) bool {
		return unicode.IsSpace(c) || unicode.IsPunct(c)
	}) + "…"
}
