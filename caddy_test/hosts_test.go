package caddytest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// largeContent writes a content directory of n insights, each the body of
// a sample insight, and returns it.
func largeContent(t *testing.T, n int) string {
	t.Helper()
	sample, err := content.Sample()
	if err != nil {
		t.Fatal(err)
	}
	dir := copySample(t)
	for i := range n {
		src := sample.Insights[i%len(sample.Insights)]
		day := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly) // all in the past
		post := fmt.Sprintf("---\ntitle: %q\ndescription: %q\ndate: %s\ntopic: %q\n---\n%s",
			fmt.Sprintf("%s (%d)", src.Title, i), src.Description, day, src.Topic, src.Body)
		if err := os.WriteFile(filepath.Join(dir, "insights", fmt.Sprintf("post-%05d.md", i)), []byte(post), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// kibStatus reads a "VmRSS:"-style field of /proc/<pid>/status, in KiB.
func kibStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return kib
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestDistinctHostsAreBounded is the Host attack on a site of 2 000
// insights without base_url, where every Host names a base URL of its own:
// 1 200 requests (300 under the race detector), each with a Host never seen
// before (200 characters, close to the longest allowed) and asking for a
// large document, from 8 connections at once, while another client reads
// the profile. The documents of an unseen Host are rendered one at a time
// as asked for and kept in a cache bounded in bytes, so the live heap grows
// by tens of MB, not GB, and the other client is still answered promptly.
func TestDistinctHostsAreBounded(t *testing.T) {
	dir := largeContent(t, 2000)
	const url = "http://localhost:9186"
	// The site answers every Host, as a site block of a port only does.
	// The admin endpoint serves the runtime's memory statistics.
	caddyfile := strings.NewReplacer("http://localhost:9186 {", "http://:9186 {", "admin off", "admin localhost:9187").
		Replace(processCaddyfile(9186, t.TempDir(), "content "+dir+"\n\t\trate_limit off"))
	p := startProcess(t, "Caddy", url, caddyfile)
	pid := p.cmd.Process.Pid
	client := &http.Client{Timeout: time.Minute}
	var received atomic.Int64
	fetch := func(host, path string) (int, error) {
		req, _ := http.NewRequest(http.MethodGet, url+path, nil)
		req.Host = host
		req.Header.Set("Accept-Encoding", "gzip, zstd")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		received.Add(n)
		if err == nil && n == 0 {
			err = errors.New("empty body")
		}
		return resp.StatusCode, err
	}
	// The warm-up also pays the one-time costs, such as the zstd encoder's
	// history, sized to the largest document it has compressed.
	for _, path := range []string{"/api/v1/profile", "/llms.txt", "/api/v1/insights", "/api/v1/insights/post-01999", "/llms-full.txt"} {
		if status, err := fetch("localhost:9186", path); err != nil || status != http.StatusOK {
			t.Fatalf("warm-up %s: %d %v", path, status, err)
		}
	}
	t.Logf("warm-up received %d KiB", received.Load()>>10)
	before, liveBefore := kibStatus(t, pid, "VmRSS"), liveHeap(t)

	paths := []string{"/llms.txt", "/api/v1/insights", "/openapi.json", "/api/v1/insights/post-01000", "/developers", "/llms-full.txt"}
	// Under the race detector (make test's first run) fewer requests, and
	// the RSS figures are the detector's; `make test` runs this test again
	// without it.
	requests, workers := 1200, 8
	if raceDetector {
		requests = 300
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var failures sync.Map
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				// llms-full.txt (about 10 MB here) one request in 60.
				path := paths[i%(len(paths)-1)]
				if i%60 == 59 {
					path = paths[len(paths)-1]
				}
				host := fmt.Sprintf("%s%d.example:9186", strings.Repeat("h", 180), i)
				if status, err := fetch(host, path); err != nil || status != http.StatusOK {
					failures.Store(fmt.Sprintf("%s: %d %v", path, status, err), true)
				}
			}
		}()
	}
	var latencies []time.Duration
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-stop:
				return
			}
			start := time.Now()
			if status, err := fetch("localhost:9186", "/api/v1/profile"); err != nil || status != http.StatusOK {
				failures.Store(fmt.Sprintf("other client: %d %v", status, err), true)
			}
			latencies = append(latencies, time.Since(start))
		}
	}()
	start := time.Now()
	for i := range requests {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	<-done
	failures.Range(func(k, _ any) bool { t.Error(k); return true })

	peak, after, liveAfter := kibStatus(t, pid, "VmHWM"), kibStatus(t, pid, "VmRSS"), liveHeap(t)

	slices.Sort(latencies)
	p99 := latencies[len(latencies)*99/100]
	t.Logf("live heap %d MiB before, %d MiB after %d requests of distinct Hosts in %v (%d MiB received); RSS %d MiB before, %d MiB after, peak %d MiB; other client: %d requests, median %v, p99 %v",
		liveBefore>>20, liveAfter>>20, requests, elapsed.Round(time.Millisecond), received.Load()>>20,
		before>>10, after>>10, peak>>10, len(latencies), latencies[len(latencies)/2], p99)
	// The budget is 16 MiB; what is kept above it is the bookkeeping of
	// 32 renditions and the last renders of the flood (28-58 MiB seen).
	if kept := (liveAfter - liveBefore) >> 20; kept > 96 {
		t.Errorf("the live heap stays %d MiB above the warm process's; the renditions of unseen Hosts are not bounded", kept)
	}
	if grown := (peak - before) >> 10; grown > 400 && !raceDetector {
		t.Errorf("RSS peaked %d MiB above the warm process", grown)
	}
	if p99 > 2*time.Second {
		t.Errorf("the other client's p99 latency is %v", p99)
	}
}

// liveHeap is the heap in use of the Caddy with its admin endpoint on
// localhost:9187, right after a garbage collection.
func liveHeap(t *testing.T) int64 {
	t.Helper()
	resp, err := http.Get("http://localhost:9187/debug/pprof/heap?gc=1") // collects first
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get("http://localhost:9187/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var vars struct {
		Memstats struct{ HeapAlloc int64 } `json:"memstats"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&vars); err != nil || vars.Memstats.HeapAlloc == 0 {
		t.Fatalf("memory statistics: %v", err)
	}
	return vars.Memstats.HeapAlloc
}

// cpuTime is the CPU time (user and system) the process pid has used.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses; utime
	// and stime are the 14th and 15th fields, in clock ticks of 1/100 s.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, err1 := strconv.Atoi(fields[11])
	stime, err2 := strconv.Atoi(fields[12])
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %s", pid, stat)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// TestLargeDocumentsStayKeptForTheSiteHost: without base_url, the
// documents of the site's own Host (one its connections vouch for) are
// kept whatever their size, so a repeat request for an llms-full.txt far
// larger than the rendition cache's budget (16 MiB) costs next to nothing;
// another Host's are not kept, and cost a render each time. 10 000
// insights (3 000 under the race detector; `make test` runs it again
// without it).
func TestLargeDocumentsStayKeptForTheSiteHost(t *testing.T) {
	n := 10000
	if raceDetector {
		n = 3000
	}
	dir := largeContent(t, n)
	const url = "http://localhost:9261"
	caddyfile := strings.Replace(processCaddyfile(9261, t.TempDir(), "content "+dir+"\n\t\trate_limit off"),
		"http://localhost:9261 {", "http://:9261 {", 1)
	p := startProcess(t, "Caddy", url, caddyfile)
	pid := p.cmd.Process.Pid
	client := &http.Client{Timeout: 2 * time.Minute}
	// fetch asks for llms-full.txt in coding and checks the answer is in
	// want ("" for identity).
	fetch := func(host, coding, want string) (size int64) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url+"/llms-full.txt", nil)
		req.Host = host
		req.Header.Set("Accept-Encoding", coding)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		size, err = io.Copy(io.Discard, resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != want {
			t.Fatalf("%s, %s: %d, Content-Encoding %q, %v", host, coding, resp.StatusCode, resp.Header.Get("Content-Encoding"), err)
		}
		return size
	}
	measure := func(host, coding, want string, times int) (per time.Duration, size int64) {
		start := cpuTime(t, pid)
		for range times {
			size = fetch(host, coding, want)
		}
		return (cpuTime(t, pid) - start) / time.Duration(times), size
	}

	first, identity := measure("localhost:9261", "identity", "", 1)
	firstGzip, gzipped := measure("localhost:9261", "gzip", "gzip", 1)
	if identity <= 16<<20 {
		t.Fatalf("llms-full.txt is %d bytes, not over the rendition budget", identity)
	}
	const repeats = 40
	gzipEach, _ := measure("localhost:9261", "gzip", "gzip", repeats)
	identityEach, _ := measure("localhost:9261", "identity", "", 10)
	// Another Host's copy is not kept, so it is rendered again each time
	// and, as compressing it would be too, sent uncompressed.
	otherEach, _ := measure("other.example:9261", "gzip", "", 3)
	t.Logf("%d insights, llms-full.txt %d MB (gzip %d KB); the site's Host: first %v, first gzip %v, then %v per gzip request, %v per identity request; another Host: %v per request",
		n, identity>>20, gzipped>>10, first, firstGzip, gzipEach, identityEach, otherEach)
	if total := gzipEach * repeats; total >= time.Second {
		t.Errorf("%d repeated gzip requests for llms-full.txt cost %v of CPU, want under 1 s", repeats, total)
	}
}
