package handlers

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

func serve(t *testing.T, s *Service, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	return rec
}

// TestSkill: the SKILL.md is in the Agent Skills format, teaches every
// endpoint, CLI command and MCP tool there is, and the index's digest is
// that of the bytes served.
func TestSkill(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com", CLIName: "Rosa_Tools", Agents: AgentDocs{Skills: true}})
	var index wire.SkillsIndex
	if err := json.Unmarshal(serve(t, s, "/.well-known/agent-skills/index.json").Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	if again := serve(t, s, "/.well-known/skills/index.json").Body.String(); again != serve(t, s, "/.well-known/agent-skills/index.json").Body.String() {
		t.Error("the two index addresses serve different indexes")
	}
	if index.Schema != "https://schemas.agentskills.io/discovery/0.2.0/schema.json" || len(index.Skills) != 1 {
		t.Fatalf("index %+v", index)
	}
	entry := index.Skills[0]
	if entry.Name != "rosa-tools" || entry.Type != "skill-md" || entry.URL != "https://example.com/.well-known/agent-skills/rosa-tools/SKILL.md" {
		t.Errorf("entry %+v", entry)
	}
	skill := serve(t, s, strings.TrimPrefix(entry.URL, "https://example.com"))
	if ct := skill.Header().Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("SKILL.md Content-Type %q", ct)
	}
	body := skill.Body.String()
	sum := sha256.Sum256(skill.Body.Bytes())
	if entry.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("digest %s is not that of the served SKILL.md", entry.Digest)
	}

	front, rest, ok := strings.Cut(strings.TrimPrefix(body, "---\n"), "\n---\n")
	if !strings.HasPrefix(body, "---\n") || !ok {
		t.Fatalf("no YAML front matter:\n%.300s", body)
	}
	var meta map[string]string
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		t.Fatalf("front matter: %v\n%s", err, front)
	}
	if len(meta) != 2 || meta["name"] != entry.Name || meta["description"] != entry.Description ||
		len([]rune(meta["description"])) > 1024 {
		t.Errorf("front matter %q, the index says %q and %q", meta, entry.Name, entry.Description)
	}

	var want []string
	for _, rt := range s.routes {
		if rt.Versioned() {
			want = append(want, "`GET "+rt.Path+"`")
		}
	}
	for _, c := range docs.CLICommands {
		want = append(want, "node Rosa_Tools.mjs "+strings.Replace(c.Command, "<slug>", docs.SlugExample(s.fixed.links.Links), 1)+"  # ")
	}
	for _, tool := range mcp.DeclaredTools(s.fixed.links.mcpSite()) {
		want = append(want, "- `"+tool.Name+"` (")
	}
	want = append(want, `"mcpServers": {"Rosa_Tools": {"type": "http", "url": "https://example.com/mcp"}}`,
		"`slug` string, required", "`topic` string, optional", "`query` string, required")
	for _, w := range want {
		if !strings.Contains(rest, w) {
			t.Errorf("SKILL.md does not contain %q", w)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

// TestCLICommandsAreTheScripts: the commands the documents teach are the
// ones the CLI's own usage lists.
func TestCLICommandsAreTheScripts(t *testing.T) {
	f, err := os.Open("../../cli/discovery.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var usage []string
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case line == "Commands:":
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			command, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
			usage = append(usage, command)
		}
	}
	var ours []string
	for _, c := range docs.CLICommands {
		ours = append(ours, c.Command)
	}
	if strings.Join(usage, "|") != strings.Join(ours, "|") {
		t.Errorf("the CLI's usage lists %q, the documents teach %q", usage, ours)
	}
}

// TestSkillsOff: with the skills off, their addresses are not the
// service's and the AI catalog lists no skill.
func TestSkillsOff(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com", Agents: AgentDocs{MCPDiscovery: true}})
	for _, path := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json", "/.well-known/agent-skills/discovery/SKILL.md"} {
		if s.Owns(path) {
			t.Errorf("%s is still owned", path)
		}
	}
	if body := serve(t, s, "/.well-known/ai-catalog.json").Body.String(); strings.Contains(body, "skill") {
		t.Errorf("the AI catalog lists a skill: %s", body)
	}
}
