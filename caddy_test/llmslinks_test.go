package caddytest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// llmsLinkTarget matches the address of a link in a Markdown list item
// of llms.txt, and the address of an endpoint it names in backticks.
var llmsLinkTarget = regexp.MustCompile(`\]\((http[^)\s]+)\)|` + "`GET (http[^`\\s]+)`")

// TestEveryLLMsLinkCanBeFollowed: an agent reading llms.txt and every
// document it links (the index of all insights among them, and each
// insight it lists), from one address, with the default quota of 120
// requests a minute, meets no 429 on a site of 1 000 insights: the
// Markdown versions of the pages are limited as the pages are, and the
// API's endpoints llms.txt names fit in the quota.
func TestEveryLLMsLinkCanBeFollowed(t *testing.T) {
	dir := insightsFolder(t, 1000)
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content `+dir+`
	}
	respond "a page of the site" 200
}
`)
	seen := map[string]bool{}
	queue := []string{base + "/llms.txt"}
	statuses := map[int]int{}
	for len(queue) > 0 && len(seen) < 5000 {
		target := queue[0]
		queue = queue[1:]
		if seen[target] || !strings.HasPrefix(target, base) {
			continue
		}
		seen[target] = true
		r := s.get(strings.TrimPrefix(target, base))
		statuses[r.StatusCode]++
		if r.StatusCode != http.StatusOK {
			t.Logf("%s: %d", target, r.StatusCode)
		}
		if r.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("%s: 429 after %d documents followed", target, len(seen))
		}
		// Follow the links of llms.txt and of the Markdown documents it
		// leads to; the JSON, the HTML and the scripts are read, not
		// followed.
		if !strings.HasSuffix(target, ".txt") && !strings.HasSuffix(target, ".md") {
			continue
		}
		for _, m := range llmsLinkTarget.FindAllStringSubmatch(string(r.body), -1) {
			link := m[1] + m[2]
			if !seen[link] && !strings.Contains(link, "{") {
				queue = append(queue, link)
			}
		}
	}
	if len(seen) < 1000 {
		t.Errorf("only %d documents followed: the insights were not all reached", len(seen))
	}
	t.Logf("%d documents followed from llms.txt, by status: %v", len(seen), statuses)
}

// insightsFolder writes a content folder of n insights, copies of the
// sample's under names of their own, with the sample's profile.
func insightsFolder(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	sample := filepath.Join("..", "content", "sample")
	profile, err := os.ReadFile(filepath.Join(sample, "profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "profile.yaml"), string(profile))
	files, err := filepath.Glob(filepath.Join(sample, "insights", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("sample insights: %v", err)
	}
	for i := range n {
		data, err := os.ReadFile(files[i%len(files)])
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "insights", fmt.Sprintf("%05d-%s", i, filepath.Base(files[i%len(files)]))), string(data))
	}
	return dir
}
