package discovery

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

// TestRefusedConfigIsLeftUnprovisioned loads the module the way Caddy does
// (caddy.Validate provisions it, then validates it): a configuration with
// invalid values is reported by Validate, every value in one error and not
// as a provisioning failure, and nothing was done for it: no token secret
// was generated into the storage, and the content (a folder that does not
// exist) was not read. A valid one is provisioned: its secret is stored.
func TestRefusedConfigIsLeftUnprovisioned(t *testing.T) {
	t.Setenv("DISCOVERY_TEST_UNSET", "")
	for _, tc := range []struct {
		name, handler string
		want          []string // in the error; none: no error
	}{
		{"invalid", `{"handler": "discovery", "content": "/no/such/folder", "base_url": "{env.DISCOVERY_TEST_UNSET}", "cli_name": "no spaces", "token_ttl": 1000}`,
			[]string{"http.handlers.discovery: invalid configuration: base_url: {env.DISCOVERY_TEST_UNSET} is empty (is the environment variable set?)", "cli_name: ", "token_ttl: "}},
		{"valid", `{"handler": "discovery"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			raw := fmt.Sprintf(`{
				"admin": {"disabled": true},
				"storage": {"module": "file_system", "root": %q},
				"logging": {"logs": {"default": {"writer": {"output": "discard"}}}},
				"apps": {"http": {"servers": {"s": {"listen": ["127.0.0.1:0"], "routes": [{"handle": [%s]}]}}}}
			}`, dir, tc.handler)
			var cfg caddy.Config
			if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
				t.Fatal(err)
			}
			err := caddy.Validate(&cfg)
			_, statErr := os.Stat(filepath.Join(dir, filepath.FromSlash(tokenSecretKey)))
			if tc.want == nil {
				if err != nil || statErr != nil {
					t.Fatalf("a valid config: %v; its secret: %v", err, statErr)
				}
				return
			}
			if err == nil {
				t.Fatal("an invalid config was accepted")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "provision http.handlers.discovery") || strings.Contains(err.Error(), "/no/such/folder") {
				t.Errorf("the error %q comes from provisioning, not from Validate", err)
			}
			if statErr == nil {
				t.Error("a token secret was generated for a refused config")
			}
		})
	}
}
