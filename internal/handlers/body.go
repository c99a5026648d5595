package handlers

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

// readBody reads a POST body of at most body.MaxSize bytes, within the body
// timeout, of media type want when want is not empty. It writes the problem
// and returns ok false when the body is late, too large or of another type.
func (s *Service) readBody(w http.ResponseWriter, r *http.Request, rd *rendition, want string) (data []byte, ok bool) {
	if r.ContentLength > body.MaxSize {
		writeProblem(w, r, problem.New(rd.base, problem.PayloadTooLarge, r, fmt.Sprintf("The body is %d bytes; this endpoint accepts at most %d.", r.ContentLength, body.MaxSize)))
		return nil, false
	}
	start := time.Now()
	data, err := body.ReadWithin(w, r, s.cfg.BodyTimeout)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, body.ErrTimeout):
		// A client this slow loses its connection, on HTTP/2 too (the
		// server turns this into a GOAWAY: streams in flight finish, new
		// ones go to a new connection). The time is the one measured: a
		// shorter server deadline (Caddy's read_body) may have ended the
		// read before the module's.
		w.Header().Set(headerConnection, "close")
		waited := time.Since(start).Round(100 * time.Millisecond)
		writeProblem(w, r, problem.New(rd.base, problem.RequestTimeout, r, fmt.Sprintf("The body did not arrive completely within %s.", waited)))
		return nil, false
	case errors.As(err, &tooLarge):
		writeProblem(w, r, problem.New(rd.base, problem.PayloadTooLarge, r, fmt.Sprintf("The body is larger than %d bytes.", body.MaxSize)))
		return nil, false
	case err != nil:
		p := problem.New(rd.base, problem.BadRequest, r, "The body could not be read completely.")
		writeProblem(w, r, p)
		return nil, false
	}
	if len(r.Header["Content-Type"]) > 1 {
		writeProblem(w, r, problem.New(rd.base, problem.BadRequest, r, "The request has more than one Content-Type header."))
		return nil, false
	}
	if want != "" && (len(data) > 0 || r.Header.Get("Content-Type") != "") {
		mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mediaType != want {
			p := problem.New(rd.base, problem.UnsupportedMediaType, r, "The body's Content-Type is "+problem.Quote(r.Header.Get("Content-Type"))+"; this endpoint accepts "+want+".")
			p.Hint = "Send the body as " + want + "."
			writeProblem(w, r, p)
			return nil, false
		}
	}
	return data, true
}
