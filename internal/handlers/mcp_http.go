package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/caddy-discovery/caddy-discovery/internal/body"
	"github.com/caddy-discovery/caddy-discovery/internal/origin"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// jsonrpcMessage is a JSON-RPC 2.0 request or notification, the body of
// POST /mcp.
type jsonrpcMessage struct {
	JSONRPC string         `json:"jsonrpc" schema:"enum=2.0"`
	ID      any            `json:"id,omitempty" schema:"type=string|integer" jsonschema:"A string or integer; absent in a notification."`
	Method  string         `json:"method"`
	Params  map[string]any `json:"params,omitempty"`
}

// jsonrpcResponse is a JSON-RPC 2.0 response: a result or an error.
type jsonrpcResponse struct {
	JSONRPC string         `json:"jsonrpc" schema:"enum=2.0"`
	ID      any            `json:"id" schema:"type=string|integer|null" jsonschema:"The request's id: a string, an integer, or null when the request could not be read."`
	Result  map[string]any `json:"result,omitempty"`
	Error   *jsonrpcError  `json:"error,omitempty"`
}

// jsonrpcErrorResponse is a JSON-RPC 2.0 error response, the body of every
// JSON-RPC error /mcp answers with a 4xx status.
type jsonrpcErrorResponse struct {
	JSONRPC string       `json:"jsonrpc" schema:"enum=2.0"`
	ID      any          `json:"id" schema:"type=string|integer|null" jsonschema:"The request's id: a string, an integer, or null when the request could not be read."`
	Error   jsonrpcError `json:"error"`
}

type jsonrpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// serveMCP answers POST /mcp: checks what the SDK does not (origin, size,
// well-formed JSON; ServeHTTP has checked the Host), answers the fixed-shape read requests from the
// SDK's kept answers (see mcp_answers.go) and hands every other request to
// the stateless SDK handler of the rendition.
func (s *Service) serveMCP(w http.ResponseWriter, r *http.Request, rd *rendition) {
	if from := r.Header.Get("Origin"); from != "" && origin.Of(from) != rd.origin {
		p := problem.New(rd.base, problem.Forbidden, r, "Browser requests to the MCP endpoint are accepted only from "+rd.origin+", not from "+problem.Quote(from)+".")
		p.Hint = "Call the MCP endpoint from an MCP client, a server or a CLI (they send no Origin), or from a page of " + rd.origin + "."
		respond.Problem(w, r, p)
		return
	}
	body, ok := body.Read(w, r, rd.base, s.cfg.BodyTimeout, "")
	if !ok {
		return
	}
	if !json.Valid(body) {
		// The SDK answers a parse error with a text/plain 400; JSON-RPC
		// clients expect its error object (code -32700).
		respond.Write(w, r, http.StatusBadRequest, respond.MediaJSON, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not valid JSON"}}`))
		return
	}
	if !s.admitBatch(w, r, body) {
		return
	}
	if s.serveMCPAnswer(w, r, rd, body) {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rw := &rpcErrorWriter{ResponseWriter: w, id: requestID(body)}
	rd.mcpHandler().ServeHTTP(rw, r)
	rw.finish()
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

// rpcErrorWriter turns the SDK's plain-text transport errors (a bad Accept
// header, a message that is JSON but not JSON-RPC, an unknown method) into
// JSON-RPC error objects, the format MCP clients parse; everything else
// passes through.
type rpcErrorWriter struct {
	http.ResponseWriter
	// id is the request's id, when the body is one request.
	id     json.RawMessage
	status int
	text   bytes.Buffer
}

func (w *rpcErrorWriter) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *rpcErrorWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.text.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *rpcErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		f.Flush()
	}
}

func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the error object of an intercepted error, with the
// request's id when there is one: -32601, Method not found, for a method
// the server does not serve (an error of the method, not of the transport,
// so with HTTP 200 as for any other method error); otherwise -32600,
// Invalid Request, with the SDK's explanation.
func (w *rpcErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	text := strings.TrimSpace(w.text.String())
	status, code := w.status, jsonrpc.CodeInvalidRequest
	if detail, ok := strings.CutPrefix(text, sdkNotHandled+": "); ok {
		code, text = jsonrpc.CodeMethodNotFound, "Method not found: "+detail+"; this server serves MCP's lifecycle, tools and resources methods."
		if w.id != nil {
			status = http.StatusOK
		}
	}
	id := w.id
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(text)
	h := w.Header()
	h.Set("Content-Type", respond.MediaJSON)
	h.Del("Content-Length")
	w.ResponseWriter.WriteHeader(status)
	_, _ = fmt.Fprintf(w.ResponseWriter, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, msg)
}

// hostAllowed protects a server on a loopback listener from DNS rebinding:
// there a Host must be a loopback name or the configured base URL's host
// (one derived from the request proves nothing). A Caddy on 127.0.0.1
// behind a tunnel or proxy therefore works once base_url names its public
// host, or with the check turned off (MCPAnyHost).
func (s *Service) hostAllowed(r *http.Request) bool {
	if s.cfg.MCPAnyHost {
		return true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil || !origin.IsLoopback(local.String()) {
		return true
	}
	if origin.IsLoopback(r.Host) {
		return true
	}
	return s.cfg.BaseURL != "" && strings.EqualFold(origin.HostOnly(r.Host), origin.HostOnly(origin.HostOf(s.cfg.BaseURL)))
}

// refuseHost answers a request to /mcp whose Host hostAllowed refused, with
// the addresses of base, which is not that Host's.
func refuseHost(w http.ResponseWriter, r *http.Request, base string) {
	p := problem.New(base, problem.Forbidden, r, "The Host "+problem.Quote(r.Host)+" is not a name of this server.")
	p.Hint = "This server listens on a loopback address, where only loopback names (localhost, 127.0.0.1, [::1])" +
		" and the host of the configured base_url are accepted, against DNS rebinding. Call it by a loopback name;" +
		" behind a proxy or tunnel, set base_url to the public address or turn mcp_host_check off."
	respond.Problem(w, r, p)
}

// trustedBase is the base URL of the answer to a refused Host: the
// configured one, or else the address the connection reached, which names
// this server whatever Host the client sent (a page on a rebound name
// would read addresses built from that name as the site's own).
func (s *Service) trustedBase(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	return origin.ConnectionBase(r)
}
