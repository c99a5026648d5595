package discovery

import (
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
)

// serveUnlessSiteHasOne leaves an address where the site's own file wins
// (/sitemap.xml, /sitemap.md, /.well-known/security.txt) to the site when
// it has that file: the request goes to the next handler, and its answer
// reaches the client unchanged, streamed, unless it says the site has no
// such file (a 404 or 410, no answer at all, or a single-page app's HTML
// page), in which case the module's is served. The module's sitemap is
// always at /sitemap-discovery.xml as well, which robots.txt names.
func (h *Handler) serveUnlessSiteHasOne(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler) error {
	before := w.Header().Clone()
	probe := &siteFileProbe{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
	// A copy, as rewrites behind the module (a single-page app's
	// try_files) change the request they are given.
	err := next.ServeHTTP(probe, r.Clone(r.Context()))
	var he caddyhttp.HandlerError
	switch {
	case errors.As(err, &he) && (he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusGone):
		// file_server's answer for a missing file
	case err != nil:
		return err
	case probe.written && !probe.none:
		return nil // the site's own file, passed on
	}
	restoreHeader(w.Header(), before)
	service.Serve(w, r, m)
	return nil
}

// siteFileProbe passes the site's answer through, unless its status line
// says the site has no such file: then it writes nothing and drops the body
// (an app's HTML page, of any size, is never held in memory).
type siteFileProbe struct {
	*caddyhttp.ResponseWriterWrapper
	written, none bool
}

// WriteHeader decides on the final status; informational answers are
// dropped, as the final one may yet be the module's.
func (p *siteFileProbe) WriteHeader(status int) {
	if p.written || status < http.StatusOK {
		return
	}
	p.written = true
	mediaType, _, _ := mime.ParseMediaType(p.Header().Get("Content-Type"))
	p.none = status == http.StatusNotFound || status == http.StatusGone ||
		status == http.StatusOK && mediaType == "text/html"
	if !p.none {
		p.ResponseWriterWrapper.WriteHeader(status)
	}
}

func (p *siteFileProbe) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	if p.none {
		return len(b), nil
	}
	return p.ResponseWriterWrapper.Write(b)
}

func (p *siteFileProbe) ReadFrom(src io.Reader) (int64, error) {
	p.WriteHeader(http.StatusOK)
	if p.none {
		return io.Copy(io.Discard, src)
	}
	return p.ResponseWriterWrapper.ReadFrom(src)
}

// FlushError flushes only an answer that is passed on.
func (p *siteFileProbe) FlushError() error {
	if p.WriteHeader(http.StatusOK); p.none {
		return nil
	}
	return http.NewResponseController(p.ResponseWriterWrapper).Flush()
}
