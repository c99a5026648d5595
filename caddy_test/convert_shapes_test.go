package caddytest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// furnitureShapes are pages within the bounds of a conversion (under
// 2 MiB, 262 144 nodes, a nesting work of 8 388 608) made of what the
// passes that tell a page's content from the theme's furniture, and ready
// its code, headings and embeds, look at, many times over.
func furnitureShapes() map[string]string {
	return map[string]string{
		"asides.html":          "<main>" + strings.Repeat("<aside>a</aside>", 120000) + "</main>",
		"sidebars.html":        "<main>" + strings.Repeat(`<div class="sidebar"></div>`, 70000) + "</main>",
		"deep-asides.html":     "<main>" + strings.Repeat(strings.Repeat("<div>", 500)+"<aside></aside>"+strings.Repeat("</div>", 500), 30) + "</main>",
		"code-comments.html":   "<main><pre><code>" + strings.Repeat(" <!---->", 100000) + "</code></pre></main>",
		"code-blocks.html":     "<main><pre><code>" + strings.Repeat("<div> </div>", 100000) + "</code></pre></main>",
		"breaks.html":          "<main><p>x</p>" + strings.Repeat("<hr><!---->", 100000) + "</main>",
		"heading-anchors.html": "<main>" + strings.Repeat(`<h2><a href="#a"></a></h2>`, 70000) + "</main>",
		"neighbours.html":      "<main>" + strings.Repeat(`<div>next <a href="/x">x</a></div>`, 50000) + "</main>",
		"embeds.html":          "<main>" + strings.Repeat(`<iframe src="https://www.youtube.com/embed/a1"></iframe>`, 36000) + "</main>",
	}
}

// TestFurnitureShapesCostAtMostTheBound: pages shaped against each pass
// that readies a page's content for the converter (120 000 sibling
// asides, blanks and blocks in code, trailing breaks, heading anchors,
// neighbours' links, embeds) are answered, as Markdown or as their HTML,
// each for at most the documented 1 s of CPU (tens of milliseconds: each
// pass reads a page once), and again for next to nothing. The race
// detector's slowdown voids the figure, not the answers.
func TestFurnitureShapesCostAtMostTheBound(t *testing.T) {
	root := t.TempDir()
	pages := furnitureShapes()
	for name, page := range pages {
		writeFile(t, root+"/"+name, page)
	}
	writeFile(t, root+"/index.html", guidePage)
	p := convertProcess(t, 9382, root, "/index.html")
	pid := p.cmd.Process.Pid
	var worst time.Duration
	for name := range pages {
		for round := range 2 {
			start := cpuTime(t, pid)
			resp, _, err := p.send(http.MethodGet, "/"+name, "", nil, "Accept", "text/markdown", "Accept-Encoding", "identity")
			cpu := cpuTime(t, pid) - start
			if err != nil {
				t.Fatal(err)
			}
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/markdown") && !strings.HasPrefix(ct, "text/html") {
				t.Errorf("%s: %d %q", name, resp.StatusCode, ct)
			}
			t.Logf("%s, request %d: %s, %v of CPU", name, round+1, resp.Header.Get("Content-Type"), cpu)
			worst = max(worst, cpu)
		}
	}
	if worst > time.Second && !raceDetector {
		t.Errorf("a page cost %v of CPU, over the 1 s a conversion may take", worst)
	}
}
