package caddytest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dunglas/httpsfv"
	"github.com/miekg/dns"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
)

// TestAgentReadinessScan judges the site `make run` serves the way the
// agent-readiness scanners do (isitagentready's scored, non-commerce checks
// and their open replicas): each check from the outside, through the
// addresses a scanner knows and the documents it is led to, with nothing
// taken from the module's configuration. dnsAid reads DNS, which is the
// owner's to publish: the check is that the site says which records to
// publish, the portal and the CLI alike.
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
		{"Content-Usage", func(t *testing.T) {
			// The same preferences as Content-Signal, in the IETF's
			// vocabulary, on the module's answers and on the Markdown of
			// the site's pages.
			signal := regexp.MustCompile(`(?m)^Content-Signal:\s*(.+)$`).FindStringSubmatch(robotsText)
			if signal == nil {
				t.Fatalf("no Content-Signal in robots.txt:\n%s", robotsText)
			}
			want := preferencesOfSignal(t, signal[1])
			for _, ask := range []struct {
				path, accept string
				page         bool // the Markdown version of a page, which states Content-Signal too
			}{
				{"/", "text/markdown", true}, {"/insights/" + insightSlug, "text/markdown", true}, {"/about.md", "", true},
				{"/llms.txt", "", false}, {"/api/v1/profile", "", false}, {"/.well-known/oauth-authorization-server", "", false}, {"/auth.md", "", false},
			} {
				r := s.get(ask.path, "Accept", ask.accept)
				if r.StatusCode != http.StatusOK {
					t.Fatalf("%s: %d", ask.path, r.StatusCode)
				}
				if got := usagePreferences(t, r.Header.Values("Content-Usage")); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: Content-Usage %q reads as %v; robots.txt's Content-Signal %q says %v",
						ask.path, r.Header.Values("Content-Usage"), got, signal[1], want)
				}
				if ask.page && r.Header.Get("Content-Signal") != signal[1] {
					t.Errorf("%s: Content-Signal %q, robots.txt says %q", ask.path, r.Header.Get("Content-Signal"), signal[1])
				}
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
		{"auth.md", func(t *testing.T) {
			// The scanner's fetch, and an H1 that names auth.md.
			r := s.get("/auth.md", "Accept", "text/markdown, text/plain, */*")
			h1 := regexp.MustCompile(`(?m)^# (.+)$`).FindStringSubmatch(string(r.body))
			if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/markdown") ||
				h1 == nil || !strings.Contains(h1[1], "auth.md") {
				t.Fatalf("/auth.md: %d %q, H1 %q", r.StatusCode, r.Header.Get("Content-Type"), h1)
			}
			checkAgentAuth(t, s, r.body)
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
		{"DNS-AID records", func(t *testing.T) {
			records := portalRecords(t, s)
			checkDNSAIDRecords(t, s, records)
			// The CLI makes the same records from the site's documents.
			out := runNode(t, nodeCommand(t, "node", "cli/discovery.mjs", "dns-aid", "--base-url", base))
			var printed []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(line, ";") {
					printed = append(printed, line)
				}
			}
			if !slices.Equal(printed, records) {
				t.Errorf("the CLI prints\n%s\nthe portal gives\n%s", strings.Join(printed, "\n"), strings.Join(records, "\n"))
			}
		}},
	}
	for _, c := range checks {
		t.Run(c.name, c.check)
	}
}

// checkAgentAuth reads the OAuth metadata as an agent following auth.md
// does, and as the scanners check it: the protected resource metadata
// names the authorization server, whose metadata has that issuer and an
// agent_auth block in the names of both protocol versions; each endpoint
// it names then works as it says, the anonymous method giving a token the
// API takes.
func checkAgentAuth(t *testing.T, s *server, authMD []byte) {
	t.Helper()
	var prm struct {
		Resource               string   `json:"resource"`
		AuthorizationServers   []string `json:"authorization_servers"`
		ScopesSupported        []string `json:"scopes_supported"`
		BearerMethodsSupported []string `json:"bearer_methods_supported"`
	}
	if err := json.Unmarshal(s.get("/.well-known/oauth-protected-resource").body, &prm); err != nil || prm.Resource == "" ||
		len(prm.AuthorizationServers) == 0 || len(prm.ScopesSupported) == 0 || !slices.Contains(prm.BearerMethodsSupported, "header") {
		t.Fatalf("protected resource metadata %+v (%v)", prm, err)
	}
	issuer := prm.AuthorizationServers[0]
	mcp := s.get("/.well-known/oauth-protected-resource/mcp").json(t)
	if servers, _ := mcp["authorization_servers"].([]any); len(servers) == 0 || servers[0] != issuer {
		t.Errorf("the MCP endpoint's metadata names %v, the site's %s", mcp["authorization_servers"], issuer)
	}
	asURL, err := url.Parse(issuer + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var as struct {
		Issuer        string `json:"issuer"`
		TokenEndpoint string `json:"token_endpoint"`
		AgentAuth     struct {
			Skill                  string   `json:"skill"`
			RegisterURI            string   `json:"register_uri"`
			ClaimURI               string   `json:"claim_uri"`
			IdentityEndpoint       string   `json:"identity_endpoint"`
			ClaimEndpoint          string   `json:"claim_endpoint"`
			IdentityTypesSupported []string `json:"identity_types_supported"`
			Anonymous              struct {
				CredentialTypesSupported []string `json:"credential_types_supported"`
			} `json:"anonymous"`
		} `json:"agent_auth"`
	}
	if err := json.Unmarshal(s.get(asURL.Path).body, &as); err != nil || as.Issuer != issuer {
		t.Fatalf("the metadata at %s: issuer %q, want %q (%v)", asURL, as.Issuer, issuer, err)
	}
	aa := as.AgentAuth
	if aa.Skill == "" || aa.RegisterURI == "" || aa.ClaimURI == "" || aa.IdentityEndpoint == "" || aa.ClaimEndpoint != aa.ClaimURI ||
		!slices.Contains(aa.IdentityTypesSupported, "anonymous") || !slices.Contains(aa.Anonymous.CredentialTypesSupported, "access_token") {
		t.Fatalf("agent_auth %+v", aa)
	}
	path := func(address string) string {
		u, err := url.Parse(address)
		if err != nil || u.Scheme+"://"+u.Host != issuer {
			t.Fatalf("%q is not an address of %s", address, issuer)
		}
		return u.Path
	}
	if skill := s.get(path(aa.Skill)); !bytes.Equal(skill.body, authMD) {
		t.Errorf("agent_auth's skill %s is not /auth.md", aa.Skill)
	}
	// v0.1: register_uri gives a credential at once.
	token := s.do(http.MethodPost, base+path(aa.RegisterURI), strings.NewReader(`{"type":"anonymous","requested_credential_type":"access_token"}`),
		"Content-Type", "application/json").json(t)
	access, _ := token["access_token"].(string)
	if r := s.get("/api/v1/profile", "Authorization", "Bearer "+access); access == "" || r.StatusCode != http.StatusOK {
		t.Errorf("register_uri gave %v, and the API answers it %d", token, r.StatusCode)
	}
	// v0.7: identity_endpoint gives an assertion for the token endpoint.
	identity := s.do(http.MethodPost, base+path(aa.IdentityEndpoint), strings.NewReader(`{"type":"anonymous"}`), "Content-Type", "application/json").json(t)
	assertion, _ := identity["identity_assertion"].(string)
	exchanged := s.do(http.MethodPost, base+path(as.TokenEndpoint), strings.NewReader(url.Values{
		"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}.Encode()),
		"Content-Type", "application/x-www-form-urlencoded").json(t)
	if exchanged["access_token"] == nil {
		t.Errorf("identity_endpoint gave %v, exchanged for %v", identity, exchanged)
	}
	if r := s.do(http.MethodPost, base+path(aa.ClaimEndpoint), strings.NewReader(`{}`), "Content-Type", "application/json"); r.StatusCode != http.StatusOK {
		t.Errorf("claim_endpoint: %d %s", r.StatusCode, r.body)
	}
}

// usagePreferences reads a Content-Usage field as draft-ietf-aipref-vocab-07
// says (section 6): an RFC 9651 dictionary whose values count only as the
// token y (allow) or n (disallow); a label left unknown is absent, and so
// is everything when the dictionary does not parse.
func usagePreferences(t *testing.T, field []string) map[string]string {
	t.Helper()
	prefs := map[string]string{}
	d, err := httpsfv.UnmarshalDictionary(field)
	if err != nil {
		t.Errorf("Content-Usage %q is not a structured field dictionary: %v", field, err)
		return prefs
	}
	for _, label := range d.Names() {
		member, _ := d.Get(label)
		if item, ok := member.(httpsfv.Item); ok {
			switch item.Value {
			case httpsfv.Token("y"):
				prefs[label] = "allow"
			case httpsfv.Token("n"):
				prefs[label] = "disallow"
			}
		}
	}
	return prefs
}

// preferencesOfSignal maps a Content-Signal value to the vocabulary's
// labels: ai-train to train-ai, search to search; ai-input has no label.
func preferencesOfSignal(t *testing.T, signal string) map[string]string {
	t.Helper()
	d, err := httpsfv.UnmarshalDictionary([]string{signal})
	if err != nil {
		t.Fatalf("Content-Signal %q: %v", signal, err)
	}
	prefs := map[string]string{}
	for from, to := range map[string]string{"ai-train": "train-ai", "search": "search"} {
		m, _ := d.Get(from)
		item, _ := m.(httpsfv.Item)
		switch item.Value {
		case httpsfv.Token("yes"):
			prefs[to] = "allow"
		case httpsfv.Token("no"):
			prefs[to] = "disallow"
		}
	}
	return prefs
}

// portalRecords are the DNS-AID records the developer portal gives, one a
// line, as a reader copies them.
func portalRecords(t *testing.T, s *server) []string {
	t.Helper()
	page := string(s.get("/developers").body)
	_, section, _ := strings.Cut(page, `id="listing-dns-aid"`)
	m := regexp.MustCompile(`(?s)<pre><code>(.*?)</code></pre>`).FindStringSubmatch(section)
	if m == nil || !strings.Contains(section, "DNSSEC") {
		t.Fatalf("the portal gives no DNS-AID records, or does not say to sign the zone:\n%.2000s", section)
	}
	return strings.Split(html.UnescapeString(m[1]), "\n")
}

// checkDNSAIDRecords reads the records as a resolver's zone parser does
// (miekg/dns) and checks that each is a ServiceMode SVCB record under
// _agents.<host> with alpn and port, and that what they point at is
// there: the index, the AI catalog at the well-known suffix it names; the
// MCP server, its server card (cap) naming the MCP endpoint, with the
// protocol mcp in alpn and bap.
func checkDNSAIDRecords(t *testing.T, s *server, records []string) {
	t.Helper()
	host := strings.Split(strings.TrimPrefix(base, "http://"), ":")[0]
	found := map[string]bool{}
	for _, line := range records {
		rr, err := dns.NewRR(line)
		if err != nil {
			t.Fatalf("%q is not a record: %v", line, err)
		}
		svcb, ok := rr.(*dns.SVCB)
		if !ok || svcb.Priority == 0 || !strings.HasSuffix(svcb.Hdr.Name, "._agents."+host+".") || svcb.Target != host+"." {
			t.Fatalf("%q is not a ServiceMode SVCB record under _agents.%s for %s", line, host, host)
		}
		params := map[string]string{}
		for _, kv := range svcb.Value {
			params[kv.Key().String()] = kv.String()
		}
		if params["alpn"] == "" || params["port"] != strings.Split(base, ":")[2] || params["mandatory"] != "alpn,port" {
			t.Errorf("%q: alpn, port and mandatory %v", line, params)
		}
		label, _, _ := strings.Cut(svcb.Hdr.Name, ".")
		found[label] = true
		switch label {
		case "_index":
			catalog := s.get("/.well-known/" + params["key65409"]).json(t)
			if catalog["entries"] == nil {
				t.Errorf("%q: well-known %q is no AI catalog", line, params["key65409"])
			}
		case "_mcp":
			card, err := url.Parse(params["key65400"])
			if err != nil || params["alpn"] != "mcp" || params["key65402"] != "mcp" {
				t.Fatalf("%q: %v %v", line, params, err)
			}
			remotes, _ := s.get(card.Path).json(t)["remotes"].([]any)
			if len(remotes) == 0 || remotes[0].(map[string]any)["url"] != base+"/mcp" {
				t.Errorf("%q: the card at %s names %v", line, card, remotes)
			}
		}
	}
	if !found["_index"] || !found["_mcp"] {
		t.Errorf("records %v: want _index._agents and _mcp._agents", records)
	}
}

// TestMCPRegistryProof: with mcp_registry_key, /.well-known/mcp-registry-auth
// answers what the official MCP Registry's HTTP verification reads, as it
// reads it (no redirect followed, at most 4096 bytes, trimmed, matched by
// its pattern, the key standard base64), and proves the key: a timestamp
// signed with the private half verifies against it. It answers every
// client: agents the owner refuses everything else, and a client that has
// used up its quota.
func TestMCPRegistryProof(t *testing.T) {
	public, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key := base64.StdEncoding.EncodeToString(public)
	var refused []string
	for _, f := range agents.Families {
		refused = append(refused, f.Label)
	}
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		mcp_registry_key `+key+`
		refuse_agents `+strings.Join(refused, " ")+`
		rate_limit 5 60s
	}
	respond "next handler" 200
}
`)
	client := *s.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.Client = &client

	// The registry's reading (internal/api/handlers/v0/auth/http.go).
	r := s.get("/.well-known/mcp-registry-auth", "Accept", "text/plain", "User-Agent", "mcp-registry/1.0")
	s.validate(r)
	if len(r.body) > 4096 {
		t.Fatalf("%d bytes, over the registry's 4096", len(r.body))
	}
	m := regexp.MustCompile(`v=MCPv1;\s*k=([^;]+);\s*p=([A-Za-z0-9+/=]+)`).FindStringSubmatch(strings.TrimSpace(string(r.body)))
	if m == nil || m[1] != "ed25519" {
		t.Fatalf("the registry's pattern does not match %q", r.body)
	}
	proven, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil || len(proven) != ed25519.PublicKeySize {
		t.Fatalf("key %q: %d bytes, %v", m[2], len(proven), err)
	}
	timestamp := []byte(time.Now().UTC().Format(time.RFC3339))
	if !ed25519.Verify(proven, timestamp, ed25519.Sign(private, timestamp)) {
		t.Error("a timestamp signed with the private key does not verify against the served key")
	}

	// The quota used up, and every agent of the list refused.
	limited := false
	for range 10 {
		if s.get("/api/v1/health").StatusCode == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Fatal("the quota is not used up")
	}
	if r := s.get("/llms.txt", "User-Agent", agents.Families[0].Name+"/1.0"); r.StatusCode != http.StatusForbidden {
		t.Fatalf("%s is not refused: %d", agents.Families[0].Name, r.StatusCode)
	}
	want := "v=MCPv1; k=ed25519; p=" + key
	userAgents := []string{"mcp-registry/1.0", ""}
	for _, f := range agents.Families {
		userAgents = append(userAgents, "Mozilla/5.0 (compatible; "+f.Name+"/1.0)")
	}
	for _, ua := range userAgents {
		r := s.get("/.well-known/mcp-registry-auth", "Accept", "text/plain", "User-Agent", ua)
		mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.StatusCode != http.StatusOK || mediaType != "text/plain" || string(r.body) != want {
			t.Fatalf("User-Agent %q: %d %q %q, want 200 text/plain %q", ua, r.StatusCode, r.Header.Get("Content-Type"), r.body, want)
		}
	}
	if r := s.do(http.MethodHead, base+"/.well-known/mcp-registry-auth", nil, "User-Agent", agents.Families[0].Name); r.StatusCode != http.StatusOK || len(r.body) != 0 {
		t.Errorf("HEAD: %d %q", r.StatusCode, r.body)
	}

	// The portal shows this site's server.json and says the proof is served.
	portal := s.get("/developers.md", "User-Agent", "mcp-registry/1.0")
	if !strings.Contains(string(portal.body), "This site serves its proof at "+base+"/.well-known/mcp-registry-auth") {
		t.Errorf("the portal does not say the proof is served:\n%.3000s", portal.body)
	}
}

// TestMCPRegistryProofIsOffWithoutAKey: without mcp_registry_key the path
// is the site's.
func TestMCPRegistryProofIsOffWithoutAKey(t *testing.T) {
	s := startCaddy(t, sampleSite)
	if r := s.get("/.well-known/mcp-registry-auth"); r.StatusCode != http.StatusOK || string(r.body) != "next handler" {
		t.Errorf("%d %q, want the next handler's answer", r.StatusCode, r.body)
	}
}

// TestRegistryServerJSON: the server.json the portal gives is one the
// registry takes (schema 2025-12-11's required members and patterns, the
// remote's address in the namespace the domain proves) for this site's
// MCP endpoint, under a base URL with a real domain.
func TestRegistryServerJSON(t *testing.T) {
	s := startCaddy(t, `
http://localhost:9080 {
	discovery {
		base_url https://www.example.com
		rate_limit 1500 60s
	}
	respond "next handler" 200
}
`)
	page := string(s.get("/developers.md").body)
	m := regexp.MustCompile("(?s)```json\n(\\{\n  \"\\$schema\": \"https://static\\.modelcontextprotocol\\.io/schemas/[0-9-]+/server\\.schema\\.json\".*?\n\\})\n```").FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the portal gives no server.json:\n%.3000s", page)
	}
	var server struct {
		Schema                                        string `json:"$schema"`
		Name, Title, Description, Version, WebsiteURL string
		Remotes                                       []struct{ Type, URL string }
	}
	if err := json.Unmarshal([]byte(m[1]), &server); err != nil {
		t.Fatal(err)
	}
	health := s.get("/api/v1/health").json(t)
	namespace, name, _ := strings.Cut(server.Name, "/")
	if server.Schema != "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" ||
		!regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(server.Name) || len(server.Name) > 200 ||
		namespace != "com.example.www" || name == "" ||
		server.Description == "" || utf8.RuneCountInString(server.Description) > 100 || utf8.RuneCountInString(server.Title) > 100 ||
		server.Version != health["version"] || len(server.Remotes) != 1 ||
		server.Remotes[0].Type != "streamable-http" || server.Remotes[0].URL != "https://www.example.com/mcp" {
		t.Errorf("server.json %+v", server)
	}
	// The registry's rule: the remote's host is the namespace's domain.
	if u, err := url.Parse(server.Remotes[0].URL); err != nil || u.Hostname() != "www.example.com" {
		t.Errorf("the remote %s is not on www.example.com", server.Remotes[0].URL)
	}
	if card := s.get("/.well-known/mcp/server-card.json").json(t); card["name"] != server.Name {
		t.Errorf("server.json names %s, the server card %v", server.Name, card["name"])
	}
	for _, step := range []string{"mcp-publisher login http --domain www.example.com --private-key", "mcp-publisher publish", "mcp_registry_key"} {
		if !strings.Contains(page, step) {
			t.Errorf("the portal does not give the step %q", step)
		}
	}
	if !strings.Contains(page, "_index._agents.www.example.com. 3600 IN SVCB 1 www.example.com. mandatory=alpn,port alpn=\"h2,http/1.1\" port=443 ") {
		t.Errorf("no DNS-AID index record for www.example.com on port 443:\n%.3000s", page)
	}
}
