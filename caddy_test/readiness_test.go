package caddytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestAgentReadinessScan judges the site `make run` serves the way the
// agent-readiness scanners do (isitagentready's scored, non-commerce checks
// and their open replicas): each check from the outside, through the
// addresses a scanner knows and the documents it is led to, with nothing
// taken from the module's configuration.
func TestAgentReadinessScan(t *testing.T) {
	s := startCaddy(t, demoSite(t))
	robots := s.get("/robots.txt")
	robotsText := string(robots.body)

	checks := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"robots.txt", func(t *testing.T) {
			if robots.StatusCode != http.StatusOK || !strings.HasPrefix(robots.Header.Get("Content-Type"), "text/plain") ||
				!regexp.MustCompile(`(?mi)^User-agent:\s*\S`).MatchString(robotsText) {
				t.Errorf("/robots.txt: %d %q\n%s", robots.StatusCode, robots.Header.Get("Content-Type"), robotsText)
			}
		}},
		{"AI bot rules", func(t *testing.T) {
			// No group that applies to AI crawlers disallows the whole site.
			if regexp.MustCompile(`(?mi)^Disallow:\s*/\s*$`).MatchString(robotsText) {
				t.Errorf("robots.txt shuts crawlers out:\n%s", robotsText)
			}
		}},
		{"content signals", func(t *testing.T) {
			if !regexp.MustCompile(`(?m)^Content-Signal:\s*(search|ai-input|ai-train)=(yes|no)`).MatchString(robotsText) {
				t.Errorf("no Content-Signal in robots.txt:\n%s", robotsText)
			}
		}},
		{"sitemap", func(t *testing.T) {
			m := regexp.MustCompile(`(?mi)^Sitemap:\s*(\S+)`).FindStringSubmatch(robotsText)
			if m == nil {
				t.Fatalf("robots.txt names no sitemap:\n%s", robotsText)
			}
			for _, address := range []string{m[1], base + "/sitemap.xml"} {
				u, err := url.Parse(address)
				if err != nil {
					t.Fatal(err)
				}
				r := s.get(u.Path)
				var set struct {
					XMLName xml.Name
					URLs    []struct{ Loc string } `xml:"url"`
				}
				if err := xml.Unmarshal(r.body, &set); err != nil || set.XMLName.Local != "urlset" ||
					set.XMLName.Space != "http://www.sitemaps.org/schemas/sitemap/0.9" || len(set.URLs) == 0 {
					t.Errorf("%s: %d, not a sitemaps.org urlset (%v)", address, r.StatusCode, err)
				}
			}
		}},
		{"Link headers", func(t *testing.T) {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				r := s.do(method, base+"/", nil)
				found := map[string]bool{}
				for _, l := range links(r.Header) {
					rel, _, _ := strings.Cut(l, " ")
					found[rel] = true
				}
				for _, rel := range []string{"api-catalog", "service-desc", "service-doc", "describedby", "alternate"} {
					if !found[rel] {
						t.Errorf("%s /: no Link with rel=%s in %q", method, rel, r.Header.Values("Link"))
					}
				}
			}
		}},
		{"Markdown for agents", func(t *testing.T) {
			r := s.get("/", "Accept", "text/markdown")
			if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/markdown") {
				t.Errorf("GET / with Accept: text/markdown: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
			}
		}},
		{"API catalog", func(t *testing.T) {
			r := s.get("/.well-known/api-catalog")
			var catalog struct {
				Linkset []map[string]any `json:"linkset"`
			}
			if err := json.Unmarshal(r.body, &catalog); err != nil || len(catalog.Linkset) == 0 ||
				!strings.HasPrefix(r.Header.Get("Content-Type"), "application/linkset+json") {
				t.Errorf("/.well-known/api-catalog: %d %q %v", r.StatusCode, r.Header.Get("Content-Type"), err)
			}
		}},
		{"OAuth protected resource", func(t *testing.T) {
			m := s.get("/.well-known/oauth-protected-resource").json(t)
			if m["resource"] == nil || m["authorization_servers"] == nil {
				t.Errorf("protected resource metadata: %v", m)
			}
		}},
		{"OAuth discovery", func(t *testing.T) {
			m := s.get("/.well-known/oauth-authorization-server").json(t)
			if m["issuer"] != base || m["authorization_endpoint"] == nil || m["token_endpoint"] == nil {
				t.Errorf("authorization server metadata: %v", m)
			}
		}},
		{"MCP server card", func(t *testing.T) {
			for _, path := range []string{"/.well-known/mcp/server-card.json", "/.well-known/mcp/server-cards.json", "/.well-known/mcp.json"} {
				card := s.get(path).json(t)
				info, _ := card["serverInfo"].(map[string]any)
				endpoint, _ := card["endpoint"].(string)
				if info["name"] == nil || info["version"] == nil || !strings.HasPrefix(endpoint, "http") || card["capabilities"] == nil {
					t.Errorf("%s: %v", path, card)
				}
			}
		}},
		{"A2A agent card", func(t *testing.T) {
			// Level 5 of isitagentready; other scanners probe the earlier address.
			for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
				var card struct {
					Name, Description, Version string
					SupportedInterfaces        []struct{ URL, ProtocolBinding, ProtocolVersion string }
					Capabilities               map[string]any
					DefaultInputModes          []string
					DefaultOutputModes         []string
					Skills                     []struct {
						ID, Name, Description string
						Tags                  []string
					}
				}
				r := s.get(path)
				if err := json.Unmarshal(r.body, &card); err != nil || r.StatusCode != http.StatusOK ||
					!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
					t.Fatalf("%s: %d %q %v", path, r.StatusCode, r.Header.Get("Content-Type"), err)
				}
				if card.Name == "" || card.Description == "" || card.Version == "" || card.Capabilities == nil ||
					len(card.DefaultInputModes) == 0 || len(card.DefaultOutputModes) == 0 || len(card.Skills) == 0 ||
					len(card.SupportedInterfaces) == 0 || !strings.HasPrefix(card.SupportedInterfaces[0].URL, "http") ||
					card.SupportedInterfaces[0].ProtocolBinding == "" || card.SupportedInterfaces[0].ProtocolVersion == "" {
					t.Errorf("%s lacks what an A2A 1.0 card requires: %s", path, r.body)
				}
				for _, skill := range card.Skills {
					if skill.ID == "" || skill.Name == "" || skill.Description == "" || skill.Tags == nil {
						t.Errorf("%s: skill %+v", path, skill)
					}
				}
			}
		}},
		{"OpenAPI at the well-known address", func(t *testing.T) {
			m := s.get("/.well-known/openapi.json").json(t)
			if version, _ := m["openapi"].(string); !strings.HasPrefix(version, "3.") || m["paths"] == nil {
				t.Errorf("/.well-known/openapi.json: openapi %v, paths %v", m["openapi"], m["paths"] != nil)
			}
		}},
		{"security.txt", func(t *testing.T) {
			r := s.get("/.well-known/security.txt")
			body := string(r.body)
			if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") ||
				!regexp.MustCompile(`(?m)^Contact: \S+$`).MatchString(body) || !regexp.MustCompile(`(?m)^Expires: \S+$`).MatchString(body) {
				t.Errorf("/.well-known/security.txt: %d %q\n%s", r.StatusCode, r.Header.Get("Content-Type"), body)
			}
		}},
		{"Agent Skills", func(t *testing.T) {
			for _, path := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"} {
				var index struct {
					Schema string `json:"$schema"`
					Skills []struct{ Name, Type, Description, URL, Digest string }
				}
				if err := json.Unmarshal(s.get(path).body, &index); err != nil || !strings.Contains(index.Schema, "0.2.0") || len(index.Skills) == 0 {
					t.Fatalf("%s: %v %+v", path, err, index)
				}
				for _, skill := range index.Skills {
					u, err := url.Parse(skill.URL)
					if err != nil {
						t.Fatal(err)
					}
					sum := sha256.Sum256(s.get(u.Path).body)
					if skill.Name == "" || skill.Type != "skill-md" || skill.Description == "" || skill.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
						t.Errorf("%s: skill %+v (digest of the served bytes sha256:%x)", path, skill, sum)
					}
				}
			}
		}},
		{"WebMCP", func(t *testing.T) {
			// The home page's inline or same-origin scripts.
			home := string(s.get("/").body)
			found := strings.Contains(home, "navigator.modelContext.registerTool(")
			for _, m := range regexp.MustCompile(`<script[^>]*\ssrc="([^"]+)"`).FindAllStringSubmatch(home, -1) {
				u, err := url.Parse(m[1])
				if err != nil || u.Host != "" && u.Host != strings.TrimPrefix(base, "http://") {
					continue
				}
				if strings.Contains(string(s.get(u.Path).body), "navigator.modelContext.registerTool(") {
					found = true
				}
			}
			if !found {
				t.Errorf("no script of the home page calls navigator.modelContext.registerTool(:\n%.600s", home)
			}
		}},
	}
	for _, c := range checks {
		t.Run(c.name, c.check)
	}
}
