package convert

import (
	"crypto/sha256"
	"net/http"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/cache"
)

// Kept is what was made of one answer of the site at one address:
// its Markdown, or the failure to make it, and what says whether a later
// answer is the same HTML: the site's strong ETag, which RFC 9110 makes
// unique to one representation, or else the HTML's SHA-256 with the
// headers the conversion reads. Last-Modified says nothing of the kind: two
// answers of one moment (a page for each language, one for the intranet
// and one for the rest) share it.
type Kept struct {
	// Key is the page's address, and the values of the request's fields
	// the site's answer varied on (see convert.go of internal/pages).
	Key string
	// ETag is the site's strong ETag of the HTML, or "".
	ETag string
	// Sum is the HTML's SHA-256; ContentType and LastModified are the
	// site's headers the conversion read.
	Sum                       [sha256.Size]byte
	ContentType, LastModified string
	// Markdown is the page as Markdown, with its ETag, length and token
	// estimate; nil when the conversion failed, until Retry.
	Markdown                     []byte
	MarkdownETag, Length, Tokens string
	Retry                        time.Time
}

// Failed reports whether the page could not be converted: its HTML is
// passed on.
func (p *Kept) Failed() bool { return p.Markdown == nil }

// SameETag reports whether the site's answer, a status line and header h,
// is the HTML p was made from, by the site's strong ETag: a 304 to the
// request made conditional on it, or a 200 with the same ETag.
func (p *Kept) SameETag(status int, h http.Header) bool {
	if p.ETag == "" {
		return false
	}
	switch status {
	case http.StatusNotModified:
		return !p.Failed()
	case http.StatusOK:
		return StrongETag(h.Get("ETag")) == p.ETag
	}
	return false
}

// SameHTML reports whether html, served with header h, is what p was made
// from: the same bytes, under the same headers the conversion read.
func (p *Kept) SameHTML(sum [sha256.Size]byte, h http.Header) bool {
	return p.Sum == sum && p.ContentType == h.Get("Content-Type") && p.LastModified == h.Get("Last-Modified")
}

// StrongETag is etag when it is a strong one, else "".
func StrongETag(etag string) string {
	if len(etag) < 2 || etag[0] != '"' || etag[len(etag)-1] != '"' {
		return "" // weak (W/"…"), or not an entity tag at all
	}
	return etag
}

// size is what p holds, in bytes, as the budget counts it.
func (p *Kept) size() int {
	return len(p.Key) + len(p.Markdown) + len(p.ETag) + len(p.ContentType) + len(p.LastModified) + 256
}

// Cache keeps the site's pages as Markdown within a budget of bytes,
// dropping the least recently used first. It is safe for concurrent use.
type Cache struct {
	pages *cache.Cache[string, *Kept]
}

// NewCache returns a cache of at most budget bytes of pages.
func NewCache(budget int) *Cache {
	return &Cache{pages: cache.New[string, *Kept](0, budget)}
}

// Get returns the page kept at key, or nil.
func (c *Cache) Get(key string) *Kept {
	p, _ := c.pages.Get(key)
	return p
}

// Put keeps p in place of what its key held, unless p alone is larger than
// the budget: then nothing is kept for the key.
func (c *Cache) Put(p *Kept) { c.pages.Add(p.Key, p, p.size()) }

// Len is the number of pages kept.
func (c *Cache) Len() int { return c.pages.Len() }
