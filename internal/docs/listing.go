package docs

import (
	"encoding/json"
	"net"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// How the site's MCP server is listed beyond the site: in the official MCP
// Registry, which lists a remote server under its owner's domain once the
// domain is proven (the proof, /.well-known/mcp-registry-auth, is the
// module's to serve; the server.json and the publishing are the owner's),
// and in DNS, as the SVCB records of DNS-AID, which the owner adds to the
// site's zone. The portal and the docs show both, made from the route
// table and the base URL.

// MCPRegistryAuth is the proof of the domain the registry's HTTP
// verification reads: one line naming the owner's Ed25519 public key.
func MCPRegistryAuth(l view.Links) []byte {
	return []byte("v=MCPv1; k=ed25519; p=" + l.MCPRegistryKey)
}

// registrySchema is the server.json schema the registry validates against
// (its CurrentSchemaURL, 2025-12-11).
const registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// registryServerJSON is the server.json that lists the site's MCP server in
// the registry: the server card's name, title, description and version,
// the MCP endpoint as its one remote.
type registryServerJSON struct {
	Schema      string           `json:"$schema"`
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Version     string           `json:"version"`
	WebsiteURL  string           `json:"websiteUrl"`
	Remotes     []registryRemote `json:"remotes"`
}

type registryRemote struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// RegistryServerJSON is the server.json of the site's MCP server, as the
// portal shows it to the owner who publishes it in the registry.
func RegistryServerJSON(l view.Links) string {
	b, _ := json.MarshalIndent(registryServer(l), "", "  ") // strings and slices of them only
	return string(b)
}

func registryServer(l view.Links) registryServerJSON {
	card := ServerCard(l)
	return registryServerJSON{
		Schema: registrySchema, Name: card.Name, Title: card.Title, Description: card.Description,
		Version: card.Version, WebsiteURL: card.WebsiteURL,
		Remotes: []registryRemote{{Type: "streamable-http", URL: l.Base + view.PathMCP}},
	}
}

// RegistryDomain is the domain the owner proves to the registry: the base
// URL's host. The namespace it grants (its labels reversed) is the one the
// server's name is in.
func RegistryDomain(l view.Links) string { return origin.HostOnly(origin.HostOf(l.Base)) }

// The DNS-AID records (draft-mozleywilliams-dnsop-dnsaid-02) use the
// private-use SvcParamKey numbers of the draft's reference implementation
// for the keys the draft asks IANA for, as the draft says to until IANA
// assigns them.
const (
	svcbCap       = "key65400" // cap: the capability descriptor's address
	svcbBAP       = "key65402" // bap: the agent protocol spoken at the endpoint
	svcbWellKnown = "key65409" // well-known: the RFC 8615 suffix of the index
	// dnsAIDTTL is the records' time to live, an hour.
	dnsAIDTTL = "3600"
)

// DNSAIDRecords are the SVCB records that publish the site's agents in
// DNS, in zone-file syntax: the organisation's agent index at
// _index._agents (this host, which serves it as the AI catalog, while the
// module does), and the MCP server at _mcp._agents, with the agent
// protocol in alpn as the draft asks (it requests the ALPN ID "mcp") and
// in bap, and the server card as its capability descriptor. The CLI's
// dns-aid command makes the same records from a site's documents.
func DNSAIDRecords(l view.Links) []string {
	host := RegistryDomain(l)
	port := basePort(l.Base)
	var records []string
	if l.MCPDiscovery {
		records = append(records, svcbRecord("_index._agents."+host, host, port,
			`alpn="h2,http/1.1"`, svcbWellKnown+`="`+strings.TrimPrefix(view.PathAICatalog, "/.well-known/")+`"`))
	}
	return append(records, svcbRecord("_mcp._agents."+host, host, port,
		`alpn="mcp"`, svcbCap+`="`+l.Base+view.PathServerCard+`"`, svcbBAP+`="mcp"`))
}

// svcbRecord is one ServiceMode SVCB record of owner for target:port, alpn
// and port mandatory, with the parameters params after them.
func svcbRecord(owner, target, port, alpn string, params ...string) string {
	return owner + ". " + dnsAIDTTL + " IN SVCB 1 " + target + ". mandatory=alpn,port " + alpn + " port=" + port +
		" " + strings.Join(params, " ")
}

// basePort is the port of a base URL: its own, or its scheme's.
func basePort(base string) string {
	if _, port, err := net.SplitHostPort(origin.HostOf(base)); err == nil {
		return port
	}
	if strings.HasPrefix(base, "http://") {
		return "80"
	}
	return "443"
}
