package caddytest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the golden files from what the server now sends:
// `go test ./caddy_test -run Golden -update`, then review the diff.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file; if the change is intended, run `go test -run Golden -update` in caddy_test and review the diff.\n%s",
			name, firstDifference(string(want), string(got)))
	}
}

// firstDifference shows the first line where want and got part.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return ""
}

// TestGoldenDocuments pins what clients see of the documents agents read
// first, so any change to them shows up in review.
func TestGoldenDocuments(t *testing.T) {
	s := startCaddy(t, sampleSite)
	for path, name := range map[string]string{
		"/openapi.json":                     "openapi.json",
		"/llms.txt":                         "llms.txt",
		"/.well-known/mcp/server-card.json": "server-card.json",
	} {
		r := s.get(path)
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d", path, r.StatusCode)
		}
		golden(t, name, r.body)
	}
}

// TestGoldenMCPSession pins one MCP session as raw JSON-RPC exchanges:
// what an MCP client sends and what it gets back.
func TestGoldenMCPSession(t *testing.T) {
	s := startCaddy(t, sampleSite)
	version := "MCP-Protocol-Version"
	var transcript bytes.Buffer
	for _, message := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts","limit":2}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_insight","arguments":{"slug":"no-such-insight"}}}`,
	} {
		r := s.mcpPost(message, version, "2025-06-18")
		transcript.WriteString("> " + message + "\n")
		transcript.WriteString("< " + r.Status + "\n")
		if len(r.body) > 0 {
			var v any
			if err := json.Unmarshal(r.body, &v); err != nil {
				t.Fatalf("%s: %v: %s", message, err, r.body)
			}
			indented, _ := json.MarshalIndent(v, "", "  ")
			transcript.Write(indented)
			transcript.WriteString("\n")
		}
		transcript.WriteString("\n")
	}
	golden(t, "mcp-session.txt", transcript.Bytes())
}
