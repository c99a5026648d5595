package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// scaleContent is a content directory with n insights of about 900 words.
func scaleContent(tb testing.TB, n int) fs.FS {
	tb.Helper()
	fsys, err := content.ScaledSample(n)
	if err != nil {
		tb.Fatal(err)
	}
	return fsys
}

// BenchmarkScale loads and renders content of 10, 1 000 and 10 000 insights
// and serves the list and one insight from it.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		fsys := scaleContent(b, n)
		var site *content.Site
		b.Run(fmt.Sprintf("load/%d", n), func(b *testing.B) {
			for b.Loop() {
				var err error
				if site, err = content.Load(fsys); err != nil {
					b.Fatal(err)
				}
			}
		})
		var s *Service
		b.Run(fmt.Sprintf("render/%d", n), func(b *testing.B) {
			for b.Loop() {
				var err error
				s, err = New(agentConfig(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))}))
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, path := range []string{"/api/v1/insights", view.InsightPath(fmt.Sprintf("insight-%05d", n/2))} {
			name := "list"
			if path != "/api/v1/insights" {
				name = "one"
			}
			b.Run(fmt.Sprintf("serve-%s/%d", name, n), func(b *testing.B) {
				r := httptest.NewRequest(http.MethodGet, path, nil)
				w := &discardWriter{h: make(http.Header)}
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					s.ServeHTTP(w, r)
				}
			})
		}
	}
}

// hostedService is a service without a base URL over n insights.
func hostedService(tb testing.TB, n int) *Service {
	tb.Helper()
	site, err := content.Load(scaleContent(tb, n))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(agentConfig(Config{Site: site, TokenSecret: []byte(strings.Repeat("s", 32))}))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// get serves path for host, with the codings accepted if any.
func get(s *Service, host, path, acceptEncoding string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Host = host
	r.Header.Set("Accept-Encoding", acceptEncoding)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// checkAccounting verifies the cache counts exactly what its renditions
// hold (their documents and compressed forms, and the estimate of a built
// MCP server; the tests ask nothing of /mcp), and holds it within the
// budget and the count.
func checkAccounting(t *testing.T, c *renditionCache) {
	t.Helper()
	held := 0
	for _, rd := range c.byBase.All() {
		rd.lazy.Range(func(_, v any) bool {
			if doc := v.(*lazyDocument).doc; doc != nil {
				held += len(doc.body)
				for i := range doc.encodings {
					held += len(doc.encodings[i].body)
				}
			}
			return true
		})
		if rd.mcpBuilt.Load() {
			held += mcpEstimate
		}
	}
	if total := c.byBase.Bytes(); held != total {
		t.Errorf("cache total %d bytes, its renditions hold %d", total, held)
	}
	if total := c.byBase.Bytes(); total > c.budget {
		t.Errorf("cache holds %d bytes, over its budget of %d", total, c.budget)
	}
	if n := c.byBase.Len(); n > maxRenditions {
		t.Errorf("%d renditions cached, limit %d", n, maxRenditions)
	}
}

// An unseen Host costs the document it asks for, not the site: with 2 000
// insights, one insight for a new Host renders one document.
func TestUnseenHostRendersOneDocument(t *testing.T) {
	s := hostedService(t, 2000)
	w := get(s, "new.example", view.InsightPath("insight-01000"), "")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "http://new.example/") {
		t.Fatalf("%d %s", w.Code, w.Body.String()[:min(200, w.Body.Len())])
	}
	rd, _ := s.hosted.byBase.Peek("http://new.example")
	n := 0
	rd.lazy.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d documents rendered for one request, want 1", n)
	}
	if cc := w.Header().Get(respond.HeaderCacheControl); !strings.HasPrefix(cc, "private, ") {
		t.Errorf("Cache-Control %q for a document of a request-derived base URL, want private", cc)
	}
}

// However many Hosts ask for the largest documents, the cache stays within
// its byte budget and its accounting stays exact, under concurrency too.
func TestRenditionCacheByteBudget(t *testing.T) {
	s := hostedService(t, 300)
	s.hosted = newRenditionCache(1 << 20) // a few renditions of the largest document
	paths := []string{"/llms-full.txt", "/llms.txt", view.PathInsights, "/openapi.json", view.InsightPath("insight-00007")}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				host := fmt.Sprintf("h%d-%d.example", g, i)
				for _, p := range paths {
					if w := get(s, host, p, "gzip, zstd"); w.Code != http.StatusOK {
						t.Errorf("%s%s: %d", host, p, w.Code)
						return
					}
				}
				// The site's own Host keeps being used; it is never the
				// least recently used.
				if w := get(s, "site.example", view.PathInsights, "gzip"); w.Code != http.StatusOK {
					t.Errorf("site.example: %d", w.Code)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkAccounting(t, s.hosted)
	if _, ok := s.hosted.byBase.Peek("http://site.example"); !ok {
		t.Error("the Host in constant use was evicted")
	}
	t.Logf("after 40 Hosts × %d documents: %d renditions, %d bytes cached (budget %d)", len(paths), s.hosted.byBase.Len(), s.hosted.byBase.Bytes(), s.hosted.budget)
}

// A document of one Host larger than the whole budget drops that Host's
// rendition and no other: the Hosts already kept stay, with what they hold.
func TestDocumentOverTheBudgetDropsOnlyItsHost(t *testing.T) {
	s := hostedService(t, 300)
	s.hosted = newRenditionCache(64 << 10) // well under llms-full.txt
	small := view.InsightPath("insight-00007")
	kept := []string{"a.example", "b.example", "c.example"}
	for _, host := range kept {
		if w := get(s, host, small, ""); w.Code != http.StatusOK {
			t.Fatalf("%s: %d", host, w.Code)
		}
	}
	w := get(s, "big.example", view.PathLLMsFull, "gzip")
	if w.Code != http.StatusOK || w.Body.Len() <= s.hosted.budget {
		t.Fatalf("llms-full.txt: %d, %d bytes; want 200 over the budget of %d", w.Code, w.Body.Len(), s.hosted.budget)
	}
	for _, host := range kept {
		if _, ok := s.hosted.byBase.Peek("http://" + host); !ok {
			t.Errorf("%s was dropped for another Host's document", host)
		}
	}
	if _, ok := s.hosted.byBase.Peek("http://big.example"); ok {
		t.Error("the Host of the document over the budget is still kept")
	}
	checkAccounting(t, s.hosted)
}

// BenchmarkUnseenHost is what one request with a Host never seen before
// costs at 2 000 insights: one insight, and the list. Compare with
// BenchmarkScale's render/1000, the cost of rendering every document, which
// an unseen Host used to pay.
func BenchmarkUnseenHost(b *testing.B) {
	s := hostedService(b, 2000)
	for _, path := range []string{view.InsightPath("insight-01000"), view.PathInsights, view.PathLLMs, view.PathLLMsFull, view.PathOpenAPI, view.PathDevelopers} {
		b.Run(strings.TrimPrefix(path, "/api/v1/"), func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, path, nil)
			w := &discardWriter{h: make(http.Header)}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				r.Host = "h" + strconv.Itoa(i) + ".example"
				clear(w.h)
				s.ServeHTTP(w, r)
			}
		})
	}
}

// searchQueries are the benchmark's searches: words of every title, a word
// of most, a prefix and a word of none (the search package benchmarks the
// index and the searches themselves: BenchmarkSearch there).
var searchQueries = []string{"data contracts", "warehouse cost", "the", "platf", "zyzzyva"}

// BenchmarkSearchTool runs the search tool's searches over 10 000 insights
// as whole MCP tool calls of a client (answered off the SDK), with no
// network.
func BenchmarkSearchTool(b *testing.B) {
	const n = 10000
	site, err := content.Load(scaleContent(b, n))
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range searchQueries {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"` + q + `"}}}`
		b.Run(fmt.Sprintf("tool/%s/%d", q, n), func(b *testing.B) {
			w := &deadlineWriter{discardWriter{h: make(http.Header)}}
			r := mcpRequest(body, "")
			reader := strings.NewReader(body)
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				reader.Reset(body)
				r.Body = io.NopCloser(reader)
				s.ServeHTTP(w, r)
			}
		})
	}
}

// variedQueries are n searches of one to three words of the insights'
// titles and descriptions, some with a topic, dates or a larger page, so
// that no two calls in a row are alike.
func variedQueries(site *content.Site, n int) []search.Input {
	var words []string
	seen := make(map[string]bool)
	for _, in := range site.Insights[:min(len(site.Insights), 8)] {
		for _, w := range strings.Fields(strings.ToLower(in.Title + " " + in.Description)) {
			w = strings.Trim(w, ".,:;()\"'")
			if len(w) > 2 && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	topics := site.Topics()
	queries := make([]search.Input, n)
	for i := range queries {
		q := &queries[i]
		for j := range 1 + i%3 {
			q.Query += words[(i*7+j*13)%len(words)] + " "
		}
		switch i % 5 {
		case 1:
			q.Topic = topics[i%len(topics)]
		case 2:
			q.Since, q.Until = "2021-01-01", "2023-12-31"
		case 3:
			q.Limit = 50
		}
	}
	return queries
}

// BenchmarkSearchLatency runs a different search on every call over 1 000
// insights, the search alone and as a whole tools/call of search_insights
// (answered off the SDK, and by the SDK for comparison), and reports the
// 95th percentile of the calls' durations beside the mean.
func BenchmarkSearchLatency(b *testing.B) {
	site, err := content.Load(scaleContent(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		b.Fatal(err)
	}
	rd := s.renditionFor(s.cfg.BaseURL)
	queries := variedQueries(site, 997)
	bodies := make([]string, len(queries))
	for i, q := range queries {
		args, err := json.Marshal(q)
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":` + string(args) + `}}`
	}
	p95 := func(b *testing.B, call func(i int)) {
		durations := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			start := time.Now()
			call(i % len(queries))
			durations = append(durations, time.Since(start))
			i++
		}
		slices.Sort(durations)
		b.ReportMetric(float64(durations[len(durations)*95/100]), "p95-ns/op")
	}
	b.Run("search/1000", func(b *testing.B) {
		p95(b, func(i int) {
			if _, err := mcp.SearchInsights(context.Background(), rd.links.mcpSite(), queries[i]); err != nil {
				b.Fatal(err)
			}
		})
	})
	for _, path := range []string{"tool", "tool-sdk"} {
		b.Run(path+"/1000", func(b *testing.B) {
			w := &deadlineWriter{discardWriter{h: make(http.Header)}}
			r := mcpRequest("", "")
			reader := strings.NewReader("")
			p95(b, func(i int) {
				clear(w.h)
				reader.Reset(bodies[i])
				r.Body = io.NopCloser(reader)
				r.ContentLength = int64(len(bodies[i]))
				if path == "tool" {
					s.ServeHTTP(w, r)
				} else {
					rd.mcpHandler().ServeHTTP(w, r)
				}
			})
		})
	}
}

// BenchmarkKnownHost is a request for a document already rendered for its
// Host, without base_url (the default): the cache of renditions is on its
// path. Eight Hosts take turns, as the site's names and a few others would.
func BenchmarkKnownHost(b *testing.B) {
	s := hostedService(b, 100)
	r := httptest.NewRequest(http.MethodGet, view.PathInsights, nil)
	w := &discardWriter{h: make(http.Header)}
	hosts := make([]string, 8)
	for i := range hosts {
		hosts[i] = "h" + strconv.Itoa(i) + ".example"
		r.Host = hosts[i]
		s.ServeHTTP(w, r)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Host = hosts[i%len(hosts)]
		i++
		clear(w.h)
		s.ServeHTTP(w, r)
	}
}
