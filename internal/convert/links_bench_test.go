package convert

import (
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// BenchmarkAbsoluteLinks makes the links of the sample's insights
// absolute, as llms-full.txt and the twins do for every insight, with a
// few links, a script and code added to each.
func BenchmarkAbsoluteLinks(b *testing.B) {
	site, err := content.Sample()
	if err != nil {
		b.Fatal(err)
	}
	extra := "\n\nSee [the chart](chart.png), [the about page](/about) and <a href=\"notes.html\">the notes</a>.\n\n" +
		"<script>track()</script>\n\n```html\n<a href=\"/x\">x</a>\n```\n\n[ref]: /docs \"Docs\"\n"
	var bodies []string
	size := 0
	for _, in := range site.Insights {
		bodies = append(bodies, in.Body+extra)
		size += len(in.Body + extra)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, body := range bodies {
			if out := AbsoluteLinks(body, "https://example.com/insights/post", "https://example.com", nil); !strings.Contains(out, "https://example.com/about") {
				b.Fatal("no link made absolute")
			}
		}
	}
}

// BenchmarkAbsoluteLinksWrite writes the sample's insights, read once, for
// a base URL: what each rendition of llms-full.txt costs.
func BenchmarkAbsoluteLinksWrite(b *testing.B) {
	site, err := content.Sample()
	if err != nil {
		b.Fatal(err)
	}
	extra := "\n\nSee [the chart](chart.png), [the about page](/about) and <a href=\"notes.html\">the notes</a>.\n\n" +
		"<script>track()</script>\n\n```html\n<a href=\"/x\">x</a>\n```\n\n[ref]: /docs \"Docs\"\n"
	var bodies []*Body
	size := 0
	for _, in := range site.Insights {
		bodies = append(bodies, ReadBodyDemoted(in.Body+extra))
		size += len(in.Body + extra)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, body := range bodies {
			if out := body.Absolute("https://example.com/insights/post", "https://example.com", nil); !strings.Contains(out, "https://example.com/about") {
				b.Fatal("no link made absolute")
			}
		}
	}
}
