// Package cache is the module's one bounded cache: a map that holds at most
// a number of values and at most a number of bytes, as the sizes its
// callers give count them, and drops the least recently used value first
// to stay within both. Every cache of the module is one: the site's pages
// kept as Markdown, the renditions of request-derived base URLs, the
// documents the fetcher brought in, the key directories Web Bot Auth
// parsed, the MCP answers an endpoint keeps.
//
// Imports from the module: none.
package cache

import (
	"iter"
	"sync"
)

// Cache holds values by key within its bounds. It is safe for concurrent
// use. Values are compared (see Grow), so they are usually pointers.
type Cache[K comparable, V comparable] struct {
	maxEntries, maxBytes int

	mu    sync.Mutex
	items map[K]*entry[K, V]
	// root links the entries, the most recently used after root, the
	// least recently used before it.
	root  entry[K, V]
	bytes int
}

type entry[K comparable, V comparable] struct {
	key        K
	value      V
	size       int
	prev, next *entry[K, V]
}

// New returns a cache of at most maxEntries values and maxBytes bytes; a
// bound of 0 is no bound.
func New[K comparable, V comparable](maxEntries, maxBytes int) *Cache[K, V] {
	c := &Cache[K, V]{maxEntries: maxEntries, maxBytes: maxBytes, items: make(map[K]*entry[K, V])}
	c.root.prev, c.root.next = &c.root, &c.root
	return c
}

// Get returns the value of key and marks it the most recently used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.items[key]
	if e == nil {
		var zero V
		return zero, false
	}
	c.toFront(e)
	return e.value, true
}

// Peek returns the value of key, leaving its place in the order as it is.
func (c *Cache[K, V]) Peek(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.items[key]; e != nil {
		return e.value, true
	}
	var zero V
	return zero, false
}

// Add keeps v under key, of size bytes, in place of what key held, and
// drops the least recently used values until the cache is within its
// bounds. A value larger than the whole byte bound is not kept, and
// nothing is then kept for key: Add reports false.
func (c *Cache[K, V]) Add(key K, v V, size int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.items[key]; e != nil {
		c.remove(e)
	}
	if c.maxBytes > 0 && size > c.maxBytes {
		return false
	}
	c.add(key, v, size)
	return true
}

// GetOrAdd returns the value of key, marked the most recently used, and
// true; or keeps v under key, as Add does, and returns v and false.
func (c *Cache[K, V]) GetOrAdd(key K, v V, size int) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.items[key]; e != nil {
		c.toFront(e)
		return e.value, true
	}
	if c.maxBytes == 0 || size <= c.maxBytes {
		c.add(key, v, size)
	}
	return v, false
}

// Grow adds n bytes to the size of key's value while key holds v (a value
// made larger after it was added: a rendition as its documents are made,
// an answer once it is known), then drops the least recently used values
// until the cache is within its byte bound. A value that alone outgrows
// the bound is dropped, and only it. Grow reports whether v is still kept.
func (c *Cache[K, V]) Grow(key K, v V, n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.items[key]
	if e == nil || e.value != v {
		return false
	}
	e.size += n
	c.bytes += n
	if c.maxBytes > 0 && e.size > c.maxBytes {
		c.remove(e)
		return false
	}
	c.trim()
	return c.items[key] == e
}

// Remove drops what key holds.
func (c *Cache[K, V]) Remove(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.items[key]; e != nil {
		c.remove(e)
	}
}

// Len is the number of values kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Bytes is the sum of the sizes of the values kept.
func (c *Cache[K, V]) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// All yields the keys and values kept, from the most recently used, as
// they were when it was called.
func (c *Cache[K, V]) All() iter.Seq2[K, V] {
	c.mu.Lock()
	entries := make([]entry[K, V], 0, len(c.items))
	for e := c.root.next; e != &c.root; e = e.next {
		entries = append(entries, entry[K, V]{key: e.key, value: e.value})
	}
	c.mu.Unlock()
	return func(yield func(K, V) bool) {
		for _, e := range entries {
			if !yield(e.key, e.value) {
				return
			}
		}
	}
}

// add keeps a new entry in front and trims the cache; c.mu is held.
func (c *Cache[K, V]) add(key K, v V, size int) {
	e := &entry[K, V]{key: key, value: v, size: size}
	c.items[key] = e
	c.bytes += size
	e.prev, e.next = &c.root, c.root.next
	e.prev.next, e.next.prev = e, e
	c.trim()
}

// trim drops the least recently used entries while the cache is over a
// bound; c.mu is held.
func (c *Cache[K, V]) trim() {
	for len(c.items) > 0 && (c.maxEntries > 0 && len(c.items) > c.maxEntries || c.maxBytes > 0 && c.bytes > c.maxBytes) {
		c.remove(c.root.prev)
	}
}

func (c *Cache[K, V]) toFront(e *entry[K, V]) {
	if c.root.next == e {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = &c.root, c.root.next
	e.prev.next, e.next.prev = e, e
}

func (c *Cache[K, V]) remove(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	delete(c.items, e.key)
	c.bytes -= e.size
}
