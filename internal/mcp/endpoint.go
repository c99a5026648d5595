// Package mcp is the MCP server of a Service: its tools, each declared once
// in mcpTools (tools.go; the connectors' search and fetch in connector.go),
// the calls whose answers depend on the content only (kept.go), and the
// endpoint over Streamable HTTP in front of the official SDK's stateless
// handler: the checks the SDK does not make (the Host against DNS
// rebinding, the Origin, the body's size and time, JSON), JSON-RPC batches
// counted against the rate limit, the SDK's plain-text errors turned into
// JSON-RPC ones, and the answers the SDK would give to read requests that
// depend on the content only, kept or encoded here (see answers.go and
// search.go), with each call counted in the metrics. The tools read the
// view of one base URL (Site); reading a call off its bytes is the
// sub-package mcpcall. The SDK's answers pass through Caddy's response
// recorder (caddyhttp), the one piece of Caddy it uses.
//
// Imports from the module: content, internal/body, internal/cache, internal/catalog, internal/mcp/mcpcall, internal/metrics, internal/origin, internal/problem, internal/ratelimit, internal/respond, internal/schema, internal/search, internal/view, internal/wire.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
)

// Message is a JSON-RPC 2.0 request or notification, the body of
// POST /mcp.
type Message struct {
	JSONRPC string         `json:"jsonrpc" schema:"enum=2.0"`
	ID      any            `json:"id,omitempty" schema:"type=string|integer" jsonschema:"A string or integer; absent in a notification."`
	Method  string         `json:"method"`
	Params  map[string]any `json:"params,omitempty"`
}

// Response is a JSON-RPC 2.0 response: a result or an error.
type Response struct {
	JSONRPC string         `json:"jsonrpc" schema:"enum=2.0"`
	ID      any            `json:"id" schema:"type=string|integer|null" jsonschema:"The request's id: a string, an integer, or null when the request could not be read."`
	Result  map[string]any `json:"result,omitempty"`
	Error   *Error         `json:"error,omitempty"`
}

// ErrorResponse is a JSON-RPC 2.0 error response, the body of every
// JSON-RPC error /mcp answers with a 4xx status.
type ErrorResponse struct {
	JSONRPC string `json:"jsonrpc" schema:"enum=2.0"`
	ID      any    `json:"id" schema:"type=string|integer|null" jsonschema:"The request's id: a string, an integer, or null when the request could not be read."`
	Error   Error  `json:"error"`
}

type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// DefaultBudget bounds the bytes of answers an endpoint keeps when its
// rendition is not in a cache with a budget. Answers past it are made room for by
// dropping others; each is made again by the SDK when next asked for.
const DefaultBudget = 32 << 20

// Endpoint answers POST /mcp for one base URL. Its zero answers are ready
// for use; it must not be copied once it has answered.
type Endpoint struct {
	// Base is the base URL, and Origin its origin: the one browser origin
	// the endpoint accepts.
	Base, Origin string
	// BodyTimeout bounds the reading of a request's body.
	BodyTimeout time.Duration
	// Events and WindowSeconds are the rate limit's quota (Events 0: no
	// limit); Charge, when set, counts a batch's further messages against
	// the client's quota.
	Events, WindowSeconds int
	Charge                func(h http.Header, r *http.Request, n int) ratelimit.Extra
	// Handler returns the SDK's stateless handler.
	Handler func() http.Handler
	// Recognise gives the canonical form of a call whose answer depends on
	// the content only and names something that exists.
	Recognise func(mcpcall.Call) (Request, bool)
	// Search is the search of the search tools, within the budget its
	// context carries; Searches are those tools, by name, with their
	// shapes: the endpoint answers their plain calls off the SDK.
	Search   func(context.Context, search.Input) (search.Output, error)
	Searches map[string]SearchShape
	// Budget bounds the bytes of kept answers (0: DefaultBudget); Account,
	// when set, is told of each answer kept.
	Budget  int
	Account func(n int)
	// Metrics counts the calls answered here; nil counts nothing.
	Metrics *metrics.Site

	answers mcpAnswers
}

// ServeHTTP answers POST /mcp: checks what the SDK does not (origin, size,
// well-formed JSON; the Host was checked before, see HostAllowed), answers
// the fixed-shape read requests from the SDK's kept answers (see
// answers.go) and hands every other request to the stateless SDK handler.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if from := r.Header.Get("Origin"); from != "" && origin.Of(from) != e.Origin {
		p := problem.New(e.Base, problem.Forbidden, r, "Browser requests to the MCP endpoint are accepted only from "+e.Origin+", not from "+problem.Quote(from)+".")
		p.Hint = "Call the MCP endpoint from an MCP client, a server or a CLI (they send no Origin), or from a page of " + e.Origin + "."
		respond.Problem(w, r, p)
		return
	}
	data, ok := body.Read(w, r, e.Base, e.BodyTimeout, "")
	if !ok {
		return
	}
	if !json.Valid(data) {
		// The SDK answers a parse error with a text/plain 400; JSON-RPC
		// clients expect its error object (code -32700).
		respond.Write(w, r, http.StatusBadRequest, respond.MediaJSON, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not valid JSON"}}`))
		return
	}
	if !e.admitBatch(w, r, data) {
		return
	}
	// The searches of one request, a batch's included, read at most
	// search.RequestPostings together.
	r = r.WithContext(search.WithBudget(r.Context(), search.NewBudget(search.RequestPostings)))
	if e.Answer(w, r, data) {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
	// The SDK's plain-text errors are held back and answered as JSON-RPC
	// error objects (see writeRPCError); everything else streams through.
	rec := caddyhttp.NewResponseRecorder(w, new(bytes.Buffer), isTransportError)
	e.Handler().ServeHTTP(rec, r)
	if rec.Status() != 0 && rec.Buffered() {
		writeRPCError(w, rec, requestID(data))
	}
}

// requestID is the id of a body holding one JSON-RPC request, or nil for a
// notification, a batch or a body whose id cannot be read.
func requestID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || bytes.Equal(m.ID, []byte("null")) {
		return nil
	}
	return m.ID
}

// sdkNotHandled starts the SDK's plain-text answer to a method it does not
// serve (its jsonrpc2.ErrNotHandled); before protocol 2026-07-28 the SDK
// answers it as a transport error, a text/plain 400.
const sdkNotHandled = "JSON RPC not handled"

// isTransportError reports the start of one of the SDK's plain-text
// transport errors (a bad Accept header, a message that is JSON but not
// JSON-RPC, an unknown method): MCP clients parse JSON-RPC error objects.
func isTransportError(status int, h http.Header) bool {
	return status >= 400 && strings.HasPrefix(h.Get("Content-Type"), "text/plain")
}

// writeRPCError answers the transport error rec holds as a JSON-RPC error
// object, with the request's id when there is one: -32601, Method not
// found, for a method the server does not serve (an error of the method,
// not of the transport, so with HTTP 200 as for any other method error);
// otherwise -32600, Invalid Request, with the SDK's explanation.
func writeRPCError(w http.ResponseWriter, rec caddyhttp.ResponseRecorder, id json.RawMessage) {
	text := strings.TrimSpace(rec.Buffer().String())
	status, code := rec.Status(), jsonrpc.CodeInvalidRequest
	if detail, ok := strings.CutPrefix(text, sdkNotHandled+": "); ok {
		code, text = jsonrpc.CodeMethodNotFound, "Method not found: "+detail+"; this server serves MCP's lifecycle, tools and resources methods."
		if id != nil {
			status = http.StatusOK
		}
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(text)
	h := w.Header()
	h.Set("Content-Type", respond.MediaJSON)
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, msg)
}

// HostAllowed protects a server on a loopback listener from DNS rebinding:
// there a Host must be a loopback name or the configured base URL's host
// (one derived from the request proves nothing). A Caddy on 127.0.0.1
// behind a tunnel or proxy therefore works once base_url names its public
// host, or with the check turned off (anyHost).
func HostAllowed(r *http.Request, anyHost bool, baseURL string) bool {
	if anyHost {
		return true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil || !origin.IsLoopback(local.String()) {
		return true
	}
	if origin.IsLoopback(r.Host) {
		return true
	}
	return baseURL != "" && strings.EqualFold(origin.HostOnly(r.Host), origin.HostOnly(origin.HostOf(baseURL)))
}

// RefuseHost answers a request to /mcp whose Host HostAllowed refused, with
// the addresses of base, which is not that Host's.
func RefuseHost(w http.ResponseWriter, r *http.Request, base string) {
	p := problem.New(base, problem.Forbidden, r, "The Host "+problem.Quote(r.Host)+" is not a name of this server.")
	p.Hint = "This server listens on a loopback address, where only loopback names (localhost, 127.0.0.1, [::1])" +
		" and the host of the configured base_url are accepted, against DNS rebinding. Call it by a loopback name;" +
		" behind a proxy or tunnel, set base_url to the public address or turn mcp_host_check off."
	respond.Problem(w, r, p)
}

// TrustedBase is the base URL of the answer to a refused Host: the
// configured one, baseURL, or else the address the connection reached, which names
// this server whatever Host the client sent (a page on a rebound name
// would read addresses built from that name as the site's own).
func TrustedBase(r *http.Request, baseURL string) string {
	if baseURL != "" {
		return baseURL
	}
	return origin.ConnectionBase(r)
}
