package caddytest

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDistributedRateLimitConverges runs two Caddy processes that share
// file-system storage in distributed mode, each with its own data directory
// (an instance ID of its own: with a shared one both write one state file
// and the limit doubles).
func TestDistributedRateLimitConverges(t *testing.T) {
	storage := t.TempDir()
	const discovery = `rate_limit 20 60s
		rate_limit_key "{http.vars.client_ip} {http.request.header.X-Client}"
		distributed 100ms 100ms`
	a := startProcess(t, "instance A", "http://localhost:9181", processCaddyfile(9181, storage, discovery))
	b := startProcess(t, "instance B", "http://localhost:9182", processCaddyfile(9182, storage, discovery))
	const sync = time.Second // well over a write plus a read interval

	// One client uses its whole quota on A; once the state has synced, B
	// refuses it too.
	for i := range 20 {
		if status := a.get(t, "/api/v1", "sequential"); status != http.StatusOK {
			t.Fatalf("A, request %d: %d", i+1, status)
		}
	}
	time.Sleep(sync)
	for i := range 5 {
		if status := b.get(t, "/api/v1", "sequential"); status != http.StatusTooManyRequests {
			t.Errorf("B after sync, request %d: %d, want 429", i+1, status)
		}
	}

	// A burst spread over both before any sync is the documented slack: each
	// instance allows up to the quota on its own.
	allowed := 0
	for i := range 60 {
		p := a
		if i%2 == 1 {
			p = b
		}
		if p.get(t, "/api/v1", "burst") == http.StatusOK {
			allowed++
		}
	}
	t.Logf("burst of 60 alternating requests before a sync: %d allowed (quota 20, two instances)", allowed)
	if allowed < 20 || allowed > 40 {
		t.Errorf("burst: %d allowed, want between the quota (20) and twice it (40)", allowed)
	}
	time.Sleep(sync)
	for _, p := range []*process{a, b} {
		if status := p.get(t, "/api/v1", "burst"); status != http.StatusTooManyRequests {
			t.Errorf("%s after sync: %d, want 429", p.url, status)
		}
	}
}

// TestDistributedFirstStartLogsNoError starts a cluster on empty storage.
// caddy-ratelimit's reader lists the instances' folder, which does not exist
// until some instance writes: the module seeds its instance's empty state at
// start, so the first read finds a folder. Instance A never writes in the
// test (its write interval is an hour), so B reads A's seed again and again:
// it must decode as an empty state, not a corrupted one.
func TestDistributedFirstStartLogsNoError(t *testing.T) {
	storage := t.TempDir()
	a := startProcess(t, "instance A", "http://localhost:9183", processCaddyfile(9183, storage, "distributed 50ms 1h"))
	b := startProcess(t, "instance B", "http://localhost:9184", processCaddyfile(9184, storage, "distributed 50ms 50ms"))
	for i := range 3 {
		if status := b.get(t, "/api/v1", "client"); status != http.StatusOK {
			t.Fatalf("B, request %d: %d", i+1, status)
		}
	}
	time.Sleep(500 * time.Millisecond) // ten reads by each
	for _, p := range []*process{a, b} {
		log := p.stop()
		for _, line := range strings.Split(log, "\n") {
			switch {
			case !strings.Contains(line, `"level":"error"`):
			case tempStateFile.MatchString(line):
				// caddy-ratelimit read another instance's write in progress
				// (see tempStateFile): its own race, not the first start's.
				t.Logf("%s: %s", p.url, line)
			default:
				t.Errorf("%s logged an error: %s", p.url, line)
			}
		}
	}
}

// tempStateFile matches caddy-ratelimit's error about a file it listed in
// the instances' folder that is no instance's state but the temporary file
// of a write in progress: the file storage writes a new file under a
// random numeric name and renames it into place, and caddy-ratelimit v0.1.0
// reads every file of the folder. Distributed mode in docs/production.md
// says so.
var tempStateFile = regexp.MustCompile(`"key":"rate_limit/instances/[0-9]+"`)
