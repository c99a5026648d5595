package caddytest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
)

// reloadGlobals are the global options of the reload test: a real grace
// period, so that a reload lets requests in flight finish.
var reloadGlobals = strings.Replace(globalOptions, "grace_period 1ns", "grace_period 5s", 1)

// loadConfig posts a Caddyfile to the admin API, as `caddy reload` does, and
// returns the status and the answer.
func loadConfig(t *testing.T, caddyfile string) (int, string) {
	t.Helper()
	resp, err := http.Post("http://localhost:2999/load", "text/caddyfile", strings.NewReader(caddyfile))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestReloadUnderLoad reloads the config five times while clients keep
// requesting with a bearer token: no request fails, the token stays valid
// and the rate-limit count carries on. The load is spread over loadKeys
// rate-limit keys, each well within the quota, and each key's count is
// checked.
func TestReloadUnderLoad(t *testing.T) {
	site := func(text string) string {
		return reloadGlobals + `
http://localhost:9080 {
	discovery {
		content sample
		rate_limit 1500 60s
		rate_limit_key "{http.vars.client_ip} {http.request.header.X-Client}"
	}
	respond "` + text + `" 200
}
`
	}
	tester := caddytest.NewTester(t)
	tester.InitServer(site("config 0"), "caddyfile")
	s := &server{Tester: tester, t: t}
	token := s.register()

	// Caddy closes some idle connections at each reload, with or without
	// the module; a real client retries such a request once on a new
	// connection. A request that fails twice, or any status but 200, fails
	// the test.
	const loadKeys = 32
	var ok, failed, retried, sent atomic.Int64
	var okBy, retriedBy [loadKeys]atomic.Int64
	var failures sync.Map
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second}
			for ctx.Err() == nil {
				req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/profile", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				key := int(sent.Add(1) % loadKeys)
				req.Header.Set("X-Client", "load-"+strconv.Itoa(key))
				resp, err := client.Do(req)
				if err != nil && ctx.Err() == nil {
					retried.Add(1)
					retriedBy[key].Add(1)
					resp, err = client.Do(req.Clone(context.Background()))
				}
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
						failures.Store(err.Error(), true)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
					okBy[key].Add(1)
				} else {
					failed.Add(1)
					failures.Store(fmt.Sprint("status ", resp.StatusCode), true)
				}
			}
		})
	}
	for i := 1; i <= 5; i++ {
		time.Sleep(300 * time.Millisecond)
		if status, body := loadConfig(t, site(fmt.Sprintf("config %d", i))); status != http.StatusOK {
			t.Fatalf("reload %d: %d %s", i, status, body)
		}
	}
	time.Sleep(300 * time.Millisecond)
	stop()
	wg.Wait()

	if r := s.get("/"); string(r.body) != "config 5" {
		t.Errorf("the last config is not running: %q", r.body)
	}
	t.Logf("%d requests succeeded across 5 reloads (%d after one retry), %d failed", ok.Load(), retried.Load(), failed.Load())
	if failed.Load() > 0 {
		failures.Range(func(k, _ any) bool { t.Errorf("failure: %v", k); return true })
	}
	if ok.Load() < 100 {
		t.Errorf("only %d requests were made", ok.Load())
	}
	for key := range loadKeys {
		remaining, _ := rateLimit(t, s.get("/api/v1", "X-Client", "load-"+strconv.Itoa(key), "Authorization", "Bearer "+token))
		// A dropped first attempt may or may not have been counted.
		if want := 1500 - int(okBy[key].Load()) - 1; remaining > want || remaining < want-int(retriedBy[key].Load()) {
			t.Errorf("key %d after the reloads r=%d, want %d (less at most %d retried): the count did not survive", key, remaining, want, retriedBy[key].Load())
		}
	}
}

// TestBrokenReloadKeepsServing tries to reload with a broken profile: the
// reload is refused and the old content keeps serving. (A broken post is
// no reason to refuse: it is skipped, see TestBrokenPostsAreSkipped.)
func TestBrokenReloadKeepsServing(t *testing.T) {
	good, broken := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(good, "profile.yaml"), minimalProfile)
	writeFile(t, filepath.Join(broken, "profile.yaml"), strings.Replace(minimalProfile, "ada@example.com", "nobody", 1))
	site := func(dir string) string {
		return `
http://localhost:9080 {
	discovery {
		content ` + dir + `
	}
}
`
	}
	s := startCaddy(t, site(good))
	status, body := loadConfig(t, globalOptions+site(broken))
	if status == http.StatusOK || !strings.Contains(body, "profile.yaml:11: contact.email") {
		t.Fatalf("the broken reload: %d %s", status, body)
	}
	if p := s.get("/api/v1/profile"); p.StatusCode != http.StatusOK || p.json(t)["name"] != "Ada Example" {
		t.Errorf("after the refused reload: %d %s", p.StatusCode, p.body)
	}
}

// TestMixedLoad drives every endpoint (MCP and tokens included) for a
// minute: no 5xx, and no goroutines or memory left behind afterwards.
func TestMixedLoad(t *testing.T) {
	s := startCaddy(t, sampleSite)
	token := s.register()
	idle := func() (goroutines int, heap uint64) {
		s.Client.CloseIdleConnections()
		http.DefaultClient.CloseIdleConnections()
		time.Sleep(500 * time.Millisecond)
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return runtime.NumGoroutine(), m.HeapInuse
	}
	// Warm every path once, so that first-use allocations are not counted.
	requests := []func() *http.Request{
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/api/v1", nil); return r },
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/api/v1/health", nil); return r },
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/api/v1/profile", nil); return r },
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/api/v1/insights", nil); return r },
		func() *http.Request {
			r, _ := http.NewRequest("GET", base+"/api/v1/insights/the-case-for-a-boring-data-platform", nil)
			r.Header.Set("Authorization", "Bearer "+token)
			return r
		},
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/api/v1/insights/nope", nil); return r },
		func() *http.Request {
			r, _ := http.NewRequest("GET", base+"/llms-full.txt", nil)
			r.Header.Set("Accept-Encoding", "gzip")
			return r
		},
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/developers", nil); return r },
		func() *http.Request { r, _ := http.NewRequest("GET", base+"/openapi.json", nil); return r },
		func() *http.Request { r, _ := http.NewRequest("POST", base+"/agent/register", nil); return r },
		func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/oauth/token", strings.NewReader("grant_type=client_credentials"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		},
		func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts"}}}`))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("MCP-Protocol-Version", "2025-06-18")
			return r
		},
		func() *http.Request { r, _ := http.NewRequest("DELETE", base+"/api/v1", nil); return r },
	}
	do := func(client *http.Client, req *http.Request) (int, error) {
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for _, mk := range requests {
		if _, err := do(s.Client, mk()); err != nil {
			t.Fatal(err)
		}
	}
	goroutinesBefore, heapBefore := idle()

	duration := 60 * time.Second
	deadline := time.Now().Add(duration)
	var total, serverErrors, transportErrors atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; time.Now().Before(deadline); i++ {
				status, err := do(s.Client, requests[i%len(requests)]())
				total.Add(1)
				switch {
				case err != nil:
					transportErrors.Add(1)
				case status >= 500:
					serverErrors.Add(1)
				}
			}
		})
	}
	wg.Wait()
	goroutinesAfter, heapAfter := idle()
	t.Logf("%d requests in %s: %d 5xx, %d transport errors; goroutines %d -> %d; heap in use %.1f -> %.1f MiB",
		total.Load(), duration, serverErrors.Load(), transportErrors.Load(), goroutinesBefore, goroutinesAfter,
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20))
	if serverErrors.Load() > 0 || transportErrors.Load() > 0 {
		t.Errorf("%d 5xx and %d transport errors", serverErrors.Load(), transportErrors.Load())
	}
	if goroutinesAfter > goroutinesBefore+10 {
		t.Errorf("goroutines grew from %d to %d", goroutinesBefore, goroutinesAfter)
	}
	// The rate-limit state of one client is bounded by the quota; the rest
	// must be garbage.
	if heapAfter > heapBefore+32<<20 {
		t.Errorf("heap in use grew from %.1f to %.1f MiB", float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20))
	}
}
