package handlers

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unsafe"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// scaleContent is a content directory with n insights of about 900 words.
func scaleContent(tb testing.TB, n int) fstest.MapFS {
	tb.Helper()
	sample, err := content.Sample()
	if err != nil {
		tb.Fatal(err)
	}
	profile, err := fs.ReadFile(content.SampleFS(), "profile.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	fsys := fstest.MapFS{"profile.yaml": {Data: profile}}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		src := sample.Insights[i%len(sample.Insights)]
		day := start.AddDate(0, 0, i%2000).Format(time.DateOnly)
		fsys[fmt.Sprintf("insights/insight-%05d.md", i)] = &fstest.MapFile{Data: fmt.Appendf(nil,
			"---\ntitle: %q\ndescription: %q\ndate: %q\ndateISO: %q\ndateModifiedISO: %q\ntopic: %q\n---\n%s",
			fmt.Sprintf("%s (%d)", src.Title, i), src.Description, day, day, day, src.Topic, src.Body)}
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
				s, err = New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, path := range []string{"/api/v1/insights", insightPath(fmt.Sprintf("insight-%05d", n/2))} {
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

// searchQueries are the benchmark's searches: words of every title, a word
// of some bodies, a prefix of many words, and a word found nowhere.
var searchQueries = []string{"data contracts", "warehouse cost", "the", "platf", "zyzzyva"}

// BenchmarkSearch builds the search index of 10, 2 000 and 10 000
// insights, reporting the bytes it keeps, and runs the search tool's
// searches over it.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10, 2000, 10000} {
		site, err := content.Load(scaleContent(b, n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("index/%d", n), func(b *testing.B) {
			var x *searchIndex
			for b.Loop() {
				x = newSearchIndex(site.Insights)
			}
			// The suffix array holds an int32 per byte of words.
			kept := 5*len(x.words) + 4*len(x.starts) + 4*len(x.first) + int(unsafe.Sizeof(posting{}))*len(x.postings)
			b.ReportMetric(float64(kept), "index-bytes")
		})
		s, err := New(Config{Site: site, BaseURL: "https://example.com", TokenSecret: []byte(strings.Repeat("s", 32))})
		if err != nil {
			b.Fatal(err)
		}
		l := links{base: "https://example.com", cfg: &s.cfg, routes: s.routes}
		for _, q := range searchQueries {
			b.Run(fmt.Sprintf("%s/%d", q, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					l.search(q, 10)
				}
			})
		}
	}
}
