package caddytest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAgentSkills: both index addresses list the skill with the digest of
// the SKILL.md bytes a client downloads; the skill teaches every tool the
// live MCP server lists; the AI catalog points at it too.
func TestAgentSkills(t *testing.T) {
	s := startCaddy(t, sampleSite)
	index := s.agentDocument("/.well-known/agent-skills/index.json", "application/json")
	if legacy := s.agentDocument("/.well-known/skills/index.json", "application/json"); string(legacy.body) != string(index.body) {
		t.Error("the two index addresses serve different indexes")
	}
	var idx struct {
		Schema string `json:"$schema"`
		Skills []struct{ Name, Type, Description, URL, Digest string }
	}
	if err := json.Unmarshal(index.body, &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Schema != "https://schemas.agentskills.io/discovery/0.2.0/schema.json" || len(idx.Skills) != 1 {
		t.Fatalf("index %s", index.body)
	}
	entry := idx.Skills[0]
	if entry.Name != "discovery" || entry.Type != "skill-md" || entry.URL != base+"/.well-known/agent-skills/discovery/SKILL.md" {
		t.Errorf("entry %+v", entry)
	}
	skill := s.agentDocument(strings.TrimPrefix(entry.URL, base), "text/markdown; charset=utf-8")
	sum := sha256.Sum256(skill.body)
	if entry.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("digest %s, but the SKILL.md served hashes to %x", entry.Digest, sum)
	}
	body := string(skill.body)
	if !strings.HasPrefix(body, "---\nname: discovery\ndescription: ") {
		t.Errorf("SKILL.md does not open with its front matter:\n%.200s", body)
	}

	tools, err := connectMCP(t, s, "2025-06-18").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !strings.Contains(body, "- `"+tool.Name+"` (") || !strings.Contains(body, tool.Description) {
			t.Errorf("SKILL.md does not teach the tool %s as the server declares it", tool.Name)
		}
	}
	for _, want := range []string{base + "/api/v1/profile", base + "/cli/discovery.mjs", "node discovery.mjs insights",
		`{"type": "http", "url": "` + base + `/mcp"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("SKILL.md does not contain %q", want)
		}
	}

	var catalog struct {
		Entries []struct{ Identifier, Type, URL string }
	}
	_ = json.Unmarshal(s.get("/.well-known/ai-catalog.json").body, &catalog)
	found := false
	for _, e := range catalog.Entries {
		if e.Type == `text/markdown; profile="urn:air:agent-skills"` && e.URL == entry.URL && e.Identifier == "urn:air:localhost:skill:discovery" {
			found = true
		}
	}
	if !found {
		t.Errorf("the AI catalog does not list the skill: %+v", catalog.Entries)
	}
	if !strings.Contains(string(s.get("/llms.txt").body), entry.URL) {
		t.Error("/llms.txt does not link the skill")
	}
}

// TestAgentSkillsOff: agent_skills off leaves the skills' addresses to the
// site.
func TestAgentSkillsOff(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		agent_skills off
		rate_limit 1500 60s
	}
	respond "the site's own" 200
}
`)
	for _, path := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json", "/.well-known/agent-skills/discovery/SKILL.md"} {
		if r := s.get(path); r.StatusCode != http.StatusOK || string(r.body) != "the site's own" {
			t.Errorf("%s: %d %.80s, want the site's answer", path, r.StatusCode, r.body)
		}
	}
	// The agent card's entry speaks of skills (its MCP tools); the skill's
	// own entry is named by its identifier and its SKILL.md.
	if catalog := string(s.get("/.well-known/ai-catalog.json").body); strings.Contains(catalog, ":skill:") || strings.Contains(catalog, "SKILL.md") {
		t.Errorf("the AI catalog lists a skill that is off: %s", catalog)
	}
}
