package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// llmsLink writes one llms.txt list item. The reference parser reads a
// title up to the first "]" and a URL up to the first ")", so neither may
// contain them.
func llmsLink(b *bytes.Buffer, title, url, note string) {
	b.WriteString("- [")
	b.WriteString(llmsTitle.Replace(clip(title, maxItemTitle)))
	b.WriteString("](")
	b.WriteString(llmsURL.Replace(url))
	b.WriteByte(')')
	if note = clip(pages.MarkdownLine(note), maxItemNote); note != "" {
		b.WriteString(": ")
		b.WriteString(note)
	}
	b.WriteByte('\n')
}

// llmsEndpoint writes one llms.txt list item naming an address to call
// rather than a document to read: "- Title: `GET url`. Note".
func llmsEndpoint(b *bytes.Buffer, method, url, title, note string) {
	b.WriteString("- ")
	b.WriteString(clip(pages.MarkdownLine(title), maxItemTitle))
	b.WriteString(": `")
	b.WriteString(method)
	b.WriteByte(' ')
	b.WriteString(strings.ReplaceAll(url, "`", "%60"))
	b.WriteByte('`')
	if note = clip(pages.MarkdownLine(note), maxItemNote); note != "" {
		b.WriteString(". ")
		b.WriteString(note)
	}
	b.WriteByte('\n')
}

var (
	llmsTitle = strings.NewReplacer("[", "(", "]", ")", "\n", " ", "<", `\<`)
	llmsURL   = strings.NewReplacer(")", "%29", " ", "%20")
)

// The longest title and note of a list item, and of the name and tagline
// at the head of an index, in bytes: an index is read whole, so no one
// entry may take it over.
const (
	maxItemTitle = 200
	maxItemNote  = 500
	maxHeadLine  = 1000
)

// clip cuts s to at most n bytes, at a word when it can, marking the cut
// with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > cut/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// MaxLLMsTxt bounds /llms.txt in bytes, and so in characters: agents read
// an index whole, and the Agent-Friendly Documentation checks fail one of
// 50 000 characters or more. A site whose pages and insights do not fit
// lists its newest insights after a link to the index of them all.
const MaxLLMsTxt = 50000

// LLMsTxt renders /llms.txt in the llmstxt.org shape: H1, a one-line
// summary, guidance, then H2 sections of link items, the last "Optional".
// Pages and insights are linked to their Markdown twins when they have
// them.
func LLMsTxt(l view.Links) []byte {
	p := l.Cat.Site.Profile
	var b bytes.Buffer
	b.Grow(MaxLLMsTxt)
	name := clip(pages.MarkdownLine(p.Name), maxItemTitle)
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", name, clip(pages.MarkdownLine(p.Tagline), maxHeadLine))
	fmt.Fprintf(&b, "Public, read-only facts about %s and their published insights, for agents and people. No API key is needed. "+
		"Use the JSON API under %s for structured facts; the MCP server at %s when your agent speaks MCP; "+
		"the command-line client at %s from a terminal or script; and %s to read everything as plain text in one request.\n",
		name, l.Base+view.PathIndex, l.Base+view.PathMCP, l.CLIURL(), l.Base+view.PathLLMsFull)

	// The link lists hold documents an agent reads as text; the API, the
	// MCP endpoint and the machine documents are named here, each with the
	// method to call it with, since they are not pages to read.
	b.WriteString("\nThe API, the MCP server and the documents for machines, to call rather than read:\n\n")
	for _, listed := range []view.Listing{view.ListMain, view.ListOptional} {
		for _, rt := range l.Routes {
			if rt.Listed == listed && !rt.ReadsAsText() && l.Cat.TwinOfPage(rt.Path) == "" && !strings.Contains(rt.Path, "{") {
				llmsEndpoint(&b, rt.Method, l.Base+rt.Path, rt.Summary, rt.Description)
			}
		}
	}
	// Documents, and pages of the module's own by their Markdown twin. An
	// address is linked once: a page of the site's that is one of these
	// (its developers page is the portal) is not listed again below.
	b.WriteString("\n## Docs\n\n")
	docs := map[string]bool{}
	for _, rt := range l.Routes {
		switch {
		case rt.Listed != view.ListMain || strings.Contains(rt.Path, "{"):
		case l.Cat.TwinOfPage(rt.Path) != "":
			if twin := l.RouteAt(l.Cat.TwinOfPage(rt.Path)); twin != nil {
				llmsLink(&b, twin.Summary, l.Base+twin.Path, twin.Description)
				docs[l.Base+twin.Path] = true
			}
		case rt.ReadsAsText():
			llmsLink(&b, rt.Summary, l.Base+rt.Path, rt.Description)
			docs[l.Base+rt.Path] = true
		}
	}
	var optional bytes.Buffer
	optional.WriteString("\n## Optional\n\n")
	for _, rt := range l.Routes {
		if rt.Listed == view.ListOptional && rt.ReadsAsText() {
			llmsLink(&optional, rt.Summary, l.Base+rt.Path, rt.Description)
		}
	}

	// The pages and insights fill what is left, an item at a time, after
	// room for their headings and the link to the index of all insights.
	n := len(l.Cat.Site.Insights)
	var item bytes.Buffer
	indexLink := func(w *bytes.Buffer, listed int) {
		llmsLink(w, fmt.Sprintf("All %d insights", n), insightsIndex(l),
			fmt.Sprintf("every insight, newest first; the newest %d follow", listed))
	}
	indexLink(&item, n)
	left := MaxLLMsTxt - b.Len() - optional.Len() - item.Len() - len("\n## Profile\n\n\n## Insights\n\n")
	fits := func(write func(*bytes.Buffer)) bool {
		item.Reset()
		write(&item)
		if item.Len() > left {
			return false
		}
		left -= item.Len()
		return true
	}
	var pages bytes.Buffer
	for _, sl := range sitePages(l) {
		if docs[l.PageLink(sl.URL)] {
			continue
		}
		if !fits(func(w *bytes.Buffer) { llmsLink(w, sl.Label, l.PageLink(sl.URL), sl.Desc) }) {
			break
		}
		pages.Write(item.Bytes())
	}
	if pages.Len() > 0 {
		b.WriteString("\n## Profile\n\n")
		b.Write(pages.Bytes())
	}
	if n > 0 {
		b.WriteString("\n## Insights\n\n")
		var insights bytes.Buffer
		listed := 0
		for i := range n {
			if !fits(func(w *bytes.Buffer) { insightItem(l, w, i) }) {
				break
			}
			insights.Write(item.Bytes())
			listed++
		}
		if listed < n {
			indexLink(&b, listed)
		}
		b.Write(insights.Bytes())
	}
	b.Write(optional.Bytes())
	return b.Bytes()
}

// MergeLLMs is the site's own llms.txt with the module's section after
// it: the site's words first and whole, then an H2 section that links the
// API, the MCP server and the documents the module serves, so that an
// agent reading the site's index finds them too. The site's file is the
// index the owner wrote; the module adds to it, and takes nothing away.
func MergeLLMs(l view.Links, site []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(site) + 8<<10)
	b.Write(bytes.TrimRight(site, " \t\r\n"))
	b.WriteString("\n\n## API and documents for agents\n\n")
	for _, rt := range l.Routes {
		if rt.Listed != view.ListMain || strings.Contains(rt.Path, "{") || rt.Path == view.PathLLMs {
			continue
		}
		target := l.Base + rt.Path
		if twin := l.Cat.TwinOfPage(rt.Path); twin != "" {
			target = l.Base + twin
		}
		note := rt.Description
		if !rt.ReadsAsText() {
			note = rt.Method + ". " + note
		}
		llmsLink(&b, rt.Summary, target, note)
	}
	return b.Bytes()
}

// sitePages are the site's pages as the content lists them: its site
// structure, or else its about and insights pages.
func sitePages(l view.Links) []content.SiteLink {
	if len(l.Cat.Site.Profile.SiteStructure) > 0 {
		return l.Cat.Site.Profile.SiteStructure
	}
	pages := l.Cat.Site.Pages
	links := []content.SiteLink{}
	if pages.About != "" {
		links = append(links, content.SiteLink{Label: "About", URL: pages.About, Desc: "Biography, key facts, recognition, expertise, education and contact."})
	}
	if pages.Insights != "" {
		links = append(links, content.SiteLink{Label: "Insights", URL: pages.Insights, Desc: "Every published insight, newest first."})
	}
	return links
}

// LLMsFullTxt renders /llms-full.txt: the profile in prose and lists, then
// every insight in full under its own heading, separated by "---", its
// links made absolute (see convert.AbsoluteLinks), the bodies read once.
func LLMsFullTxt(l view.Links) []byte {
	site := l.Cat.Site
	p := site.Profile
	var b bytes.Buffer
	b.Grow(l.Cat.BodiesSize + 512*len(site.Insights) + 16<<10)
	fmt.Fprintf(&b, "# %s\n\n> %s\n\nSource: %s\nLast updated: %s\n", pages.MarkdownLine(p.Name), pages.MarkdownLine(p.Tagline), l.Base+view.PathProfile, p.LastUpdated)
	profileSections(l, &b, true)
	bodies := l.Cat.FullLinks()
	for i, in := range site.Insights {
		fmt.Fprintf(&b, "\n---\n\n## %s\n\nURL: %s\nPublished: %s (%s)\nUpdated: %s\nTopic: %s\nRead time: %s\n\n%s\n\n",
			pages.MarkdownLine(in.Title), l.Insight(in.Slug), in.Date, in.DateISO, in.DateModifiedISO, pages.MarkdownLine(in.Topic), in.ReadTime,
			pages.MarkdownLine(in.Description))
		b.WriteString(bodies[i].Absolute(l.Insight(in.Slug), l.Base, l.PostURL))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// profileSections writes the profile's sections, each under its own
// heading: biography, key facts, recognition, expertise, education, the
// company and initiatives (only withCompany: llms-full.txt alone publishes
// them) and contact.
func profileSections(l view.Links, b *bytes.Buffer, withCompany bool) {
	site := l.Cat.Site
	p := site.Profile
	section := func(title string, items []string, bullets bool) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(b, "\n## %s\n", title)
		for _, it := range items {
			if bullets {
				fmt.Fprintf(b, "\n- %s", pages.MarkdownLine(it))
			} else {
				fmt.Fprintf(b, "\n%s\n", strings.TrimSpace(it))
			}
		}
		if bullets {
			b.WriteByte('\n')
		}
	}
	section("Biography", p.About, false)
	section("Key facts", p.KeyFacts, true)
	section("Recognition", p.Recognition, true)
	section("Expertise", p.Expertise, true)
	section("Education", p.Education, true)
	if withCompany {
		section("Company", site.CompanyFacts, true)
		section("Initiatives", site.Initiatives, true)
	}
	section("Contact", contactChannels(l), true)
}

// contactChannels are the ways to reach the subject the profile publishes,
// each as "Label: value"; a channel the subject does not have is left out.
func contactChannels(l view.Links) []string {
	c := l.Profile().Contact
	var contact []string
	for _, ch := range []struct{ label, value string }{
		{"Contact form", c.Form}, {"Email", c.Email}, {"Phone", c.Phone}, {"LinkedIn", c.LinkedIn},
		{"X", c.X}, {"Substack", c.Substack}, {"YouTube", c.YouTube}, {"Company bio", c.CompanyBio},
	} {
		if ch.value != "" {
			contact = append(contact, ch.label+": "+ch.value)
		}
	}
	return contact
}

// CLIScript is the CLI with this base URL and version built in.
func CLIScript(l view.Links) []byte {
	return []byte(strings.NewReplacer(
		`"__DISCOVERY_BASE_URL__"`, jsString(l.Base),
		`"__DISCOVERY_VERSION__"`, jsString(l.Version),
	).Replace(string(l.CLIScript)))
}

// jsString is s as a JavaScript string literal (JSON is a subset).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// SlugExample is a published slug for examples, or a placeholder.
func SlugExample(l view.Links) string {
	if len(l.Cat.Site.Insights) > 0 {
		return l.Cat.Site.Insights[0].Slug
	}
	return "an-insight"
}
