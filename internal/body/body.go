// Package body reads the bodies of the requests the module answers, within
// bounds of size and time, and sees to it that a body the module does not
// read to its end (a refusal, a 405, a 413, a late body) can neither hold
// the connection nor reset it under the answer.
//
// Imports from the module: internal/problem, internal/respond.
package body

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// MaxSize caps the body of every POST endpoint.
const MaxSize = 64 << 10

// ErrTimeout is the error of a body that did not arrive in time.
var ErrTimeout = errors.New("the request body did not arrive in time")

// The bounds of the lingering read (see bodyGuard.linger). A refused body
// of up to 4 MiB (64 times the largest the module accepts), sent at full
// speed, is read to its end and the connection ends with a FIN; the answer
// to a larger one leads the reset by 4 MiB or a second, time for a client
// busy sending to read it. A client that trickles its body holds its
// connection for that second and no longer.
const (
	LingerBytes = 4 << 20
	LingerTime  = time.Second
)

// Guard returns the writer to answer r with, and a function to call
// once the answer is written. When r has a body, the writer makes sure,
// before the answer starts, that a body the module did not read to its end
// (a refusal, a 405, a 413, a late body) cannot hold the connection:
// HTTP/1 would otherwise read what is left of it, up to 256 KiB and at
// whatever pace the client sends it, before answering (or, told to close
// the connection, after answering), under no deadline but the server's.
// The function then reads what is left within bounds, so that closing the
// connection does not reset it under the answer. HTTP/2 and HTTP/3 reset
// the stream instead.
func Guard(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	if r.ContentLength == 0 || r.ProtoMajor != 1 {
		return w, func() {}
	}
	body := &trackedBody{ReadCloser: r.Body}
	r.Body = body
	g := &bodyGuard{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, body: body, expectsContinue: r.Header.Get("Expect") != ""}
	return g, g.linger
}

// trackedBody notes whether a request body has been read at all, read to
// its end, or failed. The flags are atomic for readAbandoning, whose read
// may outlive the wait for it.
type trackedBody struct {
	io.ReadCloser
	began, ended, failed atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	b.began.Store(true)
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		b.ended.Store(true)
	case err != nil:
		b.failed.Store(true)
	}
	return n, err
}

// bodyGuard gives up on the rest of an unread body as the answer starts:
// it stops reading it (an expired read deadline makes net/http's drain
// fail at once) and closes the connection after the answer. It watches
// the answer start on Caddy's ResponseWriterWrapper, as Caddy's own
// handlers do.
type bodyGuard struct {
	caddyhttp.ResponseWriterWrapper
	body            *trackedBody
	expectsContinue bool
	started         bool
}

func (w *bodyGuard) start() {
	if w.started {
		return
	}
	w.started = true
	if !w.body.ended.Load() {
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w.ResponseWriter).SetReadDeadline(time.Now())
	}
}

// linger reads and discards what is left of a body the answer did not
// wait for, up to LingerBytes and for at most LingerTime after the answer
// is sent, before the server closes the connection. A socket closed with
// unread data resets the connection (RFC 9293 section 3.6.1), and a client
// still sending its body then loses the answer it has not read yet.
// net/http's own pause before such a close (closeWriteAndWait) does not
// read, and is skipped once the request's Body is replaced, as Caddy and
// Guard do. A body that failed (was late) is not waited for again,
// nor one whose client waits for a 100 Continue it will not get (net/http
// refuses any other expectation before the handler runs).
func (w *bodyGuard) linger() {
	if !w.started || w.body.ended.Load() || w.body.failed.Load() || w.expectsContinue && !w.body.began.Load() {
		return
	}
	rc := http.NewResponseController(w.ResponseWriter)
	if rc.Flush() != nil || rc.SetReadDeadline(time.Now().Add(LingerTime)) != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, w.body, LingerBytes)
	if !w.body.ended.Load() {
		// What is still left, net/http must not wait for either.
		_ = rc.SetReadDeadline(time.Now())
	}
}

func (w *bodyGuard) WriteHeader(status int) {
	w.start()
	w.ResponseWriterWrapper.WriteHeader(status)
}

func (w *bodyGuard) Write(p []byte) (int, error) {
	w.start()
	return w.ResponseWriterWrapper.Write(p)
}

// ReadFrom starts the answer, then keeps the underlying writer's fast
// path; the wrapper's own would skip start.
func (w *bodyGuard) ReadFrom(r io.Reader) (int64, error) {
	w.start()
	return w.ResponseWriterWrapper.ReadFrom(r)
}

func (w *bodyGuard) Flush() {
	w.start()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// ReadWithin reads the body, at most MaxSize bytes, and fails with
// ErrTimeout when it is not complete within timeout.
//
// The deadline is a read deadline set through http.ResponseController: on
// the connection for HTTP/1, on the stream for HTTP/2 and HTTP/3. The
// controller reaches it through every response writer wrapper that has an
// Unwrap method, as Caddy's have, and Caddy's own idle body timeout takes
// it as a ceiling. A writer it cannot reach gets readAbandoning instead.
func ReadWithin(w http.ResponseWriter, r *http.Request, timeout time.Duration) ([]byte, error) {
	if r.ContentLength == 0 {
		// No body (HTTP/1 without a length, HTTP/2 and 3 without DATA):
		// nothing to wait for.
		return nil, nil
	}
	body := http.MaxBytesReader(w, r.Body, MaxSize)
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return readAbandoning(body, timeout)
	}
	b, err := io.ReadAll(body)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, ErrTimeout
	}
	// The deadline is for the body only. net/http clears it itself once
	// an HTTP/1 body ends (it then reads on, to notice a client that
	// leaves, and would cancel the request at the deadline), but a server
	// or wrapper that does not must not end the request later.
	_ = rc.SetReadDeadline(time.Time{})
	return b, err
}

// readAbandoning is the fallback for a response writer that cannot set a
// read deadline: it reads in a goroutine and stops waiting at the deadline,
// so the client still gets its answer on time. The abandoned read ends when
// the server ends the request: at once on HTTP/2 and HTTP/3, which reset the
// stream; on HTTP/1 when the connection ends, under the server's own
// timeouts (Caddy's read_body, or read_body_idle for a stalled client).
func readAbandoning(body io.Reader, timeout time.Duration) ([]byte, error) {
	type result struct {
		body []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(body)
		done <- result{b, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.body, res.err
	case <-timer.C:
		return nil, ErrTimeout
	}
}

// Read reads a POST body of at most MaxSize bytes, within timeout, of
// media type want when want is not empty. It writes the problem (its type
// under base) and returns ok false when the body is late, too large or of
// another type.
func Read(w http.ResponseWriter, r *http.Request, base string, timeout time.Duration, want string) (data []byte, ok bool) {
	if r.ContentLength > MaxSize {
		respond.Problem(w, r, problem.New(base, problem.PayloadTooLarge, r, fmt.Sprintf("The body is %d bytes; this endpoint accepts at most %d.", r.ContentLength, MaxSize)))
		return nil, false
	}
	start := time.Now()
	data, err := ReadWithin(w, r, timeout)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, ErrTimeout):
		// A client this slow loses its connection, on HTTP/2 too (the
		// server turns this into a GOAWAY: streams in flight finish, new
		// ones go to a new connection). The time is the one measured: a
		// shorter server deadline (Caddy's read_body) may have ended the
		// read before the module's.
		w.Header().Set(respond.HeaderConnection, "close")
		waited := time.Since(start).Round(100 * time.Millisecond)
		respond.Problem(w, r, problem.New(base, problem.RequestTimeout, r, fmt.Sprintf("The body did not arrive completely within %s.", waited)))
		return nil, false
	case errors.As(err, &tooLarge):
		respond.Problem(w, r, problem.New(base, problem.PayloadTooLarge, r, fmt.Sprintf("The body is larger than %d bytes.", MaxSize)))
		return nil, false
	case err != nil:
		p := problem.New(base, problem.BadRequest, r, "The body could not be read completely.")
		respond.Problem(w, r, p)
		return nil, false
	}
	if len(r.Header["Content-Type"]) > 1 {
		respond.Problem(w, r, problem.New(base, problem.BadRequest, r, "The request has more than one Content-Type header."))
		return nil, false
	}
	if want != "" && (len(data) > 0 || r.Header.Get("Content-Type") != "") {
		mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mediaType != want {
			p := problem.New(base, problem.UnsupportedMediaType, r, "The body's Content-Type is "+problem.Quote(r.Header.Get("Content-Type"))+"; this endpoint accepts "+want+".")
			p.Hint = "Send the body as " + want + "."
			respond.Problem(w, r, p)
			return nil, false
		}
	}
	return data, true
}
