package docs

import "github.com/caddy-discovery/caddy-discovery/internal/view"

// CLICommand is a command of the CLI (cli/discovery.mjs) and the route
// whose JSON it prints, or, for a command that prints no route's JSON,
// what it prints.
type CLICommand struct {
	Command, Path, Summary string
}

// CLICommands are the CLI's commands, for the documents that teach it; a
// test holds them to the script's own usage text.
var CLICommands = []CLICommand{
	{"profile", view.PathProfile, ""},
	{"insights", view.PathInsights, ""},
	{"insights <slug>", view.PathInsight, ""},
	{"health", view.PathHealth, ""},
	{"dns-aid", "", "The DNS-AID records that publish a site's MCP server in DNS, from its documents"},
}
