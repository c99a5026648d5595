package caddytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Scale-out, measured: three Caddy processes share one file-system storage
// (as instances share a mount), each with its own data directory and so its
// own instance ID, and the test spreads its requests over them as a
// round-robin load balancer would.

// clusterBase is the address the instances publish, as they would behind a
// load balancer: every instance names the same issuer and resource. Nothing
// listens on it.
const clusterBase = "http://localhost:9250"

// clusterQuota is the cluster's rate limit per client, in requests a minute.
const clusterQuota = 120

// cluster is the three instances and the round-robin over them.
type cluster struct {
	instances []*process
	turn      atomic.Uint64
}

// startCluster starts the three instances in distributed mode with
// one-second sync intervals. Each client of the tests is told apart by its
// X-Client header, so each has a quota of its own.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	storage := t.TempDir()
	discovery := fmt.Sprintf(`base_url %s
		rate_limit %d 60s
		rate_limit_key "{http.vars.client_ip} {http.request.header.X-Client}"
		distributed 1s 1s`, clusterBase, clusterQuota)
	c := &cluster{}
	for i, port := range []int{9251, 9252, 9253} {
		url := fmt.Sprintf("http://localhost:%d", port)
		c.instances = append(c.instances, startProcess(t, fmt.Sprintf("instance %c", 'A'+i), url, processCaddyfile(port, storage, discovery)))
	}
	return c
}

// next is the instance the round-robin sends the next request to.
func (c *cluster) next() *process {
	return c.instances[(c.turn.Add(1)-1)%uint64(len(c.instances))]
}

func TestClusterOfThree(t *testing.T) {
	c := startCluster(t)
	t.Run("tokens", c.testTokens)
	t.Run("registered clients", c.testRegisteredClients)
	t.Run("codes", c.testCodes)
	t.Run("sticky client", c.testStickyClient)
	t.Run("burst", c.testBurst)
}

// testTokens: a token issued by any instance, by either grant, is accepted
// by all three, and a token altered by one character by none.
func (c *cluster) testTokens(t *testing.T) {
	const client = "tokens"
	var tokens []string
	for _, p := range c.instances {
		for _, issue := range []struct{ path, contentType, body string }{
			{"/agent/register", "", ""},
			{"/oauth/token", formType, "grant_type=client_credentials"},
		} {
			resp, body, err := p.send(http.MethodPost, issue.path, client, strings.NewReader(issue.body), "Content-Type", issue.contentType)
			if err != nil {
				t.Fatal(err)
			}
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			if err := json.Unmarshal(body, &tok); err != nil || resp.StatusCode != http.StatusOK || tok.AccessToken == "" {
				t.Fatalf("%s%s: %d %s", p.url, issue.path, resp.StatusCode, body)
			}
			tokens = append(tokens, tok.AccessToken)
		}
	}
	for i, tok := range tokens {
		// One character in the middle, so no padding bit hides the change.
		mid := len(tok) / 2
		swap := "A"
		if tok[mid] == 'A' {
			swap = "B"
		}
		forged := tok[:mid] + swap + tok[mid+1:]
		for _, p := range c.instances {
			if status := c.bearer(t, p, client, tok); status != http.StatusOK {
				t.Errorf("token %d (from %s) at %s: %d, want 200", i, c.instances[i/2].url, p.url, status)
			}
			if status := c.bearer(t, p, client, forged); status != http.StatusUnauthorized {
				t.Errorf("token %d altered, at %s: %d, want 401", i, p.url, status)
			}
		}
	}
}

// bearer sends GET /api/v1/profile with tok and returns the status.
func (c *cluster) bearer(t *testing.T, p *process, client, tok string) int {
	t.Helper()
	resp, _, err := p.send(http.MethodGet, "/api/v1/profile", client, nil, "Authorization", "Bearer "+tok)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// register registers a client with the loopback redirect URI at p and
// returns its id.
func (c *cluster) register(t *testing.T, p *process, client string) string {
	t.Helper()
	resp, body, err := p.send(http.MethodPost, "/oauth/register", client,
		strings.NewReader(`{"redirect_uris":["`+loopbackRedirect+`"],"client_name":"cluster test"}`), "Content-Type", "application/json")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(body, &info); err != nil || resp.StatusCode != http.StatusCreated || info.ClientID == "" {
		t.Fatalf("registration at %s: %d %s", p.url, resp.StatusCode, body)
	}
	return info.ClientID
}

// authorize asks p for a code for clientID and returns the code and the
// token request that redeems it.
func (c *cluster) authorize(t *testing.T, p *process, client, clientID string) (code, form string) {
	t.Helper()
	verifier, challenge := newPKCE()
	query := authorizationQuery(clientID, loopbackRedirect, challenge)
	query.Set("resource", clusterBase) // the whole site: its token is good at /api too
	resp, _, err := p.send(http.MethodGet, "/oauth/authorize?"+query.Encode(), client, nil)
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc == nil || loc.Query().Get("code") == "" || loc.Query().Get("iss") != clusterBase {
		t.Fatalf("authorization at %s: %d to %q", p.url, resp.StatusCode, resp.Header.Get("Location"))
	}
	code = loc.Query().Get("code")
	return code, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"client_id": {clientID}, "redirect_uri": {loopbackRedirect}, "resource": {clusterBase}}.Encode()
}

// redeem posts form to p's token endpoint and returns the status, the
// OAuth error if any, and the access token if any.
func redeem(p *process, client, form string) (status int, oauthError, accessToken string, err error) {
	resp, body, err := p.send(http.MethodPost, "/oauth/token", client, strings.NewReader(form), "Content-Type", formType)
	if err != nil {
		return 0, "", "", err
	}
	var answer struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(body, &answer)
	if answer.Description != "" {
		answer.Error += ": " + answer.Description
	}
	return resp.StatusCode, answer.Error, answer.AccessToken, nil
}

// testRegisteredClients: a client registered on one instance is authorized
// by the next and gets its token from the third, which all three accept.
func (c *cluster) testRegisteredClients(t *testing.T) {
	const client = "registered clients"
	n := len(c.instances)
	for i, at := range c.instances {
		clientID := c.register(t, at, client)
		_, form := c.authorize(t, c.instances[(i+1)%n], client, clientID)
		status, oauthError, tok, err := redeem(c.instances[(i+2)%n], client, form)
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusOK || tok == "" {
			t.Fatalf("client registered at %s, code from %s, redeemed at %s: %d %s", at.url, c.instances[(i+1)%n].url, c.instances[(i+2)%n].url, status, oauthError)
		}
		for _, p := range c.instances {
			if status := c.bearer(t, p, client, tok); status != http.StatusOK {
				t.Errorf("the token of the client registered at %s, at %s: %d", at.url, p.url, status)
			}
		}
	}
}

// testCodes: each round, one code is redeemed by six concurrent requests
// spread over the three instances, released together: exactly one gets a
// token, the others invalid_grant, and so does every later attempt.
func (c *cluster) testCodes(t *testing.T) {
	const client, rounds, redeemers = "codes", 5, 6
	clientID := c.register(t, c.instances[0], client)
	for round := range rounds {
		_, form := c.authorize(t, c.instances[round%len(c.instances)], client, clientID)
		type result struct {
			status          int
			oauthError, tok string
			err             error
		}
		results := make([]result, redeemers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range results {
			p := c.instances[(round+i)%len(c.instances)]
			wg.Go(func() {
				<-start
				var r result
				r.status, r.oauthError, r.tok, r.err = redeem(p, client, form)
				results[i] = r
			})
		}
		close(start)
		wg.Wait()
		var tokens []string
		for i, r := range results {
			switch {
			case r.err != nil:
				t.Fatal(r.err)
			case r.status == http.StatusOK && r.tok != "":
				tokens = append(tokens, r.tok)
			case r.status != http.StatusBadRequest || !strings.HasPrefix(r.oauthError, "invalid_grant: "):
				t.Errorf("round %d, redeemer %d: %d %q, want 200 or 400 invalid_grant", round, i, r.status, r.oauthError)
			}
		}
		if len(tokens) != 1 {
			t.Fatalf("round %d: %d of %d concurrent redemptions on three instances got a token, want exactly 1", round, len(tokens), redeemers)
		}
		for _, p := range c.instances {
			if status, oauthError, _, err := redeem(p, client, form); err != nil || status != http.StatusBadRequest || !strings.HasPrefix(oauthError, "invalid_grant: ") {
				t.Errorf("round %d: a later redemption at %s: %d %q %v", round, p.url, status, oauthError, err)
			}
			if status := c.bearer(t, p, client, tokens[0]); status != http.StatusOK {
				t.Errorf("round %d: the token at %s: %d", round, p.url, status)
			}
		}
	}
}

// burst sends n requests of client as fast as workers concurrent senders
// can, each to the instance pick names, and returns how many were allowed
// and how long the burst took.
func burst(t *testing.T, pick func() *process, client string, n, workers int) (allowed int, took time.Duration) {
	t.Helper()
	var ok, sent atomic.Int64
	errs := make(chan error, workers)
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for sent.Add(1) <= int64(n) {
				resp, _, err := pick().send(http.MethodGet, "/api/v1", client, nil)
				if err != nil {
					errs <- err
					return
				}
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
				default:
					errs <- fmt.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return int(ok.Load()), time.Since(start)
}

// clusterSync is well over a write and a read interval (one second each).
const clusterSync = 3 * time.Second

// testStickyClient: a client that a sticky load balancer keeps on one
// instance gets its whole quota there, soon, and not a request more. A
// request that waited in vain for its share to refill (on a machine too
// loaded for the instances to sync in time) is refused with a Retry-After
// of a second: the client asks again after it, as a client should.
func (c *cluster) testStickyClient(t *testing.T) {
	a := c.instances[0]
	one := func() *process { return a }
	start := time.Now()
	allowed, _ := burst(t, one, "sticky", clusterQuota+60, 8)
	first := allowed
	for try := 0; allowed < clusterQuota && try < 3; try++ {
		time.Sleep(time.Second)
		more, _ := burst(t, one, "sticky", clusterQuota-allowed, 4)
		allowed += more
	}
	took := time.Since(start)
	t.Logf("sticky client: %d of %d requests allowed on one instance at once, %d in all, in %v (quota %d)",
		first, clusterQuota+60, allowed, took.Round(time.Millisecond), clusterQuota)
	if allowed != clusterQuota {
		t.Errorf("sticky client: %d allowed, want the quota, %d", allowed, clusterQuota)
	}
	if took > 15*time.Second {
		t.Errorf("sticky client: its quota took %v, want well under 15s", took)
	}
}

// testBurst: a burst of three times the quota from one client, spread over
// the three instances by the round-robin as fast as the client can send,
// gets at most one and a half times the quota through (measured: the quota
// exactly; 3× without the share); once the instances have synced, all
// three refuse the client.
func (c *cluster) testBurst(t *testing.T) {
	const n = 3 * clusterQuota
	for round := range 3 {
		client := fmt.Sprintf("burst %d", round)
		allowed, took := burst(t, c.next, client, n, 12)
		t.Logf("burst %d: %d of %d round-robin requests allowed (%.2f× the quota of %d), in %v",
			round, allowed, n, float64(allowed)/clusterQuota, clusterQuota, took.Round(time.Millisecond))
		// At least three quarters of the quota: requests that wait in vain
		// for a refill on a loaded machine are refused for a second.
		if allowed < clusterQuota*3/4 || allowed > clusterQuota*3/2 {
			t.Errorf("burst %d: %d allowed, want at most 1.5× the quota (%d) and at least three quarters of it", round, allowed, clusterQuota*3/2)
		}
		time.Sleep(clusterSync)
		for _, p := range c.instances {
			if status := p.get(t, "/api/v1", client); status != http.StatusTooManyRequests {
				t.Errorf("burst %d: %s after a sync: %d, want 429", round, p.url, status)
			}
		}
	}
}
