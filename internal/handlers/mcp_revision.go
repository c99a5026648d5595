package handlers

import (
	"bytes"
	"context"
	"net/http"
)

// Protocol 2026-07-28 has no session: every request names its revision,
// the client's capabilities and, optionally, the client in params._meta,
// and repeats its method (and, for tools/call and resources/read, the
// tool's name or the URI) in the Mcp-Method and Mcp-Name headers, which
// must match the body. The SDK checks both and adds to every result its
// resultType ("complete") and the server's identity in _meta, and to the
// lists and reads the caching hints ttlMs and cacheScope. None of that
// depends on the request once it is valid, so the kept answers (and the
// searches answered off the SDK) serve such requests too, under the same
// rule as the others: the pre-check admits a request only when the SDK
// would certainly accept it and answer it as it answers the canonical
// one. Its _meta must be one the SDK reads without fail, member by member
// (below); anything else, a logLevel or a progressToken among them, goes
// to the SDK.

// mcpRevision2026 is the protocol version of the stateless revision.
const mcpRevision2026 = "2026-07-28"

// The per-request _meta members of 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// canonicalMeta is the _meta of the canonical 2026-07-28 request, the one
// the SDK is asked for a kept answer: no client capabilities, no client.
var canonicalMeta = map[string]any{metaProtocolVersion: mcpRevision2026, metaClientCapabilities: map[string]any{}}

// mcpHeaders are the MCP headers of a request: the protocol version and,
// under 2026-07-28, Mcp-Method and Mcp-Name.
type mcpHeaders struct {
	version, method, name string
	hasMethod, hasName    bool
}

// admits reports whether a call with these headers is one the SDK answers
// as the canonical request of its kind: before 2026-07-28, a call without
// _meta (whose members the SDK would act on); under it, a call whose _meta
// the SDK reads without fail and whose Mcp-Method and Mcp-Name say what
// the body says (the SDK refuses a mismatch). Mcp-Name is required of
// tools/call and resources/read and, being ignored by the SDK elsewhere,
// refused here on the lists.
func (h mcpHeaders) admits(c rpcCall) bool {
	if h.version != mcpRevision2026 {
		return c.meta == nil && !h.hasMethod && !h.hasName
	}
	method := plainString(c.method)
	if !h.hasMethod || h.method != method || method == "" || !readableMeta(c.meta) {
		return false
	}
	switch method {
	case "tools/call":
		return h.hasName && h.name != "" && h.name == plainString(c.name)
	case "resources/read":
		return h.hasName && h.name != "" && h.name == plainString(c.uri)
	}
	return !h.hasName
}

// canonicalHeaders sets in h the Mcp-Method and Mcp-Name headers of the
// canonical 2026-07-28 request req.
func (req fixedMCPRequest) canonicalHeaders(h http.Header) {
	if req.version != mcpRevision2026 {
		return
	}
	h.Set("Mcp-Method", req.method)
	switch req.method {
	case "tools/call":
		h.Set("Mcp-Name", req.tool)
	case "resources/read":
		h.Set("Mcp-Name", req.value)
	}
}

// maxMetaDepth bounds the nesting of an admitted _meta, far below the
// depth at which the SDK's decoder refuses a message.
const maxMetaDepth = 6

// readableMeta reports whether raw, a call's _meta, is one the SDK reads
// without fail as 2026-07-28's: the protocol version 2026-07-28, the
// client's capabilities and, optionally, the client's identity, each
// once, named as written here, and nothing else.
func readableMeta(raw []byte) bool {
	if raw == nil || depth(raw) > maxMetaDepth {
		return false
	}
	var version, capabilities, info []byte
	return eachMember(raw, func(name, value []byte) bool {
		switch string(name) {
		case metaProtocolVersion:
			return setOnce(&version, value)
		case metaClientCapabilities:
			return setOnce(&capabilities, value)
		case metaClientInfo:
			return setOnce(&info, value)
		}
		return false
	}) && string(version) == `"`+mcpRevision2026+`"` && readableCapabilities(capabilities) && (info == nil || readableClientInfo(info))
}

// readableCapabilities reports whether raw is client capabilities the SDK
// decodes without fail: an object whose members are objects, each at most
// once, those the SDK knows holding what it expects (roots' listChanged a
// boolean; sampling's context and tools, elicitation's form and url
// objects). Members it does not know it ignores, as it does the
// experimental and extensions settings, which it keeps as they are.
func readableCapabilities(raw []byte) bool {
	seen := map[string]bool{}
	return eachMember(raw, func(name, value []byte) bool {
		if seen[string(name)] || !isObject(value) {
			return false
		}
		seen[string(name)] = true
		switch string(name) {
		case "roots":
			return membersAre(value, func(name, value []byte) bool {
				return string(name) == "listChanged" && (string(value) == "true" || string(value) == "false")
			})
		case "sampling":
			return membersAre(value, func(name, value []byte) bool {
				return (string(name) == "context" || string(name) == "tools") && isObject(value)
			})
		case "elicitation":
			return membersAre(value, func(name, value []byte) bool {
				return (string(name) == "form" || string(name) == "url") && isObject(value)
			})
		}
		return true
	})
}

// readableClientInfo reports whether raw is a client's identity the SDK
// decodes without fail: an object of the Implementation's string members,
// each at most once.
func readableClientInfo(raw []byte) bool {
	return membersAre(raw, func(name, value []byte) bool {
		switch string(name) {
		case "name", "title", "description", "version", "websiteUrl":
			return len(value) > 0 && value[0] == '"'
		}
		return false
	})
}

// membersAre reports whether raw is an object whose members, each named
// once, all satisfy ok.
func membersAre(raw []byte, ok func(name, value []byte) bool) bool {
	var names [][]byte
	return eachMember(raw, func(name, value []byte) bool {
		for _, n := range names {
			if bytes.Equal(n, name) {
				return false
			}
		}
		names = append(names, name)
		return ok(name, value)
	})
}

func isObject(raw []byte) bool { return len(raw) > 0 && raw[0] == '{' }

// depth is the deepest nesting of objects and arrays in raw, valid JSON.
func depth(raw []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// resultMeta is the _meta the SDK gives every tools/call result under
// 2026-07-28 (the server's identity), as it writes it, read from its kept
// answer to get_profile; false when that answer is not of the expected
// shape, {"_meta":…,"content":…,…,"resultType":"complete"}.
func (rd *rendition) resultMeta(ctx context.Context) ([]byte, bool) {
	a := rd.mcpAnswer(ctx, fixedMCPRequest{version: mcpRevision2026, method: "tools/call", tool: "get_profile"})
	if a == nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(a.tail, []byte(`,"result":{"_meta":`))
	if !ok || !isObject(rest) || !bytes.HasSuffix(rest, []byte(resultTypeComplete+"}}")) {
		return nil, false
	}
	end := skipValue(rest, 0)
	if !bytes.HasPrefix(rest[end:], []byte(`,"content":`)) {
		return nil, false
	}
	return rest[:end], true
}

// resultTypeComplete ends every result the SDK gives under 2026-07-28.
const resultTypeComplete = `,"resultType":"complete"`
