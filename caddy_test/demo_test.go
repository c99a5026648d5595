package caddytest

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests here pin the demo site that `make run` serves (the root
// Caddyfile): its pages are Caddy templates that read the sample content,
// so each is complete HTML without JavaScript, behind the module.

// demoPages are the demo site's pages besides the insights.
var demoPages = []string{"/", "/about", "/insights", "/contact"}

var (
	metaDescription = regexp.MustCompile(`<meta name="description" content="([^"]+)">`)
	headingTag      = regexp.MustCompile(`<h([1-6])[\s>]`)
	scriptTag       = regexp.MustCompile(`<script[^>]*>`)
	anyTag          = regexp.MustCompile(`<[^>]+>`)
)

type apiInsight struct {
	Slug, Title, Description, Date, DateISO, Topic, ReadTime, Content string
}

// demoInsights returns every insight as the API serves it, content included.
func demoInsights(t *testing.T, s *server) []apiInsight {
	t.Helper()
	var list struct{ Items []apiInsight }
	if err := json.Unmarshal(s.get("/api/v1/insights").body, &list); err != nil || len(list.Items) == 0 {
		t.Fatalf("the insights list: %v", err)
	}
	for i, item := range list.Items {
		if err := json.Unmarshal(s.get("/api/v1/insights/"+item.Slug).body, &list.Items[i]); err != nil {
			t.Fatalf("%s: %v", item.Slug, err)
		}
	}
	return list.Items
}

// pageText is the text of an HTML fragment: tags dropped, entities decoded,
// white space collapsed.
func pageText(fragment string) string {
	return strings.Join(strings.Fields(html.UnescapeString(anyTag.ReplaceAllString(fragment, " "))), " ")
}

// assertDemoPage checks what every demo page has: HTML, a description, one
// h1 and no skipped heading level, the WebMCP script and no other, and a
// link to llms.txt right after the h1.
func assertDemoPage(t *testing.T, r *response) (description string) {
	t.Helper()
	path := r.Request.URL.Path
	body := string(r.body)
	if r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", path, r.Header.Get("Content-Type"))
	}
	if m := metaDescription.FindStringSubmatch(body); m == nil {
		t.Errorf("%s: no meta description", path)
	} else {
		description = html.UnescapeString(m[1])
	}
	levels := headingTag.FindAllStringSubmatch(body, -1)
	if len(levels) == 0 || levels[0][1] != "1" || strings.Count(body, "<h1") != 1 {
		t.Errorf("%s: headings %v, want one h1 first", path, levels)
	}
	for i := 1; i < len(levels); i++ {
		if prev, cur := levels[i-1][1][0], levels[i][1][0]; cur > prev+1 {
			t.Errorf("%s: h%c follows h%c", path, cur, prev)
		}
	}
	// The one script that runs is WebMCP's; JSON-LD is data, not code.
	var scripts []string
	for _, tag := range scriptTag.FindAllString(body, -1) {
		if !strings.Contains(tag, `type="application/ld+json"`) {
			scripts = append(scripts, tag)
		}
	}
	if len(scripts) != 1 || !strings.Contains(scripts[0], `src="/mcp/webmcp.js"`) {
		t.Errorf("%s: scripts %q, want the WebMCP script alone", path, scripts)
	}
	// The pointer at llms.txt comes right after the h1, near the top.
	if h1, llms := strings.Index(body, "</h1>"), strings.Index(body, `<a href="/llms.txt">`); h1 < 0 || llms < h1 || llms > h1+100 {
		t.Errorf("%s: no link to /llms.txt right after the h1", path)
	}
	if r.StatusCode == http.StatusOK && r.Request.Method == http.MethodGet && r.Header.Get("Cache-Control") == "" && !strings.HasPrefix(path, "/contact/") {
		t.Errorf("%s: no Cache-Control (templates drop ETag and Last-Modified)", path)
	}
	if strings.Contains(body, "no value") {
		t.Errorf("%s: a template printed a missing value", path)
	}
	return description
}

// TestDemoSitePages: every page, each insight's canonical URL included, is
// the whole page in plain HTTP, with its description from the content.
func TestDemoSitePages(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	var profile struct {
		Name, Tagline string
		About         []string
		KeyFacts      []string
		SiteStructure []struct{ URL, Desc string }
	}
	if err := json.Unmarshal(s.get("/api/v1/profile").body, &profile); err != nil {
		t.Fatal(err)
	}
	wantDescription := map[string]string{"/": profile.Tagline}
	for _, link := range profile.SiteStructure {
		if path := strings.TrimPrefix(link.URL, base); path != "/" {
			wantDescription[path] = link.Desc
		}
	}
	insights := demoInsights(t, s)
	for _, path := range demoPages {
		r := s.get(path)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, r.StatusCode)
		}
		if got := assertDemoPage(t, r); got != wantDescription[path] {
			t.Errorf("%s: description %q, want %q", path, got, wantDescription[path])
		}
	}
	about := pageText(string(s.get("/about").body))
	for _, text := range append(profile.About, profile.KeyFacts...) {
		if !strings.Contains(about, text) {
			t.Errorf("/about lacks %q", text)
		}
	}
	list := string(s.get("/insights").body)
	last := -1
	for _, in := range insights { // newest first, as the API lists them
		at := strings.Index(list, `<a href="/insights/`+in.Slug+`">`+html.EscapeString(in.Title)+`</a>`)
		if at < last {
			t.Errorf("/insights: %s missing or out of order", in.Slug)
		}
		last = at
	}

	for _, in := range insights {
		t.Run(in.Slug, func(t *testing.T) {
			r := s.get("/insights/" + in.Slug)
			if r.StatusCode != http.StatusOK {
				t.Fatalf("%d", r.StatusCode)
			}
			if got := assertDemoPage(t, r); got != in.Description {
				t.Errorf("description %q, want %q", got, in.Description)
			}
			body := string(r.body)
			article := body[strings.Index(body, "<article>"):strings.Index(body, "</article>")]
			if !strings.Contains(article, "<h1>"+html.EscapeString(in.Title)+"</h1>") {
				t.Errorf("no h1 with the title %q", in.Title)
			}
			text := pageText(article)
			for _, fact := range []string{in.Date, in.Topic, in.ReadTime, profile.Name} {
				if !strings.Contains(text, fact) {
					t.Errorf("the article lacks %q", fact)
				}
			}
			// Every paragraph of the article, in plain text (those with
			// Markdown syntax in them aside), is on the page.
			checked := 0
			for para := range strings.SplitSeq(in.Content, "\n\n") {
				para = strings.Join(strings.Fields(para), " ")
				if para == "" || strings.ContainsAny(para[:1], "#-*>|`0123456789") || strings.ContainsAny(para, "*_`[]<") {
					continue
				}
				checked++
				if !strings.Contains(text, para) {
					t.Errorf("the article lacks the paragraph %.80q", para)
				}
			}
			if checked < 3 {
				t.Errorf("only %d paragraphs checked", checked)
			}
			if !strings.Contains(body, "<h2") {
				t.Error("the article's sections are not h2")
			}
		})
	}

	// The module still answers for the pages: the Markdown twin on request.
	slug := insights[0].Slug
	twin := s.get("/insights/" + slug + ".md")
	if r := s.get("/insights/"+slug, "Accept", "text/markdown"); r.StatusCode != http.StatusOK ||
		r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || string(r.body) != string(twin.body) {
		t.Errorf("/insights/%s as Markdown: %d %q", slug, r.StatusCode, r.Header.Get("Content-Type"))
	}
}

// TestDemoSiteNotFound: an address that names no page or no insight is a
// 404 with a page in plain words, for GET and HEAD alike.
func TestDemoSiteNotFound(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	for _, path := range []string{
		"/nope", "/insights/no-such-insight", "/insights/The-Case-For-A-Boring-Data-Platform",
		"/insights/" + insightSlug + "/", "/insights/" + insightSlug + "/more", "/insights/",
		"/insight", "/insight.html", "/error", "/error.html", "/_templates/layout.html", "/about/nope",
	} {
		r := s.get(path)
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, r.StatusCode)
			continue
		}
		assertDemoPage(t, r)
		if !strings.Contains(string(r.body), "<h1>Page not found</h1>") {
			t.Errorf("GET %s: not the friendly page:\n%.300s", path, r.body)
		}
		if head := s.do(http.MethodHead, base+path, nil); head.StatusCode != http.StatusNotFound || len(head.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes", path, head.StatusCode, len(head.body))
		}
	}
	// Other errors get a page in plain words too, with their status.
	r := s.do(http.MethodPost, base+"/about", strings.NewReader("x"))
	if r.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(r.body), "<h1>Something went wrong</h1>") {
		t.Errorf("POST /about: %d\n%.300s", r.StatusCode, r.body)
	}
	// The head names a favicon that exists.
	icon := regexp.MustCompile(`<link rel="icon" href="([^"]+)"`).FindStringSubmatch(string(s.get("/").body))
	if icon == nil {
		t.Fatal("no icon link")
	}
	if r := s.get(icon[1]); r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/") {
		t.Errorf("%s: %d %q", icon[1], r.StatusCode, r.Header.Get("Content-Type"))
	}
}

// TestDemoSiteSearchForm: every page has the search form, annotated as a
// WebMCP tool, and the insights page it asks lists exactly the insights
// whose title, description and topic hold every word (of the first 16, in
// the first 200 bytes), in the API's order; the words are escaped where
// the page repeats them.
func TestDemoSiteSearchForm(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	for _, path := range demoAuditPages {
		page := string(s.get(path).body)
		if !strings.Contains(page, `<form class="search" action="/insights" method="get" role="search" toolname="find_insights" tooldescription="`) ||
			!strings.Contains(page, `name="q" type="search"`) || !strings.Contains(page, `toolparamdescription="`) {
			t.Errorf("%s has no annotated search form", path)
		}
	}
	var list struct {
		Items []struct{ Slug, Title, Description, Topic string } `json:"items"`
	}
	if err := json.Unmarshal(s.get("/api/v1/insights").body, &list); err != nil || len(list.Items) < 3 {
		t.Fatalf("the insights: %v %d", err, len(list.Items))
	}
	for _, query := range []string{"data", "DATA contracts", "  the   data ", "privacy gdpr", "migration", "no-such-word", "data <script>",
		strings.Repeat("data ", 15) + "privacy no-such-word", strings.Repeat("x", 10000)} {
		// The page reads the first 200 bytes of the query and their first
		// 16 words.
		words := strings.Fields(strings.ToLower(query[:min(len(query), 200)]))
		words = words[:min(len(words), 16)]
		var want []string
		for _, in := range list.Items {
			text := strings.ToLower(in.Title + " " + in.Description + " " + in.Topic)
			all := true
			for _, w := range words {
				all = all && strings.Contains(text, w)
			}
			if all {
				want = append(want, "/insights/"+in.Slug)
			}
		}
		r := s.get("/insights?q=" + url.QueryEscape(query))
		body := string(r.body)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%q: %d", query, r.StatusCode)
		}
		list := body[strings.Index(body, `<ul class="insights">`):]
		got := regexp.MustCompile(`<li><a href="(/insights/[^"]+)"`).FindAllStringSubmatch(list, -1)
		var gotPaths []string
		for _, m := range got {
			gotPaths = append(gotPaths, m[1])
		}
		if !slices.Equal(gotPaths, want) {
			t.Errorf("%q lists %q, want %q", query, gotPaths, want)
		}
		if (len(want) == 0) != strings.Contains(body, "No insight holds every word of") {
			t.Errorf("%q: %d found, and the page says none: %v", query, len(want), !strings.Contains(body, "No insight holds"))
		}
		if strings.Contains(body, "<script>") {
			t.Errorf("%q is not escaped", query)
		}
		t.Logf("%.40q: %d insights", query, len(gotPaths))
	}
}

// TestDemoSiteContactForm: without JavaScript the form posts to the site,
// which says plainly that it sends no mail and hands the message back,
// escaped, as a ready-made email.
func TestDemoSiteContactForm(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	page := string(s.get("/contact").body)
	if !strings.Contains(page, `<form action="/contact/message" method="post" toolname="compose_message" tooldescription="`) {
		t.Fatalf("the contact form:\n%s", page)
	}
	form := url.Values{"name": {"Ann <b>Lee</b>"}, "email": {"ann@example.com"}, "message": {"Hello & welcome,\r\nsecond line <script>"}}
	r := s.do(http.MethodPost, base+"/contact/message", strings.NewReader(form.Encode()),
		"Content-Type", "application/x-www-form-urlencoded")
	body := string(r.body)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("POST: %d\n%s", r.StatusCode, body)
	}
	assertDemoPage(t, r)
	for _, want := range []string{
		"<h1>Your message is ready to send</h1>",
		"does not send email itself",
		"Ann &lt;b&gt;Lee&lt;/b&gt; &lt;ann@example.com&gt;",
		"Hello &amp; welcome,\r\nsecond line &lt;script&gt;",
		`href="mailto:rosalind@harbourline.example?subject=Enquiry%20from%20Ann%20%3Cb%3ELee%3C%2Fb%3E&amp;body=Hello%20%26%20welcome%2C%0D%0Asecond%20line%20%3Cscript%3E`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the answer lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "<b>") {
		t.Error("the visitor's text is not escaped")
	}
	empty := s.do(http.MethodPost, base+"/contact/message", strings.NewReader("name=&email=&message="),
		"Content-Type", "application/x-www-form-urlencoded")
	if empty.StatusCode != http.StatusOK || !strings.Contains(string(empty.body), "<h1>Your message is missing something</h1>") {
		t.Errorf("an empty form: %d\n%.400s", empty.StatusCode, empty.body)
	}
	if get := s.get("/contact/message"); get.StatusCode != http.StatusNotFound {
		t.Errorf("GET /contact/message: %d", get.StatusCode)
	}
	if strconv.Itoa(len(r.body)) != r.Header.Get("Content-Length") {
		t.Errorf("Content-Length %q for %d bytes", r.Header.Get("Content-Length"), len(r.body))
	}
}
