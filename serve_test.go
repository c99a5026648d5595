package discovery

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A page is logged once a minute, and all pages together failureLines
// times a minute, the lines not written counted in the next.
func TestFailureLogBounds(t *testing.T) {
	var l failureLog
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	logged := 0
	for i := range 100 {
		if _, ok := l.admit("https://example.com/page", now.Add(time.Duration(i)*time.Second/2)); ok {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("one page 100 times in 50 s: %d lines, want 1", logged)
	}
	if _, ok := l.admit("https://example.com/page", now.Add(time.Minute)); !ok {
		t.Error("the page a minute later: not logged")
	}
	logged = 0
	later := now.Add(2 * time.Minute)
	for i := range 1000 {
		if _, ok := l.admit(fmt.Sprintf("https://example.com/page-%d", i), later); ok {
			logged++
		}
	}
	if logged != failureLines {
		t.Errorf("1 000 pages in a moment: %d lines, want %d", logged, failureLines)
	}
	if suppressed, ok := l.admit("https://example.com/next", later.Add(time.Minute)); !ok || suppressed != 990 {
		t.Errorf("the next minute's first line: %v, suppressed %d, want 990", ok, suppressed)
	}
	if len(l.logged) > failurePages {
		t.Errorf("%d pages remembered, over %d", len(l.logged), failurePages)
	}
}

func TestClip(t *testing.T) {
	for _, s := range []string{"short", strings.Repeat("a", 300), strings.Repeat("é", 200)} {
		got := clip(s)
		if len(got) > maxLogged+len("…") || !utf8.ValidString(got) || len(s) <= maxLogged && got != s {
			t.Errorf("clip(%.20q…) = %.20q…, %d bytes", s, got, len(got))
		}
	}
}
