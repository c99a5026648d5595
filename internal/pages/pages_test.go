package pages

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestParseLinks(t *testing.T) {
	links := parseLinks([]string{
		`</style.css>; rel=preload; as=style, <https://cdn.example/x>; rel="alternate canonical"`,
		`<https://example.com/openapi.json>; title="a, b; c"; rel="service-desc", <//other.example/y>; rel=next`,
		`garbage, <https://example.com/z>; rel="Describedby"; rel="ignored"`,
	})
	var got []string
	for _, l := range links {
		got = append(got, l.rel+" "+l.target)
	}
	want := []string{"preload /style.css", "alternate https://cdn.example/x", "canonical https://cdn.example/x",
		"service-desc https://example.com/openapi.json", "next //other.example/y", "Describedby https://example.com/z"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parsed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	base := "https://example.com"
	for v, want := range map[linkValue]bool{
		{target: base + "/style.css", rel: "preload"}:         true,
		{target: base + "/z", rel: "describedby"}:             true,
		{target: base + "/openapi.json", rel: "service-desc"}: true,
		{target: base + "/style.css", rel: "alternate"}:       false,
		{target: "https://other.example/y", rel: "next"}:      false,
		{target: base + "/style.cs", rel: "preload"}:          false,
	} {
		if got := v.in(links, base); got != want {
			t.Errorf("%+v in the links: %v, want %v", v, got, want)
		}
	}
}

// TestAddPageHeaders: the module's values are added beside the site's,
// once, and only on answers that are the page.
func TestAddPageHeaders(t *testing.T) {
	testLinks := NewLinks("https://example.com", "/.well-known/api-catalog", "/openapi.json", "/developers", "/llms.txt")
	page := Page{Twin: "/about.md", TwinURL: "/about.md", Negotiated: true}
	h := http.Header{}
	h.Set("Link", `</style.css>; rel=preload`)
	h.Add("Link", `</llms.txt>; rel="describedby"`)
	h.Set("Vary", "Accept-Encoding")
	addPageHeaders(h, http.StatusOK, page, "https://example.com", testLinks, false)
	links := h.Values("Link")
	if len(links) != 3 || links[0] != `</style.css>; rel=preload` || links[1] != `</llms.txt>; rel="describedby"` {
		t.Fatalf("the site's Link fields changed: %q", links)
	}
	for _, want := range []string{`<https://example.com/.well-known/api-catalog>; rel="api-catalog"`,
		`<https://example.com/openapi.json>; rel="service-desc"; type="application/json"`,
		`<https://example.com/developers>; rel="service-doc"; type="text/html"`,
		`<https://example.com/about.md>; rel="alternate"; type="text/markdown"`} {
		if !strings.Contains(links[2], want) {
			t.Errorf("Link %q lacks %s", links[2], want)
		}
	}
	if strings.Contains(links[2], "describedby") {
		t.Errorf("the site's describedby was repeated: %q", links[2])
	}
	if got := h.Values("Vary"); len(got) != 2 || got[0] != "Accept-Encoding" || got[1] != "Accept" {
		t.Errorf("Vary %q", got)
	}

	// Again on the same header: nothing more.
	addPageHeaders(h, http.StatusOK, page, "https://example.com", testLinks, false)
	if len(h.Values("Link")) != 3 || len(h.Values("Vary")) != 2 {
		t.Errorf("added twice: Link %q, Vary %q", h.Values("Link"), h.Values("Vary"))
	}

	for status, wantLink := range map[int]bool{http.StatusNotModified: true, http.StatusNotFound: false,
		http.StatusMovedPermanently: false, http.StatusInternalServerError: false, http.StatusPartialContent: true} {
		h := http.Header{}
		addPageHeaders(h, status, page, "https://example.com", testLinks, false)
		if (h.Get("Link") != "") != wantLink || h.Get("Vary") != "Accept" {
			t.Errorf("status %d: Link %q, Vary %q", status, h.Get("Link"), h.Get("Vary"))
		}
	}
	h = http.Header{"Vary": {"*"}}
	addPageHeaders(h, http.StatusOK, page, "https://example.com", nil, true)
	if h.Get("Link") != "" || len(h.Values("Vary")) != 1 {
		t.Errorf("links off or Vary *: %v", h)
	}

	// Told by User-Agent too: both names, each once, beside the site's.
	for site, want := range map[string][]string{
		"":                       {"Accept, User-Agent"},
		"Accept-Encoding":        {"Accept-Encoding", "Accept, User-Agent"},
		"accept":                 {"accept", "User-Agent"},
		"User-Agent, Accept":     {"User-Agent, Accept"},
		"Accept-Encoding,Accept": {"Accept-Encoding,Accept", "User-Agent"},
	} {
		h := http.Header{}
		if site != "" {
			h.Set("Vary", site)
		}
		addPageHeaders(h, http.StatusOK, page, "https://example.com", nil, true)
		if got := h.Values("Vary"); !slices.Equal(got, want) {
			t.Errorf("site's Vary %q: Vary %q, want %q", site, got, want)
		}
	}
}
