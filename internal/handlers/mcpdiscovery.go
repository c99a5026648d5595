package handlers

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How MCP clients and scanners find the server before they connect: the
// server card's derived fields and the AI catalog that points at the card.

// cardCapabilities are the capabilities c declares, as the server card
// carries them: the same JSON as initialize's.
func cardCapabilities(c *mcp.ServerCapabilities) serverCapabilities {
	var out serverCapabilities
	if c.Tools != nil {
		out.Tools = &listChanged{ListChanged: c.Tools.ListChanged}
	}
	if c.Resources != nil {
		out.Resources = &resourcesChange{ListChanged: c.Resources.ListChanged, Subscribe: c.Resources.Subscribe}
	}
	return out
}

// The longest server name and title the server card schema allows, in
// characters.
const (
	maxCardName  = 200
	maxCardTitle = 100
)

// clip cuts s to at most n characters, marking a cut with "…".
func clip(s string, n int) string {
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return strings.TrimSpace(string(runes[:n-1])) + "…"
}

// cardNamespace is the namespace of the server card's name for host: its
// labels reversed ("www.example.com" becomes "com.example.www"), with any
// character the name's grammar refuses (the colons of an IPv6 address)
// turned into "-", and cut so that namespace, "/" and a server name of
// nameLen characters fit the schema's 200.
func cardNamespace(host string, nameLen int) string {
	ns := []byte(reverseDNS(host))
	for i, c := range ns {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			ns[i] = '-'
		}
	}
	if limit := maxCardName - 1 - nameLen; len(ns) > limit {
		ns = ns[:limit]
	}
	return strings.Trim(string(ns), ".")
}
