package caddytest

import (
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"
)

// TestCaddyfileAdapts pins the JSON that a Caddyfile using every
// subdirective adapts to, including where the directive's own order puts
// the handler (before encode and reverse_proxy). After an intended
// change, regenerate the golden file with
// `bin/caddy adapt --config caddy_test/testdata/adapt.caddyfile --pretty`.
func TestCaddyfileAdapts(t *testing.T) {
	caddyfile, err := os.ReadFile("testdata/adapt.caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/adapt.json")
	if err != nil {
		t.Fatal(err)
	}
	caddytest.AssertAdapt(t, string(caddyfile), "caddyfile", strings.TrimSpace(string(want)))
}
