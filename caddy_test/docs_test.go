package caddytest

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines keeps the README what a Caddy user reads in five minutes;
// the reference is in docs/.
const readmeMaxLines = 300

// docPages are the repository's documentation pages, relative to its root:
// the README, CONTRIBUTING.md and every page of docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no pages in docs/")
	}
	out := []string{"README.md", "CONTRIBUTING.md"}
	for _, p := range pages {
		out = append(out, "docs/"+filepath.Base(p))
	}
	return out
}

var (
	fenceLine    = regexp.MustCompile("^ *```")
	codeSpan     = regexp.MustCompile("`+[^`]*`+")
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	headingLine  = regexp.MustCompile(`^#{1,6} +(.*?) *#*$`)
)

// prose is doc without its fenced code blocks and inline code, where a
// link is text, not a link.
func prose(doc string) []string {
	var lines []string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if fenceLine.MatchString(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		lines = append(lines, codeSpan.ReplaceAllString(line, ""))
	}
	return lines
}

// anchor is GitHub's anchor for a heading: lowercase, spaces as hyphens,
// every other character but letters, digits, hyphens and underscores
// dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors of doc's headings, a repeated one numbered as
// GitHub numbers it (name, name-1, name-2).
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if fenceLine.MatchString(line) {
			fenced = !fenced
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		a := anchor(m[1])
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			a += "-" + strconv.Itoa(n+1)
		} else {
			seen[a] = 0
		}
		out[a] = true
	}
	return out
}

// docLinks are the targets of doc's Markdown links, outside code.
func docLinks(doc string) []string {
	var out []string
	for _, line := range prose(doc) {
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// TestDocumentation: the README stays short and links every page of docs/,
// and every relative link of the documentation leads to a file that
// exists and, for a #fragment into a Markdown page, to one of its
// headings.
func TestDocumentation(t *testing.T) {
	pages := docPages(t)
	text := map[string]string{}
	for _, p := range pages {
		b, err := os.ReadFile("../" + p)
		if err != nil {
			t.Fatal(err)
		}
		text[p] = string(b)
	}

	readme := text["README.md"]
	if n := strings.Count(strings.TrimSuffix(readme, "\n"), "\n") + 1; n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to a page of docs/", n, readmeMaxLines)
	}
	readmeLinks := docLinks(readme)
	for _, p := range pages {
		if !strings.HasPrefix(p, "docs/") {
			continue
		}
		linked := slices.ContainsFunc(readmeLinks, func(l string) bool {
			target, _, _ := strings.Cut(l, "#")
			return target == p
		})
		if !linked {
			t.Errorf("README.md does not link %s", p)
		}
	}

	for _, p := range pages {
		for _, l := range docLinks(text[p]) {
			if regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`).MatchString(l) {
				continue // https:, mailto:
			}
			target, fragment, hasFragment := strings.Cut(l, "#")
			file := p
			if target != "" {
				file = path.Clean(path.Join(path.Dir(p), target))
				if strings.HasPrefix(file, "../") {
					t.Errorf("%s: %s leads out of the repository", p, l)
					continue
				}
				if _, err := os.Stat("../" + file); err != nil {
					t.Errorf("%s: %s: no such file", p, l)
					continue
				}
			}
			if !hasFragment || !strings.HasSuffix(file, ".md") {
				continue
			}
			doc, ok := text[file]
			if !ok {
				b, err := os.ReadFile("../" + file)
				if err != nil {
					t.Errorf("%s: %s: %v", p, l, err)
					continue
				}
				doc = string(b)
			}
			if !anchors(doc)[fragment] {
				t.Errorf("%s: %s: %s has no heading #%s", p, l, file, fragment)
			}
		}
	}
}

// TestDocumentationCheck: the checks above find what they look for.
func TestDocumentationCheck(t *testing.T) {
	for heading, want := range map[string]string{
		"Agent skills, MCP discovery and WebMCP": "agent-skills-mcp-discovery-and-webmcp",
		"Without base_url":                       "without-base_url",
		"profile.yaml":                           "profileyaml",
		"The demo site: a pattern to copy":       "the-demo-site-a-pattern-to-copy",
		"`caddy_discovery_*` series":             "caddy_discovery_-series",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
	doc := "# Title\n\n## Usage\n\n```md\n## Not a heading\n[x](nowhere.md)\n```\n\n## Usage\n\nSee `[y](code.md)` and [z](other.md#usage-1).\n"
	if a := anchors(doc); !a["title"] || !a["usage"] || !a["usage-1"] || a["not-a-heading"] {
		t.Errorf("anchors = %v", a)
	}
	if l := docLinks(doc); !slices.Equal(l, []string{"other.md#usage-1"}) {
		t.Errorf("docLinks = %q", l)
	}
}
