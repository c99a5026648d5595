// Command caddy is Caddy with the standard modules, caddy-ratelimit and the
// discovery module: what `make build` compiles to bin/caddy.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/mholt/caddy-ratelimit"

	_ "github.com/caddy-discovery/caddy-discovery"
)

func main() {
	caddycmd.Main()
}
