package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// cliURL is the address of the command-line client.
func (l links) cliURL() string {
	return l.base + strings.Replace(pathCLI, "{cli}", l.cfg.CLIName, 1)
}

// The OAuth vocabulary the metadata and /auth.md publish.
const (
	tokenScope             = "public:read"
	grantAuthorizationCode = "authorization_code"
	grantClientCredentials = "client_credentials"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// llmsLink writes one llms.txt list item. The reference parser reads a
// title up to the first "]" and a URL up to the first ")", so neither may
// contain them.
func llmsLink(b *bytes.Buffer, title, url, note string) {
	b.WriteString("- [")
	b.WriteString(llmsTitle.Replace(title))
	b.WriteString("](")
	b.WriteString(llmsURL.Replace(url))
	b.WriteByte(')')
	if note = oneLine(note); note != "" {
		b.WriteString(": ")
		b.WriteString(note)
	}
	b.WriteByte('\n')
}

var (
	llmsTitle = strings.NewReplacer("[", "(", "]", ")", "\n", " ")
	llmsURL   = strings.NewReplacer(")", "%29", " ", "%20")
)

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// llmsTxt renders /llms.txt in the llmstxt.org shape: H1, a one-line
// summary, guidance, then H2 sections of link items, the last "Optional".
func (l links) llmsTxt() []byte {
	p := l.cfg.Site.Profile
	var b bytes.Buffer
	b.Grow(8<<10 + len(l.cfg.Site.Insights)*(512+3*len(l.base)))
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", oneLine(p.Name), oneLine(p.Tagline))
	fmt.Fprintf(&b, "Public, read-only facts about %s and their published insights, for agents and people. No API key is needed. "+
		"Use the JSON API under %s for structured facts; the MCP server at %s when your agent speaks MCP; "+
		"the command-line client at %s from a terminal or script; and %s to read everything as plain text in one request.\n",
		oneLine(p.Name), l.base+pathIndex, l.base+pathMCP, l.cliURL(), l.base+pathLLMsFull)

	b.WriteString("\n## API and developer resources\n\n")
	for _, rt := range l.routes {
		if rt.Listed == listMain && !strings.Contains(rt.Path, "{") {
			llmsLink(&b, rt.Summary, l.base+rt.Path, rt.Description)
		}
	}
	if len(p.SiteStructure) > 0 {
		b.WriteString("\n## Profile\n\n")
		for _, sl := range p.SiteStructure {
			llmsLink(&b, sl.Label, l.abs(sl.URL), sl.Desc)
		}
	}
	if len(l.cfg.Site.Insights) > 0 {
		b.WriteString("\n## Insights\n\n")
		for _, in := range l.cfg.Site.Insights {
			llmsLink(&b, in.Title, l.insight(in.Slug), in.Description+" ("+in.Topic+", "+in.Date+"; JSON: "+l.base+insightPath(in.Slug)+")")
		}
	}
	b.WriteString("\n## Optional\n\n")
	for _, rt := range l.routes {
		if rt.Listed == listOptional {
			llmsLink(&b, rt.Summary, l.base+rt.Path, rt.Description)
		}
	}
	return b.Bytes()
}

// llmsFullTxt renders /llms-full.txt: the profile in prose and lists, then
// every insight in full under its own heading, separated by "---".
func (l links) llmsFullTxt() []byte {
	site := l.cfg.Site
	p := site.Profile
	var b bytes.Buffer
	b.Grow(l.cfg.bodiesSize + 512*len(site.Insights) + 16<<10)
	fmt.Fprintf(&b, "# %s\n\n> %s\n\nSource: %s\nLast updated: %s\n", p.Name, oneLine(p.Tagline), l.base+pathProfile, p.LastUpdated)
	section := func(title string, items []string, bullets bool) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		for _, it := range items {
			if bullets {
				fmt.Fprintf(&b, "- %s\n", oneLine(it))
			} else {
				fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(it))
			}
		}
	}
	section("Biography", p.About, false)
	section("Key facts", p.KeyFacts, true)
	section("Recognition", p.Recognition, true)
	section("Expertise", p.Expertise, true)
	section("Education", p.Education, true)
	section("Company", site.CompanyFacts, true)
	section("Initiatives", site.Initiatives, true)
	c := l.profile().Contact
	var contact []string
	for _, ch := range []struct{ label, value string }{
		{"Contact form", c.Form}, {"Email", c.Email}, {"Phone", c.Phone}, {"LinkedIn", c.LinkedIn},
		{"X", c.X}, {"Substack", c.Substack}, {"YouTube", c.YouTube}, {"Company bio", c.CompanyBio},
	} {
		if ch.value != "" { // a channel the subject does not have is left out
			contact = append(contact, ch.label+": "+ch.value)
		}
	}
	section("Contact", contact, true)
	for i, in := range site.Insights {
		fmt.Fprintf(&b, "\n---\n\n## %s\n\nURL: %s\nPublished: %s (%s)\nUpdated: %s\nTopic: %s\nRead time: %s\n\n%s\n\n",
			oneLine(in.Title), l.insight(in.Slug), in.Date, in.DateISO, in.DateModifiedISO, in.Topic, in.ReadTime,
			oneLine(in.Description))
		b.WriteString(l.cfg.fullBodies[i])
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// demoteHeadings moves every ATX heading of a Markdown body one level down,
// outside fenced code, so that it nests under the insight's own heading.
func demoteHeadings(md string) string {
	lines := strings.Split(md, "\n")
	fenced := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fenced = !fenced
		case !fenced && strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "######"):
			lines[i] = "#" + line
		}
	}
	return strings.Join(lines, "\n")
}

// cliScript is the CLI with this base URL and version built in.
func (l links) cliScript() []byte {
	return []byte(strings.NewReplacer(
		`"__DISCOVERY_BASE_URL__"`, jsString(l.base),
		`"__DISCOVERY_VERSION__"`, jsString(l.cfg.Version),
	).Replace(string(l.cfg.CLIScript)))
}

// jsString is s as a JavaScript string literal (JSON is a subset).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// slugExample is a published slug for examples, or a placeholder.
func (l links) slugExample() string {
	if len(l.cfg.Site.Insights) > 0 {
		return l.cfg.Site.Insights[0].Slug
	}
	return "an-insight"
}
