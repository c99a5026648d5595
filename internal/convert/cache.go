package convert

import (
	"container/list"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"
)

// Kept is what was made of one answer of the site at one address:
// its Markdown, or the failure to make it, and the site's validator of the
// HTML it was made from, which says whether a later answer is the same.
type Kept struct {
	// Key is the page's address.
	Key string
	// ETag and LastModified are the site's validators of the HTML; Sum is
	// its SHA-256 when the site sent neither.
	ETag, LastModified string
	Sum                [sha256.Size]byte
	// Markdown is the page as Markdown, with its ETag, length and token
	// estimate; nil when the conversion failed, until Retry.
	Markdown                     []byte
	MarkdownETag, Length, Tokens string
	Retry                        time.Time
}

// Failed reports whether the page could not be converted: its HTML is
// passed on.
func (p *Kept) Failed() bool { return p.Markdown == nil }

// Matches reports whether the site's answer, a status line and header h,
// is the HTML p was made from, by the site's validator: a 304 to the
// request made conditional on it, or the same ETag or, without ETags, the
// same Last-Modified. Without either, the HTML itself is compared.
func (p *Kept) Matches(status int, h http.Header) bool {
	switch status {
	case http.StatusNotModified:
		return !p.Failed() && (p.ETag != "" || p.LastModified != "")
	case http.StatusOK:
		etag := h.Get("ETag")
		if p.ETag != "" {
			return etag == p.ETag
		}
		return p.LastModified != "" && etag == "" && h.Get("Last-Modified") == p.LastModified
	}
	return false
}

// size is what p holds, in bytes, as the budget counts it.
func (p *Kept) size() int {
	return len(p.Key) + len(p.Markdown) + len(p.ETag) + len(p.LastModified) + 256
}

// Cache keeps the site's pages as Markdown within a budget of bytes,
// dropping the least recently used first. It is safe for concurrent use.
type Cache struct {
	mu     sync.Mutex
	budget int
	used   int
	byKey  map[string]*list.Element
	lru    list.List // of *Kept, the most recently used first
}

func NewCache(budget int) *Cache {
	return &Cache{budget: budget, byKey: make(map[string]*list.Element)}
}

// Get returns the page kept at key, or nil.
func (c *Cache) Get(key string) *Kept {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byKey[key]
	if e == nil {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*Kept)
}

// Put keeps p in place of what its key held, unless p alone is larger than
// the budget: then nothing is kept for the key.
func (c *Cache) Put(p *Kept) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[p.Key]; e != nil {
		c.remove(e)
	}
	if p.size() > c.budget {
		return
	}
	c.byKey[p.Key] = c.lru.PushFront(p)
	c.used += p.size()
	for c.used > c.budget {
		c.remove(c.lru.Back())
	}
}

// remove drops e; c.mu is held.
func (c *Cache) remove(e *list.Element) {
	p := c.lru.Remove(e).(*Kept)
	delete(c.byKey, p.Key)
	c.used -= p.size()
}
