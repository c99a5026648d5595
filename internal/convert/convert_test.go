package convert

import (
	"bytes"
	"testing"
)

func TestConvertCache(t *testing.T) {
	page := func(key string, n int) *Kept {
		return &Kept{Key: key, Markdown: bytes.Repeat([]byte("x"), n)}
	}
	unit := page("a", 1000).size()
	c := NewCache(3 * unit)
	c.Put(page("a", 1000))
	c.Put(page("b", 1000))
	c.Put(page("c", 1000))
	c.Get("a") // now the most recently used
	c.Put(page("d", 1000))
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if got := c.Get(key) != nil; got != want {
			t.Errorf("%s kept %v, want %v", key, got, want)
		}
	}
	if used := c.pages.Bytes(); used > 3*unit {
		t.Errorf("%d bytes used of %d", used, 3*unit)
	}
	c.Put(page("a", 10)) // replaced, not added
	if used := c.pages.Bytes(); used != 2*unit+page("a", 10).size() {
		t.Errorf("after replacing: %d bytes used", used)
	}
	c.Put(page("huge", 4*unit))
	if c.Get("huge") != nil || c.Get("a") == nil || c.Get("d") == nil {
		t.Error("a page over the budget was kept, or pushed others out")
	}
	c.Put(page("a", 4*unit)) // a key's new page too large: nothing is kept for it
	if c.Get("a") != nil {
		t.Error("the old page is still kept for a key whose new one is too large")
	}
}

func TestNoindex(t *testing.T) {
	for directives, want := range map[string]bool{
		"noindex": true, "NoIndex, follow": true, "none": true, "googlebot: noindex": true,
		"index, follow": false, "noarchive": false, "": false, "unavailable_after: 25 Jun 2010 15:00:00 PST": false,
	} {
		if got := NoIndex(directives); got != want {
			t.Errorf("%q: %v, want %v", directives, got, want)
		}
	}
}
