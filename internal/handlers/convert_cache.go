package handlers

import (
	"container/list"
	"crypto/sha256"
	"sync"
	"time"
)

// convertedPage is what was made of one answer of the site at one address:
// its Markdown, or the failure to make it, and the site's validator of the
// HTML it was made from, which says whether a later answer is the same.
type convertedPage struct {
	// key is the page's address (see Service.ServeConverted).
	key string
	// etag and lastModified are the site's validators of the HTML; sum is
	// its SHA-256 when the site sent neither.
	etag, lastModified string
	sum                [sha256.Size]byte
	// markdown is the page as Markdown, with its ETag, length and token
	// estimate; nil when the conversion failed, until retry.
	markdown                     []byte
	markdownETag, length, tokens string
	retry                        time.Time
}

// failed reports whether the page could not be converted: its HTML is
// passed on.
func (p *convertedPage) failed() bool { return p.markdown == nil }

// size is what p holds, in bytes, as the budget counts it.
func (p *convertedPage) size() int {
	return len(p.key) + len(p.markdown) + len(p.etag) + len(p.lastModified) + 256
}

// convertCache keeps the site's pages as Markdown within a budget of bytes,
// dropping the least recently used first. It is safe for concurrent use.
type convertCache struct {
	mu     sync.Mutex
	budget int
	used   int
	byKey  map[string]*list.Element
	lru    list.List // of *convertedPage, the most recently used first
}

func newConvertCache(budget int) *convertCache {
	return &convertCache{budget: budget, byKey: make(map[string]*list.Element)}
}

// get returns the page kept at key, or nil.
func (c *convertCache) get(key string) *convertedPage {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byKey[key]
	if e == nil {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*convertedPage)
}

// put keeps p in place of what its key held, unless p alone is larger than
// the budget: then nothing is kept for the key.
func (c *convertCache) put(p *convertedPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[p.key]; e != nil {
		c.remove(e)
	}
	if p.size() > c.budget {
		return
	}
	c.byKey[p.key] = c.lru.PushFront(p)
	c.used += p.size()
	for c.used > c.budget {
		c.remove(c.lru.Back())
	}
}

// remove drops e; c.mu is held.
func (c *convertCache) remove(e *list.Element) {
	p := c.lru.Remove(e).(*convertedPage)
	delete(c.byKey, p.key)
	c.used -= p.size()
}
