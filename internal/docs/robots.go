package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/dunglas/httpsfv"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The module's /robots.txt never loosens a site's rules: when the site
// behind the directive has its own file, that file is served with every
// group and rule intact and the module's lines merged in (the content
// signal, as a line of the site's "User-agent: *" group, and comments);
// the module's own file only when the site has none.

// MaxSiteFile is the largest file of the site's merged with the module's
// lines, robots.txt or llms.txt (Google reads the
// first 500 KiB); a larger one is served as the site sent it.
const MaxSiteFile = 512 << 10

// The site's preferences for the use of its content (content.Signals)
// in the two vocabularies agents read: Content-Signal (contentsignals.org),
// and Content-Usage, the IETF's (draft-ietf-aipref-vocab-07, attached to
// robots.txt and HTTP answers by draft-ietf-aipref-attach-05). One setting
// gives both.

// SignalValue is the preferences as robots.txt and the Content-Signal
// header of the Markdown answers state them.
func SignalValue(s content.ContentSignals) string {
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return fmt.Sprintf("ai-train=%s, search=%s, ai-input=%s", yesNo(s.AITrain), yesNo(s.Search), yesNo(s.AIInput))
}

// UsageValue is the same preferences as a Content-Usage value: an RFC 9651
// dictionary of the vocabulary's labels, each the token y (allow) or n
// (disallow). ai-train is train-ai and search is search; ai-input has no
// label in the vocabulary, so its preference is left unknown there.
func UsageValue(s content.ContentSignals) string {
	yesNo := func(b bool) httpsfv.Item {
		if b {
			return httpsfv.NewItem(httpsfv.Token("y"))
		}
		return httpsfv.NewItem(httpsfv.Token("n"))
	}
	d := httpsfv.NewDictionary()
	d.Add("train-ai", yesNo(s.AITrain))
	d.Add("search", yesNo(s.Search))
	v, _ := httpsfv.Marshal(d) // fixed keys and tokens: nothing can fail
	return v
}

// preferenceRules are the robots.txt rules of the site's preferences, for
// the group of every crawler: Content-Signal, and Content-Usage when the
// configuration asks for it.
func preferenceRules(l view.Links) string {
	rules := "Content-Signal: " + l.Cat.Signal + "\n"
	if l.RobotsContentUsage {
		rules += "Content-Usage: " + l.Cat.Usage + "\n"
	}
	return rules
}

// sitemaps are the sitemaps robots.txt names: the site's own, as
// configured, then the module's.
func sitemaps(l view.Links) []string {
	var urls []string
	for _, link := range l.SiteSitemaps {
		urls = append(urls, l.Abs(link))
	}
	if l.Sitemap {
		urls = append(urls, l.Base+view.PathSitemapOwn)
	}
	return urls
}

// robotsComments explain the preferences and point agents at the API.
func robotsComments(l view.Links) string {
	usage := ""
	if l.RobotsContentUsage {
		usage = `# Content-Usage states them in the IETF's vocabulary (draft-ietf-aipref-vocab-07):
#   train-ai  training AI models that generate content; search as above; ai-input has no label
`
	}
	return `# Content signals (https://contentsignals.org) say how this site's content may be used:
#   search    building a search index and showing links and excerpts in results
#   ai-input  giving content to AI models as input for answers (retrieval, grounding)
#   ai-train  training or fine-tuning AI models
` + usage + `# Agents: the public API is described at ` + l.Base + view.PathLLMs + ` and ` + l.OpenAPI() + `.
`
}

// RobotsTxt renders the module's own /robots.txt, for a site that has none.
func RobotsTxt(l view.Links) []byte {
	b := bytes.NewBufferString(robotsComments(l) + "User-agent: *\n" + preferenceRules(l) + "Allow: /\n")
	writeSitemaps(l, b, nil)
	return b.Bytes()
}

// writeSitemaps adds a Sitemap line (which belongs to no group) for each
// sitemap the module names that the site's lines do not name already.
func writeSitemaps(l view.Links, b *bytes.Buffer, lines []string) {
	named := make(map[string]bool)
	for _, line := range lines {
		if k, _ := robotsField(line); k == "sitemap" {
			// The value is a URL, which may hold "#": not a comment.
			_, v, _ := strings.Cut(line, ":")
			named[strings.TrimSpace(v)] = true
		}
	}
	first := true
	for _, url := range sitemaps(l) {
		if named[url] {
			continue
		}
		if first && !bytes.HasSuffix(b.Bytes(), []byte("\n\n")) {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString("Sitemap: " + url + "\n")
	}
}

// MergeRobots adds the module's lines to a site's robots.txt without
// changing any of its rules: the preference rules go into the first group
// for "User-agent: *" (unless that group already states preferences, in
// either vocabulary: the site's own statement stands, and a rule of the
// module beside it could only contradict or narrow it), or, when the site
// has no such group, into a new one that allows what an absent group
// allows, everything.
func MergeRobots(l view.Links, site []byte) []byte {
	var out bytes.Buffer
	out.WriteString(robotsComments(l))
	lines := splitLines(site)
	inserted := false
	for i := 0; i < len(lines); i++ {
		out.WriteString(lines[i])
		out.WriteByte('\n')
		if inserted || !isUserAgent(lines[i]) {
			continue
		}
		// The user-agent lines of one group, then its rules.
		j := i
		star := false
		for ; j < len(lines) && (isUserAgent(lines[j]) || isComment(lines[j])); j++ {
			star = star || isUserAgent(lines[j]) && robotsValue(lines[j]) == "*"
		}
		if !star {
			continue
		}
		for k := i + 1; k < j; k++ {
			out.WriteString(lines[k])
			out.WriteByte('\n')
		}
		i = j - 1
		inserted = true
		if !groupStatesPreferences(lines[j:]) {
			out.WriteString(preferenceRules(l))
		}
	}
	if !inserted {
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n\n")) {
			out.WriteByte('\n')
		}
		out.WriteString("User-agent: *\n" + preferenceRules(l) + "Allow: /\n")
	}
	writeSitemaps(l, &out, lines)
	return out.Bytes()
}

// splitLines splits a robots.txt into lines without their line endings.
func splitLines(b []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), MaxSiteFile)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	return lines
}

func robotsField(line string) (key, value string) {
	line, _, _ = strings.Cut(line, "#")
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		return "", ""
	}
	return strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
}

func robotsValue(line string) string { _, v := robotsField(line); return v }

func isUserAgent(line string) bool { k, _ := robotsField(line); return k == "user-agent" }

func isComment(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "#") }

// groupStatesPreferences reports whether the group whose rules start at
// lines already has a Content-Signal or a Content-Usage rule.
func groupStatesPreferences(lines []string) bool {
	for _, line := range lines {
		switch k, _ := robotsField(line); k {
		case "user-agent":
			return false
		case "content-signal", "content-usage":
			return true
		}
	}
	return false
}
