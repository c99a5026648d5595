package handlers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// within fails the test when f has not returned after limit, instead of
// letting a read that is never cut hang the test.
func within(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %s", limit)
	}
}

// TestBodyTimeoutFallback: where the response writer cannot set a read
// deadline (httptest's recorder cannot), a body that never arrives is still
// answered with the 408 problem at the deadline.
func TestBodyTimeoutFallback(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com", BodyTimeout: 50 * time.Millisecond})
	stalled, writer := io.Pipe()
	t.Cleanup(func() { writer.Close() })
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/agent/register", stalled)
	within(t, 5*time.Second, func() { s.ServeHTTP(rec, req) })

	if rec.Code != http.StatusRequestTimeout || rec.Header().Get("Content-Type") != respond.MediaProblem {
		t.Fatalf("status %d, Content-Type %q, want 408 problem", rec.Code, rec.Header().Get("Content-Type"))
	}
	if got := rec.Header().Get("Connection"); got != "close" {
		t.Errorf("Connection = %q, want close", got)
	}
	var p problem.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.Code != "request_timeout" || p.Type != "https://example.com/developers#error-request-timeout" ||
		!strings.HasPrefix(p.Detail, "The body did not arrive completely within ") {
		t.Errorf("problem %+v", p)
	}

	// A body that arrives is read as before.
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/agent/register", strings.NewReader("")))
	if rec.Code != http.StatusOK {
		t.Errorf("a prompt POST: status %d\n%s", rec.Code, rec.Body)
	}
}

// TestBodyDeadlineOverHTTP1 drives a real net/http server: a trickled body
// is cut at the deadline, an unread one is answered at once, and the
// connection is closed (after at most body.LingerTime); a body read in time leaves no deadline behind to
// cancel the rest of the request.
func TestBodyDeadlineOverHTTP1(t *testing.T) {
	const timeout = 200 * time.Millisecond
	s := newTestService(t, Config{BaseURL: "https://example.com", BodyTimeout: timeout})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow-handler" {
			s.ServeHTTP(w, r)
			return
		}
		body, err := body.ReadWithin(w, r, timeout)
		time.Sleep(3 * timeout) // handling that outlasts the body timeout
		fmt.Fprintf(w, "%d bytes, %v, context %v", len(body), err, r.Context().Err())
	}))
	t.Cleanup(srv.Close)

	// A trickled body is cut at the deadline; one the service does not
	// read is not waited for at all. Either way the connection closes.
	for _, tc := range []struct {
		path          string
		contentLength int
		status        int
	}{
		{"/mcp", 1000, http.StatusRequestTimeout},
		{"/mcp", 100_000, http.StatusRequestEntityTooLarge},
		{"/api/v1/profile", 1000, http.StatusMethodNotAllowed},
	} {
		t.Run(fmt.Sprintf("trickled body, %d", tc.status), func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * timeout))
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", tc.path, tc.contentLength)
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
						if _, err := conn.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("reading the response: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !resp.Close {
				t.Fatalf("status %d, close %v, want %d and the connection closed\n%s", resp.StatusCode, resp.Close, tc.status, body)
			}
			_ = conn.SetDeadline(time.Now().Add(10 * timeout))
			if _, err := br.ReadByte(); err == nil {
				t.Error("the server sent more after the answer")
			} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Error("the server kept the connection open after the answer")
			}
		})
	}

	// A body read in time, or no body, leaves no deadline behind to
	// cancel the handling that follows.
	for _, body := range []string{"hello", ""} {
		t.Run(fmt.Sprintf("no deadline left after %d bytes", len(body)), func(t *testing.T) {
			resp, err := http.Post(srv.URL+"/slow-handler", "text/plain", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if want := fmt.Sprintf("%d bytes, <nil>, context <nil>", len(body)); string(got) != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// TestRefusedBodyLingers drives a real net/http server with bodies the
// service refuses unread, sent at full speed: up to body.LingerBytes, the rest
// of the body is read after the answer and the connection then ends with
// a FIN, not a reset; beyond it the answer still comes first and the
// connection ends within body.LingerTime. A client that waits for 100 Continue
// sends nothing more and is not waited for.
func TestRefusedBodyLingers(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name          string
		contentLength int
		expect        bool
		cleanEnd      bool
		maxEnd        time.Duration
	}{
		{"a body within the bound", 2 << 20, false, true, body.LingerTime},
		{"a body over the bound", 4 * body.LingerBytes, false, false, 2 * body.LingerTime},
		{"a client waiting for 100 Continue", 2 << 20, true, true, body.LingerTime / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(5 * body.LingerTime))
			expect := ""
			if tc.expect {
				expect = "Expect: 100-continue\r\n"
			}
			fmt.Fprintf(conn, "POST /api/v1/profile HTTP/1.1\r\nHost: example.com\r\n%sContent-Length: %d\r\n\r\n", expect, tc.contentLength)
			wrote := make(chan error, 1)
			if tc.expect {
				close(wrote)
			} else {
				go func() {
					_, err := conn.Write(make([]byte, tc.contentLength))
					wrote <- err
				}()
			}
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			answered := time.Now()
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || !resp.Close {
				t.Fatalf("status %d, close %v, want 405 and the connection closed", resp.StatusCode, resp.Close)
			}
			_, err = br.ReadByte()
			ended := time.Since(answered)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the server kept the connection open")
			}
			if tc.cleanEnd && err != io.EOF {
				t.Errorf("the connection ended with %v, want a clean close", err)
			}
			if ended > tc.maxEnd {
				t.Errorf("the connection ended %s after the answer, want at most %s", ended, tc.maxEnd)
			}
			if err := <-wrote; tc.cleanEnd && err != nil {
				t.Errorf("sending the body: %v", err)
			}
		})
	}
}
