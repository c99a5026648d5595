package handlers

// cliCommand is a command of the CLI (cli/discovery.mjs) and the route
// whose JSON it prints.
type cliCommand struct {
	command, path string
}

// cliCommands are the CLI's commands, for the documents that teach it; a
// test holds them to the script's own usage text.
var cliCommands = []cliCommand{
	{"profile", pathProfile},
	{"insights", pathInsights},
	{"insights <slug>", pathInsight},
	{"health", pathHealth},
}
