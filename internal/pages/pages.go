// Package pages answers for the site's pages on the request path, for
// agents: the module's Link and Vary values added to the site's answers
// for the pages the content names, and the site's other pages converted to
// Markdown, with the front matter and headers of every Markdown answer.
//
// Imports from the module: internal/convert, internal/metrics, internal/negotiate, internal/respond.
package pages

import (
	"io"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// Page is what the module's headers on the site's answer say of one page
// of the site's that the content names, or of one of the module's own
// HTML pages.
type Page struct {
	// Twin is the path of its Markdown twin, TwinURL the same as it goes
	// in a URL (escaped); both empty when the page has none.
	Twin, TwinURL string
	// Negotiated: the twin has a route, answered for Accept: text/markdown
	// at the page's own address, so every answer there varies on Accept.
	Negotiated bool
}

// The Vary values of every answer at a page with a twin: the fields that
// choose between its HTML and its Markdown.
const (
	VaryAccept          = "Accept"
	VaryAcceptUserAgent = "Accept, User-Agent"
)

// Writer adds the module's headers to the site's answer for a page
// when the site writes its status line, so that a site's own values are
// already there to be kept; as Caddy's headers handler does, on Caddy's
// ResponseWriterWrapper.
type Writer struct {
	caddyhttp.ResponseWriterWrapper
	page Page
	base string
	// Links are the module's links on base; nil when page_links is off.
	Links *Links
	// userAgent says the page varies on User-Agent too.
	userAgent   bool
	wroteHeader bool
}

// NewWriter returns the writer of the site's answer for page on base.
func NewWriter(w http.ResponseWriter, page Page, base string, userAgent bool) *Writer {
	return &Writer{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, page: page, base: base, userAgent: userAgent}
}

func (pw *Writer) WriteHeader(status int) {
	if !pw.wroteHeader && status >= http.StatusOK {
		pw.wroteHeader = true
		addPageHeaders(pw.Header(), status, pw.page, pw.base, pw.Links, pw.userAgent)
	}
	pw.ResponseWriterWrapper.WriteHeader(status)
}

func (pw *Writer) Write(b []byte) (int, error) {
	if !pw.wroteHeader {
		pw.WriteHeader(http.StatusOK)
	}
	return pw.ResponseWriterWrapper.Write(b)
}

// ReadFrom writes the headers, then keeps the underlying writer's fast
// path (sendfile for file_server); the wrapper's own would skip them.
func (pw *Writer) ReadFrom(src io.Reader) (int64, error) {
	if !pw.wroteHeader {
		pw.WriteHeader(http.StatusOK)
	}
	return pw.ResponseWriterWrapper.ReadFrom(src)
}

// FlushError flushes what the site has written, headers first (a
// ResponseController would otherwise reach the underlying writer through
// Unwrap, past them).
func (pw *Writer) FlushError() error {
	if !pw.wroteHeader {
		pw.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(pw.ResponseWriterWrapper.ResponseWriter).Flush()
}

// Links are the links every page of the site gets, on one base URL:
// the API (RFC 9727 api-catalog, service-desc, service-doc) and llms.txt
// (describedby). Made once for the configured base URL.
type Links struct {
	values [4]linkValue
	// field is the values as one Link field.
	field string
}

// NewLinks returns the links on base to the API catalog, the OpenAPI
// description, the developer portal and llms.txt, at those paths.
func NewLinks(base, catalog, openAPI, developers, llms string) *Links {
	pl := &Links{values: [...]linkValue{
		{base + catalog, "api-catalog", ""},
		{base + openAPI, "service-desc", respond.MediaJSON},
		{base + developers, "service-doc", "text/html"},
		{base + llms, "describedby", "text/plain"},
	}}
	var b strings.Builder
	for _, v := range pl.values {
		v.write(&b)
	}
	pl.field = b.String()
	return pl
}

// addPageHeaders adds to the site's answer for page p: Vary: Accept when
// the page has a Markdown twin (the module answers Accept: text/markdown
// there, so every answer at the address depends on Accept), and, on a
// success or 304 when links are on, the page links and the twin's
// (alternate). Values the site already sends are not repeated and the
// site's own fields are kept: the module's go in a field of their own. The
// work is linear in the size of the site's Link and Vary fields.
func addPageHeaders(h http.Header, status int, p Page, base string, links *Links, userAgent bool) {
	if p.Negotiated {
		AddVary(h, userAgent)
	}
	if links == nil || status >= http.StatusMultipleChoices && status != http.StatusNotModified {
		return
	}
	twin := linkValue{base + p.TwinURL, "alternate", "text/markdown"}
	site := h.Values(respond.HeaderLink)
	if len(site) == 0 {
		// The common case: nothing of the site's to keep apart.
		field := links.field
		if p.Twin != "" {
			field += `, <` + twin.target + `>; rel="alternate"; type="text/markdown"`
		}
		h.Add(respond.HeaderLink, field)
		return
	}
	sent := parseLinks(site)
	var b strings.Builder
	for _, v := range links.values {
		if !v.in(sent, base) {
			v.write(&b)
		}
	}
	if p.Twin != "" && !twin.in(sent, base) {
		twin.write(&b)
	}
	if b.Len() > 0 {
		h.Add(respond.HeaderLink, b.String())
	}
}

// AddVary adds to h's Vary the fields that choose between a page's
// HTML and its Markdown (Accept, and User-Agent when userAgent), those the
// site's own Vary lacks, in one field of the module's.
func AddVary(h http.Header, userAgent bool) {
	addAccept, addUA := !varies(h, "Accept"), userAgent && !varies(h, "User-Agent")
	switch {
	case addAccept && addUA:
		h.Add(respond.HeaderVary, VaryAcceptUserAgent)
	case addAccept:
		h.Add(respond.HeaderVary, VaryAccept)
	case addUA:
		h.Add(respond.HeaderVary, "User-Agent")
	}
}

// linkValue is one RFC 8288 link: a target, one relation type and the type
// hint.
type linkValue struct {
	target, rel, mediaType string
}

// in reports whether links hold v's relation to v's target, a target
// beginning with "/" being taken on base.
func (v linkValue) in(links []linkValue, base string) bool {
	for _, l := range links {
		if !strings.EqualFold(l.rel, v.rel) {
			continue
		}
		if l.target == v.target || strings.HasPrefix(l.target, "/") && !strings.HasPrefix(l.target, "//") &&
			len(v.target) == len(base)+len(l.target) && strings.HasPrefix(v.target, base) && strings.HasSuffix(v.target, l.target) {
			return true
		}
	}
	return false
}

// write appends v to a Link field being built in b.
func (v linkValue) write(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteString(", ")
	}
	b.WriteString("<" + v.target + `>; rel="` + v.rel + `"`)
	if v.mediaType != "" {
		b.WriteString(`; type="` + v.mediaType + `"`)
	}
}

// parseLinks returns the target and relation of every link in the Link
// fields, one entry per relation type. It reads what RFC 8288 allows:
// several links per field, quoted parameters with commas and semicolons,
// several relation types in one rel.
func parseLinks(fields []string) []linkValue {
	var found []linkValue
	for _, field := range fields {
		for len(field) > 0 {
			start := strings.IndexByte(field, '<')
			if start < 0 {
				break
			}
			end := strings.IndexByte(field[start:], '>')
			if end < 0 {
				break
			}
			target := field[start+1 : start+end]
			var rel string
			rel, field = linkParams(field[start+end+1:])
			for r := range strings.FieldsSeq(rel) {
				found = append(found, linkValue{target: target, rel: r})
			}
		}
	}
	return found
}

// linkParams reads the parameters of one link, up to the comma that ends
// it, and returns its rel and the rest of the field.
func linkParams(s string) (rel, rest string) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] == ',' {
			return rel, strings.TrimPrefix(s, ",")
		}
		if s[0] != ';' {
			// Not a parameter: skip to the next link.
			if i := strings.IndexByte(s, ','); i >= 0 {
				return rel, s[i+1:]
			}
			return rel, ""
		}
		s = strings.TrimLeft(s[1:], " \t")
		name, value := s, ""
		i := strings.IndexAny(s, "=;,")
		if i < 0 {
			return rel, ""
		}
		name, s = strings.TrimSpace(s[:i]), s[i:]
		if s[0] == '=' {
			s = strings.TrimLeft(s[1:], " \t")
			if strings.HasPrefix(s, `"`) {
				j := 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' {
						j++
					}
					j++
				}
				value, s = s[1:min(j, len(s))], s[min(j+1, len(s)):]
			} else {
				k := strings.IndexAny(s, ";,")
				if k < 0 {
					k = len(s)
				}
				value, s = strings.TrimSpace(s[:k]), s[k:]
			}
		}
		if strings.EqualFold(name, "rel") && rel == "" {
			rel = value // RFC 8288: only the first rel counts
		}
	}
}

// varies reports whether the Vary fields in h already name field (or *).
func varies(h http.Header, field string) bool {
	for _, v := range h.Values(respond.HeaderVary) {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			if name == "*" || strings.EqualFold(name, field) {
				return true
			}
		}
	}
	return false
}
