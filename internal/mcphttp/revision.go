package mcphttp

import (
	"bytes"
	"context"
	"net/http"

	"github.com/caddy-discovery/caddy-discovery/internal/mcpcall"
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

// canonicalMeta is the _meta of the canonical 2026-07-28 request, the one
// the SDK is asked for a kept answer: no client capabilities, no client.
var canonicalMeta = map[string]any{mcpcall.MetaProtocolVersion: mcpcall.Revision2026, mcpcall.MetaClientCapabilities: map[string]any{}}

// canonicalHeaders sets in h the Mcp-Method and Mcp-Name headers of the
// canonical 2026-07-28 request req.
func (req Request) canonicalHeaders(h http.Header) {
	if req.Version != mcpcall.Revision2026 {
		return
	}
	h.Set("Mcp-Method", req.Method)
	switch req.Method {
	case "tools/call":
		h.Set("Mcp-Name", req.Tool)
	case "resources/read":
		h.Set("Mcp-Name", req.Value)
	}
}

// resultMeta is the _meta the SDK gives every tools/call result under
// 2026-07-28 (the server's identity), as it writes it, read from its kept
// answer to get_profile; false when that answer is not of the expected
// shape, {"_meta":…,"content":…,…,"resultType":"complete"}.
func (e *Endpoint) resultMeta(ctx context.Context) ([]byte, bool) {
	a := e.answer(ctx, Request{Version: mcpcall.Revision2026, Method: "tools/call", Tool: "get_profile"})
	if a == nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(a.tail, []byte(`,"result":{"_meta":`))
	if !ok || !mcpcall.IsObject(rest) || !bytes.HasSuffix(rest, []byte(resultTypeComplete+"}}")) {
		return nil, false
	}
	end := mcpcall.SkipValue(rest, 0)
	if !bytes.HasPrefix(rest[end:], []byte(`,"content":`)) {
		return nil, false
	}
	return rest[:end], true
}

// resultTypeComplete ends every result the SDK gives under 2026-07-28.
const resultTypeComplete = `,"resultType":"complete"`
