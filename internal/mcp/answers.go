package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/cache"
	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// The SDK's stateless handler builds a session for every POST: it connects
// a server session, runs the message through its dispatch, validates the
// arguments against the tool's schema and marshals the result, about a
// millisecond of CPU for a request whose answer never changes (see
// docs/performance.md). The read requests whose answer depends
// only on the content are therefore answered from bytes the SDK itself
// produced the first time they were asked: tools/list, the first page of
// resources/list, tools/call of get_profile, list_insights, get_insight and
// fetch, and resources/read of an insight. Only the request's id differs between two such answers, and
// it is spliced in as the SDK would encode it. Searches, whose answers
// depend on their arguments, pass the same pre-check and are answered by
// encoding their result as the SDK would (see search.go). The pre-check admits a
// request only when the SDK would certainly treat it as the canonical one:
// anything else (another method, a notification, a batch, an unknown tool,
// slug or URI, an argument of another shape, _meta before protocol
// 2026-07-28, and under it a _meta or headers the SDK would refuse or act
// on; see internal/mcp/mcpcall) goes to the SDK as before.

// mcpAnswer is the SDK's answer to one canonical request, split around the
// request's id.
type mcpAnswer struct {
	once sync.Once
	// ok is false when the SDK's answer could not be kept (not a 200 JSON
	// result); the request then goes to the SDK.
	ok           bool
	head, tail   []byte
	cacheControl string
}

func (a *mcpAnswer) size() int { return len(a.head) + len(a.tail) }

// mcpAnswers are an endpoint's kept answers, by canonical request, within
// the endpoint's Budget, the least recently used dropped first.
type mcpAnswers struct {
	once sync.Once
	kept *cache.Cache[Request, *mcpAnswer]
}

// mcpAnswerID stands for the request's id in the canonical request. The
// SDK answers an integer id with its decimal digits.
const mcpAnswerID = 0

// Request is a request the pre-check recognised, in canonical
// form: the protocol version header, the method, the tool for tools/call,
// and the one argument (the tool's, or resources/read's uri) with its
// value, if any. Its strings are the rendition's own (a published slug, a
// topic, a URI), so recognising a request allocates nothing.
type Request struct {
	Version, Method, Tool, Arg, Value string
}

// params are the canonical request's params, with 2026-07-28's _meta
// under that protocol.
func (f Request) params() map[string]any {
	var p map[string]any
	switch {
	case f.Method == "resources/read":
		p = map[string]any{f.Arg: f.Value}
	case f.Method != "tools/call":
		p = map[string]any{}
	case f.Arg == "":
		p = map[string]any{"name": f.Tool, "arguments": map[string]any{}}
	default:
		p = map[string]any{"name": f.Tool, "arguments": map[string]any{f.Arg: f.Value}}
	}
	if f.Version == mcpcall.Revision2026 {
		p["_meta"] = canonicalMeta
	}
	return p
}

// Answer answers a fixed-shape request from its kept answer, made
// by the SDK on first use. It reports false, having written nothing, for
// any request it does not recognise; body has been checked to be JSON.
func (e *Endpoint) Answer(w http.ResponseWriter, r *http.Request, body []byte) bool {
	start := time.Now()
	headers, ok := mcpcall.ReadHeaders(r.Header)
	if !ok {
		return false
	}
	call, ok := mcpcall.Read(body)
	if !ok || !headers.Admits(call) {
		return false
	}
	if search, ok := readSearchCall(call, e.Searches); ok {
		id, ok := call.AnswerID(body)
		return ok && e.serveSearch(r.Context(), w, search, headers.Version, id, start)
	}
	req, ok := e.Recognise(call)
	if !ok {
		return false
	}
	id, ok := call.AnswerID(body)
	if !ok {
		return false
	}
	req.Version = headers.Version
	a := e.answer(r.Context(), req)
	if a == nil {
		return false
	}
	// One allocation for the header values, which the response owns
	// (Caddy's header directive edits values in place).
	values := []string{respond.MediaJSON, a.cacheControl, strconv.Itoa(len(a.head) + len(id) + len(a.tail))}
	h := w.Header()
	h[respond.HeaderContentType] = values[0:1:1]
	h[respond.HeaderCacheControl] = values[1:2:2]
	h[respond.HeaderContentLength] = values[2:3:3]
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.head)
	_, _ = w.Write(id)
	_, _ = w.Write(a.tail)
	e.countKept(req, start)
	return true
}

// answer returns the kept answer to the canonical request key, asking
// the SDK for it on first use; nil when the SDK's answer cannot be kept.
func (e *Endpoint) answer(ctx context.Context, key Request) *mcpAnswer {
	kept := e.keptAnswers()
	a, ok := kept.Get(key)
	if !ok {
		// Counted once the SDK has answered (see keep).
		a, _ = kept.GetOrAdd(key, new(mcpAnswer), 0)
	}
	a.once.Do(func() {
		head, tail, cacheControl, ok := e.askSDK(context.WithValue(context.WithoutCancel(ctx), uncounted{}, true), key)
		e.keep(key, a, head, tail, cacheControl, ok)
	})
	if !a.ok {
		return nil
	}
	return a
}

// askSDK sends the canonical request to the SDK and splits its answer
// around the id; ok is false when the answer is not a 200 JSON result.
func (e *Endpoint) askSDK(ctx context.Context, req Request) (head, tail []byte, cacheControl string, ok bool) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": mcpAnswerID, "method": req.Method, "params": req.params()})
	if err != nil {
		panic(err) // strings and maps of strings
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, nil, "", false
	}
	r.Header.Set("Content-Type", respond.MediaJSON)
	r.Header.Set("Accept", "application/json, text/event-stream")
	if req.Version != "" {
		r.Header.Set("Mcp-Protocol-Version", req.Version)
	}
	req.canonicalHeaders(r.Header)
	rec := &sdkAnswer{header: make(http.Header)}
	e.Handler().ServeHTTP(rec, r)
	const before = `{"jsonrpc":"2.0","id":`
	answer := rec.body.Bytes()
	rest, found := bytes.CutPrefix(answer, []byte(before+strconv.Itoa(mcpAnswerID)))
	if rec.status() != http.StatusOK || rec.header.Get("Content-Type") != respond.MediaJSON || !found || !bytes.HasPrefix(rest, []byte(`,"result":`)) {
		return nil, nil, "", false
	}
	return []byte(before), bytes.Clone(rest), rec.header.Get("Cache-Control"), true
}

// sdkAnswer holds the SDK's answer to a canonical request, which no
// client reads: the request is the endpoint's own, so there is no
// connection to write through (Caddy's recorder needs one).
type sdkAnswer struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (a *sdkAnswer) Header() http.Header { return a.header }

func (a *sdkAnswer) WriteHeader(code int) {
	if a.code == 0 {
		a.code = code
	}
}

func (a *sdkAnswer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(p)
}

// status is the answer's status, 200 when the SDK wrote none.
func (a *sdkAnswer) status() int {
	if a.code == 0 {
		return http.StatusOK
	}
	return a.code
}

// keptAnswers returns the endpoint's kept answers, made on first use with
// its Budget.
func (e *Endpoint) keptAnswers() *cache.Cache[Request, *mcpAnswer] {
	e.answers.once.Do(func() {
		budget := e.Budget
		if budget <= 0 {
			budget = DefaultBudget
		}
		e.answers.kept = cache.New[Request, *mcpAnswer](0, budget)
	})
	return e.answers.kept
}

// keep publishes an answer and accounts it, making room within the
// budget by dropping the least recently used others; one that is not a
// result, or does not fit even alone, is not kept. It runs once per
// answer, which no request reads before (a.once).
func (e *Endpoint) keep(key Request, a *mcpAnswer, head, tail []byte, cacheControl string, ok bool) {
	a.head, a.tail, a.cacheControl, a.ok = head, tail, cacheControl, ok
	kept := e.keptAnswers()
	if !ok {
		kept.Remove(key)
		return
	}
	if kept.Grow(key, a, a.size()) && e.Account != nil {
		e.Account(a.size())
	}
}

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
// answer to metaTool; false when that answer is not of the expected
// shape, {"_meta":…,"content":…,…,"resultType":"complete"}.
func (e *Endpoint) resultMeta(ctx context.Context) ([]byte, bool) {
	a := e.answer(ctx, Request{Version: mcpcall.Revision2026, Method: "tools/call", Tool: metaTool})
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
