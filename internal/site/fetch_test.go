package site

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestSinkTakesWhatFileServerCopies: a handler that copies a file to the
// writer, as file_server does through http.ServeContent, reaches the
// sink's ReadFrom; the body arrives whole within the limit, and one past
// it is refused, as a body written is.
func TestSinkTakesWhatFileServerCopies(t *testing.T) {
	page := strings.Repeat("<p>A sentence of the page.</p>\n", 200)
	for _, tc := range []struct {
		name  string
		limit int
		over  bool
	}{
		{"within the limit", len(page), false},
		{"past the limit", len(page) - 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sink{header: make(http.Header), limit: tc.limit}
			req, _ := http.NewRequest(http.MethodGet, "https://blog.example/page/", nil)
			http.ServeContent(s, req, "page.html", time.Time{}, strings.NewReader(page))
			a := s.answer(&url.URL{Path: "/page/"}, nil, tc.limit)
			if tc.over {
				if a.err != errTooLarge {
					t.Fatalf("a body of %d bytes against a limit of %d: err %v, want errTooLarge", len(page), tc.limit, a.err)
				}
				return
			}
			if a.err != nil || !bytes.Equal(a.body, []byte(page)) {
				t.Fatalf("err %v, %d bytes kept of %d", a.err, len(a.body), len(page))
			}
		})
	}
}
