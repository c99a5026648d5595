package caddytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSearchBounds: over 2 000 insights, a forged cursor is a tool error
// (it panicked: an HTTP 500 and a stack trace of 7.7 KB in the log, each
// time), and a search of sixteen one-letter words, alone or 32 in a batch,
// costs what MaxQueryPostings and the request's budget allow: 1.6 ms of
// CPU a call and 42 ms a batch here, the SDK's share included, where it
// cost 10 ms a call and 340 ms a batch (50 ms and 1.7 s in the issue's
// measurement).
func TestSearchBounds(t *testing.T) {
	dir := largeContent(t, 2000)
	p := startProcess(t, "Caddy", "http://localhost:9346", processCaddyfile(9346, t.TempDir(), "content "+dir+"\n\t\trate_limit off"))
	pid := p.cmd.Process.Pid
	call := func(id int, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_insights","arguments":%s}}`, id, args)
	}
	post := func(body string) (int, []byte) {
		t.Helper()
		resp, b, err := p.send(http.MethodPost, "/mcp", "", strings.NewReader(body),
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}

	for _, cursor := range []string{strings.Repeat("A", 64), strings.Repeat("A", 20), strings.Repeat("_", 48)} {
		for range 10 {
			status, body := post(call(1, `{"query":"data","cursor":"`+cursor+`"}`))
			if status != http.StatusOK || !strings.Contains(string(body), `"isError":true`) || !strings.Contains(string(body), "not one this server gave") {
				t.Fatalf("cursor %q: %d %.300s", cursor, status, body)
			}
		}
	}

	letters := `{"query":"a b c d e f g h i j k l m n o p"}`
	const calls = 50
	start := cpuTime(t, pid)
	for range calls {
		if status, body := post(call(1, letters)); status != http.StatusOK || !json.Valid(body) {
			t.Fatalf("sixteen letters: %d %.300s", status, body)
		}
	}
	each := (cpuTime(t, pid) - start) / calls
	batch := make([]string, 32)
	for i := range batch {
		batch[i] = call(i+1, letters)
	}
	const batches = 5
	start = cpuTime(t, pid)
	for range batches {
		if status, body := post("[" + strings.Join(batch, ",") + "]"); status != http.StatusOK || !json.Valid(body) {
			t.Fatalf("a batch: %d %.300s", status, body)
		}
	}
	perBatch := (cpuTime(t, pid) - start) / batches
	log := p.stop()
	t.Logf("sixteen one-letter words over 2 000 insights: %v of CPU a call, %v a batch of 32 (the SDK's share included); log %d bytes", each, perBatch, len(log))
	if strings.Contains(log, "panic") || strings.Contains(log, "goroutine ") {
		t.Errorf("the log holds a panic or a stack trace:\n%.2000s", log)
	}
	if !raceDetector && (each > 5*time.Millisecond || perBatch > 200*time.Millisecond) {
		t.Errorf("%v a call, %v a batch: the searches are not bounded by their postings", each, perBatch)
	}
}
