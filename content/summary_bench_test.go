package content

import "testing"

// BenchmarkSummarize derives the description of each of the sample's
// insights from its body, as the loader does for a post without one.
func BenchmarkSummarize(b *testing.B) {
	site, err := Sample()
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, in := range site.Insights {
		size += len(in.Body)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range site.Insights {
			if summarize(in.Body) == "" {
				b.Fatal("no description")
			}
		}
	}
}
