package caddytest

import (
	"html"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The blogs here are a web developer's, built by their own generators:
// posts whose code blocks show <script>, <style> and links (in Liquid's
// {% highlight %}, Hugo's {{< highlight >}} with and without line
// numbers, fenced, indented, <pre>), a date Jekyll publishes though it is
// not quite a date, the owner's description in a theme's meta key,
// categories Hugo reads whole, and Eleventy tags that only group files.
// Each is served with the module in front, twice: with the posts' sources
// (the module publishes them as written) and without (the module reads
// the site, and each post is its page converted).

// sourceCode is a block of code of a post's source: as written, fences or
// tags included, and the code the reader of the page sees in it.
type sourceCode struct{ source, code string }

// sourceCodes are the blocks of code of a post's source, in order: Liquid
// and Hugo highlight blocks, fenced blocks, <pre> blocks and indented
// blocks.
func sourceCodes(md string) []sourceCode {
	var blocks []sourceCode
	lines := strings.SplitAfter(md, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		var closes func(line string) bool
		switch {
		case strings.HasPrefix(trimmed, "{% highlight"):
			closes = func(line string) bool { return strings.HasPrefix(line, "{% endhighlight") }
		case strings.HasPrefix(trimmed, "{{< highlight"):
			closes = func(line string) bool { return strings.HasPrefix(line, "{{< /highlight") }
		case strings.HasPrefix(trimmed, "```"):
			closes = func(line string) bool { return strings.HasPrefix(line, "```") }
		case strings.HasPrefix(trimmed, "<pre><code>"):
			end := i
			for end < len(lines) && !strings.Contains(lines[end], "</code></pre>") {
				end++
			}
			source := strings.Join(lines[i:end+1], "")
			inner := strings.TrimPrefix(strings.TrimSpace(source), "<pre><code>")
			inner = strings.TrimSuffix(inner, "</code></pre>")
			blocks = append(blocks, sourceCode{strings.TrimSuffix(source, "\n"), html.UnescapeString(inner) + "\n"})
			i = end
			continue
		case strings.HasPrefix(lines[i], "    ") && trimmed != "":
			end := i
			var code strings.Builder
			for end < len(lines) && strings.HasPrefix(lines[end], "    ") {
				code.WriteString(lines[end][4:])
				end++
			}
			blocks = append(blocks, sourceCode{strings.TrimSuffix(strings.Join(lines[i:end], ""), "\n"), code.String()})
			i = end - 1
			continue
		default:
			continue
		}
		end := i + 1
		for end < len(lines) && !closes(strings.TrimSpace(lines[end])) {
			end++
		}
		blocks = append(blocks, sourceCode{
			source: strings.TrimSuffix(strings.Join(lines[i:min(end+1, len(lines))], ""), "\n"),
			code:   strings.Join(lines[i+1:min(end, len(lines))], ""),
		})
		i = end
	}
	return blocks
}

// postSources reads the source of each post of a blog's posts folder, by
// the slug the module gives it.
func postSources(t *testing.T, dir string, slug func(file string) string) map[string]string {
	t.Helper()
	sources := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" || strings.HasPrefix(d.Name(), "_") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sources[slug(d.Name())] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sources
}

// checkCodeAsWritten: each post's twin and llms-full.txt hold every code
// block of its source as written, byte for byte.
func checkCodeAsWritten(t *testing.T, p *process, insights []blogInsight, sources map[string]string) {
	t.Helper()
	_, full, err := p.send(http.MethodGet, "/llms-full.txt", "reader", nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, in := range insights {
		twinPath := strings.TrimPrefix(in.URL, p.url) + "index.md"
		resp, twin, err := p.send(http.MethodGet, twinPath, "reader", nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", twinPath, resp, err)
		}
		for _, block := range sourceCodes(sources[in.Slug]) {
			blocks++
			for doc, body := range map[string][]byte{twinPath: twin, "/llms-full.txt": full} {
				if !strings.Contains(string(body), block.source) {
					t.Errorf("%s lacks, byte for byte, the block of %s:\n%s", doc, in.Slug, block.source)
				}
			}
		}
	}
	if blocks == 0 {
		t.Fatal("the posts' sources hold no code block")
	}
}

// checkCodeConverted: each post's page as Markdown holds the code of every
// code block of its source, byte for byte, in a fenced block.
func checkCodeConverted(t *testing.T, p *process, insights []blogInsight, sources map[string]string) {
	t.Helper()
	blocks := 0
	for _, in := range insights {
		path := strings.TrimPrefix(in.URL, p.url)
		resp, md, err := p.send(http.MethodGet, path, "reader", nil, "Accept", "text/markdown")
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") {
			t.Fatalf("%s as Markdown: %v %v", path, resp, err)
		}
		fenced := codeFences(string(md))
		for _, block := range sourceCodes(sources[in.Slug]) {
			blocks++
			if !slices.Contains(fenced, block.code) {
				t.Errorf("%s as Markdown lacks, byte for byte, the code:\n%s\nin\n%s", path, block.code, md)
			}
		}
	}
	if blocks == 0 {
		t.Fatal("the posts' sources hold no code block")
	}
}

// codeFences is the code of each fenced block of md, as the converter
// writes them: a line of three or more backticks and an info string, the
// code, the same backticks.
func codeFences(md string) []string {
	var blocks []string
	lines := strings.SplitAfter(md, "\n")
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimRight(lines[i], "\n")
		fence = fence[:len(fence)-len(strings.TrimLeft(fence, "`"))]
		if len(fence) < 3 {
			continue
		}
		var code strings.Builder
		for i++; i < len(lines) && strings.TrimRight(lines[i], "\n") != fence; i++ {
			code.WriteString(lines[i])
		}
		blocks = append(blocks, code.String())
	}
	return blocks
}

// waitForInsights waits until the module, reading the site, publishes n
// insights, and returns them.
func waitForInsights(t *testing.T, p *process, n int) []blogInsight {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		insights := blogInsights(t, p)
		if len(insights) == n {
			return insights
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d insights read from the site, want %d: %+v", len(insights), n, insights)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestJekyllBlogOfCode: a Jekyll blog whose posts show code in
// {% highlight %} blocks (with line numbers too), fenced, indented and in
// <pre>, with a post of its own script, one dated 2024-11-18 15:04:11:57
// (a time of a field too many, which Jekyll publishes) and owner
// descriptions in the theme's meta key (a text, and meta.description).
func TestJekyllBlogOfCode(t *testing.T) {
	src, site := buildBlog(t, "jekyll-dev", "jekyll", "build", "--quiet")
	sources := postSources(t, filepath.Join(src, "_posts"), func(file string) string {
		return strings.TrimSuffix(file, ".md")[len("2024-01-01-"):]
	})
	pages := map[string]string{
		"loading-scripts": "/2024/02/10/loading-scripts/",
		"scoped-styles":   "/2024/03/01/scoped-styles/",
		"relative-links":  "/2024/04/15/relative-links/",
		"written-late":    "/2024/11/18/written-late/",
	}
	t.Run("sources", func(t *testing.T) {
		p := startProcess(t, "Caddy", "http://localhost:9341",
			blogCaddyfile(9341, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "_posts")))
		waitForLog(t, p, `"msg":"insights matched to the site's sitemap","matched":4`)
		insights := checkBlog(t, p, site, pages)
		for _, in := range insights {
			want := map[string]string{
				"loading-scripts": "How async and defer change when a script runs, with the markup for each.",
				"scoped-styles":   "A style element used to style the whole page; the markup to keep it to one component.",
			}[in.Slug]
			if want != "" && in.Description != want {
				t.Errorf("%s: description %q, want the owner's meta %q", in.Slug, in.Description, want)
			}
			if in.Slug == "written-late" && in.DateISO != "2024-11-18" {
				t.Errorf("%s: date %q, want 2024-11-18", in.Slug, in.DateISO)
			}
		}
		checkCodeAsWritten(t, p, insights, sources)
		_, twin, _ := p.send(http.MethodGet, "/2024/04/15/relative-links/index.md", "reader", nil)
		if !strings.Contains(string(twin), "[diagram]("+p.url+"/2024/04/15/relative-links/img/diagram.png)") ||
			!strings.Contains(string(twin), "[the about page]("+p.url+"/about/)") {
			t.Errorf("the prose's links are not absolute:\n%s", twin)
		}
		_, twin, _ = p.send(http.MethodGet, "/2024/02/10/loading-scripts/index.md", "reader", nil)
		if strings.Contains(string(twin), "this post's own script") {
			t.Errorf("the post's own script is in its twin:\n%s", twin)
		}
	})
	t.Run("site", func(t *testing.T) {
		p := startProcess(t, "Caddy", "http://localhost:9342", blogCaddyfile(9342, site, "content "+blogProfile(t)))
		insights := waitForInsights(t, p, len(pages))
		for _, in := range insights {
			if page := strings.TrimPrefix(in.URL, p.url); page != pages[in.Slug] {
				t.Errorf("%s at %s, want %s", in.Slug, page, pages[in.Slug])
			}
		}
		checkCodeConverted(t, p, insights, sources)
	})
}

// TestHugoBlogOfCode: a Hugo blog whose posts show code in
// {{< highlight >}} blocks, with line numbers in a table and inline, and
// fenced, and whose categories are single texts, which Hugo takes whole.
func TestHugoBlogOfCode(t *testing.T) {
	src, site := buildBlog(t, "hugo-dev", "hugo", "--quiet")
	sources := postSources(t, filepath.Join(src, "content", "posts"), func(file string) string { return strings.TrimSuffix(file, ".md") })
	pages := map[string]string{
		"inline-scripts":       "/posts/inline-scripts/",
		"styles-in-shortcodes": "/posts/styles-in-shortcodes/",
	}
	if _, err := os.Stat(filepath.Join(site, "categories", "machine-learning", "index.html")); err != nil {
		t.Fatalf("Hugo wrote no page for the category Machine Learning: %v", err)
	}
	t.Run("sources", func(t *testing.T) {
		p := startProcess(t, "Caddy", "http://localhost:9343",
			blogCaddyfile(9343, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "content", "posts")))
		waitForLog(t, p, `"msg":"insights matched to the site's sitemap","matched":2`)
		insights := checkBlog(t, p, site, pages)
		for _, in := range insights {
			want := map[string]string{"inline-scripts": "Web Platform", "styles-in-shortcodes": "Machine Learning"}[in.Slug]
			if in.Topic != want {
				t.Errorf("%s: topic %q, want %q, the category as Hugo reads it", in.Slug, in.Topic, want)
			}
		}
		checkCodeAsWritten(t, p, insights, sources)
	})
	t.Run("site", func(t *testing.T) {
		p := startProcess(t, "Caddy", "http://localhost:9344", blogCaddyfile(9344, site, "content "+blogProfile(t)))
		checkCodeConverted(t, p, waitForInsights(t, p, len(pages)), sources)
	})
}

// TestEleventyCollectionTags: an Eleventy blog whose folders put their
// posts in collections by directory data files (posts.json, til/til.json,
// notes/notes.11tydata.js), which the site's pages list; each post's own
// tags repeat the folder's. The topic is the first tag that is not a
// collection's: a TIL's or a note's kind is no topic.
func TestEleventyCollectionTags(t *testing.T) {
	src, site := buildNpmBlog(t, "eleventy-dev", "node_modules/@11ty/eleventy/cmd.cjs", "--output", nil, "--quiet")
	p := startProcess(t, "Caddy", "http://localhost:9345",
		blogCaddyfile(9345, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "posts")))
	checkSitemapMatch(t, p, `"matched":4,"not_in_sitemap":0`)
	insights := checkBlog(t, p, site, map[string]string{
		"container-queries":   "/posts/container-queries/",
		"grid-template-areas": "/posts/til/grid-template-areas/",
		"focus-visible":       "/posts/til/focus-visible/",
		"reading-aloud":       "/posts/notes/reading-aloud/",
	})
	for _, in := range insights {
		want := map[string]string{"container-queries": "css", "grid-template-areas": "grid", "focus-visible": "General", "reading-aloud": "accessibility"}[in.Slug]
		if in.Topic != want {
			t.Errorf("%s: topic %q, want %q", in.Slug, in.Topic, want)
		}
	}
	for _, list := range []string{"til", "notes"} {
		if page, err := os.ReadFile(filepath.Join(site, list, "index.html")); err != nil || !strings.Contains(string(page), "/posts/"+list+"/") {
			t.Errorf("Eleventy's %s collection lists none of its posts (%v)", list, err)
		}
	}
}
