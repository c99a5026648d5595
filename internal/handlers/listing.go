package handlers

// How the site's MCP server is listed beyond the site: in the official MCP
// Registry, which lists a remote server under its owner's domain once the
// domain is proven (the proof, /.well-known/mcp-registry-auth, is the
// module's to serve; the server.json and the publishing are the owner's).

// mcpRegistryAuth is the proof of the domain the registry's HTTP
// verification reads: one line naming the owner's Ed25519 public key.
func mcpRegistryAuth(l links) []byte {
	return []byte("v=MCPv1; k=ed25519; p=" + l.cfg.MCPRegistryKey)
}
