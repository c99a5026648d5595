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

// TestRestKeepsTheCollectionsFew: after a page, the reader rests as long
// as the page took, the Crawl-delay, or the time that keeps the garbage it
// made to collectionsPerSecond collections, whichever is the longest.
func TestRestKeepsTheCollectionsFew(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name             string
		took, crawlDelay time.Duration
		allocated, room  uint64
		want             time.Duration
	}{
		{"a page that made two collections' garbage", time.Millisecond, 0, 16 * mb, 8 * mb, 2 * time.Second},
		{"a large heap leaves more room", time.Millisecond, 0, 16 * mb, 64 * mb, 250 * time.Millisecond},
		{"the room is never less than the runtime's least", time.Millisecond, 0, 4 * mb, 0, time.Second},
		{"a page that took longer than its garbage asks", 3 * time.Second, 0, 16 * mb, 8 * mb, 3 * time.Second},
		{"the site's Crawl-delay", time.Millisecond, 3 * time.Second, 16 * mb, 8 * mb, 3 * time.Second},
		{"no garbage", 5 * time.Millisecond, 0, 0, 8 * mb, 5 * time.Millisecond},
		{"a busy process's garbage rests at most maxGarbageRest", time.Millisecond, 0, 1 << 40, 8 * mb, maxGarbageRest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rest(tc.took, tc.crawlDelay, tc.allocated, tc.room); got != tc.want {
				t.Errorf("rest = %v, want %v", got, tc.want)
			}
		})
	}
}
