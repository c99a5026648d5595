package caddytest

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestDemoPagesDescribeThemselves: every page of the make run site names
// its canonical address and its Markdown twin in its head, and carries
// schema.org JSON-LD, as the Agent Readability Spec asks; these are the
// lines a site copies into its own pages.
func TestDemoPagesDescribeThemselves(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	canonical := regexp.MustCompile(`<link rel="canonical" href="([^"]+)">`)
	alternate := regexp.MustCompile(`<link rel="alternate" type="text/markdown" href="([^"]+)">`)
	ldJSON := regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`)
	for _, p := range append(sitePages, struct{ page, twin string }{"/insights/hiring-your-first-data-engineer", "/insights/hiring-your-first-data-engineer.md"}) {
		r := s.get(p.page)
		html := string(r.body)
		head, _, _ := strings.Cut(html, "</head>")
		if m := canonical.FindStringSubmatch(head); m == nil || m[1] != base+p.page {
			t.Errorf("%s: canonical %v, want %s", p.page, m, base+p.page)
		}
		if m := alternate.FindStringSubmatch(head); m == nil || m[1] != p.twin {
			t.Errorf("%s: Markdown alternate %v, want %s", p.page, m, p.twin)
		} else if twin := s.get(m[1]); twin.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("%s: its alternate %s is %q", p.page, m[1], twin.Header.Get("Content-Type"))
		}
		m := ldJSON.FindStringSubmatch(html)
		if m == nil {
			t.Errorf("%s: no JSON-LD", p.page)
			continue
		}
		var ld map[string]any
		if err := json.Unmarshal([]byte(m[1]), &ld); err != nil || ld["@context"] != "https://schema.org" || ld["@type"] == nil {
			t.Errorf("%s: JSON-LD %v (%v)", p.page, ld, err)
		}
		if strings.HasPrefix(p.page, "/insights/") && (ld["@type"] != "Article" || ld["headline"] == nil || ld["datePublished"] == nil || ld["author"] == nil) {
			t.Errorf("%s: an insight's JSON-LD is not an Article with headline, datePublished and author: %v", p.page, ld)
		}
	}
}
