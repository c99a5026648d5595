package caddytest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
)

// Every test here uses its own rate_limit_key, hence its own zone: zones (and
// their counts) outlive a config reload by design, and all test requests come
// from 127.0.0.1. The key also holds the X-Client header, so that fetching
// the OpenAPI description for validation is counted apart.
func limitedSite(key, extra string) string {
	return fmt.Sprintf(`
http://localhost:9080 {
	discovery {
		content sample
		rate_limit_key "{http.vars.client_ip} %s {http.request.header.X-Client}"
		%s
	}
	respond "next handler" 200
}
`, key, extra)
}

var rateLimitField = regexp.MustCompile(`^"public";r=(\d+);t=(\d+)$`)

// rateLimit parses the RateLimit header.
func rateLimit(t *testing.T, r *response) (remaining, reset int) {
	t.Helper()
	m := rateLimitField.FindStringSubmatch(r.Header.Get("RateLimit"))
	if m == nil {
		t.Fatalf("%s %s: RateLimit %q", r.Request.Method, r.Request.URL.Path, r.Header.Get("RateLimit"))
	}
	remaining, _ = strconv.Atoi(m[1])
	reset, _ = strconv.Atoi(m[2])
	return remaining, reset
}

func TestRateLimitCountdownAndRefusal(t *testing.T) {
	s := startCaddy(t, limitedSite("countdown", ""))
	paths := []string{"/api/v1", "/api/v1/profile", "/api/v1/insights", "/openapi.json", "/api/v1/health"}
	for i := range 120 {
		path := paths[i%len(paths)]
		r := s.get(path)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("request %d (%s): status %d", i+1, path, r.StatusCode)
		}
		if got := r.Header.Get("RateLimit-Policy"); got != `"public";q=120;w=60` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
		remaining, reset := rateLimit(t, r)
		if remaining != 119-i || reset < 1 || reset > 60 {
			t.Fatalf("request %d: r=%d t=%d, want r=%d and 1 <= t <= 60", i+1, remaining, reset, 119-i)
		}
		if i%10 == 0 {
			s.validate(r)
		}
	}
	for _, path := range []string{"/api/v1/profile", "/openapi.json", "/llms.txt", "/.well-known/api-catalog", "/api/v1/nope", "/api/v1/insights/Bad"} {
		r := s.get(path)
		p := s.validateProblem(r, http.StatusTooManyRequests, "rate_limited")
		if path != "/api/v1/nope" {
			s.validate(r)
		}
		retryAfter, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || retryAfter < 1 || retryAfter > 60 {
			t.Fatalf("%s: Retry-After %q", path, r.Header.Get("Retry-After"))
		}
		if got, want := r.Header.Get("RateLimit"), fmt.Sprintf(`"public";r=0;t=%d`, retryAfter); got != want {
			t.Errorf("%s: RateLimit %q, want %q", path, got, want)
		}
		if r.Header.Get("RateLimit-Policy") != `"public";q=120;w=60` {
			t.Errorf("%s: RateLimit-Policy %q", path, r.Header.Get("RateLimit-Policy"))
		}
		if vp, _ := p["violated-policies"].([]any); len(vp) != 1 || vp[0] != "public" {
			t.Errorf("%s: violated-policies %v", path, p["violated-policies"])
		}
		if hint, _ := p["hint"].(string); !regexp.MustCompile(`Retry after \d+ seconds`).MatchString(hint) {
			t.Errorf("%s: hint %q does not say when to retry", path, hint)
		}
	}
	// Paths the module does not own are neither counted nor refused.
	if r := s.get("/about"); r.StatusCode != http.StatusOK || r.Header.Get("RateLimit") != "" {
		t.Errorf("/about: %d, RateLimit %q", r.StatusCode, r.Header.Get("RateLimit"))
	}
}

func TestRateLimitConcurrentClientGetsExactlyTheQuota(t *testing.T) {
	s := startCaddy(t, limitedSite("concurrent", ""))
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 200 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/profile", nil)
			resp, err := s.Client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[http.StatusOK] != 120 || statuses[http.StatusTooManyRequests] != 80 {
		t.Errorf("statuses %v, want 120 × 200 and 80 × 429", statuses)
	}
}

func TestRateLimitShortWindowReopens(t *testing.T) {
	s := startCaddy(t, limitedSite("short", "rate_limit 3 2s"))
	for i := range 3 {
		if r := s.get("/api/v1"); r.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, r.StatusCode)
		}
	}
	r := s.get("/api/v1")
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("RateLimit-Policy") != `"public";q=3;w=2` {
		t.Fatalf("4th request: %d, RateLimit-Policy %q", r.StatusCode, r.Header.Get("RateLimit-Policy"))
	}
	retryAfter, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	if retryAfter < 1 || retryAfter > 2 {
		t.Fatalf("Retry-After %d", retryAfter)
	}
	time.Sleep(time.Duration(retryAfter)*time.Second + 100*time.Millisecond)
	r = s.get("/api/v1")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("after Retry-After: %d", r.StatusCode)
	}
	if remaining, _ := rateLimit(t, r); remaining != 2 {
		t.Errorf("after the window: r=%d, want 2", remaining)
	}
}

func TestRateLimitSurvivesReload(t *testing.T) {
	s := startCaddy(t, limitedSite("reload", ""))
	for range 10 {
		s.get("/api/v1")
	}
	// A reload with another config for the same zone keeps the counts of
	// both caddy-ratelimit and the mirror.
	s = startCaddy(t, strings.Replace(limitedSite("reload", ""), "next handler", "the site, reloaded", 1))
	if r := s.get("/"); string(r.body) != "the site, reloaded" {
		t.Fatalf("the new config is not running: %q", r.body)
	}
	if remaining, _ := rateLimit(t, s.get("/api/v1")); remaining != 109 {
		t.Errorf("after reload: r=%d, want 109", remaining)
	}
	for range 109 {
		s.get("/api/v1/health")
	}
	if r := s.get("/api/v1"); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("request 121 across a reload: %d, want 429", r.StatusCode)
	}
}

func TestRateLimitIgnoresPathsItDoesNotOwn(t *testing.T) {
	s := startCaddy(t, limitedSite("unowned", ""))
	for range 150 {
		if r := s.get("/"); r.StatusCode != http.StatusOK {
			t.Fatalf("/: %d", r.StatusCode)
		}
	}
	if remaining, _ := rateLimit(t, s.get("/api/v1")); remaining != 119 {
		t.Errorf("r=%d after 150 requests to / , want 119", remaining)
	}
}

func TestRateLimitOff(t *testing.T) {
	s := startCaddy(t, limitedSite("off", "rate_limit off"))
	for i := range 150 {
		r := s.get("/api/v1/profile")
		if r.StatusCode != http.StatusOK || r.Header.Get("RateLimit") != "" || r.Header.Get("RateLimit-Policy") != "" {
			t.Fatalf("request %d: %d, RateLimit %q, RateLimit-Policy %q", i+1, r.StatusCode, r.Header.Get("RateLimit"), r.Header.Get("RateLimit-Policy"))
		}
		if i == 0 {
			s.validate(r)
		}
	}
	if index := s.get("/api/v1").json(t); index["rateLimit"] != "No rate limit is enforced by this deployment." {
		t.Errorf("rateLimit summary %v", index["rateLimit"])
	}
	// The description promises no 429 the deployment cannot send.
	var doc struct {
		Paths      map[string]map[string]struct{ Responses map[string]any }
		Components struct{ Responses, Headers map[string]any }
	}
	if err := json.Unmarshal(s.get("/openapi.json").body, &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if _, ok := op.Responses["429"]; ok {
				t.Errorf("openapi.json declares a 429 for %s %s", method, path)
			}
		}
	}
	for _, name := range []string{"TooManyRequests"} {
		if _, ok := doc.Components.Responses[name]; ok {
			t.Errorf("openapi.json has the component response %s", name)
		}
	}
	if _, ok := doc.Components.Headers["RateLimit"]; ok {
		t.Error("openapi.json describes the RateLimit header")
	}
}

func TestRateLimitRaisedQuota(t *testing.T) {
	s := startCaddy(t, limitedSite("raised", "rate_limit 1000 60s"))
	for i := range 300 {
		r := s.get("/api/v1/insights")
		if r.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, r.StatusCode)
		}
		if remaining, _ := rateLimit(t, r); remaining != 999-i {
			t.Fatalf("request %d: r=%d", i+1, remaining)
		}
	}
	if p := s.get("/api/v1").Header.Get("RateLimit-Policy"); p != `"public";q=1000;w=60` {
		t.Errorf("RateLimit-Policy %q", p)
	}
}

// proxiedGlobals trust the private ranges (loopback included) as proxies,
// strictly: the client is the rightmost address in X-Forwarded-For that is
// not a trusted proxy.
var proxiedGlobals = strings.Replace(globalOptions, "\tskip_install_trust\n", `	skip_install_trust
	servers {
		trusted_proxies static private_ranges
		trusted_proxies_strict
	}
`, 1)

// startProxied runs the module, with the default key unless discovery
// says otherwise, behind the trusted loopback proxy.
func startProxied(t *testing.T, discovery string) *server {
	t.Helper()
	tester := caddytest.NewTester(t)
	tester.InitServer(proxiedGlobals+`
http://localhost:9080 {
	discovery {
		`+withSample(discovery)+`
	}
}
`, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	return &server{Tester: tester, t: t}
}

// randomSlash64 returns the first four groups of a /64 of the documentation
// range, drawn at random, so that the counts of an earlier run in the same
// process (zones outlive a reload) cannot interfere.
func randomSlash64() (prefix string, group3, group4 uint16) {
	group3, group4 = uint16(rand.Uint32()), uint16(rand.Uint32())
	return fmt.Sprintf("2001:db8:%x:%x", group3, group4), group3, group4
}

// getFrom sends GET path as a request the proxy forwards for client.
func (s *server) getFrom(path, client string) *response {
	s.t.Helper()
	return s.get(path, "X-Forwarded-For", client)
}

// useQuota sends the 120 requests of the default quota from the addresses
// addr(0) … addr(119), which must all share one quota.
func useQuota(t *testing.T, s *server, addr func(i int) string) {
	t.Helper()
	for i := range 120 {
		r := s.getFrom("/api/v1/health", addr(i))
		if r.StatusCode != http.StatusOK {
			t.Fatalf("request %d from %s: %d", i+1, addr(i), r.StatusCode)
		}
		if remaining, _ := rateLimit(t, r); remaining != 119-i {
			t.Fatalf("request %d from %s: r=%d, want %d: the addresses do not share one quota", i+1, addr(i), remaining, 119-i)
		}
	}
}

// TestRateLimitIPv6SharesThePrefix: by default every address of one IPv6
// /64 counts against one quota of 120, as one host can use all of them; an
// address of another /64 has its own, and IPv4 addresses stay apart.
func TestRateLimitIPv6SharesThePrefix(t *testing.T) {
	s := startProxied(t, "")
	p, g3, g4 := randomSlash64()
	useQuota(t, s, func(i int) string { return fmt.Sprintf("%s:%x:%x::%x", p, rand.Uint32()&0xffff, i, i+1) })
	for _, addr := range []string{p + "::1", p + ":ffff:ffff:ffff:ffff", p + "::dead:beef", "[" + p + "::2]:4711"} {
		s.validateProblem(s.getFrom("/api/v1/health", addr), http.StatusTooManyRequests, "rate_limited")
	}
	neighbour := fmt.Sprintf("2001:db8:%x:%x::1", g3, g4+1)
	r := s.getFrom("/api/v1/health", neighbour)
	if remaining, _ := rateLimit(t, r); r.StatusCode != http.StatusOK || remaining != 119 {
		t.Errorf("%s, in the next /64: %d, r=%d, want 200 with a quota of its own", neighbour, r.StatusCode, remaining)
	}

	// IPv4 addresses are counted one by one (240.0.0.0/4 is reserved,
	// outside the trusted ranges).
	v4 := rand.Uint32()&0x0ffffffe | 0xf0000000
	ipv4 := func(n uint32) string { return fmt.Sprintf("%d.%d.%d.%d", n>>24, n>>16&255, n>>8&255, n&255) }
	useQuota(t, s, func(int) string { return ipv4(v4) })
	s.validateProblem(s.getFrom("/api/v1/health", ipv4(v4)), http.StatusTooManyRequests, "rate_limited")
	if r := s.getFrom("/api/v1/health", ipv4(v4+1)); r.StatusCode != http.StatusOK {
		t.Errorf("%s, the next IPv4 address: %d, want 200", ipv4(v4+1), r.StatusCode)
	}
}

// TestRateLimitIPv6PrefixPerAddress: ipv6_prefix 128 gives each IPv6
// address its own quota.
func TestRateLimitIPv6PrefixPerAddress(t *testing.T) {
	s := startProxied(t, "ipv6_prefix 128")
	p, _, _ := randomSlash64()
	useQuota(t, s, func(int) string { return p + "::1" })
	s.validateProblem(s.getFrom("/api/v1/health", p+"::1"), http.StatusTooManyRequests, "rate_limited")
	r := s.getFrom("/api/v1/health", p+"::2")
	if remaining, _ := rateLimit(t, r); r.StatusCode != http.StatusOK || remaining != 119 {
		t.Errorf("%s::2, in the same /64: %d, r=%d, want 200 with a quota of its own", p, r.StatusCode, remaining)
	}
}

// TestRateLimitRefusalsDoNotFloodTheLog: a client hammering past its quota
// gets one INFO line a window, naming the zone and the client, instead of
// one per refusal (caddy-ratelimit's ~200 bytes each: 400 KB here).
func TestRateLimitRefusalsDoNotFloodTheLog(t *testing.T) {
	p := startProcess(t, "limited", "http://localhost:9191", processCaddyfile(9191, t.TempDir(), "rate_limit 20 60s"))
	// The quota, less what the start-up probes used.
	for i := 0; p.get(t, "/api/v1", "") == http.StatusOK; i++ {
		if i == 20 {
			t.Fatal("more than 20 requests allowed")
		}
	}
	for i := range 2000 {
		if status := p.get(t, "/api/v1", ""); status != http.StatusTooManyRequests {
			t.Fatalf("refusal %d: %d", i+1, status)
		}
	}
	log := p.stop()
	var refusals []string
	for line := range strings.Lines(log) {
		if strings.Contains(line, "rate limit") {
			refusals = append(refusals, line)
		}
	}
	t.Logf("after 2 001 refusals the log holds %d bytes, %d lines about rate limits", len(log), len(refusals))
	if len(refusals) != 1 || len(log) > 16<<10 {
		t.Fatalf("%d lines about rate limits, log of %d bytes; want 1 line, a few KB:\n%s", len(refusals), len(log), log)
	}
	for _, want := range []string{`"level":"info"`, `"msg":"rate limit exceeded"`, `"zone":"discovery 20/1m0s {http.vars.discovery_client} ipv6/64 site localhost"`, `"key":"127.0.0.1"`, `"suppressed":0`} {
		if !strings.Contains(refusals[0], want) {
			t.Errorf("the refusal line lacks %s: %s", want, refusals[0])
		}
	}
}

// TestDistributedRefusalsDoNotFloodTheLog: a client refused by instance B
// for the requests it made on A (which B's mirror cannot see) is refused
// by caddy-ratelimit once and then held for the Retry-After it was given,
// so the burst logs one line, not one per refusal.
func TestDistributedRefusalsDoNotFloodTheLog(t *testing.T) {
	storage := t.TempDir()
	const discovery = `rate_limit 20 60s
		rate_limit_key "{http.vars.client_ip} {http.request.header.X-Client}"
		distributed 100ms 100ms`
	a := startProcess(t, "instance A", "http://localhost:9192", processCaddyfile(9192, storage, discovery))
	b := startProcess(t, "instance B", "http://localhost:9193", processCaddyfile(9193, storage, discovery))
	for i := range 20 {
		if status := a.get(t, "/api/v1", "hammer"); status != http.StatusOK {
			t.Fatalf("A, request %d: %d", i+1, status)
		}
	}
	time.Sleep(time.Second) // well over a write plus a read interval
	for i := range 1000 {
		if status := b.get(t, "/api/v1", "hammer"); status != http.StatusTooManyRequests {
			t.Fatalf("B, refusal %d: %d", i+1, status)
		}
	}
	log := b.stop()
	n := strings.Count(log, "rate limit exceeded")
	t.Logf("B refused 1 000 requests and logged %d bytes, %d refusal lines", len(log), n)
	if n != 1 {
		t.Errorf("%d refusal lines, want 1:\n%s", n, log)
	}
}
