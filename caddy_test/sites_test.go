package caddytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"golang.org/x/net/html"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A bare discovery in front of sites as they are deployed: a built Jekyll
// folder, a built Hugo folder, an app behind reverse_proxy, two sites in
// one Caddy (and WordPress, in sites_wordpress_test.go). The module has no
// content of its own: what it publishes must be the site's person and the
// site's posts, at addresses the site answers, and a browser must get the
// site's bytes.

// sitePost is a post as the site publishes it.
type sitePost struct {
	title string
	// date is the day it was published, YYYY-MM-DD.
	date string
	// path is its address on the site.
	path string
	// phrase is words of its body, as its Markdown has them.
	phrase string
}

// siteWant is what a site publishes.
type siteWant struct {
	// person is who the site names as its own.
	person string
	posts  []sitePost
	// original is the site's answer to a browser's GET of path, asked of
	// the site without the module.
	original func(t *testing.T, path string) (int, []byte)
}

// browserHeaders are a browser's, asking for a page. Accept-Encoding is
// set, so the client keeps the body as it came.
var browserHeaders = []string{
	"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
	"Accept-Language", "en-GB,en;q=0.5",
	"Accept-Encoding", "gzip, deflate, br, zstd",
	"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:135.0) Gecko/20100101 Firefox/135.0",
}

// sampleNames are words of the built-in sample's person, which a bare
// discovery never publishes.
var sampleNames = []string{"Rosalind", "Achterberg", "Harbourline"}

// siteCaddyfile is a Caddyfile of global options for a process whose
// first site is on port, and the site blocks.
func siteCaddyfile(port int, blocks ...string) string {
	return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	http_port %d
}
`, port) + strings.Join(blocks, "\n")
}

// siteRead waits until the module has read the site at origin in full
// once, and returns the log.
func siteRead(t *testing.T, p *process, origin string) string {
	t.Helper()
	return awaitLog(t, p, `"msg":"site read","site":"`+origin+`"`, 30*time.Second)
}

// ask sends GET address with headers as name, value pairs, follows no
// redirect, and returns the answer with its whole body.
func ask(t *testing.T, address string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return askAs(t, processClient, address, headers...)
}

// askAs is ask with client.
func askAs(t *testing.T, client *http.Client, address string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, address, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", address, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", address, err)
	}
	return resp, body
}

// siteClient asks one site as one client, and checks the JSON it gets
// against the OpenAPI description the site serves.
type siteClient struct {
	t      *testing.T
	origin string
	client *http.Client
	spec   *spec
}

// newSiteClient is a client of the site at origin; from is its loopback
// address (nil for any), so that checks can be clients of their own, each
// within the module's rate limit.
func newSiteClient(t *testing.T, origin string, from net.IP) *siteClient {
	t.Helper()
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if from != nil {
		dialer.LocalAddr = &net.TCPAddr{IP: from}
	}
	client := &http.Client{
		Transport:     &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 16},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
	t.Cleanup(client.CloseIdleConnections)
	c := &siteClient{t: t, origin: origin, client: client}
	resp, doc := c.ask("/openapi.json")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s/openapi.json: %s", origin, resp.Status)
	}
	c.spec = loadSpec(t, doc)
	return c
}

// ask sends GET path (or an address of the site) with headers.
func (c *siteClient) ask(path string, headers ...string) (*http.Response, []byte) {
	c.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = c.origin + path
	}
	return askAs(c.t, c.client, path, headers...)
}

// validJSON asks for path and checks that the answer is a 200 the
// OpenAPI description describes; it returns the body.
func (c *siteClient) validJSON(path string) []byte {
	c.t.Helper()
	resp, body := c.ask(path)
	if resp.StatusCode != http.StatusOK {
		c.t.Errorf("GET %s: %s\n%.500s", path, resp.Status, body)
		return body
	}
	check := *resp
	check.Body = io.NopCloser(bytes.NewReader(body))
	if ok, errs := c.spec.validator.ValidateHttpResponse(resp.Request, &check); !ok {
		for _, e := range errs {
			c.t.Errorf("GET %s does not match /openapi.json: %s (%s)", path, e.Message, e.Reason)
		}
	}
	return body
}

func decodeJSON(t *testing.T, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%v\n%.500s", err, body)
	}
}

// siteProfile is what the checks read of the profile.
type siteProfile struct {
	Name          string
	SiteStructure []struct{ URL string } `json:"siteStructure"`
	URLs          map[string]string      `json:"urls"`
}

// insights are the insights the site publishes, by their address; the
// list and details of the first few are checked against the OpenAPI
// description.
func (c *siteClient) insights() map[string]blogInsight {
	c.t.Helper()
	var list struct{ Items []blogInsight }
	decodeJSON(c.t, c.validJSON("/api/v1/insights"), &list)
	byPath := make(map[string]blogInsight)
	for i, in := range list.Items {
		if i < 3 {
			c.validJSON("/api/v1/insights/" + url.PathEscape(in.Slug))
		}
		byPath[strings.TrimPrefix(in.URL, c.origin)] = in
	}
	return byPath
}

// checkSite checks what a bare discovery publishes of the site at origin,
// asked from 127.0.0.1.
func checkSite(t *testing.T, origin string, want siteWant) {
	t.Helper()
	newSiteClient(t, origin, net.IPv4(127, 0, 0, 1)).check(want)
}

// check checks what a bare discovery publishes of the site: the profile
// names the site's person; every post is an insight with its title, date
// and address, and no other; every address published answers 200; each
// post's Markdown has its title and body; MCP search finds each post by
// its title's words; nothing of the sample appears anywhere; a browser
// gets the site's bytes; the JSON answers match /openapi.json.
func (c *siteClient) check(want siteWant) {
	t := c.t
	t.Helper()
	var profile siteProfile
	decodeJSON(t, c.validJSON("/api/v1/profile"), &profile)
	if profile.Name != want.person {
		t.Errorf("the profile names %q, want the site's person %q", profile.Name, want.person)
	}
	insights := c.insights()
	for _, post := range want.posts {
		in, ok := insights[post.path]
		if !ok {
			t.Errorf("the post %q at %s is not an insight", post.title, post.path)
			continue
		}
		if in.Title != post.title || in.DateISO != post.date {
			t.Errorf("the insight at %s is %q of %s, want %q of %s", post.path, in.Title, in.DateISO, post.title, post.date)
		}
	}
	if len(insights) != len(want.posts) {
		t.Errorf("%d insights, want the site's %d posts: %v", len(insights), len(want.posts), slices.Sorted(mapKeys(insights)))
	}
	for _, path := range []string{"/api/v1", "/.well-known/agent-card.json", "/.well-known/mcp/server-card.json", "/.well-known/api-catalog"} {
		c.validJSON(path)
	}
	c.checkPublished(profile, insights)
	c.checkPostPages(want)
	c.checkSearch(want)
	c.checkNoSample(want)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// llmsLink is a Markdown link's address.
var llmsLink = regexp.MustCompile(`\]\((https?://[^)\s]+)\)`)

// sitemapLoc is a sitemap's address.
var sitemapLoc = regexp.MustCompile(`<loc>([^<]+)</loc>`)

// published are the addresses of the site the module publishes: its
// sitemap's, llms.txt's, the profile's pages and site structure, the
// insights'.
func (c *siteClient) published(profile siteProfile, insights map[string]blogInsight) []string {
	c.t.Helper()
	set := make(map[string]bool)
	for _, u := range profile.URLs {
		set[u] = true
	}
	for _, s := range profile.SiteStructure {
		set[s.URL] = true
	}
	for _, in := range insights {
		set[in.URL] = true
	}
	_, sitemap := c.ask("/sitemap-discovery.xml")
	for _, m := range sitemapLoc.FindAllStringSubmatch(string(sitemap), -1) {
		set[m[1]] = true
	}
	_, llms := c.ask("/llms.txt")
	for _, m := range llmsLink.FindAllStringSubmatch(string(llms), -1) {
		if strings.HasPrefix(m[1], c.origin+"/") {
			set[m[1]] = true
		}
	}
	return slices.Sorted(mapKeys(set))
}

// checkPublished checks that every address of the site the module
// publishes answers a browser 200, without a redirect.
func (c *siteClient) checkPublished(profile siteProfile, insights map[string]blogInsight) {
	t := c.t
	t.Helper()
	addresses := c.published(profile, insights)
	if len(addresses) < len(insights)+3 {
		t.Errorf("only %d addresses published: %v", len(addresses), addresses)
	}
	for _, address := range addresses {
		if !strings.HasPrefix(address, c.origin+"/") {
			t.Errorf("%s is published, off the site %s", address, c.origin)
			continue
		}
		resp, _ := c.ask(address, browserHeaders...)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s is published and answers %s %s", address, resp.Status, resp.Header.Get("Location"))
		}
	}
}

// checkPostPages checks each post's page: as Markdown, its title and its
// body; for a browser, the site's bytes, as for the home page.
func (c *siteClient) checkPostPages(want siteWant) {
	t := c.t
	t.Helper()
	for _, post := range want.posts {
		resp, body := c.ask(post.path, "Accept", "text/markdown")
		// The words as text: Markdown escapes some characters (php\_fastcgi).
		text := strings.ReplaceAll(string(body), "\\", "")
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") ||
			!strings.Contains(text, "\n# "+post.title+"\n") || !strings.Contains(text, post.phrase) {
			t.Errorf("%s as Markdown: %s %s, want its title %q and its words %q:\n%s", post.path, resp.Status,
				resp.Header.Get("Content-Type"), post.title, post.phrase, body)
		}
	}
	for _, path := range append([]string{"/"}, pathsOf(want.posts)...) {
		resp, body := c.ask(path, browserHeaders...)
		status, original := want.original(t, path)
		if resp.StatusCode != status || !bytes.Equal(body, original) {
			t.Errorf("%s for a browser: %s with %d bytes; the site answers %d with %d bytes", path, resp.Status, len(body), status, len(original))
		}
		// Parity: what an AI crawler gets at the address says what the
		// page a browser gets says (scanners compare the two).
		_, md := c.ask(path, "User-Agent", "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)")
		if missing, total := missingWords(body, md); total > 0 && len(missing)*10 > total {
			t.Errorf("%s: the Markdown an AI crawler gets lacks %d of the %d words of the page's content, such as %q", path, len(missing), total, missing[:min(8, len(missing))])
		}
	}
}

// missingWords are the words of page's main content that md does not
// hold, and how many distinct words the content has. The content is the
// element the converter takes (its <main>, or the one outermost article
// in it when that holds most of main's text or the rest is mostly links;
// without a <main>, its one outermost article, else its <body>), so that
// the check compares like with like: the theme's furniture beside the
// article is no content to lose, and what the article says still is. Its
// scripts, styles and navigation are left out. Words are runs of four
// letters or more, case aside.
func missingWords(page, md []byte) (missing []string, total int) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, 0
	}
	var main, body *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "main":
				if main == nil {
					main = n
				}
			case "body":
				body = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	root := body
	if main != nil {
		root = main
	}
	if root == nil {
		return nil, 0
	}
	var articles []*html.Node
	var outermost func(n *html.Node)
	outermost = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "article" {
				articles = append(articles, c)
				continue
			}
			outermost(c)
		}
	}
	outermost(root)
	if len(articles) == 1 {
		all, linked := textSizes(root)
		inArticle, linkedInArticle := textSizes(articles[0])
		if rest := all - inArticle; root != main || inArticle >= rest || 2*(linked-linkedInArticle) >= rest {
			root = articles[0]
		}
	}
	var text strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "nav" || n.Data == "form" || n.Data == "svg") {
			return
		}
		if n.Type == html.TextNode {
			text.WriteString(n.Data + " ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	have := strings.ToLower(string(md))
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text.String()), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(w)) < 4 || seen[w] {
			continue
		}
		seen[w] = true
		total++
		if !strings.Contains(have, w) {
			missing = append(missing, w)
		}
	}
	return missing, total
}

// textSizes is the size of n's text in non-blank characters, and the part
// of it inside links, scripts, styles and navigation aside.
func textSizes(n *html.Node) (all, linked int) {
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "nav" || n.Data == "form" || n.Data == "svg") {
			return
		}
		if n.Type == html.TextNode {
			k := len([]rune(strings.Join(strings.Fields(n.Data), "")))
			all += k
			if inLink {
				linked += k
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLink || n.Type == html.ElementNode && n.Data == "a")
		}
	}
	walk(n, false)
	return all, linked
}

func pathsOf(posts []sitePost) []string {
	var paths []string
	for _, p := range posts {
		paths = append(paths, p.path)
	}
	return paths
}

// mcp connects the official Go SDK's client to the site's MCP server.
func (c *siteClient) mcp() *mcp.ClientSession {
	c.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "caddy-discovery-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: c.origin + "/mcp", HTTPClient: c.client, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		c.t.Fatalf("connecting to %s/mcp: %v", c.origin, err)
	}
	c.t.Cleanup(func() { _ = session.Close() })
	return session
}

// searchHit is a result of search_insights.
type searchHit struct{ Slug, Title, URL string }

// searchInsights calls the MCP tool search_insights with query.
func searchInsights(t *testing.T, session *mcp.ClientSession, query string) []searchHit {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "search_insights", Arguments: map[string]any{"query": query, "limit": 5}})
	if err != nil {
		t.Fatalf("search_insights %q: %v", query, err)
	}
	if res.IsError {
		t.Fatalf("search_insights %q: a tool error: %v", query, res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Results []searchHit }
	decodeJSON(t, raw, &out)
	return out.Results
}

// checkSearch checks that MCP search finds each post by its title's
// words, and that the MCP server is the person's.
func (c *siteClient) checkSearch(want siteWant) {
	t := c.t
	t.Helper()
	session := c.mcp()
	if title := session.InitializeResult().ServerInfo.Title; !strings.Contains(title, want.person) {
		t.Errorf("the MCP server is %q, want %s's", title, want.person)
	}
	for _, post := range want.posts {
		hits := searchInsights(t, session, post.title)
		if !slices.ContainsFunc(hits, func(h searchHit) bool { return h.URL == c.origin+post.path }) {
			t.Errorf("search_insights %q does not find %s: %v", post.title, post.path, hits)
		}
	}
}

// sampleFree are the documents that must have nothing of the sample.
var sampleFree = []struct {
	path    string
	headers []string
}{
	{"/api/v1/profile", nil}, {"/api/v1/insights", nil}, {"/llms.txt", nil}, {"/llms-full.txt", nil},
	{"/.well-known/agent-card.json", nil}, {"/.well-known/mcp/server-card.json", nil}, {"/developers", nil},
	{"/developers.md", nil}, {"/openapi.json", nil}, {"/sitemap-discovery.xml", nil}, {"/robots.txt", nil},
	{"/", []string{"Accept", "text/markdown"}},
}

// checkNoSample checks that nothing of the built-in sample appears in
// what the module publishes, and that security.txt is the site's (here
// none: the site names no security contact).
func (c *siteClient) checkNoSample(want siteWant) {
	t := c.t
	t.Helper()
	for _, doc := range sampleFree {
		resp, body := c.ask(doc.path, doc.headers...)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %v: %s", doc.path, doc.headers, resp.Status)
		}
		for _, name := range sampleNames {
			if strings.Contains(strings.ToLower(string(body)), strings.ToLower(name)) {
				t.Errorf("%s %v has the sample's %q", doc.path, doc.headers, name)
			}
		}
	}
	resp, body := c.ask("/.well-known/security.txt")
	status, original := want.original(t, "/.well-known/security.txt")
	if resp.StatusCode != status || !bytes.Equal(body, original) {
		t.Errorf("security.txt: %s, %d bytes; the site's is %d, %d bytes", resp.Status, len(body), status, len(original))
	}
}

// fromFolder is the site's answer for a built folder served by
// file_server: the file, index.html for a folder, 404 for none.
func fromFolder(site string) func(t *testing.T, path string) (int, []byte) {
	return func(t *testing.T, path string) (int, []byte) {
		t.Helper()
		name := filepath.Join(site, filepath.FromSlash(mustUnescape(t, path)))
		if strings.HasSuffix(path, "/") {
			name = filepath.Join(name, "index.html")
		}
		b, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			return http.StatusNotFound, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return http.StatusOK, b
	}
}

// fromServer is the site's answer from base, asked directly with a
// browser's headers.
func fromServer(base string) func(t *testing.T, path string) (int, []byte) {
	return func(t *testing.T, path string) (int, []byte) {
		t.Helper()
		resp, body := ask(t, base+path, browserHeaders...)
		return resp.StatusCode, body
	}
}

// needGems fails the test unless Ruby has the gems a Jekyll fixture needs.
func needGems(t *testing.T, gems ...string) {
	t.Helper()
	script := ""
	for _, g := range gems {
		script += fmt.Sprintf("Gem::Specification.find_by_name(%q);", g)
	}
	if out, err := exec.Command("ruby", "-e", script).CombinedOutput(); err != nil {
		t.Fatalf("the Jekyll fixture needs the gems %v (Debian's jekyll, jekyll-theme-minima, ruby-jekyll-feed and ruby-jekyll-seo-tag; .ci/run installs them): %v\n%s", gems, err, out)
	}
}

// buildJekyllSite builds the Jekyll fixture: the minima theme, jekyll-feed
// and jekyll-seo-tag, no sitemap; its feed holds the newest 10 of its 12
// posts.
func buildJekyllSite(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("jekyll"); err != nil {
		t.Fatal("jekyll is needed to build the Jekyll fixture: install Debian's jekyll (.ci/run does)")
	}
	needGems(t, "minima", "jekyll-feed", "jekyll-seo-tag")
	_, site := buildBlogWith(t, "jekyll", blogBuild{command: []string{"jekyll", "build", "--quiet"}, output: "-d", fixtures: filepath.Join("testdata", "sites")})
	feed := mustRead(t, filepath.Join(site, "feed.xml"))
	if n := strings.Count(feed, "<entry>"); n != 10 {
		t.Fatalf("jekyll-feed wrote %d entries, want its 10 newest posts", n)
	}
	if _, err := os.Stat(filepath.Join(site, "sitemap.xml")); err == nil {
		t.Fatal("the Jekyll fixture has a sitemap: it must have none")
	}
	return site
}

// jekyllWant is what the Jekyll fixture publishes: the person is
// _config.yml's author, the h-card minima's footer makes of it.
func jekyllWant(site string) siteWant {
	return siteWant{
		person:   "Maren Holt",
		original: fromFolder(site),
		posts: []sitePost{
			{"Choosing a body font for long reading", "2023-09-04", "/fonts/2023/09/04/choosing-a-body-font.html", "Whatever I stop noticing after ten minutes wins"},
			{"Line length and the measure", "2023-09-21", "/layout/2023/09/21/line-length-and-the-measure.html", "keeps the measure where it belongs"},
			{"Setting hanging punctuation in CSS", "2023-10-09", "/css/2023/10/09/hanging-punctuation.html", "the best kind of progressive enhancement"},
			{"Loading web fonts without a flash", "2023-10-30", "/fonts/2023/10/30/loading-web-fonts-without-a-flash.html", "the lines hardly move"},
			{"Small caps that are really small caps", "2023-11-14", "/fonts/2023/11/14/small-caps.html", "saves a round of surprises"},
			{"Print stylesheets still matter", "2023-12-02", "/print/2023/12/02/print-stylesheets-still-matter.html", "keep diagrams whole"},
			{"Numerals in tables", "2024-01-11", "/fonts/2024/01/11/numerals-in-tables.html", "Tabular lining figures give every digit the same width"},
			{"A baseline grid that survives images", "2024-01-29", "/layout/2024/01/29/baseline-grid-and-images.html", "puts the text after them back on the grid"},
			{"Hyphenation in the browser", "2024-02-16", "/css/2024/02/16/hyphenation-in-the-browser.html", "the dictionaries are per language"},
			{"Dark mode without grey soup", "2024-03-05", "/color/2024/03/05/dark-mode-without-grey-soup.html", "switches both at once"},
			{"Footnotes on a narrow screen", "2024-03-22", "/layout/2024/03/22/footnotes-on-a-narrow-screen.html", "floats them into the margin"},
			{"Variable fonts in production", "2024-04-10", "/fonts/2024/04/10/variable-fonts-in-production.html", "especially with the italic axis included"},
		},
	}
}

// buildHugoSite builds the Hugo fixture: layouts of its own with Hugo's
// embedded OpenGraph and schema.org templates, 12 posts, its RSS and its
// sitemap.
func buildHugoSite(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("hugo"); err != nil {
		t.Fatal("hugo is needed to build the Hugo fixture: install Debian's hugo (.ci/run does)")
	}
	_, site := buildBlogWith(t, "hugo", blogBuild{command: []string{"hugo", "--quiet"}, output: "-d", fixtures: filepath.Join("testdata", "sites")})
	for _, file := range []string{"index.xml", "sitemap.xml"} {
		if _, err := os.Stat(filepath.Join(site, file)); err != nil {
			t.Fatalf("hugo wrote no %s: %v", file, err)
		}
	}
	return site
}

// hugoWant is what the Hugo fixture publishes: the person is the author
// param, in the footer's h-card.
func hugoWant(site string) siteWant {
	return siteWant{
		person:   "Teodor Quist",
		original: fromFolder(site),
		posts: []sitePost{
			{"Why a weather station in the garden", "2023-03-12", "/posts/why-a-weather-station/", "two degrees colder than the town"},
			{"Choosing temperature sensors that agree", "2023-04-02", "/posts/choosing-temperature-sensors/", "the analogue ones went into the drawer"},
			{"A server in the shed", "2023-04-23", "/posts/a-server-in-the-shed/", "averaged to five minutes and kept forever"},
			{"Logging readings every minute", "2023-05-14", "/posts/logging-readings-every-minute/", "made every question instant again"},
			{"Counting rain with a tipping bucket", "2023-06-04", "/posts/rain-gauge-tipping-bucket/", "the council gauge two streets away"},
			{"Wind speed and the garden fence", "2023-07-09", "/posts/wind-speed-and-the-fence/", "doubled the average speed"},
			{"A dashboard that loads fast on an old phone", "2023-08-20", "/posts/a-dashboard-that-loads-fast/", "smaller than one photo of the garden"},
			{"Frost alerts before the forecast", "2023-10-01", "/posts/frost-alerts/", "the nights that actually froze"},
			{"Keeping sensors dry through winter", "2023-11-19", "/posts/keeping-sensors-dry/", "a drip loop on every cable"},
			{"A year of data from one garden", "2024-01-14", "/posts/a-year-of-data/", "eleven days later than the town average"},
			{"Publishing the data as open files", "2024-02-25", "/posts/publishing-the-data/", "only rebuilds them once a night"},
			{"What broke this spring", "2024-04-07", "/posts/what-broke-this-spring/", "glued back with marine epoxy"},
		},
	}
}

// folderSite is a site block serving a built folder with a bare
// discovery in front.
func folderSite(address, folder string) string {
	return fmt.Sprintf(`%s {
	root * %s
	discovery
	file_server
}
`, address, folder)
}

// TestBareDiscoveryOnBuiltJekyll: a Jekyll blog built by jekyll with the
// minima theme, jekyll-feed and jekyll-seo-tag and no sitemap, deployed
// as its _site folder alone. The feed holds the newest 10 of 12 posts:
// the two older ones are found by the crawl of the home page, which lists
// them.
func TestBareDiscoveryOnBuiltJekyll(t *testing.T) {
	site := buildJekyllSite(t)
	origin := "http://localhost:9353"
	p := startProcess(t, "Caddy", origin, siteCaddyfile(9353, folderSite(origin, site)))
	siteRead(t, p, origin)
	checkSite(t, origin, jekyllWant(site))
}

// TestBareDiscoveryOnBuiltHugo: a Hugo blog built by hugo with layouts of
// its own, deployed as its public folder alone.
func TestBareDiscoveryOnBuiltHugo(t *testing.T) {
	site := buildHugoSite(t)
	origin := "http://localhost:9354"
	p := startProcess(t, "Caddy", origin, siteCaddyfile(9354, folderSite(origin, site)))
	siteRead(t, p, origin)
	checkSite(t, origin, hugoWant(site))
}

// TestBareDiscoveryTwoSites: two site blocks in one Caddy, each a bare
// discovery in front of a different built folder: each publishes its own
// person and posts, and nothing of the other's.
func TestBareDiscoveryTwoSites(t *testing.T) {
	jekyll, hugo := buildJekyllSite(t), buildHugoSite(t)
	first, second := "http://localhost:9356", "http://localhost:9357"
	mustBeFree(t, "the second site", second)
	p := startProcess(t, "Caddy", first, siteCaddyfile(9356, folderSite(first, jekyll), folderSite(second, hugo)))
	if status := p.get(t, "/api/v1/health", "probe"); status != http.StatusOK {
		t.Fatalf("health: %d", status)
	}
	if resp, _ := ask(t, second+"/api/v1/health"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the second site's health: %s", resp.Status)
	}
	siteRead(t, p, first)
	siteRead(t, p, second)
	// The two sites' rate limits share one zone (named after base_url,
	// which neither sets): the checks of each are a client of their own.
	sites := []struct {
		client *siteClient
		want   siteWant
	}{
		{newSiteClient(t, first, net.IPv4(127, 0, 0, 1)), jekyllWant(jekyll)},
		{newSiteClient(t, second, net.IPv4(127, 0, 0, 2)), hugoWant(hugo)},
	}
	for i, s := range sites {
		s.client.check(s.want)
		other := sites[1-i].want
		for _, path := range []string{"/api/v1/profile", "/api/v1/insights", "/llms.txt", "/llms-full.txt", "/sitemap-discovery.xml", "/.well-known/agent-card.json"} {
			_, body := s.client.ask(path)
			for _, word := range append([]string{other.person}, titlesOf(other.posts)...) {
				if strings.Contains(string(body), word) {
					t.Errorf("%s%s has %q of the other site", s.client.origin, path, word)
				}
			}
		}
		session := s.client.mcp()
		for _, post := range other.posts[:3] {
			for _, hit := range searchInsights(t, session, post.title) {
				if hit.Title == post.title {
					t.Errorf("search on %s finds the other site's %q", s.client.origin, post.title)
				}
			}
		}
	}
}

func titlesOf(posts []sitePost) []string {
	var titles []string
	for _, p := range posts {
		titles = append(titles, p.title)
	}
	return titles
}

// appData is the app's content: testdata/sites/app/posts.json.
type appData struct {
	Site, Description, About string
	Person                   struct {
		Name, JobTitle, Description string
		SameAs                      []string
	}
	Posts []struct {
		Slug, Title, Date string
		Tags              []string
		Paragraphs        []string
	}
}

// appPages are the app's templates: a page of its own HTML, with JSON-LD
// of the page's kind.
var appPages = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<meta name="description" content="{{.Description}}">
<link rel="alternate" type="application/feed+json" title="{{.Site}}" href="/feed.json">
<script type="application/ld+json">{{.LD}}</script>
</head>
<body>
<header><a href="/">{{.Site}}</a> <nav><a href="/">Journal</a> <a href="/about">About</a></nav></header>
<main>
{{if .Posts}}<h1>{{.Site}}</h1>
<p>{{.Description}}</p>
<ul>{{range .Posts}}
<li><a href="/journal/{{.Slug}}">{{.Title}}</a> <time datetime="{{.Date}}">{{slice .Date 0 10}}</time></li>{{end}}
</ul>{{end}}
{{if .Post}}<article>
<h1>{{.Post.Title}}</h1>
<p><time datetime="{{.Post.Date}}">{{slice .Post.Date 0 10}}</time> by {{.Person}}</p>
{{range $i, $p := .Post.Paragraphs}}<p>{{$p}}{{if eq $i 0}} The <a href="https://example.org/calendula/{{$.Post.Slug}}">release notes</a> have the details.{{end}}</p>
{{end}}<h2>Trying it</h2>
<pre><code>&lt;a href="https://example.org/calendula/{{.Post.Slug}}"&gt;release notes&lt;/a&gt;
&lt;script type="module"&gt;
  import { Calendula } from '/calendula.js';
  new Calendula(document.querySelector('#when'));
&lt;/script&gt;</code></pre>
<p>Tags: {{range .Post.Tags}}<a href="/tags/{{.}}">{{.}}</a> {{end}}</p>
</article>{{end}}
{{if .AboutText}}<h1>About</h1><p>{{.AboutText}}</p>{{end}}
</main>
<footer><a rel="me" href="{{index .SameAs 0}}">GitHub</a></footer>
</body>
</html>
`))

// newAppSite is an app of the test's own, on loopback: pages it renders
// from testdata/sites/app/posts.json, each with JSON-LD (a Person and the
// WebSite on the home page, a BlogPosting on each post), and a JSON Feed
// 1.1 the home page names; no sitemap, no robots.txt.
func newAppSite(t *testing.T) (*httptest.Server, appData) {
	t.Helper()
	var data appData
	decodeJSON(t, []byte(mustRead(t, filepath.Join("testdata", "sites", "app", "posts.json"))), &data)
	person := map[string]any{"@type": "Person", "name": data.Person.Name, "jobTitle": data.Person.JobTitle,
		"description": data.Person.Description, "sameAs": data.Person.SameAs}
	ld := func(v any) template.JS {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return template.JS(b)
	}
	type page struct {
		Title, Description, Site, Person, AboutText string
		SameAs                                      []string
		LD                                          template.JS
		Posts                                       any
		Post                                        any
	}
	base := page{Site: data.Site, Description: data.Description, Person: data.Person.Name, SameAs: data.Person.SameAs}
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		render := func(p page) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if err := appPages.Execute(w, p); err != nil {
				t.Error(err)
			}
		}
		switch slug, isPost := strings.CutPrefix(r.URL.Path, "/journal/"); {
		case r.URL.Path == "/":
			p := base
			p.Title, p.Posts = data.Site, data.Posts
			p.LD = ld(map[string]any{"@context": "https://schema.org", "@graph": []any{
				map[string]any{"@type": "WebSite", "name": data.Site, "description": data.Description, "url": "/"}, person}})
			render(p)
		case r.URL.Path == "/about":
			p := base
			p.Title, p.AboutText = "About | "+data.Site, data.About
			p.LD = ld(map[string]any{"@context": "https://schema.org", "@type": "AboutPage", "name": "About"})
			render(p)
		case r.URL.Path == "/feed.json":
			var items []map[string]any
			for _, post := range data.Posts {
				items = append(items, map[string]any{"id": "/journal/" + post.Slug, "url": "/journal/" + post.Slug, "title": post.Title,
					"content_html": "<p>" + strings.Join(post.Paragraphs, "</p><p>") + "</p>", "date_published": post.Date, "tags": post.Tags,
					"authors": []any{map[string]any{"name": data.Person.Name}}})
			}
			w.Header().Set("Content-Type", "application/feed+json")
			_ = json.NewEncoder(w).Encode(map[string]any{"version": "https://jsonfeed.org/version/1.1", "title": data.Site,
				"home_page_url": "/", "description": data.Description, "authors": []any{map[string]any{"name": data.Person.Name}}, "items": items})
		case isPost:
			for _, post := range data.Posts {
				if post.Slug == slug {
					p := base
					p.Title, p.Post = post.Title+" | "+data.Site, post
					p.LD = ld(map[string]any{"@context": "https://schema.org", "@type": "BlogPosting", "headline": post.Title,
						"datePublished": post.Date, "author": person, "keywords": post.Tags})
					render(p)
					return
				}
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(app.Close)
	return app, data
}

// TestBareDiscoveryOnAppBehindReverseProxy: an app of the test's own
// behind reverse_proxy, which renders its pages with JSON-LD and a JSON
// Feed, and has no sitemap: the module reads it through the proxy, as a
// visitor would.
func TestBareDiscoveryOnAppBehindReverseProxy(t *testing.T) {
	app, data := newAppSite(t)
	origin := "http://localhost:9355"
	p := startProcess(t, "Caddy", origin, siteCaddyfile(9355, fmt.Sprintf(`%s {
	discovery
	reverse_proxy %s
}
`, origin, strings.TrimPrefix(app.URL, "http://"))))
	siteRead(t, p, origin)
	want := siteWant{person: data.Person.Name, original: fromServer(app.URL)}
	for _, post := range data.Posts {
		want.posts = append(want.posts, sitePost{post.Title, post.Date[:10], "/journal/" + post.Slug, post.Paragraphs[1]})
	}
	checkSite(t, origin, want)
}
