package caddytest

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// demoSite is the root Caddyfile that `make run` serves, moved to the test
// ports: the module in front of the example site, whose pages Caddy's
// templates render from the sample content.
func demoSite(t testing.TB) string {
	t.Helper()
	raw, err := os.ReadFile("../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	site := string(raw)
	// From the site block on: the global options (the listener's interface
	// among them) are the test harness's.
	const address = "http://:{$DISCOVERY_PORT:8080}"
	at := strings.Index(site, address)
	if at < 0 {
		t.Fatalf("the Caddyfile's site address is no longer %s: update demoSite", address)
	}
	site = strings.Replace(site[at:], address, "http://:9080", 1)
	site = strings.Replace(site, "root * site", "root * ../site", 1)
	// The templates' root: the directory that holds site/ and content/.
	site = strings.ReplaceAll(site, "\t\troot .\n", "\t\troot ..\n")
	if !strings.Contains(site, "\t\troot ..\n") {
		t.Fatal("the Caddyfile's templates no longer say `root .`: update demoSite")
	}
	const block = "\tdiscovery {\n\t\tcontent sample\n"
	if !strings.Contains(site, block) {
		t.Fatal("the Caddyfile's discovery block no longer starts with `content sample`: update demoSite")
	}
	site = strings.Replace(site, block, block+"\t\trate_limit 1500 60s\n", 1)
	return site
}

// documentPaths are the GET documents outside /api/v1 with their media types.
var documentPaths = map[string]string{
	"/openapi.json":                           "application/json",
	"/llms.txt":                               "text/plain; charset=utf-8",
	"/llms-full.txt":                          "text/plain; charset=utf-8",
	"/robots.txt":                             "text/plain; charset=utf-8",
	"/auth.md":                                "text/markdown; charset=utf-8",
	"/developers":                             "text/html; charset=utf-8",
	"/cli/discovery.mjs":                      "text/javascript; charset=utf-8",
	"/.well-known/api-catalog":                `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`,
	"/.well-known/oauth-protected-resource":   "application/json",
	"/.well-known/oauth-authorization-server": "application/json",
	"/.well-known/jwks.json":                  "application/jwk-set+json",
	"/.well-known/openapi.json":               "application/json",
	"/.well-known/agent-card.json":            "application/json",
	"/.well-known/agent.json":                 "application/json",
	"/sitemap-discovery.xml":                  "application/xml; charset=utf-8",
	"/index.md":                               "text/markdown; charset=utf-8",
	"/about.md":                               "text/markdown; charset=utf-8",
	"/insights.md":                            "text/markdown; charset=utf-8",
	"/insights/" + insightSlug + ".md":        "text/markdown; charset=utf-8",
}

func TestDocumentsServeAndValidate(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for path, mediaType := range documentPaths {
		t.Run(path, func(t *testing.T) {
			r := s.get(path)
			if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != mediaType {
				t.Fatalf("status %d, Content-Type %q, want %q", r.StatusCode, r.Header.Get("Content-Type"), mediaType)
			}
			s.validate(r)
			if r.Header.Get("API-Version") != "" {
				t.Errorf("API-Version on a document outside /api/v1")
			}
			etag := r.Header.Get("ETag")
			if r304 := s.get(path, "If-None-Match", etag); r304.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match: %d", r304.StatusCode)
			}
			if head := s.do(http.MethodHead, base+path, nil); head.StatusCode != http.StatusOK || len(head.body) != 0 ||
				!strings.Contains(head.Header.Get("Link"), `/.well-known/api-catalog>; rel="api-catalog"`) {
				t.Errorf("HEAD: %d, %d bytes, Link %q", head.StatusCode, len(head.body), head.Header.Get("Link"))
			}
			if strings.HasPrefix(mediaType, "application/") && !strings.HasPrefix(mediaType, "application/xml") {
				var v map[string]any
				if err := json.Unmarshal(r.body, &v); err != nil {
					t.Errorf("not a JSON object: %v", err)
				}
			}
		})
	}
}

var (
	llmsItem     = regexp.MustCompile(`^- \[([^\]]+)\]\((https?://[^)\s]+)\)(: .+)?$`)
	llmsEndpoint = regexp.MustCompile("^- [^`]+: `(GET|POST) (https?://[^`\\s]+)`(\\. .+)?$")
)

// TestLLMsTxtShape checks /llms.txt against the llmstxt.org rules the
// reference parser applies, and against what the Agent-Friendly
// Documentation checks ask of its links: the link lists hold documents an
// agent reads as text (Markdown or plain text), while the API, the MCP
// endpoint and the machine documents are named, with their method, in the
// guidance before the first section.
func TestLLMsTxtShape(t *testing.T) {
	s := startCaddy(t, sampleSite)
	body := string(s.get("/llms.txt").body)
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "# ") || lines[1] != "" || !strings.HasPrefix(lines[2], "> ") || lines[3] != "" {
		t.Fatalf("the head must be an H1, a blank line and a > summary:\n%s", strings.Join(lines[:4], "\n"))
	}
	var sections []string
	items := map[string]int{}
	linked := map[string]string{}    // URL -> section
	endpoints := map[string]string{} // URL -> method
	for i, line := range lines[4:] {
		switch {
		case strings.HasPrefix(line, "## "):
			sections = append(sections, strings.TrimPrefix(line, "## "))
		case strings.HasPrefix(line, "#"):
			t.Errorf("line %d: only H1 and H2 headings are allowed: %q", i+5, line)
		case line == "":
		case len(sections) == 0:
			// guidance before the first section: prose, and the addresses
			// to call
			if m := llmsEndpoint.FindStringSubmatch(line); m != nil {
				endpoints[m[2]] = m[1]
			} else if strings.HasPrefix(line, "- ") {
				t.Errorf("line %d: an item of the guidance that names no address to call: %q", i+5, line)
			}
		default:
			m := llmsItem.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("line %d in %q is not a link item: %q", i+5, sections[len(sections)-1], line)
				continue
			}
			items[sections[len(sections)-1]]++
			if earlier, twice := linked[m[2]]; twice {
				t.Errorf("%s is linked twice, in %q and in %q: an index links each address once", m[2], earlier, sections[len(sections)-1])
			}
			linked[m[2]] = sections[len(sections)-1]
		}
	}
	if len(sections) == 0 || sections[len(sections)-1] != "Optional" {
		t.Errorf("sections %v: the last must be Optional", sections)
	}
	for _, want := range []string{"/auth.md", "/llms-full.txt", "/insights/the-case-for-a-boring-data-platform.md",
		"/index.md", "/about.md", "/insights.md", "/contact.md", "/robots.txt", "/.well-known/agent-skills/discovery/SKILL.md",
		"/developers.md"} {
		if _, ok := linked[base+want]; !ok {
			t.Errorf("/llms.txt does not link %s", want)
		}
	}
	// The full text repeats everything the index links: an agent on a
	// short context skips it, which is what Optional is for (llmstxt.org).
	if section := linked[base+"/llms-full.txt"]; section != "Optional" {
		t.Errorf("/llms-full.txt is linked in %q, not in Optional", section)
	}
	for _, want := range []string{"GET /api/v1", "GET /api/v1/profile", "GET /api/v1/insights", "GET /openapi.json",
		"POST /mcp", "GET /cli/discovery.mjs", "GET /sitemap-discovery.xml", "GET /.well-known/api-catalog"} {
		method, path, _ := strings.Cut(want, " ")
		if endpoints[base+path] != method {
			t.Errorf("/llms.txt does not name %s", want)
		}
	}
	// Every document linked outside the site's own pages reads as text; the
	// site's pages are linked to their Markdown twins where they have one.
	for url, section := range linked {
		r := s.get(strings.TrimPrefix(url, base))
		mediaType := strings.Split(r.Header.Get("Content-Type"), ";")[0]
		if r.StatusCode != http.StatusOK {
			t.Errorf("%s (in %s): %d", url, section, r.StatusCode)
		} else if mediaType != "text/markdown" && mediaType != "text/plain" && section != "Profile" {
			t.Errorf("%s (in %s) is %s, not a document to read as text", url, section, mediaType)
		}
	}
	for url, method := range endpoints {
		if method == http.MethodGet {
			if r := s.get(strings.TrimPrefix(url, base)); r.StatusCode != http.StatusOK {
				t.Errorf("GET %s: %d", url, r.StatusCode)
			}
		}
	}
	if items["Insights"] < 6 {
		t.Errorf("%d insight items", items["Insights"])
	}
	for _, interfaceName := range []string{"JSON API", "MCP", "command-line", "llms-full.txt"} {
		if !strings.Contains(strings.Join(lines[4:8], " "), interfaceName) {
			t.Errorf("the guidance does not say when to use %s", interfaceName)
		}
	}
}

func TestLLMsFullTxt(t *testing.T) {
	s := startCaddy(t, sampleSite)
	full := string(s.get("/llms-full.txt").body)
	var insights struct {
		Items []struct{ Title, URL, DateISO string }
	}
	if err := json.Unmarshal(s.get("/api/v1/insights").body, &insights); err != nil {
		t.Fatal(err)
	}
	for _, section := range []string{"## Biography", "## Key facts", "## Recognition", "## Expertise", "## Education", "## Company", "## Initiatives"} {
		if !strings.Contains(full, "\n"+section+"\n") {
			t.Errorf("no %q section", section)
		}
	}
	parts := strings.Split(full, "\n---\n")
	if len(parts) != len(insights.Items)+1 {
		t.Fatalf("%d parts separated by ---, want %d", len(parts), len(insights.Items)+1)
	}
	for i, in := range insights.Items {
		part := parts[i+1]
		if !strings.HasPrefix(part, "\n## "+in.Title+"\n") || !strings.Contains(part, "URL: "+in.URL+"\n") ||
			!strings.Contains(part, in.DateISO) {
			t.Errorf("insight %q is not under its own heading with its URL and dates", in.Title)
		}
		var doc struct{ Content string }
		slug := in.URL[strings.LastIndex(in.URL, "/")+1:]
		_ = json.Unmarshal(s.get("/api/v1/insights/"+slug).body, &doc)
		firstParagraph := strings.SplitN(doc.Content, "\n\n", 2)[0]
		if !strings.Contains(part, firstParagraph) {
			t.Errorf("insight %q is not there in full", in.Title)
		}
	}
}

func TestRobotsTxt(t *testing.T) {
	// A site with nothing behind the module: the module's own file.
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
	}
}
`)
	var groupLines []string
	for _, line := range strings.Split(string(s.get("/robots.txt").body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		field, value, ok := strings.Cut(line, ":")
		if !ok {
			t.Errorf("not a field: %q", line)
		}
		groupLines = append(groupLines, strings.ToLower(field)+":"+strings.TrimSpace(value))
	}
	want := []string{"user-agent:*", "content-signal:ai-train=yes, search=yes, ai-input=yes", "allow:/",
		"sitemap:" + base + "/sitemap-discovery.xml"}
	if strings.Join(groupLines, "\n") != strings.Join(want, "\n") {
		t.Errorf("robots.txt fields %q, want %q", groupLines, want)
	}

	s = startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		robots off
	}
	respond "the site's own robots.txt" 200
}
`)
	if r := s.get("/robots.txt"); string(r.body) != "the site's own robots.txt" {
		t.Errorf("robots off: %q", r.body)
	}
	if strings.Contains(string(s.get("/llms.txt").body), "/robots.txt") {
		t.Error("robots off: /llms.txt still links /robots.txt")
	}
}

func TestAuthMarkdown(t *testing.T) {
	s := startCaddy(t, sampleSite)
	auth := string(s.get("/auth.md").body)
	for _, want := range []string{"## Discover", "## Pick a method", "## Register", "## Claim", "## Exchange the assertion",
		"## Use the access token", "## Errors", "## Not supported", "POST " + base + "/agent/register",
		"Authorization: Bearer", "public:read", "86400", "invalid_token", "client_credentials",
		"urn:ietf:params:oauth:grant-type:jwt-bearer", base + "/.well-known/oauth-protected-resource",
		"User-account creation", "write APIs"} {
		if !strings.Contains(auth, want) {
			t.Errorf("/auth.md lacks %q", want)
		}
	}
}

func TestWellKnownDocuments(t *testing.T) {
	s := startCaddy(t, sampleSite)
	prm := s.get("/.well-known/oauth-protected-resource").json(t)
	if prm["resource"] != base || !equalStrings(prm["authorization_servers"], base) ||
		!equalStrings(prm["scopes_supported"], "public:read") || !equalStrings(prm["bearer_methods_supported"], "header") ||
		prm["resource_documentation"] != base+"/developers" {
		t.Errorf("protected resource metadata %v", prm)
	}
	asm := s.get("/.well-known/oauth-authorization-server").json(t)
	if asm["issuer"] != base || asm["token_endpoint"] != base+"/oauth/token" ||
		!equalStrings(asm["grant_types_supported"], "authorization_code", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer") ||
		!equalStrings(asm["token_endpoint_auth_methods_supported"], "none") ||
		asm["jwks_uri"] != base+"/.well-known/jwks.json" || asm["service_documentation"] == nil {
		t.Errorf("authorization server metadata %v", asm)
	}
	// RFC 8414 requires response_types_supported, and MCP clients refuse
	// metadata without it.
	if !equalStrings(asm["response_types_supported"], "code") || asm["authorization_endpoint"] != base+"/oauth/authorize" {
		t.Errorf("authorization server metadata without the code flow: %v", asm)
	}
	if jwks := string(s.get("/.well-known/jwks.json").body); jwks != `{"keys":[]}` {
		t.Errorf("JWKS %s", jwks)
	}
	var catalog struct {
		Linkset []map[string]json.RawMessage `json:"linkset"`
	}
	if err := json.Unmarshal(s.get("/.well-known/api-catalog").body, &catalog); err != nil || len(catalog.Linkset) != 1 {
		t.Fatalf("api-catalog: %v %v", err, catalog)
	}
	entry := catalog.Linkset[0]
	if string(entry["anchor"]) != `"`+base+`/api/v1"` {
		t.Errorf("anchor %s", entry["anchor"])
	}
	for rel, href := range map[string]string{"service-desc": "/openapi.json", "service-doc": "/developers", "status": "/api/v1/health"} {
		var links []struct{ Href, Type string }
		if err := json.Unmarshal(entry[rel], &links); err != nil || len(links) != 1 || links[0].Href != base+href || links[0].Type == "" {
			t.Errorf("%s: %s", rel, entry[rel])
		}
	}
}

func equalStrings(v any, want ...string) bool {
	list, ok := v.([]any)
	if !ok || len(list) != len(want) {
		return false
	}
	for i := range want {
		if list[i] != want[i] {
			return false
		}
	}
	return true
}

// TestEveryPublishedLinkResolves follows every address the documents and
// the API publish on the demo site that `make run` serves.
func TestEveryPublishedLinkResolves(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	urls := map[string]string{}
	absolute := regexp.MustCompile(regexp.QuoteMeta(base) + `[^\s"'<>)\]\\&` + "`" + `]*`)
	href := regexp.MustCompile(`href="(` + regexp.QuoteMeta(base) + `[^"]*)"`)
	for _, source := range []string{"/llms.txt", "/llms-full.txt", "/auth.md", "/developers", "/robots.txt", "/api/v1", "/api/v1/profile",
		"/api/v1/insights", "/.well-known/api-catalog", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"} {
		r := s.get(source)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", source, r.StatusCode)
		}
		found := absolute.FindAllString(string(r.body), -1)
		if source == "/developers" { // only its links; its examples show addresses in passing
			found = nil
			for _, m := range href.FindAllStringSubmatch(string(r.body), -1) {
				found = append(found, m[1])
			}
		}
		for _, u := range found {
			u = strings.TrimRight(u, ".,:;")
			if !strings.Contains(u, "{") && !strings.Contains(u, "<") {
				urls[u] = source
			}
		}
	}
	if len(urls) < 30 {
		t.Fatalf("only %d addresses found", len(urls))
	}
	for u, source := range urls {
		r := s.do(http.MethodGet, strings.Split(u, "#")[0], nil)
		// POST-only endpoints are published as addresses, not pages, and
		// the authorization endpoint wants its parameters.
		if r.StatusCode != http.StatusOK && !(r.StatusCode == http.StatusMethodNotAllowed && isPostEndpoint(u)) &&
			!(r.StatusCode == http.StatusBadRequest && u == base+"/oauth/authorize") {
			t.Errorf("%s (from %s): %d", u, source, r.StatusCode)
		}
	}
}

func isPostEndpoint(u string) bool {
	for _, p := range []string{"/agent/register", "/agent/identity", "/agent/identity/claim", "/oauth/token", "/oauth/register", "/mcp"} {
		if u == base+p {
			return true
		}
	}
	return false
}

func TestVersioningSignals(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for _, h := range []string{"Deprecation", "Sunset"} {
		if v := s.get("/api/v1").Header.Get(h); v != "" {
			t.Errorf("%s %q while v1 is not deprecated", h, v)
		}
	}
	s = startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		rate_limit 1500 60s
		deprecation 2027-01-01
		sunset 2027-07-01
		successor https://example.com/api/v2
	}
}
`)
	deprecated, _ := time.Parse(time.DateOnly, "2027-01-01")
	for _, path := range apiPaths {
		r := s.get(path)
		s.validate(r)
		if r.Header.Get("Deprecation") != "@"+strconv.FormatInt(deprecated.Unix(), 10) ||
			r.Header.Get("Sunset") != "Thu, 01 Jul 2027 00:00:00 GMT" {
			t.Errorf("%s: Deprecation %q, Sunset %q", path, r.Header.Get("Deprecation"), r.Header.Get("Sunset"))
		}
		link := r.Header.Get("Link")
		if !strings.Contains(link, `<`+base+`/developers#versioning>; rel="deprecation"`) ||
			!strings.Contains(link, `<https://example.com/api/v2>; rel="successor-version"`) {
			t.Errorf("%s: Link %q", path, link)
		}
	}
	if r := s.get("/llms.txt"); r.Header.Get("Deprecation") != "" {
		t.Error("Deprecation on a document outside the versioned API")
	}
}
