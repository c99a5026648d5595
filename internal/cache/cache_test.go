package cache

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// check verifies the cache's own accounting: the list and the map hold the
// same entries, the bytes are their sizes' sum, and the bounds hold.
func check[K comparable, V comparable](t *testing.T, c *Cache[K, V]) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	n, sum := 0, 0
	for e := c.root.next; e != &c.root; e = e.next {
		if e.next.prev != e || c.items[e.key] != e {
			t.Fatalf("entry %v is linked or mapped wrong", e.key)
		}
		n++
		sum += e.size
	}
	switch {
	case n != len(c.items):
		t.Errorf("%d entries linked, %d mapped", n, len(c.items))
	case sum != c.bytes:
		t.Errorf("%d bytes accounted, the entries hold %d", c.bytes, sum)
	case c.maxEntries > 0 && n > c.maxEntries:
		t.Errorf("%d entries, bound %d", n, c.maxEntries)
	case c.maxBytes > 0 && sum > c.maxBytes:
		t.Errorf("%d bytes, bound %d", sum, c.maxBytes)
	}
}

// keys lists the keys from the most recently used.
func keys[V comparable](c *Cache[string, V]) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for e := c.root.next; e != &c.root; e = e.next {
		out = append(out, e.key)
	}
	return out
}

type value struct{ name string }

func TestCache(t *testing.T) {
	a, b, c, d := &value{"a"}, &value{"b"}, &value{"c"}, &value{"d"}
	tests := []struct {
		name                 string
		maxEntries, maxBytes int
		run                  func(*Cache[string, *value])
		want                 []string // from the most recently used
		bytes                int
	}{
		{"count: the least recently used goes", 3, 0, func(k *Cache[string, *value]) {
			k.Add("a", a, 1)
			k.Add("b", b, 1)
			k.Add("c", c, 1)
			k.Get("a")
			k.Add("d", d, 1)
		}, []string{"d", "a", "c"}, 3},
		{"Peek leaves the order", 3, 0, func(k *Cache[string, *value]) {
			k.Add("a", a, 1)
			k.Add("b", b, 1)
			k.Add("c", c, 1)
			k.Peek("a")
			k.Add("d", d, 1)
		}, []string{"d", "c", "b"}, 3},
		{"bytes: as many go as it takes", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 3)
			k.Add("c", c, 3)
			k.Get("a")
			k.Add("d", d, 6)
		}, []string{"d", "a"}, 9},
		{"replacing is not adding", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 3)
			k.Add("a", c, 5)
		}, []string{"a", "b"}, 8},
		{"a value over the byte bound is not kept, nor pushes others out", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 3)
			k.Add("c", c, 11)
		}, []string{"b", "a"}, 6},
		{"a key's new value over the bound: nothing kept for it", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 3)
			k.Add("a", c, 11)
		}, []string{"b"}, 3},
		{"both bounds", 2, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 1)
			k.Add("b", b, 1)
			k.Add("c", c, 1)
		}, []string{"c", "b"}, 2},
		{"GetOrAdd finds, and marks", 3, 0, func(k *Cache[string, *value]) {
			k.Add("a", a, 1)
			k.Add("b", b, 1)
			k.Add("c", c, 1)
			if v, ok := k.GetOrAdd("a", d, 1); v != a || !ok {
				panic("GetOrAdd did not find a")
			}
			k.Add("d", d, 1)
		}, []string{"d", "a", "c"}, 3},
		{"GetOrAdd adds", 3, 0, func(k *Cache[string, *value]) {
			k.Add("a", a, 1)
			if v, ok := k.GetOrAdd("b", b, 1); v != b || ok {
				panic("GetOrAdd found b")
			}
		}, []string{"b", "a"}, 2},
		{"Grow pushes the least recently used out", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 3)
			k.Add("c", c, 3)
			if !k.Grow("b", b, 3) {
				panic("b dropped")
			}
		}, []string{"c", "b"}, 9},
		{"Grow past the bound drops only the value grown", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 3)
			if k.Grow("b", b, 8) {
				panic("b kept")
			}
		}, []string{"a"}, 3},
		{"Grow of a value the key no longer holds does nothing", 0, 10, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("a", b, 3)
			if k.Grow("a", a, 5) || k.Grow("z", a, 5) {
				panic("grew another value")
			}
		}, []string{"a"}, 3},
		{"Remove", 0, 0, func(k *Cache[string, *value]) {
			k.Add("a", a, 3)
			k.Add("b", b, 4)
			k.Remove("a")
			k.Remove("z")
		}, []string{"b"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := New[string, *value](tt.maxEntries, tt.maxBytes)
			tt.run(k)
			check(t, k)
			if got := keys(k); !slices.Equal(got, tt.want) || k.Bytes() != tt.bytes || k.Len() != len(tt.want) {
				t.Errorf("kept %v, %d bytes; want %v, %d bytes", got, k.Bytes(), tt.want, tt.bytes)
			}
			var all []string
			for key, v := range k.All() {
				if got, _ := k.Peek(key); got != v {
					t.Errorf("All yields %s: %v, Peek %v", key, v, got)
				}
				all = append(all, key)
			}
			if !slices.Equal(all, tt.want) {
				t.Errorf("All yields %v, want %v", all, tt.want)
			}
		})
	}
}

// TestCacheAgainstModel runs random operations on a cache and on a plain
// list of the same entries in recency order, and compares them after each.
func TestCacheAgainstModel(t *testing.T) {
	type item struct {
		key  string
		v    *value
		size int
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 37))
		maxEntries, maxBytes := rng.IntN(6), rng.IntN(40)
		c := New[string, *value](maxEntries, maxBytes)
		var model []item // the most recently used first
		find := func(key string) int {
			return slices.IndexFunc(model, func(it item) bool { return it.key == key })
		}
		trim := func() {
			for {
				sum := 0
				for _, it := range model {
					sum += it.size
				}
				if len(model) == 0 || !(maxEntries > 0 && len(model) > maxEntries || maxBytes > 0 && sum > maxBytes) {
					return
				}
				model = model[:len(model)-1]
			}
		}
		for step := range 2000 {
			key := strconv.Itoa(rng.IntN(10))
			i := find(key)
			switch op := rng.IntN(5); op {
			case 0:
				v, ok := c.Get(key)
				if ok != (i >= 0) || ok && v != model[i].v {
					t.Fatalf("seed %d step %d: Get(%s) = %v, %v", seed, step, key, v, ok)
				}
				if i >= 0 {
					it := model[i]
					model = append([]item{it}, slices.Delete(model, i, i+1)...)
				}
			case 1, 2:
				v, size := &value{key}, rng.IntN(15)
				kept := c.Add(key, v, size)
				if i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
				if maxBytes == 0 || size <= maxBytes {
					model = append([]item{{key, v, size}}, model...)
					trim()
				}
				if kept != (maxBytes == 0 || size <= maxBytes) {
					t.Fatalf("seed %d step %d: Add kept %v", seed, step, kept)
				}
			case 3:
				if i < 0 {
					continue
				}
				n := rng.IntN(10)
				kept := c.Grow(key, model[i].v, n)
				model[i].size += n
				if maxBytes > 0 && model[i].size > maxBytes {
					model = slices.Delete(model, i, i+1)
				} else {
					trim()
				}
				if kept != (find(key) >= 0) {
					t.Fatalf("seed %d step %d: Grow kept %v", seed, step, kept)
				}
			case 4:
				c.Remove(key)
				if i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			}
			var want []string
			for _, it := range model {
				want = append(want, it.key)
			}
			if got := keys(c); !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: kept %v, want %v", seed, step, got, want)
			}
			check(t, c)
		}
	}
}

// TestCacheConcurrently mixes every operation from several goroutines
// (run with -race, as make test does); the accounting stays exact.
func TestCacheConcurrently(t *testing.T) {
	c := New[int, *value](50, 400)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 5000 {
				key := rng.IntN(100)
				switch rng.IntN(4) {
				case 0:
					c.Get(key)
				case 1:
					c.Add(key, &value{}, rng.IntN(20))
				case 2:
					if v, ok := c.GetOrAdd(key, &value{}, 5); ok {
						c.Grow(key, v, rng.IntN(10))
					}
				case 3:
					c.Remove(key)
				}
			}
		})
	}
	wg.Wait()
	check(t, c)
}

func BenchmarkGet(b *testing.B) {
	c := New[string, *value](32, 0)
	names := make([]string, 32)
	for i := range names {
		names[i] = "http://host" + strconv.Itoa(i) + ".example"
		c.Add(names[i], &value{}, 1)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Get(names[i&31])
		i++
	}
}
