package caddytest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// agentCardSchema compiles the A2A 1.0 AgentCard schema of testdata (see
// its $comment for where it comes from).
func agentCardSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "a2a-agent-card.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://test.invalid/a2a-agent-card.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("https://test.invalid/a2a-agent-card.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestAgentCard: the A2A agent card is valid A2A 1.0 at both addresses
// (the same bytes), its skills are exactly the tools the MCP server lists,
// and its interface is the MCP endpoint, which answers an MCP client.
func TestAgentCard(t *testing.T) {
	s := startCaddy(t, sampleSite)
	schema := agentCardSchema(t)
	card := s.agentDocument("/.well-known/agent-card.json", "application/json")
	if older := s.agentDocument("/.well-known/agent.json", "application/json"); !bytes.Equal(older.body, card.body) ||
		older.Header.Get("ETag") != card.Header.Get("ETag") {
		t.Error("/.well-known/agent.json serves another card than /.well-known/agent-card.json")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(card.body))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Errorf("the agent card is not a valid A2A 1.0 AgentCard: %v\n%s", err, card.body)
	}

	var got struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding, ProtocolVersion string }
		Skills              []struct{ ID, Name, Description string }
	}
	if err := json.Unmarshal(card.body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.SupportedInterfaces) != 1 || got.SupportedInterfaces[0].URL != base+"/mcp" {
		t.Errorf("interfaces %+v, want the MCP endpoint", got.SupportedInterfaces)
	}
	var list struct {
		Result struct {
			Tools []struct{ Name, Title, Description string }
		}
	}
	r := s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "MCP-Protocol-Version", "2025-11-25")
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Result.Tools) == 0 {
		t.Fatalf("tools/list: %v %s", err, r.body)
	}
	if len(got.Skills) != len(list.Result.Tools) {
		t.Fatalf("%d skills, the MCP server lists %d tools", len(got.Skills), len(list.Result.Tools))
	}
	skills := map[string]string{}
	for _, skill := range got.Skills {
		skills[skill.ID] = skill.Name + "\n" + skill.Description
	}
	for _, tool := range list.Result.Tools {
		if skills[tool.Name] != tool.Title+"\n"+tool.Description {
			t.Errorf("the MCP server's tool %+v has no skill of its name, title and description", tool)
		}
	}
}

// TestWellKnownOpenAPI: /.well-known/openapi.json is /openapi.json, bytes
// and headers.
func TestWellKnownOpenAPI(t *testing.T) {
	s := startCaddy(t, sampleSite)
	canonical, wellKnown := s.get("/openapi.json"), s.get("/.well-known/openapi.json")
	if wellKnown.StatusCode != http.StatusOK || !bytes.Equal(canonical.body, wellKnown.body) {
		t.Fatalf("/.well-known/openapi.json: %d, not the bytes of /openapi.json", wellKnown.StatusCode)
	}
	for _, h := range []string{"ETag", "Content-Type", "Cache-Control", "Access-Control-Allow-Origin"} {
		if canonical.Header.Get(h) != wellKnown.Header.Get(h) {
			t.Errorf("%s: %q at /openapi.json, %q at /.well-known/openapi.json", h, canonical.Header.Get(h), wellKnown.Header.Get(h))
		}
	}
	if r := s.get("/.well-known/openapi.json", "If-None-Match", canonical.Header.Get("ETag")); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the ETag of /openapi.json: %d", r.StatusCode)
	}
}

// securityField matches one field of a security.txt (RFC 9116 section 4).
var securityField = regexp.MustCompile(`^([A-Za-z-]+): (\S.*)$`)

// TestSecurityTxt: a site without a security.txt of its own gets the
// module's, in RFC 9116's shape, from the content's security contact.
func TestSecurityTxt(t *testing.T) {
	for name, site := range map[string]string{
		"respond 404":     `respond "no such file" 404`,
		"file_server":     "root * " + t.TempDir() + "\n\tfile_server",
		"single-page app": "root * " + siteFiles(t, nil) + "\n\ttry_files {path} /index.html\n\tfile_server",
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "\nhttp://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t\trate_limit 1500 60s\n\t}\n\t"+site+"\n}\n")
			r := s.get("/.well-known/security.txt")
			if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" || r.Header.Get("ETag") == "" {
				t.Fatalf("%d %q %q: %s", r.StatusCode, r.Header.Get("Content-Type"), r.Header.Get("ETag"), r.body)
			}
			s.validate(r)
			fields := map[string][]string{}
			for _, line := range strings.Split(strings.TrimSuffix(string(r.body), "\n"), "\n") {
				if strings.HasPrefix(line, "#") {
					continue
				}
				m := securityField.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("not a field: %q", line)
				}
				fields[m[1]] = append(fields[m[1]], m[2])
			}
			if c := fields["Contact"]; len(c) != 1 || c[0] != "mailto:security@harbourline.example" {
				t.Errorf("Contact %q", c)
			}
			expires, err := time.Parse(time.RFC3339, strings.Join(fields["Expires"], ""))
			if len(fields["Expires"]) != 1 || err != nil || !expires.After(time.Now()) || expires.After(time.Now().AddDate(1, 0, 0)) {
				t.Errorf("Expires %q: must be one date within the next year (%v)", fields["Expires"], err)
			}
			if again := s.get("/.well-known/security.txt", "If-None-Match", r.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match: %d", again.StatusCode)
			}
		})
	}
}

// TestSiteKeepsItsSecurityTxt: the site's own security.txt is passed on
// byte for byte, with the site's headers, whatever serves it.
func TestSiteKeepsItsSecurityTxt(t *testing.T) {
	own := "Contact: mailto:psirt@site.example\nExpires: 2030-01-01T00:00:00Z\n"
	root := siteFiles(t, map[string]string{".well-known/security.txt": own})
	proxied := startBackend(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/security.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Site", "backend")
		w.Write([]byte(own))
	})
	for name, site := range map[string]string{
		"file_server":   "root * " + root + "\n\tfile_server",
		"reverse_proxy": "reverse_proxy " + proxied,
	} {
		t.Run(name, func(t *testing.T) {
			s := startCaddy(t, "\nhttp://localhost:9080 {\n\tdiscovery {\n\t\tcontent sample\n\t\trate_limit 1500 60s\n\t}\n\t"+site+"\n}\n")
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				r := s.do(method, base+"/.well-known/security.txt", nil)
				want := own
				if method == http.MethodHead {
					want = ""
				}
				if r.StatusCode != http.StatusOK || string(r.body) != want {
					t.Errorf("%s: %d %q, want the site's own file", method, r.StatusCode, r.body)
				}
				if name == "reverse_proxy" && r.Header.Get("X-Site") != "backend" {
					t.Errorf("%s: the backend's headers are lost: %v", method, r.Header)
				}
			}
		})
	}
}

// TestNewDocumentsOff: with their switches off, the agent card, the
// well-known OpenAPI address and security.txt are the site's (here a
// file_server's own files) and no document names them.
func TestNewDocumentsOff(t *testing.T) {
	paths := []string{"/.well-known/agent-card.json", "/.well-known/agent.json", "/.well-known/openapi.json", "/.well-known/security.txt"}
	files := map[string]string{}
	for _, path := range paths {
		files[strings.TrimPrefix(path, "/")] = "site " + path
	}
	s := startCaddy(t, `
http://localhost:9080 {
	root * `+siteFiles(t, files)+`
	discovery {
		content sample
		agent_card off
		well_known_openapi off
		security_txt off
		rate_limit 1500 60s
	}
	file_server
}
`)
	for _, path := range paths {
		if r := s.get(path); string(r.body) != "site "+path || r.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("%s: %d %.80s, want the site's own file, untouched", path, r.StatusCode, r.body)
		}
	}
	for _, doc := range []string{"/llms.txt", "/openapi.json", "/developers", "/auth.md", "/.well-known/ai-catalog.json"} {
		body := string(s.get(doc).body)
		for _, path := range paths {
			if strings.Contains(body, path) {
				t.Errorf("%s still names %s", doc, path)
			}
		}
	}

	// Without a file of the site's, the paths go on to what follows.
	s = startCaddy(t, `
http://localhost:9080 {
	discovery {
		content sample
		agent_card off
		well_known_openapi off
		security_txt off
		rate_limit 1500 60s
	}
	respond "next handler" 404
}
`)
	for _, path := range paths {
		if r := s.get(path); r.StatusCode != http.StatusNotFound || string(r.body) != "next handler" {
			t.Errorf("%s: %d %q, want the next handler's 404", path, r.StatusCode, r.body)
		}
	}
}
