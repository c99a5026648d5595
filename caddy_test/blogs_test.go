package caddytest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The blogs under testdata/blogs are built here by their own generators
// (Debian's jekyll, with its jekyll-sitemap plugin, and hugo), then served
// by file_server with the module in front, as their owners would: one
// directive naming the profile and the blog's posts folder.

// buildBlog copies the blog fixture name to a temporary folder (the
// generators write caches and locks beside the sources) and builds it
// with the command, run there, which takes the output folder by -d; it
// returns the source and the built site.
func buildBlog(t *testing.T, name string, command ...string) (src, site string) {
	t.Helper()
	if _, err := exec.LookPath(command[0]); err != nil {
		t.Fatalf("%s is needed to build the %s fixture blog: install Debian's %s package (.ci/run does)", command[0], name, command[0])
	}
	return buildBlogWith(t, name, blogBuild{command: command, output: "-d"})
}

// blogBuild is how a fixture blog is built.
type blogBuild struct {
	// command runs in the copy of the fixture.
	command []string
	// output is the flag the command takes the output folder by.
	output string
	// env is added to the command's environment.
	env []string
	// prepare readies the copy before the command runs.
	prepare func(src string)
	// fixtures is the folder the fixture is in: testdata/blogs when empty.
	fixtures string
}

// buildBlogWith copies the blog fixture name to a temporary folder and
// builds it as b says; it returns the source and the built site.
func buildBlogWith(t *testing.T, name string, b blogBuild) (src, site string) {
	t.Helper()
	src = filepath.Join(t.TempDir(), name)
	fixtures := cmp.Or(b.fixtures, filepath.Join("testdata", "blogs"))
	if err := os.CopyFS(src, os.DirFS(filepath.Join(fixtures, name))); err != nil {
		t.Fatal(err)
	}
	if b.prepare != nil {
		b.prepare(src)
	}
	site = filepath.Join(t.TempDir(), "site")
	cmd := exec.Command(b.command[0], append(b.command[1:], b.output, site)...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), b.env...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(b.command, " "), err, out)
	}
	t.Logf("the %s fixture blog built in %s", name, time.Since(start).Round(time.Millisecond))
	return src, site
}

// blogProfile writes the profile the owner keeps beside the blog, with
// extra lines under pages, and returns its folder.
func blogProfile(t *testing.T, pages ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "blogs", "profile", "profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "profile.yaml"), string(data)+strings.Join(pages, "\n")+"\n")
	return dir
}

func blogCaddyfile(port int, site, discovery string) string {
	return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	http_port %d
}

http://localhost:%d {
	root * %s
	discovery {
		%s
	}
	file_server
}
`, port, port, site, discovery)
}

// blogInsight is an insight as the API lists it.
type blogInsight struct {
	Slug, Title, Description, URL   string
	Topic, DateISO, DateModifiedISO string
}

func blogInsights(t *testing.T, p *process) []blogInsight {
	t.Helper()
	resp, body, err := p.send(http.MethodGet, "/api/v1/insights?limit=100", "reader", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("insights: %v %v", resp, err)
	}
	var list struct {
		Items []blogInsight `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// publishedAddresses are the addresses on the site that the API, the
// module's sitemap and llms.txt publish.
func publishedAddresses(t *testing.T, p *process, insights []blogInsight) []string {
	t.Helper()
	set := map[string]bool{}
	for _, in := range insights {
		set[in.URL] = true
	}
	for _, doc := range []struct {
		path string
		link *regexp.Regexp
	}{
		{"/sitemap-discovery.xml", regexp.MustCompile(`<loc>([^<]+)</loc>`)},
		{"/llms.txt", regexp.MustCompile(`\]\((http://localhost:[0-9]+/[^)\s]*)\)`)},
	} {
		resp, body, err := p.send(http.MethodGet, doc.path, "reader", nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", doc.path, resp, err)
		}
		for _, m := range doc.link.FindAllStringSubmatch(string(body), -1) {
			set[m[1]] = true
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for a := range set {
			if !yield(a) {
				return
			}
		}
	})
}

// checkBlog checks what an owner and an agent see of a blog behind the
// module: the insights it publishes, every address published answering
// 200 without a redirect, each post's Markdown at its own address (by
// Accept and by an AI crawler's User-Agent), and the site's bytes for a
// browser.
func checkBlog(t *testing.T, p *process, site string, want map[string]string) []blogInsight {
	t.Helper()
	insights := blogInsights(t, p)
	got := map[string]string{}
	for _, in := range insights {
		u, err := url.Parse(in.URL)
		if err != nil {
			t.Fatal(err)
		}
		got[in.Slug] = u.EscapedPath()
	}
	for slug, page := range want {
		if got[slug] != page {
			t.Errorf("insight %q: page %q, want %q", slug, got[slug], page)
		}
	}
	if len(got) != len(want) {
		t.Errorf("published %v, want %v", got, want)
	}
	for _, address := range publishedAddresses(t, p, insights) {
		path := strings.TrimPrefix(address, p.url)
		resp, _, err := p.send(http.MethodGet, path, "reader", nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %v %v, want 200 without a redirect", address, resp.Status, err)
		}
	}
	for _, in := range insights {
		path := strings.TrimPrefix(in.URL, p.url)
		for _, headers := range [][]string{
			{"Accept", "text/markdown"},
			{"User-Agent", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot"},
		} {
			resp, body, err := p.send(http.MethodGet, path, "reader", nil, headers...)
			if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") ||
				!strings.Contains(string(body), "# "+in.Title) {
				t.Errorf("%s with %s: %v %s\n%s", path, headers, resp.Status, resp.Header.Get("Content-Type"), body)
			}
		}
		resp, body, err := p.send(http.MethodGet, path, "reader", nil, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(site, filepath.FromSlash(strings.TrimPrefix(mustUnescape(t, path), "/")))
		if strings.HasSuffix(path, "/") {
			file = filepath.Join(file, "index.html")
		}
		onDisk, err := os.ReadFile(file)
		if err != nil || resp.StatusCode != http.StatusOK || string(body) != string(onDisk) {
			t.Errorf("%s for a browser: %v, %d bytes; the site's file %s has %d (%v)", path, resp.Status, len(body), file, len(onDisk), err)
		}
	}
	return insights
}

func mustUnescape(t *testing.T, path string) string {
	t.Helper()
	s, err := url.PathUnescape(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitForLog waits until the process has logged want, the site check
// running behind the first request.
func waitForLog(t *testing.T, p *process, want string) string {
	t.Helper()
	return awaitLog(t, p, want, 20*time.Second)
}

// TestJekyllBlog: a Jekyll blog with pretty permalinks, a post named with
// capitals, one in a category, one with its own permalink, one the owner
// keeps out of the sitemap, one dated in the future, one unpublished and
// a draft, with jekyll-sitemap, and a page the content does not name. The owner
// writes one directive and the profile: the module reads the site's
// sitemap (named in its robots.txt) and publishes each post at its real
// address; the robots.txt shuts out GPTBot while the profile's content
// signals say ai-train=yes, which the module points out.
func TestJekyllBlog(t *testing.T) {
	src, site := buildBlog(t, "jekyll", "jekyll", "build", "--quiet")
	caddyfile := blogCaddyfile(9263, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "_posts"))
	p := startProcess(t, "Caddy", "http://localhost:9263", caddyfile)
	waitForLog(t, p, `"msg":"insights matched to the site's sitemap","matched":2,"not_in_sitemap":0,"addresses_changed":2`)
	insights := checkBlog(t, p, site, map[string]string{
		"Javascript-Tips": "/2024/03/05/Javascript-Tips/",
		"hello-world":     "/meta/2023/11/20/hello-world/",
		"own-address":     "/notes/own-address/",
	})
	for _, in := range insights {
		switch in.Slug {
		case "Javascript-Tips":
			if in.Description != "Small habits that keep browser code honest: “measure first”, then change one thing." {
				t.Errorf("description %q: kramdown's table of contents and entities are no description", in.Description)
			}
		case "hello-world":
			if in.Description != "Why this blog exists, in one paragraph." {
				t.Errorf("description %q, want the part before <!--more-->", in.Description)
			}
		}
	}
	waitForLog(t, p, `"msg":"every page address the module publishes answers 200","pages":5,"checked":5,"ok":5`)
	checkConverted(t, p, "/uses/", "# What I use", "[static site generator](https://jekyllrb.com/)")
	// A link to another post by Jekyll's post_url is that post's address.
	resp, body, err := p.send(http.MethodGet, "/notes/own-address/index.md", "reader", nil)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "[first post]("+p.url+"/meta/2023/11/20/hello-world/)") {
		t.Errorf("the twin's post_url link: %v %v\n%s", resp, err, body)
	}
	checkNotConverted(t, p, site, "/2023/06/15/Private-Thoughts/")
	waitForLog(t, p, `"msg":"the site's robots.txt shuts out AI crawlers that the content signals invite to train (ai-train=yes)`)
	waitForLog(t, p, `"crawlers":["GPTBot"]`)
	resp, body, err = p.send(http.MethodGet, "/robots.txt", "reader", nil)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "User-agent: GPTBot\nDisallow: /") {
		t.Errorf("robots.txt: the site's rules are kept: %v %v\n%s", resp, err, body)
	}
}

// TestJekyllBlogWithoutSitemap: the same blog with Jekyll's date
// permalinks and no sitemap. The owner names the pattern in profile.yaml;
// the post in a category is not at that address, and the check after the
// load says so.
func TestJekyllBlogWithoutSitemap(t *testing.T) {
	src, site := buildBlog(t, "jekyll", "jekyll", "build", "--quiet", "--config", "_config.yml,_config_dated.yml")
	profile := blogProfile(t, `  insight: "/{year}/{month}/{day}/{slug}.html"`)
	p := startProcess(t, "Caddy", "http://localhost:9264", blogCaddyfile(9264, site, "content "+profile+"\n\t\tinsights "+filepath.Join(src, "_posts")))
	log := waitForLog(t, p, `"msg":"page addresses the module publishes do not answer 200 from the site`)
	for _, want := range []string{`"pages":5,"checked":5,"ok":4,"not_found":1,"redirected":0`, `"not_found_examples":["/2023/11/20/hello-world.html"]`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
	got := map[string]string{}
	for _, in := range blogInsights(t, p) {
		got[in.Slug] = strings.TrimPrefix(in.URL, p.url)
	}
	want := map[string]string{
		"Javascript-Tips": "/2024/03/05/Javascript-Tips.html",
		"hello-world":     "/2023/11/20/hello-world.html",
		"own-address":     "/notes/own-address/",
	}
	if !maps.Equal(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
}

// TestHugoBlog: a Hugo blog with taxonomies (topics among them), a second
// section, a page bundle, a post whose file name has capitals, posts with
// their own slug and url (one without its trailing slash), a post with no
// paragraph, a post with TOML
// front matter, a draft and a post scheduled for later. Hugo always writes a sitemap: no configuration.
func TestHugoBlog(t *testing.T) {
	src, site := buildBlog(t, "hugo", "hugo", "--quiet")
	caddyfile := blogCaddyfile(9265, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "content", "posts"))
	p := startProcess(t, "Caddy", "http://localhost:9265", caddyfile)
	waitForLog(t, p, `"msg":"insights matched to the site's sitemap","matched":6,"not_in_sitemap":0,"addresses_changed":6`)
	insights := checkBlog(t, p, site, map[string]string{
		"first-steps":     "/posts/first-steps/",
		"Mixed-Case-Name": "/posts/mixed-case-name/",
		"Chosen-Slug":     "/posts/chosen-slug/",
		"own-url":         "/special/address/",
		"bundle-post":     "/posts/bundle-post/",
		"no-paragraph":    "/posts/no-paragraph/",
		"toml-post":       "/posts/toml-post/",
		"no-slash":        "/2023/06/06/no-slash/",
	})
	for _, in := range insights {
		if in.Slug == "no-paragraph" && in.Description != "Only A Heading" {
			t.Errorf("a post with no paragraph is described as %q, want its title", in.Description)
		}
	}
	waitForLog(t, p, `"msg":"every page address the module publishes answers 200","pages":10,"checked":10,"ok":10`)
	checkConverted(t, p, "/notes/elsewhere/", "A Note In Another Section", "other sections are pages the module")
}

// TestSiteCheckOff: with site_check off the module asks the site for
// nothing: the posts are where pages.insight says (the first request
// would otherwise have waited for the sitemap's addresses, as in
// TestJekyllBlog), and no check is logged.
func TestSiteCheckOff(t *testing.T) {
	src, site := buildBlog(t, "jekyll", "jekyll", "build", "--quiet")
	caddyfile := blogCaddyfile(9263, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "_posts")+"\n\t\tsite_check off")
	p := startProcess(t, "Caddy", "http://localhost:9263", caddyfile)
	for _, in := range blogInsights(t, p) {
		if in.Slug == "Javascript-Tips" && in.URL != p.url+"/insights/Javascript-Tips" {
			t.Errorf("url %s, want the pattern's", in.URL)
		}
	}
	log := p.stop()
	for _, unwanted := range []string{"insights matched", "page address", "robots.txt shuts out"} {
		if strings.Contains(log, unwanted) {
			t.Errorf("the log has %s:\n%s", unwanted, log)
		}
	}
}

// checkConverted asks for a page the content does not name as Markdown,
// by Accept and as an AI crawler, and checks it is the page's own text.
func checkConverted(t *testing.T, p *process, path string, wants ...string) {
	t.Helper()
	for _, headers := range [][]string{{"Accept", "text/markdown"}, {"User-Agent", "ClaudeBot/1.0; +claudebot@anthropic.com"}} {
		resp, body, err := p.send(http.MethodGet, path, "reader", nil, headers...)
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") {
			t.Errorf("%s with %s: %v %v %s", path, headers, resp, err, body)
			continue
		}
		for _, want := range wants {
			if !strings.Contains(string(body), want) {
				t.Errorf("%s with %s lacks %q:\n%s", path, headers, want, body)
			}
		}
		if strings.Contains(string(body), "analytics") || strings.Contains(string(body), "<script") {
			t.Errorf("%s: the page's script is in its Markdown:\n%s", path, body)
		}
		if !strings.Contains(resp.Header.Get("Link"), `<`+p.url+path+`>; rel="canonical"`) || resp.Header.Get("X-Markdown-Tokens") == "" ||
			!strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept") {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
	}
}

// checkNotConverted asks for the page of a post the owner guards as
// Markdown: it gets the site's HTML, byte for byte.
func checkNotConverted(t *testing.T, p *process, site, path string) {
	t.Helper()
	onDisk, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(strings.Trim(path, "/")), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, headers := range [][]string{{"Accept", "text/markdown"}, {"User-Agent", "GPTBot/1.2"}} {
		resp, body, err := p.send(http.MethodGet, path, "reader", nil, headers...)
		if err != nil || resp.StatusCode != http.StatusOK || string(body) != string(onDisk) {
			t.Errorf("%s with %s: %v %v %s, want the site's HTML", path, headers, resp, err, resp.Header.Get("Content-Type"))
		}
	}
}

// TestSiteCheckBehindReverseProxy: in front of an app behind
// reverse_proxy, the check reads the app's sitemap and pages as a visitor
// would: posts get the app's addresses, every one answers 200, and the
// proxy logs no error for the pages read.
func TestSiteCheckBehindReverseProxy(t *testing.T) {
	var asked sync.Map
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.Path, true)
		switch r.URL.Path {
		case "/sitemap.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, `<urlset><url><loc>https://app.example/blog/2023/first-steps/</loc></url></urlset>`)
		case "/", "/about/", "/blog/2023/first-steps/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body><main><h1>Page</h1><p>"+strings.Repeat("A long page of the app. ", 4000)+"</p></main></body></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(app.Close)
	content := t.TempDir()
	writeFile(t, filepath.Join(content, "profile.yaml"), mustRead(t, filepath.Join("testdata", "blogs", "profile", "profile.yaml")))
	writeFile(t, filepath.Join(content, "insights", "first-steps.md"), "---\ntitle: First Steps\ndate: 2023-02-14\n---\nThe app's first post.\n")
	caddyfile := fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	http_port 9268
}

http://localhost:9268 {
	discovery {
		content %s
	}
	reverse_proxy %s
}
`, content, strings.TrimPrefix(app.URL, "http://"))
	p := startProcess(t, "Caddy", "http://localhost:9268", caddyfile)
	waitForLog(t, p, `"msg":"insights matched to the site's sitemap","matched":1,"not_in_sitemap":0,"addresses_changed":1`)
	log := waitForLog(t, p, `"msg":"every page address the module publishes answers 200","pages":3,"checked":3,"ok":3`)
	if strings.Contains(log, `"level":"error"`) {
		t.Errorf("the proxy logged an error:\n%s", log)
	}
	for _, in := range blogInsights(t, p) {
		if in.URL != p.url+"/blog/2023/first-steps/" {
			t.Errorf("%s is published at %s", in.Slug, in.URL)
		}
	}
	if _, ok := asked.Load("/blog/2023/first-steps/"); !ok {
		t.Error("the app was not asked for the post's page")
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
