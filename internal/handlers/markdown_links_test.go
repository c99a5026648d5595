package handlers

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// TestInsightDocumentsHaveAbsoluteLinks: the twin and llms-full.txt carry
// the body with its links made absolute and no script; the API carries it
// as written.
func TestInsightDocumentsHaveAbsoluteLinks(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	in := &site.Insights[0]
	in.Body += "\n\nSee [the chart](chart.png) and [the about page](/about).\n\n<script>track()</script>\n"
	s, err := New(agentConfig(Config{BaseURL: "https://example.com", Site: site, TokenSecret: []byte(strings.Repeat("s", 32))}))
	if err != nil {
		t.Fatal(err)
	}
	page := s.fixed.Insight(in.Slug)
	chart := "[the chart](" + page[:strings.LastIndexByte(page, '/')+1] + "chart.png)"
	for path, want := range map[string]string{
		"/insights/" + in.Slug + ".md": chart,
		"/llms-full.txt":               chart,
	} {
		body := getBody(t, s, path)
		if !strings.Contains(body, want) || !strings.Contains(body, "[the about page](https://example.com/about)") || strings.Contains(body, "track()") {
			t.Errorf("%s: want %q and the about page absolute, without the script, in\n%s", path, want, body)
		}
	}
	var api struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(getBody(t, s, "/api/v1/insights/"+in.Slug)), &api); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(api.Content, "See [the chart](chart.png) and [the about page](/about).\n\n<script>track()</script>") {
		t.Errorf("the API's content is not as written: %q", api.Content)
	}
}

// getBody is the body of the service's answer to GET path.
func getBody(t *testing.T, s *Service, path string) string {
	t.Helper()
	w := get(s, "example.com", path, "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	return w.Body.String()
}

// TestPostURL: a Jekyll tag's post name, in each of its forms, gives the
// insight's address; one the content lacks gives none.
func TestPostURL(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	in := s.cat.Site.Insights[0]
	l := newLinks("https://example.com", &s.cfg, s.cat, nil)
	for _, name := range []string{"2024-01-01-" + in.Slug, in.Slug, "_posts/2024-01-01-" + in.Slug + ".md"} {
		if got, ok := l.PostURL(name); !ok || got != l.Insight(in.Slug) {
			t.Errorf("postURL(%q) = %q, %v", name, got, ok)
		}
	}
	if _, ok := l.PostURL("2024-01-01-no-such-post"); ok {
		t.Error("a post the content lacks was found")
	}
}

// TestInsightDocumentsKeepCode: the twin and llms-full.txt carry the
// body's code as written, a <script> example, a shell comment and a
// relative link in it too, while its own headings nest under the
// insight's in llms-full.txt.
func TestInsightDocumentsKeepCode(t *testing.T) {
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	in := &site.Insights[0]
	blocks := []string{
		"{% highlight html %}\n<script src=\"/app.js\"></script>\n<style>p { color: red }</style>\n<a href=\"/x\">x</a>\n{% endhighlight %}",
		"{{< highlight sh >}}\n# install it\ncurl -O /tool.sh\n{{< /highlight >}}",
		"```html\n<script>go()</script> [a](b)\n```",
		"    <a href=\"notes.html\">notes</a>",
		"<pre><code>&lt;b&gt;\n<script>x()</script>\n</code></pre>",
	}
	in.Body += "\n\n## Examples\n\n" + strings.Join(blocks, "\n\n") + "\n"
	s, err := New(agentConfig(Config{BaseURL: "https://example.com", Site: site, TokenSecret: []byte(strings.Repeat("s", 32))}))
	if err != nil {
		t.Fatal(err)
	}
	for path, heading := range map[string]string{"/insights/" + in.Slug + ".md": "\n## Examples\n", "/llms-full.txt": "\n### Examples\n"} {
		body := getBody(t, s, path)
		for _, block := range blocks {
			if !strings.Contains(body, block) {
				t.Errorf("%s lacks, as written:\n%s", path, block)
			}
		}
		if !strings.Contains(body, heading) {
			t.Errorf("%s lacks the heading %q", path, heading)
		}
	}
}
