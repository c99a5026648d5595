package caddytest

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestCaddyfilesAreFormatted: the Caddyfiles a user copies (the examples of
// the README, CONTRIBUTING.md and every page of docs/, and the root
// Caddyfile) are as `caddy fmt` writes them.
func TestCaddyfilesAreFormatted(t *testing.T) {
	root, err := os.ReadFile("../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{"Caddyfile": root}
	for _, page := range docPages(t) {
		doc, err := os.ReadFile("../" + page)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range fencedBlocks(string(doc), "caddyfile") {
			sources[page+" block "+strconv.Itoa(i+1)] = []byte(b)
		}
	}
	// The reference pages hold a dozen; fewer means the blocks were not found.
	if len(sources)-1 < 10 {
		t.Fatalf("found %d Caddyfile blocks in the documentation", len(sources)-1)
	}
	for name, src := range sources {
		if formatted := caddyfile.Format(src); !bytes.Equal(formatted, src) {
			t.Errorf("%s is not as caddy fmt writes it:\n%s\nwant:\n%s", name, src, formatted)
		}
	}
}
