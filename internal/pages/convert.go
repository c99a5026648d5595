package pages

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/negotiate"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// Config is what the converter reads of the module's configuration.
type Config struct {
	// MarkdownByUserAgent answers the pages' Markdown to known AI agents
	// whose Accept names no HTML type, too.
	MarkdownByUserAgent bool
	// Signal and Usage are the site's preferences, in the Content-Signal
	// and Content-Usage vocabularies.
	Signal, Usage string
	// Now is the clock.
	Now func() time.Time
	// Metrics counts the conversions; nil counts nothing.
	Metrics *metrics.Site
	// OnConvertFailure, if set, is told when a page could not be converted.
	OnConvertFailure func(page string, err error)
	// Guarded reports whether path may be the page of a post the owner
	// keeps off every surface.
	Guarded func(path string) bool
}

// wantsMarkdown reports whether r asks for Markdown (see
// negotiate.WantsMarkdown).
func (c *Config) wantsMarkdown(r *http.Request) bool {
	return negotiate.WantsMarkdown(r, c.MarkdownByUserAgent)
}

// guarded reports whether path may be a guarded post's page.
func (c *Config) guarded(path string) bool { return c.Guarded(path) }

// Header names of the site's answers that the Markdown answer reads or
// leaves out.
const (
	headerLastModified = "Last-Modified"
	headerSetCookie    = "Set-Cookie"
)

// SiteAccept is the Accept of the request the site is asked for a page
// with: its HTML, whatever the client asked for.
const SiteAccept = "text/html, application/xhtml+xml;q=0.9, */*;q=0.8"

// htmlOnlyHeaders describe the site's HTML and not its Markdown: they are
// left out of the Markdown answer, which has its own.
var htmlOnlyHeaders = []string{
	respond.HeaderContentLength, respond.HeaderContentType, respond.HeaderContentEnc, respond.HeaderETag,
	"Content-Range", "Accept-Ranges", "Content-Disposition", "Content-Location",
	"Content-Md5", "Digest", "Content-Digest", "Repr-Digest",
}

// Converter answers the site's other pages as Markdown: it asks the
// site for a page's HTML and converts it, keeping the Markdown.
type Converter struct {
	cfg *Config
	// Kept keeps the pages as Markdown; Slots bounds the conversions
	// running at once.
	Kept  *convert.Cache
	Slots chan struct{}
}

// NewConverter returns the converter of the site's pages under cfg.
func NewConverter(cfg *Config) *Converter {
	return &Converter{cfg: cfg, Kept: convert.NewCache(convert.Budget), Slots: make(chan struct{}, convert.Slots())}
}

// Converts reports whether r, a request for a page of the site's that
// the content does not name, is answered with the page converted to
// Markdown: Markdown is on (pc is not nil), r is a GET or HEAD that wants
// Markdown (as wantsMarkdown decides for the pages the content names),
// and its path is not guarded, however it is spelled.
func (pc *Converter) Converts(r *http.Request) bool {
	if pc == nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	// A protocol upgrade (a WebSocket) is no page to read.
	return r.Header.Get("Upgrade") == "" && pc.cfg.wantsMarkdown(r) &&
		!pc.cfg.guarded(r.URL.Path) && !pc.cfg.guarded(CanonicalPath(r.URL.Path))
}

// CanonicalPath is the path of the page p names, cleaned as Caddy's
// file_server cleans it (caddyhttp.SanitizedPathJoin): dot segments
// resolved and repeated slashes merged, a trailing slash kept. //p, /./p
// and /x/../p are all /p; /%70 is too, as p is the decoded path.
func CanonicalPath(p string) string {
	clean := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean
}

// pageAddress is the address of the page at the canonical path p under
// base, escaped as a URL's path is.
func pageAddress(base, p string) string {
	return base + (&url.URL{Path: p}).EscapedPath()
}

// Serve answers r, for which Converts holds, with the site's page at
// base as Markdown. It asks site (the handlers behind the module) for the
// page as HTML, in full, and converts a 200 text/html answer of at most
// convert.MaxHTML bytes, unpacked from gzip if the site sent it so. The
// Markdown is kept under the page's canonical address (see variantKey), and
// served again, without converting, for an answer the site marks as the
// same HTML by its strong ETag or whose bytes are the same. Any other
// answer, a page that cannot be converted within its bounds, and a page
// that would hold more of convert.HeldBudget than is left, reach the
// client as the site gave them, encoding included. site's error is
// returned as site returned it; dropped reports that the site had answered
// when it failed, and that its answer was held and not written: its
// headers are left in w's.
func (pc *Converter) Serve(w http.ResponseWriter, r *http.Request, base string, site func(http.ResponseWriter, *http.Request) error) (dropped bool, err error) {
	// The page is its canonical path: a query the site ignores (file_server
	// does) finds the same page kept, and one it answers differently
	// changes the HTML.
	page := pageAddress(base, CanonicalPath(r.URL.Path))
	// What is kept at the page itself: its Markdown when the site's answer
	// is the same for everyone, or its failure.
	kept := pc.Kept.Get(page)
	if kept != nil && kept.Failed() && !pc.cfg.Now().Before(kept.Retry) {
		kept = nil // time to try again
	}
	sw := &siteWriter{ResponseWriter: w, kept: kept, head: r.Method == http.MethodHead}
	defer sw.free()
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
	html, ok := sw.html()
	if !ok {
		sw.release() // too large, or not the gzip it says: as the site sent it
		return false, nil
	}
	h := w.Header()
	sum := sha256.Sum256(html)
	key, shared := variantKey(page, r.Header, h)
	var md *convert.Kept
	result := "converted"
	if !convert.NoIndex(strings.Join(h.Values("X-Robots-Tag"), ",")) {
		for _, k := range []*convert.Kept{kept, pc.keptVariant(page, key)} {
			if k != nil && k.SameHTML(sum, h) {
				md, result = k, "reused"
				break
			}
		}
	}
	if md == nil {
		md = pc.convert(r, h, page, html, sum, shared && key != "", key)
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

// keptVariant is what is kept under key, a variant of page, or nil.
func (pc *Converter) keptVariant(page, key string) *convert.Kept {
	if key == "" || key == page {
		return nil
	}
	return pc.Kept.Get(key)
}

// Bounds of the variants of a page kept: the request fields a site's
// answer may vary on beyond those the module asks the site with, and the
// length of each field's value.
const (
	maxVaryFields = 4
	maxVaryValue  = 256
)

// variantKey is the key the Markdown of the site's answer to a request
// with header asked is kept under, the answer having header answer: the
// page's address when the answer varies on nothing but the request's
// Accept and Accept-Encoding (which the module sets itself when it asks
// the site), else the address and the values of the fields it varies on
// (Vary: Accept-Language keeps a Markdown per language). shared is false
// when the answer varies on everything (Vary: *), or on more fields or
// longer values than the bounds: it is converted for this request and not
// kept.
func variantKey(page string, asked, answer http.Header) (key string, shared bool) {
	var names []string
	for _, v := range answer.Values("Vary") {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			switch name {
			case "", "accept", "accept-encoding":
				continue
			case "*":
				return "", false
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return page, true
	}
	if len(names) > maxVaryFields {
		return "", false
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(page)
	for _, name := range names {
		value := strings.Join(asked.Values(name), ", ")
		if len(value) > maxVaryValue {
			return "", false
		}
		b.WriteString("\n" + name + ": " + value)
	}
	return b.String(), true
}

// siteRequest is the request the site is asked for the page with: r as a
// GET for the HTML in full, without the client's conditions (they are on
// the Markdown's validators) and, when the page's Markdown is kept with the
// site's strong ETag, conditional on that ETag: a 304 then says that this
// client's HTML is that HTML. It is never conditional on a date, which two
// variants of a page share. The site is asked for gzip when the client
// takes it, so that an answer not converted reaches the client compressed
// as the site sent it, and for the identity otherwise.
func siteRequest(r *http.Request, kept *convert.Kept) *http.Request {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	h := get.Header
	for _, name := range []string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"} {
		delete(h, name)
	}
	h.Set("Accept", SiteAccept)
	encoding := "identity"
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		encoding = "gzip"
	}
	h.Set("Accept-Encoding", encoding)
	if kept != nil && !kept.Failed() && kept.ETag != "" {
		h.Set("If-None-Match", kept.ETag)
	}
	return get
}

// acceptsGzip reports whether Accept-Encoding values take gzip: named, or
// by *, with a quality above zero.
func acceptsGzip(values []string) bool {
	star, named := false, false
	for _, v := range values {
		for coding := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(coding, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "x-gzip" && name != "*" {
				continue
			}
			ok := true
			if q, found := strings.CutPrefix(strings.ReplaceAll(strings.ToLower(params), " ", ""), "q="); found {
				f, err := strconv.ParseFloat(q, 64)
				ok = err == nil && f > 0
			}
			if name == "*" {
				star = ok
				continue
			}
			if !ok {
				return false
			}
			named = true
		}
	}
	return named || star
}

// ConvertPage converts body, an HTML page served as contentType at
// pageURL, to Markdown (see convert.Page) under YAML front matter: its
// title, description, address and updated, when given, as a twin has.
func ConvertPage(ctx context.Context, body []byte, contentType, pageURL, updated string) ([]byte, error) {
	page, err := convert.Page(ctx, body, contentType, pageURL)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(page.Markdown) + 512)
	WriteFrontMatter(&b, TwinFacts{Title: page.Title, Description: page.Description, URL: pageURL, Updated: updated})
	b.Write(page.Markdown)
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// convert makes the Markdown of html, the site's answer at page with
// header answer, and keeps it under key when keep holds and the answer may
// be shared (see shareable). It returns nil when no conversion slot was
// free in time or the client went away, and a failed page, kept at page
// until convert.Retry has passed, when the HTML could not be converted.
func (pc *Converter) convert(r *http.Request, answer http.Header, page string, html []byte, sum [sha256.Size]byte, keep bool, key string) *convert.Kept {
	ctx, cancel := context.WithTimeout(r.Context(), convert.Timeout)
	defer cancel()
	select {
	case pc.Slots <- struct{}{}:
	case <-ctx.Done():
		return nil // busy, not the page's fault: nothing is kept
	}
	p := &convert.Kept{Key: page, ETag: convert.StrongETag(answer.Get(respond.HeaderETag)), Sum: sum,
		ContentType: answer.Get(respond.HeaderContentType), LastModified: answer.Get(headerLastModified)}
	var md []byte
	var err error
	if tags := answer.Values("X-Robots-Tag"); convert.NoIndex(strings.Join(tags, ",")) {
		err = convert.ErrNoIndex
	} else {
		md, err = ConvertPage(ctx, html, p.ContentType, page, updatedOn(p.LastModified))
	}
	<-pc.Slots
	if err != nil {
		if r.Context().Err() != nil {
			return nil
		}
		// Kept at the page whatever the answer: a failure holds nothing of
		// the page, and stands for no other HTML than this one.
		p.Retry = pc.cfg.Now().Add(convert.Retry)
		pc.Kept.Put(p)
		if pc.cfg.OnConvertFailure != nil {
			pc.cfg.OnConvertFailure(page, err)
		}
		return p
	}
	mdSum := sha256.Sum256(md)
	p.Markdown = md
	p.MarkdownETag = `"` + base64.RawURLEncoding.EncodeToString(mdSum[:18]) + `"`
	p.Length = strconv.Itoa(len(md))
	p.Tokens = strconv.Itoa(MarkdownTokens(md))
	if keep && shareable(r.Header, answer) {
		p.Key = key
		pc.Kept.Put(p)
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
func (pc *Converter) writeMarkdown(w http.ResponseWriter, r *http.Request, page string, p *convert.Kept) {
	h := w.Header()
	for _, name := range htmlOnlyHeaders {
		delete(h, name)
	}
	h.Set(respond.HeaderContentType, respond.MediaMarkdown)
	h.Set(respond.HeaderNoSniff, respond.ValueNoSniff)
	addPreferences(h, pc.cfg)
	AddVary(h, pc.cfg.MarkdownByUserAgent)
	h.Add(respond.HeaderLink, "<"+linkTarget.Replace(page)+`>; rel="canonical"`)
	h.Set(respond.HeaderETag, p.MarkdownETag)
	if h.Get(headerLastModified) == "" && p.LastModified != "" {
		// A 304 of the site's carries no Last-Modified beside an ETag.
		h.Set(headerLastModified, p.LastModified)
	}
	h.Set(HeaderMarkdownTokens, p.Tokens)
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
		return EtagMatches(inm, etag)
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
// What it holds it takes from convert.HeldBudget first; free gives it
// back. It has no Unwrap: reaching the client's connection past it (to
// hijack it) would bypass what it decides.
type siteWriter struct {
	http.ResponseWriter
	// kept is the page as kept before the site was asked, or nil.
	kept *convert.Kept
	// head: the client asked with HEAD, so an answer passed on has no body.
	head   bool
	mode   siteMode
	status int
	// held is the answer's body as the site sent it, gzipped when gzipped
	// is set; taken is what held and its unpacked copy took of the budget.
	held    []byte
	gzipped bool
	taken   int
}

// WriteHeader decides on the final status line; informational answers are
// dropped, as the final one may not be passed on.
func (sw *siteWriter) WriteHeader(status int) {
	if sw.mode != siteUnanswered || status < http.StatusOK {
		return
	}
	sw.status = status
	h := sw.Header()
	noindex := convert.NoIndex(strings.Join(h.Values("X-Robots-Tag"), ","))
	if kept := sw.kept; kept != nil && !noindex && kept.SameETag(status, h) {
		if kept.Failed() {
			sw.pass()
		} else {
			sw.mode = siteKept
		}
		return
	}
	mediaType, _, _ := mime.ParseMediaType(h.Get(respond.HeaderContentType))
	length, err := strconv.Atoi(h.Get(respond.HeaderContentLength))
	encoding := strings.ToLower(h.Get(respond.HeaderContentEnc))
	if status == http.StatusOK && (mediaType == "text/html" || mediaType == "application/xhtml+xml") &&
		(encoding == "" || encoding == "gzip" || encoding == "x-gzip") && (err != nil || length <= convert.MaxHTML) {
		sw.gzipped = encoding != ""
		if err == nil && length > 0 && !sw.room(length) {
			sw.pass() // the budget is spent: as the site sent it
			return
		}
		sw.mode = siteHeld
		return
	}
	sw.pass()
}

// room makes room in held for n more bytes, up to convert.MaxHTML, taking
// them from the budget; false when the answer is too large or the budget
// is spent.
func (sw *siteWriter) room(n int) bool {
	need := len(sw.held) + n
	if need <= cap(sw.held) {
		return true
	}
	if need > convert.MaxHTML {
		return false
	}
	size := min(max(need, 2*cap(sw.held), 32<<10), convert.MaxHTML)
	if !convert.Hold(size - cap(sw.held)) {
		return false
	}
	sw.taken += size - cap(sw.held)
	grown := make([]byte, len(sw.held), size)
	copy(grown, sw.held)
	sw.held = grown
	return true
}

// html is the HTML held, unpacked when the site gzipped it; false when it
// unpacks to more than convert.MaxHTML, more than the budget has left, or
// is not gzip at all.
func (sw *siteWriter) html() ([]byte, bool) {
	if !sw.gzipped {
		return sw.held, true
	}
	zr, err := gzip.NewReader(bytes.NewReader(sw.held))
	if err != nil {
		return nil, false
	}
	// One byte past the limit tells a page too large to convert; the
	// budget is taken as the page unpacks.
	var out []byte
	for {
		if len(out) == cap(out) {
			size := min(max(2*cap(out), 64<<10), convert.MaxHTML+1)
			if size == cap(out) || !convert.Hold(size-cap(out)) {
				return nil, false
			}
			sw.taken += size - cap(out)
			out = append(make([]byte, 0, size), out...)
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		switch {
		case len(out) > convert.MaxHTML:
			return nil, false
		case err == io.EOF:
			return out, true
		case err != nil:
			return nil, false
		}
	}
}

// free gives back what the answer took of the budget.
func (sw *siteWriter) free() {
	convert.Release(sw.taken)
	sw.taken = 0
}

// pass sends the site's status line: from now on its answer goes to the
// client as it is.
func (sw *siteWriter) pass() {
	sw.mode = sitePassed
	sw.ResponseWriter.WriteHeader(sw.status)
}

// release passes on the answer held so far, as the site sent it, and
// whatever follows.
func (sw *siteWriter) release() {
	sw.pass()
	if !sw.head {
		_, _ = sw.ResponseWriter.Write(sw.held)
	}
	sw.held = nil
}

func (sw *siteWriter) Write(b []byte) (int, error) {
	if sw.mode == siteUnanswered {
		sw.WriteHeader(http.StatusOK)
	}
	switch sw.mode {
	case siteHeld:
		if sw.room(len(b)) {
			sw.held = append(sw.held, b...)
			return len(b), nil
		}
		sw.release() // too large to convert, or the budget is spent
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
		for {
			if len(sw.held) == convert.MaxHTML {
				// One byte past the limit tells a page too large to convert.
				var one [1]byte
				read, err := io.ReadFull(src, one[:])
				if read == 0 {
					if err == io.EOF {
						err = nil
					}
					return n, err
				}
				n++
				sw.release()
				if !sw.head {
					_, _ = sw.ResponseWriter.Write(one[:])
				}
				break
			}
			if !sw.room(1) {
				sw.release() // the budget is spent
				break
			}
			read, err := src.Read(sw.held[len(sw.held):cap(sw.held)])
			sw.held = sw.held[:len(sw.held)+read]
			n += int64(read)
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
		}
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
