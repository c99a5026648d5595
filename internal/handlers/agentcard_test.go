package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// TestAgentCard: the card's skills are the tools the MCP server declares,
// each under its own name, title and description, and its one interface
// is the MCP endpoint; both addresses serve the same bytes.
func TestAgentCard(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com", Version: "1.2.3", Agents: AgentDocs{AgentCard: true}})
	rec := serve(t, s, view.PathAgentCard)
	if ct := rec.Header().Get("Content-Type"); ct != respond.MediaJSON {
		t.Errorf("Content-Type %q", ct)
	}
	if again := serve(t, s, view.PathAgentJSON); !bytes.Equal(again.Body.Bytes(), rec.Body.Bytes()) || again.Header().Get("ETag") != rec.Header().Get("ETag") {
		t.Errorf("%s serves another card than %s", view.PathAgentJSON, view.PathAgentCard)
	}
	var card wire.AgentCard
	if err := json.Unmarshal(rec.Body.Bytes(), &card); err != nil {
		t.Fatal(err)
	}
	if len(card.SupportedInterfaces) != 1 || card.SupportedInterfaces[0].URL != "https://example.com/mcp" ||
		card.SupportedInterfaces[0].ProtocolBinding != docs.MCPBinding || card.SupportedInterfaces[0].ProtocolVersion != "1.0" {
		t.Errorf("interfaces %+v", card.SupportedInterfaces)
	}
	tools := mcp.DeclaredTools(s.fixed.links.mcpSite())
	if len(card.Skills) != len(tools) {
		t.Fatalf("%d skills for %d tools", len(card.Skills), len(tools))
	}
	for i, tool := range tools {
		skill := card.Skills[i]
		if skill.ID != tool.Name || skill.Name != tool.Title || skill.Description != tool.Description || len(skill.Tags) == 0 {
			t.Errorf("skill %+v for tool %s %q", skill, tool.Name, tool.Title)
		}
	}
	if card.Version != "1.2.3" || card.DocumentationURL != "https://example.com/developers" || card.Provider.URL != "https://example.com" {
		t.Errorf("card %+v", card)
	}
}

// TestAgentCardOff: with the card off, neither address is the service's.
func TestAgentCardOff(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com"})
	for _, path := range []string{view.PathAgentCard, view.PathAgentJSON, view.PathWellKnownOpenAPI, view.PathSecurityTxt} {
		if s.Owns(path) {
			t.Errorf("%s is owned with every switch off", path)
		}
	}
}

// TestWellKnownOpenAPI: the same document as /openapi.json, byte for byte.
func TestWellKnownOpenAPI(t *testing.T) {
	s := newTestService(t, Config{BaseURL: "https://example.com", Agents: AgentDocs{WellKnownOpenAPI: true}})
	canonical, wellKnown := serve(t, s, view.PathOpenAPI), serve(t, s, view.PathWellKnownOpenAPI)
	if !bytes.Equal(canonical.Body.Bytes(), wellKnown.Body.Bytes()) || canonical.Header().Get("ETag") != wellKnown.Header().Get("ETag") ||
		canonical.Header().Get("Content-Type") != wellKnown.Header().Get("Content-Type") {
		t.Error("/.well-known/openapi.json is not /openapi.json")
	}
}

// TestSecurityTxt: the fields RFC 9116 requires, Expires within a year of
// loading, and on a plain-http base no http web address.
func TestSecurityTxt(t *testing.T) {
	loaded := time.Date(2026, 11, 26, 15, 4, 5, 0, time.UTC)
	now := func() time.Time { return loaded }
	s := newTestService(t, Config{BaseURL: "https://example.com", Now: now, Agents: AgentDocs{SecurityTxt: true}})
	if !s.Match(httptest.NewRequest(http.MethodGet, view.PathSecurityTxt, nil)).SiteFirst() {
		t.Error("security.txt does not defer to the site's own")
	}
	rec := serve(t, s, view.PathSecurityTxt)
	if ct := rec.Header().Get("Content-Type"); ct != respond.MediaText {
		t.Errorf("Content-Type %q", ct)
	}
	want := "Contact: mailto:security@harbourline.example\nExpires: 2027-11-25T00:00:00Z\nPreferred-Languages: en, nl\nCanonical: https://example.com/.well-known/security.txt\n"
	if body := rec.Body.String(); !strings.HasPrefix(body, "# ") || !strings.HasSuffix(body, want) {
		t.Errorf("security.txt:\n%s\nwant it to end with:\n%s", body, want)
	}

	plain := newTestService(t, Config{BaseURL: "http://localhost:8080", Now: now, Agents: AgentDocs{SecurityTxt: true}})
	if body := serve(t, plain, view.PathSecurityTxt).Body.String(); strings.Contains(body, "http://") {
		t.Errorf("security.txt on plain http names an http address:\n%s", body)
	}

	// Content that names no security contact has no security.txt.
	site, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	site.Security = content.Security{}
	without, err := New(Config{BaseURL: "https://example.com", Site: site, TokenSecret: []byte(strings.Repeat("s", 32)), Agents: AgentDocs{SecurityTxt: true}})
	if err != nil {
		t.Fatal(err)
	}
	if without.Owns(view.PathSecurityTxt) {
		t.Error("security.txt is served without a contact")
	}
}
