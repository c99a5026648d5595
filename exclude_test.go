package discovery

import (
	"path/filepath"
	"testing"

	"go.uber.org/zap"
)

// TestLoadContentExcludes: the exclude patterns reach the loader, for a
// posts folder of its own and for the embedded sample alike.
func TestLoadContentExcludes(t *testing.T) {
	site := filepath.Join("content", "testdata", "hugo")
	tests := []struct {
		name string
		h    Handler
		want int // insights loaded
	}{
		{"posts folder", Handler{Content: site, Insights: filepath.Join(site, "content", "posts")}, 3},
		{"posts folder with a year excluded", Handler{Content: site, Insights: filepath.Join(site, "content", "posts"), Exclude: []string{"2022/"}}, 2},
		{"sample with every post excluded", Handler{Exclude: []string{"*.md"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.h.logger = zap.NewNop()
			loaded, err := tt.h.loadContent()
			if err != nil {
				t.Fatalf("loadContent() error: %v", err)
			}
			if len(loaded.Insights) != tt.want {
				t.Errorf("loaded %d insights, want %d", len(loaded.Insights), tt.want)
			}
		})
	}
}
