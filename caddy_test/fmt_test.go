package caddytest

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestCaddyfilesAreFormatted: the Caddyfiles a user copies (the README's
// examples and the root Caddyfile) are as `caddy fmt` writes them.
func TestCaddyfilesAreFormatted(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```caddyfile\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d Caddyfile blocks in the README", len(blocks))
	}
	root, err := os.ReadFile("../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{"Caddyfile": root}
	for i, b := range blocks {
		sources["README block "+strconv.Itoa(i+1)] = b[1]
	}
	for name, src := range sources {
		if formatted := caddyfile.Format(src); !bytes.Equal(formatted, src) {
			t.Errorf("%s is not as caddy fmt writes it:\n%s\nwant:\n%s", name, src, formatted)
		}
	}
}
