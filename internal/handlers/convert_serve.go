package handlers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// ErrNothingToConvert is given to Config.OnConvertFailure for a page with
// no text once converted (an app's empty shell): its HTML is served, as it
// says more than an empty Markdown document would.
var ErrNothingToConvert = convert.ErrNoText

// ErrNoIndex is the failure of a page the site keeps out of indexes.
var ErrNoIndex = convert.ErrNoIndex

// Header names of the site's answers that the Markdown answer reads or
// leaves out.
const (
	headerLastModified = "Last-Modified"
	headerSetCookie    = "Set-Cookie"
)

// siteAccept is the Accept of the request the site is asked for a page
// with: its HTML, whatever the client asked for.
const siteAccept = "text/html, application/xhtml+xml;q=0.9, */*;q=0.8"

// htmlOnlyHeaders describe the site's HTML and not its Markdown: they are
// left out of the Markdown answer, which has its own.
var htmlOnlyHeaders = []string{
	respond.HeaderContentLength, respond.HeaderContentType, respond.HeaderContentEnc, respond.HeaderETag,
	"Content-Range", "Accept-Ranges", "Content-Disposition", "Content-Location",
	"Content-Md5", "Digest", "Content-Digest", "Repr-Digest",
}

// pageConverter answers the site's other pages as Markdown: it asks the
// site for a page's HTML and converts it, keeping the Markdown.
type pageConverter struct {
	cfg *Config
	// kept keeps the pages as Markdown; slots bounds the conversions
	// running at once.
	kept  *convert.Cache
	slots chan struct{}
}

func newPageConverter(cfg *Config) *pageConverter {
	return &pageConverter{cfg: cfg, kept: convert.NewCache(convert.Budget), slots: make(chan struct{}, convert.Slots())}
}

// converts reports whether r, a request for a page of the site's that
// the content does not name, is answered with the page converted to
// Markdown: Markdown is on (pc is not nil), r is a GET or HEAD that wants
// Markdown (as wantsMarkdown decides for the pages the content names),
// and its path is not guarded.
func (pc *pageConverter) converts(r *http.Request) bool {
	if pc == nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	// A protocol upgrade (a WebSocket) is no page to read.
	return r.Header.Get("Upgrade") == "" && pc.cfg.wantsMarkdown(r) && !pc.cfg.guarded(r.URL.Path)
}

// serve answers r, for which converts holds, with the site's page at
// base as Markdown. It asks site (the handlers behind the module) for the
// page as HTML, in full and without compression, and converts a 200
// text/html answer of at most convert.MaxHTML bytes; the Markdown is kept
// (see convertCache), and while the site's answer carries the same
// validator it is served again without converting. Any other answer, and
// any page that cannot be converted within convert.Timeout, reaches the
// client as the site gave it. site's error is returned as site returned it;
// dropped reports that the site had answered when it failed, and that its
// answer was held and not written: its headers are left in w's.
func (pc *pageConverter) serve(w http.ResponseWriter, r *http.Request, base string, site func(http.ResponseWriter, *http.Request) error) (dropped bool, err error) {
	// The page is its path: a query the site ignores (file_server does)
	// finds the same page kept, and one it answers differently changes the
	// validator.
	page := base + r.URL.EscapedPath()
	kept := pc.kept.Get(page)
	if kept != nil && kept.Failed() && !pc.cfg.Now().Before(kept.Retry) {
		kept = nil // time to try again
	}
	sw := &siteWriter{ResponseWriter: w, kept: kept, head: r.Method == http.MethodHead}
	err = site(sw, siteRequest(r, kept))
	switch {
	case sw.mode == siteUnanswered || sw.mode == sitePassed:
		return false, err
	case err != nil:
		return true, err
	case sw.mode == siteKept:
		pc.cfg.Metrics.Conversion("reused")
		pc.writeMarkdown(w, r, page, kept)
		return false, nil
	}
	// The site's HTML, whole, in sw.held.
	html := sw.held.Bytes()
	var sum [sha256.Size]byte
	h := w.Header()
	var md *convert.Kept
	result := "converted"
	if h.Get(respond.HeaderETag) == "" && h.Get(headerLastModified) == "" {
		sum = sha256.Sum256(html)
		if kept != nil && kept.ETag == "" && kept.LastModified == "" && kept.Sum == sum {
			md, result = kept, "reused"
		}
	}
	if md == nil {
		md = pc.convert(r, h, page, html, sum)
	}
	if md == nil || md.Failed() {
		pc.cfg.Metrics.Conversion("failed")
		sw.release()
		return false, nil
	}
	pc.cfg.Metrics.Conversion(result)
	pc.writeMarkdown(w, r, page, md)
	return false, nil
}

// siteRequest is the request the site is asked for the page with: r as a
// GET for the HTML in full, without compression or the client's
// conditions (they are on the Markdown's validators), and, when the page's
// Markdown is kept, conditional on the site's validator of the HTML it was
// made from.
func siteRequest(r *http.Request, kept *convert.Kept) *http.Request {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	h := get.Header
	for _, name := range []string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range", "Accept-Encoding"} {
		delete(h, name)
	}
	h.Set("Accept", siteAccept)
	if kept != nil && !kept.Failed() {
		switch {
		case kept.ETag != "":
			h.Set("If-None-Match", kept.ETag)
		case kept.LastModified != "":
			h.Set("If-Modified-Since", kept.LastModified)
		}
	}
	return get
}

// convertPage converts body, an HTML page served as contentType at
// pageURL, to Markdown (see convert.Page) under YAML front matter: its
// title, description, address and updated, when given, as a twin has.
func convertPage(ctx context.Context, body []byte, contentType, pageURL, updated string) ([]byte, error) {
	page, err := convert.Page(ctx, body, contentType, pageURL)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(page.Markdown) + 512)
	writeFrontMatter(&b, twinFacts{title: page.Title, description: page.Description, url: pageURL, updated: updated})
	b.Write(page.Markdown)
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// convert makes the Markdown of html, the site's answer at page with
// header answer, and keeps it when the answer may be shared. It returns
// nil when no conversion slot was free in time or the client went away,
// and a failed page, kept until convert.Retry has passed, when the HTML
// could not be converted.
func (pc *pageConverter) convert(r *http.Request, answer http.Header, page string, html []byte, sum [sha256.Size]byte) *convert.Kept {
	ctx, cancel := context.WithTimeout(r.Context(), convert.Timeout)
	defer cancel()
	select {
	case pc.slots <- struct{}{}:
	case <-ctx.Done():
		return nil // busy, not the page's fault: nothing is kept
	}
	p := &convert.Kept{Key: page, ETag: answer.Get(respond.HeaderETag), LastModified: answer.Get(headerLastModified), Sum: sum}
	var md []byte
	var err error
	if tags := answer.Values("X-Robots-Tag"); convert.NoIndex(strings.Join(tags, ",")) {
		err = convert.ErrNoIndex
	} else {
		md, err = convertPage(ctx, html, answer.Get(respond.HeaderContentType), page, updatedOn(p.LastModified))
	}
	<-pc.slots
	if err != nil {
		if r.Context().Err() != nil {
			return nil
		}
		// Kept whatever the answer: a failure holds nothing of the page.
		p.Retry = pc.cfg.Now().Add(convert.Retry)
		pc.kept.Put(p)
		if pc.cfg.OnConvertFailure != nil {
			pc.cfg.OnConvertFailure(page, err)
		}
		return p
	}
	mdSum := sha256.Sum256(md)
	p.Markdown = md
	p.MarkdownETag = `"` + base64.RawURLEncoding.EncodeToString(mdSum[:18]) + `"`
	p.Length = strconv.Itoa(len(md))
	p.Tokens = strconv.Itoa(markdownTokens(md))
	if shareable(r.Header, answer) {
		pc.kept.Put(p)
	}
	return p
}

// shareable reports whether the site's answer to a request with header
// asked, which came with header answer, is the same for every client and
// so may be kept: not an answer to a request with credentials or
// cookies, nor one that sets a cookie or that the site keeps out of
// shared caches.
func shareable(asked, answer http.Header) bool {
	if asked.Get("Authorization") != "" || asked.Get("Cookie") != "" || answer.Get(headerSetCookie) != "" {
		return false
	}
	for _, v := range answer.Values(respond.HeaderCacheControl) {
		for directive := range strings.SplitSeq(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(directive), "=")
			if strings.EqualFold(name, "private") || strings.EqualFold(name, "no-store") {
				return false
			}
		}
	}
	return true
}

// updatedOn is the day of an HTTP date, as the front matter's
// last_updated gives it, or "".
func updatedOn(httpDate string) string {
	if httpDate == "" {
		return ""
	}
	t, err := http.ParseTime(httpDate)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// linkTarget keeps a URL from ending a Link value's <…> early.
var linkTarget = strings.NewReplacer("<", "%3C", ">", "%3E", " ", "%20", `"`, "%22")

// writeMarkdown answers r with p, the page as Markdown: the site's headers
// stay, but those that describe its HTML, and the Markdown's own are set;
// 304 when the client's conditions name the Markdown as it is.
func (pc *pageConverter) writeMarkdown(w http.ResponseWriter, r *http.Request, page string, p *convert.Kept) {
	h := w.Header()
	for _, name := range htmlOnlyHeaders {
		delete(h, name)
	}
	h.Set(respond.HeaderContentType, respond.MediaMarkdown)
	h.Set(respond.HeaderNoSniff, valueNoSniff)
	addPageVary(h, pc.cfg.MarkdownByUserAgent)
	h.Add(respond.HeaderLink, "<"+linkTarget.Replace(page)+`>; rel="canonical"`)
	h.Set(respond.HeaderETag, p.MarkdownETag)
	if h.Get(headerLastModified) == "" && p.LastModified != "" {
		// A 304 of the site's carries no Last-Modified beside an ETag.
		h.Set(headerLastModified, p.LastModified)
	}
	h.Set(headerMarkdownTokens, p.Tokens)
	if notModified(r, p.MarkdownETag, h.Get(headerLastModified)) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set(respond.HeaderContentLength, p.Length)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(p.Markdown)
	}
}

// notModified applies the client's If-None-Match to etag or, without one,
// its If-Modified-Since to lastModified (RFC 9110 section 13.2.2).
func notModified(r *http.Request, etag, lastModified string) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etagMatches(inm, etag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || lastModified == "" {
		return false
	}
	since, err := http.ParseTime(ims)
	if err != nil {
		return false
	}
	modified, err := http.ParseTime(lastModified)
	return err == nil && !modified.After(since)
}

// siteMode is what a siteWriter does with the site's answer.
type siteMode int

const (
	// siteUnanswered: the site has written nothing yet.
	siteUnanswered siteMode = iota
	// sitePassed: the answer goes to the client as the site writes it.
	sitePassed
	// siteHeld: the answer is an HTML page to convert, held whole.
	siteHeld
	// siteKept: the answer says the page is the one kept as Markdown (a
	// 304, or the same validator); its body is dropped.
	siteKept
)

// siteWriter takes the site's answer to a page asked for as Markdown and
// decides, from its status line and headers, whether to hold it for
// converting, to drop it for the Markdown kept, or to pass it on. It
// writes its headers in those of the client's writer, as the site would.
// It has no Unwrap: reaching the client's connection past it (to hijack
// it) would bypass what it decides.
type siteWriter struct {
	http.ResponseWriter
	// kept is the page as kept before the site was asked, or nil.
	kept *convert.Kept
	// head: the client asked with HEAD, so an answer passed on has no body.
	head   bool
	mode   siteMode
	status int
	held   bytes.Buffer
}

// WriteHeader decides on the final status line; informational answers are
// dropped, as the final one may not be passed on.
func (sw *siteWriter) WriteHeader(status int) {
	if sw.mode != siteUnanswered || status < http.StatusOK {
		return
	}
	sw.status = status
	h := sw.Header()
	if kept := sw.kept; kept != nil && kept.Matches(status, h) {
		if kept.Failed() {
			sw.pass()
		} else {
			sw.mode = siteKept
		}
		return
	}
	mediaType, _, _ := mime.ParseMediaType(h.Get(respond.HeaderContentType))
	length, err := strconv.Atoi(h.Get(respond.HeaderContentLength))
	if status == http.StatusOK && (mediaType == "text/html" || mediaType == "application/xhtml+xml") &&
		h.Get(respond.HeaderContentEnc) == "" && (err != nil || length <= convert.MaxHTML) {
		sw.mode = siteHeld
		if err == nil && length > 0 {
			sw.held.Grow(length)
		}
		return
	}
	sw.pass()
}

// pass sends the site's status line: from now on its answer goes to the
// client as it is.
func (sw *siteWriter) pass() {
	sw.mode = sitePassed
	sw.ResponseWriter.WriteHeader(sw.status)
}

// release passes on the answer held so far, and whatever follows.
func (sw *siteWriter) release() {
	sw.pass()
	if !sw.head {
		_, _ = sw.ResponseWriter.Write(sw.held.Bytes())
	}
	sw.held = bytes.Buffer{}
}

func (sw *siteWriter) Write(b []byte) (int, error) {
	if sw.mode == siteUnanswered {
		sw.WriteHeader(http.StatusOK)
	}
	switch sw.mode {
	case siteHeld:
		if sw.held.Len()+len(b) <= convert.MaxHTML {
			return sw.held.Write(b)
		}
		sw.release() // too large to convert
	case siteKept:
		return len(b), nil
	}
	if sw.head {
		return len(b), nil
	}
	return sw.ResponseWriter.Write(b)
}

// ReadFrom keeps the client's writer's fast path (sendfile) for an answer
// passed on.
func (sw *siteWriter) ReadFrom(src io.Reader) (int64, error) {
	if sw.mode == siteUnanswered {
		sw.WriteHeader(http.StatusOK)
	}
	var n int64
	switch sw.mode {
	case siteHeld:
		// One byte past the limit tells a page too large to convert.
		read, err := sw.held.ReadFrom(io.LimitReader(src, int64(convert.MaxHTML+1-sw.held.Len())))
		if err != nil || sw.held.Len() <= convert.MaxHTML {
			return read, err
		}
		n = read
		sw.release()
	case siteKept:
		return io.Copy(io.Discard, src)
	}
	if sw.head {
		m, err := io.Copy(io.Discard, src)
		return n + m, err
	}
	m, err := io.Copy(sw.ResponseWriter, src)
	return n + m, err
}

// FlushError flushes an answer passed on; one held or dropped is written
// whole when the site is done.
func (sw *siteWriter) FlushError() error {
	if sw.mode == siteUnanswered {
		sw.WriteHeader(http.StatusOK)
	}
	if sw.mode != sitePassed {
		return nil
	}
	return http.NewResponseController(sw.ResponseWriter).Flush()
}

// Flush is FlushError for the site's handlers that ask for http.Flusher.
func (sw *siteWriter) Flush() { _ = sw.FlushError() }
