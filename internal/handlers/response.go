package handlers

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// Header values every owned response carries.
const (
	valueExposed      = "API-Version, RateLimit, RateLimit-Policy, Retry-After, ETag, Link, Location, WWW-Authenticate, Deprecation, Sunset"
	valuePreflightMax = "86400"
	valueAllowed      = "Accept, Authorization, Content-Type, If-None-Match, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID"
)

// fields sets precomputed header values on one response. It copies them
// into an array of the response's own, one allocation for all: middleware
// such as Caddy's header directive edits values in place, and a slice
// shared between responses would carry one response's edit into all. Keys
// must be canonical (respond's header constants).
type fields struct {
	h   http.Header
	buf []string
	// vary names the request fields that chose the document served, a
	// site page's Markdown, negotiated: Accept, and User-Agent when agents
	// are told by it (see Config.pageVary); empty otherwise.
	vary string
}

func newFields(h http.Header) *fields {
	return &fields{h: h, buf: make([]string, 0, 16)}
}

func (f *fields) set(key, value string) {
	f.buf = append(f.buf, value)
	n := len(f.buf)
	f.h[key] = f.buf[n-1 : n : n]
}

// document is one precomputed response body with its headers.
type document struct {
	body         []byte
	contentType  string
	etag         string
	cacheControl string
	headers      [][2]string // extra headers, such as the portal's CSP
	// encodings are the compressed forms, preferred first, made on first
	// use; the response varies on Accept-Encoding when there are any.
	encodings     []encoding
	contentLength string
	// owner is the request-derived rendition the document is cached in
	// (nil for the configured base URL's): its compressed forms are made in
	// one of the cache's render slots and accounted in its budget.
	owner *rendition
}

// newDocument makes the document of route rt with body. A document of a
// request-derived base URL (hosted) is cached privately only.
func newDocument(rt *route, body []byte, hosted bool) *document {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	cacheControl := rt.CacheControl
	if hosted {
		cacheControl = privateCache(cacheControl)
	}
	return &document{
		body:          body,
		contentType:   rt.MediaType,
		etag:          etag,
		cacheControl:  cacheControl,
		encodings:     newEncodings(body),
		contentLength: strconv.Itoa(len(body)),
	}
}

// withHeaders gives doc the extra headers its route has for l's base URL.
func (doc *document) withHeaders(rt *route, l links) *document {
	if rt.headers != nil {
		doc.headers = rt.headers(l)
	}
	return doc
}

// serveDocument writes a precomputed document, or 304 when the client's
// If-None-Match names its ETag. A compressed form is chosen when the client
// accepts it; its ETag differs from the identity form's, as RFC 9110 asks
// of representations.
func serveDocument(f *fields, w http.ResponseWriter, r *http.Request, doc *document) {
	f.set(respond.HeaderContentType, doc.contentType)
	f.set(respond.HeaderCacheControl, doc.cacheControl)
	for _, kv := range doc.headers {
		f.set(kv[0], kv[1])
	}
	body, etag, length := doc.body, doc.etag, doc.contentLength
	switch {
	case len(doc.encodings) > 0 && f.vary != "":
		f.set(respond.HeaderVary, withEncoding(f.vary))
	case len(doc.encodings) > 0:
		f.set(respond.HeaderVary, "Accept-Encoding")
	case f.vary != "":
		f.set(respond.HeaderVary, f.vary)
	}
	if len(doc.encodings) > 0 {
		if ae := r.Header.Get("Accept-Encoding"); ae != "" {
			for i := range doc.encodings {
				if !acceptsEncoding(ae, doc.encodings[i].name) {
					continue
				}
				if e := doc.encodings[i].get(i, doc); e != nil {
					body, etag, length = e.body, e.etag, e.contentLength
					f.set(respond.HeaderContentEnc, e.name)
					break
				}
			}
		}
	}
	f.set(respond.HeaderETag, etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && pages.EtagMatches(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	f.set(respond.HeaderContentLength, length)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// withEncoding is the Vary value vary with Accept-Encoding added, the
// values pageVary gives made without allocating.
func withEncoding(vary string) string {
	switch vary {
	case pages.VaryAccept:
		return pages.VaryAccept + ", Accept-Encoding"
	case pages.VaryAcceptUserAgent:
		return pages.VaryAcceptUserAgent + ", Accept-Encoding"
	}
	return vary + ", Accept-Encoding"
}
