package caddytest

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// What the developer portal says, checked against what the server does:
// every operation of /openapi.json is on the page with a request that
// works when sent and an example response that the description accepts and
// that has the real response's members in the real order.

// portalOperation is one operation as the portal shows it.
type portalOperation struct {
	id, method, path string
	request          string
	example          string
	status           string
}

var (
	operationBlock = regexp.MustCompile(`(?s)<(article class="endpoint"|details class="document") id="(op-[A-Za-z]+)">(.*?)</(article|details)>\n`)
	codeBlock      = regexp.MustCompile(`(?s)<pre><code>(.*?)</code></pre>`)
	operationHead  = regexp.MustCompile(`(?s)<span class="method">([A-Z]+)</span> <code>([^<]+)</code>|<summary><code>([^<]+)</code>`)
	answersStatus  = regexp.MustCompile(`Answers (\d{3} [A-Za-z ]+)[,;.]`)
	// cut is how examples used to be cut: a line ending in an ellipsis
	// outside a string.
	cut = regexp.MustCompile(`(?m)…$`)
)

// portalOperations reads the operations off the portal's HTML.
func portalOperations(t *testing.T, page string) map[string]portalOperation {
	t.Helper()
	ops := map[string]portalOperation{}
	for _, m := range operationBlock.FindAllStringSubmatch(page, -1) {
		op := portalOperation{id: m[2], method: http.MethodGet}
		head := operationHead.FindStringSubmatch(m[3])
		if head == nil {
			t.Fatalf("%s: no method and path", op.id)
		}
		if head[1] != "" {
			op.method, op.path = head[1], html.UnescapeString(head[2])
		} else {
			op.path = html.UnescapeString(head[3])
		}
		codes := codeBlock.FindAllStringSubmatch(m[3], -1)
		if len(codes) == 0 {
			t.Fatalf("%s: no request example", op.id)
		}
		op.request = html.UnescapeString(codes[0][1])
		if len(codes) > 1 {
			op.example = html.UnescapeString(codes[1][1])
		}
		if s := answersStatus.FindStringSubmatch(m[3]); s != nil {
			op.status = s[1]
		}
		if _, dup := ops[op.id]; dup {
			t.Errorf("%s twice on the portal", op.id)
		}
		ops[op.id] = op
	}
	return ops
}

// curlRequest turns a curl command of the portal into a request: the
// method, -H headers, -d data (form-encoded unless a Content-Type says
// otherwise) and the URL.
func curlRequest(t *testing.T, command string) *http.Request {
	t.Helper()
	words := shellWords(t, command)
	if len(words) == 0 || words[0] != "curl" {
		t.Fatalf("not a curl command: %s", command)
	}
	method, target := "", ""
	var data []string
	headers := http.Header{}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; w {
		case "-X":
			i++
			method = words[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(words[i], ":")
			headers.Add(k, strings.TrimSpace(v))
		case "-d":
			i++
			data = append(data, words[i])
		case "-i", "-G", "-s":
		default:
			if strings.HasPrefix(w, "-") {
				t.Fatalf("curl option %s not understood in %s", w, command)
			}
			target = w
		}
	}
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(data) > 0 {
		body = strings.NewReader(strings.Join(data, "&"))
		if headers.Get("Content-Type") == "" {
			headers.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	req.Header = headers
	req.Header.Set("Accept-Encoding", "identity")
	return req
}

// shellWords splits a command line as sh does for the quoting the portal
// uses: single quotes and spaces.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, c := range s {
		switch {
		case c == '\'':
			quoted, inWord = !quoted, true
		case (c == ' ' || c == '\n') && !quoted:
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %s", s)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// memberOrder lists the members of a JSON object in the order they are
// written, and of its nested objects, each as a path.
func memberOrder(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	var order []string
	var walk func(prefix string)
	walk = func(prefix string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%v in %s", err, body)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				key, _ := dec.Token()
				order = append(order, prefix+key.(string))
				walk(prefix + key.(string) + ".")
			}
			_, _ = dec.Token()
		case json.Delim('['):
			// The first item stands for all.
			for i := 0; dec.More(); i++ {
				if i == 0 {
					walk(prefix + "[].")
				} else {
					var skip json.RawMessage
					_ = dec.Decode(&skip)
				}
			}
			_, _ = dec.Token()
		}
	}
	walk("")
	return order
}

func TestDeveloperPortalExamples(t *testing.T) {
	s := startCaddy(t, sampleSite)
	page := s.get("/developers")
	if page.StatusCode != http.StatusOK {
		t.Fatalf("status %d", page.StatusCode)
	}
	ops := portalOperations(t, string(page.body))

	// Every operation of the description, and nothing else, is on the page.
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(s.get("/openapi.json").body, &doc); err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, item := range doc.Paths {
		for method, op := range item {
			described["op-"+op.OperationID] = true
			got, ok := ops["op-"+op.OperationID]
			if !ok {
				t.Errorf("%s %s (%s) is not on the portal", strings.ToUpper(method), path, op.OperationID)
				continue
			}
			if got.method != strings.ToUpper(method) || got.path != path {
				t.Errorf("%s: the portal shows %s %s, the description %s %s", got.id, got.method, got.path, strings.ToUpper(method), path)
			}
		}
	}
	for id := range ops {
		if !described[id] {
			t.Errorf("%s is on the portal but not in /openapi.json", id)
		}
	}

	jsonExamples := 0
	for _, op := range ops {
		t.Run(op.id, func(t *testing.T) {
			req := curlRequest(t, op.request)
			if req.Method != op.method {
				t.Errorf("the request example uses %s, the operation is %s", req.Method, op.method)
			}
			if strings.Contains(op.request, "<") {
				// Placeholders the reader fills in (the authorization
				// request): its example is a redirect, checked below.
				if !strings.HasPrefix(op.example, "HTTP/1.1 302 Found\nLocation: ") {
					t.Errorf("example %q", op.example)
				}
				return
			}
			real := s.send(req)
			if want, _, _ := strings.Cut(op.status, " "); strconv.Itoa(real.StatusCode) != want {
				t.Fatalf("the request example %s answered %d, the portal says %s\n%s", op.request, real.StatusCode, op.status, real.body)
			}
			if strings.HasPrefix(real.Header.Get("Content-Type"), "application/") && strings.Contains(real.Header.Get("Content-Type"), "json") {
				s.validate(real)
			}
			if op.example == "" || !strings.HasPrefix(op.example, "{") {
				return
			}
			jsonExamples++
			if cut.MatchString(op.example) {
				t.Errorf("the example is cut:\n%s", op.example)
			}
			// The example is a valid response of the operation ...
			example := *real.Response
			example.Body = io.NopCloser(strings.NewReader(op.example))
			example.ContentLength = int64(len(op.example))
			s.validate(&response{Response: &example, body: []byte(op.example)})
			// ... with the members the API sends, in its order.
			if got, want := memberOrder(t, []byte(op.example)), memberOrder(t, real.body); !slices.Equal(got, want) {
				t.Errorf("members of the example:\n%q\nof the response:\n%q", got, want)
			}
		})
	}
	if jsonExamples < 15 {
		t.Errorf("only %d operations have a JSON example", jsonExamples)
	}

	// The examples that are the content itself are the content, whole.
	insight := ops["op-getInsight"].example
	real := s.get("/api/v1/insights/" + strings.TrimPrefix(curlRequest(t, ops["op-getInsight"].request).URL.Path, "/api/v1/insights/"))
	var shown, served map[string]any
	if err := json.Unmarshal([]byte(insight), &shown); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(real.body, &served); err != nil {
		t.Fatal(err)
	}
	if shown["content"] != served["content"] || shown["content"] == "" {
		t.Error("the insight example does not hold the insight's whole body")
	}
	profile := ops["op-getProfile"].example
	if p := s.get("/api/v1/profile"); !bytes.Equal(compactJSON(t, []byte(profile)), compactJSON(t, p.body)) {
		t.Errorf("the profile example is not the profile:\n%s", profile)
	}
}

func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// httpExample splits a whole example response of the portal into its
// status, headers and body.
func httpExample(t *testing.T, example string) (int, http.Header, []byte) {
	t.Helper()
	head, body, ok := strings.Cut(example, "\n\n")
	if !ok {
		t.Fatalf("no body in %q", example)
	}
	lines := strings.Split(head, "\n")
	fields := strings.Fields(lines[0])
	if len(fields) < 2 || fields[0] != "HTTP/1.1" {
		t.Fatalf("status line %q", lines[0])
	}
	status, _ := strconv.Atoi(fields[1])
	h := http.Header{}
	for _, line := range lines[1:] {
		k, v, _ := strings.Cut(line, ": ")
		h.Add(k, v)
	}
	return status, h, []byte(body)
}

var portalExample = regexp.MustCompile(`(?s)<summary>Example (\d{3}) response</summary><pre><code>(.*?)</code></pre>`)

// TestDeveloperPortalErrorExamples: the 404 and 401 examples are what the
// server sends for them, headers included.
func TestDeveloperPortalErrorExamples(t *testing.T) {
	s := startCaddy(t, sampleSite)
	examples := map[string]string{}
	for _, m := range portalExample.FindAllStringSubmatch(string(s.get("/developers").body), -1) {
		examples[m[1]] = html.UnescapeString(m[2])
	}
	for status, real := range map[string]*response{
		"404": s.get("/api/v1/insights/no-such-insight"),
		"401": s.get("/api/v1/profile", "Authorization", "Bearer dsc_AAAA"),
	} {
		example, ok := examples[status]
		if !ok {
			t.Errorf("no example %s response", status)
			continue
		}
		code, h, body := httpExample(t, example)
		if strconv.Itoa(code) != status || strconv.Itoa(real.StatusCode) != status {
			t.Errorf("example %d, real %d, want %s", code, real.StatusCode, status)
		}
		for k := range h {
			if k == "Retry-After" || k == "Ratelimit" {
				continue
			}
			if got := real.Header.Get(k); got != h.Get(k) {
				t.Errorf("%s example: %s %q, the server sends %q", status, k, h.Get(k), got)
			}
		}
		if got, want := memberOrder(t, body), memberOrder(t, real.body); !slices.Equal(got, want) {
			t.Errorf("%s example members %q, the server's %q", status, got, want)
		}
		var shown, sent map[string]any
		_ = json.Unmarshal(body, &shown)
		_ = json.Unmarshal(real.body, &sent)
		for _, k := range []string{"type", "title", "status", "instance", "code", "hint"} {
			if status == "401" && k == "instance" {
				continue // the example asks for the profile too, but says so
			}
			if shown[k] != sent[k] {
				t.Errorf("%s example: %s %v, the server sends %v", status, k, shown[k], sent[k])
			}
		}
	}
	if _, ok := examples["429"]; !ok {
		t.Error("no example 429 response")
	}
}

// TestDeveloperPortalGuides pins what people need beyond the reference:
// the setup of the agents they use, the token lifetime, the date of the
// content, the pointer to llms.txt near the top, and no false claim about
// methods.
func TestDeveloperPortalGuides(t *testing.T) {
	s := startCaddy(t, sampleSite+`
http://localhost:9081 {
	discovery {
		content sample
		token_ttl 90m
		cli_name acme
	}
}
`)
	page := html.UnescapeString(string(s.get("/developers").body))
	mcp := base + "/mcp"
	for _, want := range []string{
		"claude mcp add --transport http discovery " + mcp,
		`"command": "npx"`, `"mcp-remote",` + "\n        \"" + mcp + `"`,
		"Connectors",
		".cursor/mcp.json", `"mcpServers": {` + "\n    \"discovery\": {\n      \"url\": \"" + mcp + `"`,
		".vscode/mcp.json", `"servers": {` + "\n    \"discovery\": {\n      \"type\": \"http\",\n      \"url\": \"" + mcp + `"`,
		"ChatGPT", "Developer mode",
		"curl -sO " + base + "/cli/discovery.mjs",
		"valid for 24 hours (<code>\"expires_in\": 86400</code>)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the portal lacks %q", want)
		}
	}
	if strings.Contains(page, "Every endpoint accepts") {
		t.Error("the portal still says every endpoint accepts GET and HEAD")
	}
	// The token lifetime is the one the token endpoint gives.
	var tok struct {
		ExpiresIn int `json:"expires_in"`
	}
	if err := json.Unmarshal(s.do(http.MethodPost, base+"/agent/register", nil).body, &tok); err != nil || tok.ExpiresIn != 86400 {
		t.Errorf("expires_in %d (%v)", tok.ExpiresIn, err)
	}
	other := html.UnescapeString(string(s.do(http.MethodGet, "http://localhost:9081/developers", nil).body))
	for _, want := range []string{"valid for 90 minutes (<code>\"expires_in\": 5400</code>)", "claude mcp add --transport http acme http://localhost:9081/mcp"} {
		if !strings.Contains(other, want) {
			t.Errorf("with token_ttl 90m and cli_name acme, the portal lacks %q", want)
		}
	}

	// Last updated: the newest modification date of the content.
	newest := s.get("/api/v1/profile").json(t)["lastUpdated"].(string)
	for _, item := range s.get("/api/v1/insights").json(t)["items"].([]any) {
		newest = max(newest, item.(map[string]any)["dateModifiedISO"].(string))
	}
	if !strings.Contains(page, `Last updated <time datetime="`+newest+`">`) {
		t.Errorf("the portal does not say it was last updated %s", newest)
	}

	// The llms.txt directive is in the header, before the contents.
	header, _, _ := strings.Cut(page, `<nav class="toc"`)
	if !strings.Contains(header, `Agents: start at <a href="`+base+`/llms.txt">/llms.txt</a>`) {
		t.Error("no llms.txt directive in the portal's header")
	}

	// The field reference has every member of every response type of the
	// description.
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(s.get("/openapi.json").body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ApiIndex", "Health", "Profile", "ProfileContact", "SiteLink", "ProfileUrls", "InsightList",
		"InsightSummary", "InsightDocument", "Problem", "TokenResponse", "IdentityResponse", "ClaimResponse", "ClientInformation",
		"ServerCard", "JSONRPCResponse", "ProtectedResourceMetadata", "AuthorizationServerMetadata", "ApiCatalog", "JWKSet"} {
		anchor := `<h3 id="type-` + strings.ToLower(name) + `">`
		i := strings.Index(page, anchor)
		if i < 0 {
			t.Errorf("no field reference for %s", name)
			continue
		}
		section, _, _ := strings.Cut(page[i+len(anchor):], "<h3 ")
		for property := range doc.Components.Schemas[name].Properties {
			if !strings.Contains(section, "<td><code>"+property+"</code>") {
				t.Errorf("the field reference of %s lacks %s", name, property)
			}
		}
	}
}

// TestDeveloperPortalMarkdown: /developers.md is the portal for agents,
// from the same content, and /developers answers it for Accept:
// text/markdown, as the site's pages answer their twins.
func TestDeveloperPortalMarkdown(t *testing.T) {
	s := startCaddy(t, sampleSite)
	page := s.get("/developers")
	twin := s.get("/developers.md")
	negotiated := s.get("/developers", "Accept", "text/markdown")
	browser := s.get("/developers", "Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	for _, r := range []*response{twin, negotiated} {
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%s Accept %q: %d %q", r.Request.URL.Path, r.Request.Header.Get("Accept"), r.StatusCode, r.Header.Get("Content-Type"))
		}
		if link := r.Header.Get("Link"); !strings.HasPrefix(link, "<"+base+`/developers>; rel="canonical"`) {
			t.Errorf("%s: Link %q", r.Request.URL.Path, link)
		}
		if r.Header.Get("X-Markdown-Tokens") == "" || r.Header.Get("Content-Signal") == "" {
			t.Errorf("%s: no token estimate or content signal", r.Request.URL.Path)
		}
	}
	for _, r := range []*response{page, twin, negotiated} {
		s.validate(r)
	}
	if !bytes.Equal(twin.body, negotiated.body) || twin.Header.Get("ETag") != negotiated.Header.Get("ETag") {
		t.Error("Accept: text/markdown on /developers does not give /developers.md")
	}
	// Front matter like every twin's, and an AI agent gets it by
	// User-Agent as on the site's pages.
	if !strings.HasPrefix(string(twin.body), "---\ntitle: \"") || !strings.Contains(string(twin.body), "\ncanonical_url: \""+base+"/developers\"\n") {
		t.Errorf("/developers.md does not open with its front matter:\n%.300s", twin.body)
	}
	if agent := s.get("/developers", "User-Agent", "ClaudeBot/1.0"); !bytes.Equal(agent.body, twin.body) || !strings.Contains(agent.Header.Get("Vary"), "User-Agent") {
		t.Errorf("/developers for ClaudeBot: %q, Vary %q", agent.Header.Get("Content-Type"), agent.Header.Get("Vary"))
	}
	for _, r := range []*response{page, browser, negotiated} {
		if !strings.Contains(r.Header.Get("Vary"), "Accept") {
			t.Errorf("%s Accept %q: Vary %q", r.Request.URL.Path, r.Request.Header.Get("Accept"), r.Header.Get("Vary"))
		}
	}
	if !bytes.Equal(page.body, browser.body) || page.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Error("a browser does not get the HTML portal")
	}
	if !strings.Contains(string(page.body), `<link rel="alternate" type="text/markdown" href="`+base+`/developers.md">`) {
		t.Error("the HTML portal does not name its Markdown version")
	}

	_, md, _ := strings.Cut(string(twin.body), "\n---\n\n")
	if !strings.HasPrefix(md, "# ") || !strings.Contains(md[:600], "[llms.txt]("+base+"/llms.txt)") {
		t.Errorf("the twin does not open with its title and the pointer to llms.txt after its front matter:\n%.600s", twin.body)
	}
	// The same sections, the same operations, the same setups.
	for _, m := range regexp.MustCompile(`<h2[^>]*>([^<]+)</h2>`).FindAllStringSubmatch(string(page.body), -1) {
		title := m[1]
		if title == "Contents" {
			continue
		}
		if !strings.Contains(md, "\n## "+html.UnescapeString(title)+"\n") {
			t.Errorf("the twin has no section %q", title)
		}
	}
	for id, op := range portalOperations(t, string(page.body)) {
		if !strings.Contains(md, "\n### "+op.method+" "+op.path+"\n") || !strings.Contains(md, op.request) {
			t.Errorf("the twin lacks %s (%s %s) or its request", id, op.method, op.path)
		}
		if strings.HasPrefix(op.example, "{") && !strings.Contains(md, "```json\n"+op.example+"\n```") {
			t.Errorf("the twin lacks the example of %s", id)
		}
	}
	if !strings.Contains(md, "claude mcp add --transport http discovery "+base+"/mcp") {
		t.Error("the twin lacks the Claude Code setup")
	}
	if head := s.do(http.MethodHead, base+"/developers", nil, "Accept", "text/markdown"); head.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || len(head.body) != 0 {
		t.Errorf("HEAD with Accept: text/markdown: %q, %d bytes", head.Header.Get("Content-Type"), len(head.body))
	}
}
