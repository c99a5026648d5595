package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/caddy-discovery/caddy-discovery/content"
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
// encoding their result as the SDK would (see mcp_search.go). The pre-check admits a
// request only when the SDK would certainly treat it as the canonical one:
// anything else (another method, a notification, a batch, an unknown tool,
// slug or URI, an argument of another shape, _meta before protocol
// 2026-07-28, and under it a _meta or headers the SDK would refuse or act
// on; see mcp_revision.go) goes to the SDK as before.

// mcpAnswerBudget bounds the bytes of answers a rendition keeps. Answers
// past it are made room for by dropping others; each is made again by the
// SDK when next asked for.
const mcpAnswerBudget = 32 << 20

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

// mcpAnswers are a rendition's kept answers, by canonical request.
type mcpAnswers struct {
	mu     sync.RWMutex
	byKey  map[fixedMCPRequest]*mcpAnswer
	total  int
	budget int
}

// mcpAnswerID stands for the request's id in the canonical request. The
// SDK answers an integer id with its decimal digits.
const mcpAnswerID = 0

// fixedMCPRequest is a request the pre-check recognised, in canonical
// form: the protocol version header, the method, the tool for tools/call,
// and the one argument (the tool's, or resources/read's uri) with its
// value, if any. Its strings are the rendition's own (a published slug, a
// topic, a URI), so recognising a request allocates nothing.
type fixedMCPRequest struct {
	version, method, tool, arg, value string
}

// params are the canonical request's params, with 2026-07-28's _meta
// under that protocol.
func (f fixedMCPRequest) params() map[string]any {
	var p map[string]any
	switch {
	case f.method == "resources/read":
		p = map[string]any{f.arg: f.value}
	case f.method != "tools/call":
		p = map[string]any{}
	case f.arg == "":
		p = map[string]any{"name": f.tool, "arguments": map[string]any{}}
	default:
		p = map[string]any{"name": f.tool, "arguments": map[string]any{f.arg: f.value}}
	}
	if f.version == mcpRevision2026 {
		p["_meta"] = canonicalMeta
	}
	return p
}

// serveMCPAnswer answers a fixed-shape request from its kept answer, made
// by the SDK on first use. It reports false, having written nothing, for
// any request it does not recognise; body has been checked to be JSON.
func (s *Service) serveMCPAnswer(w http.ResponseWriter, r *http.Request, rd *rendition, body []byte) bool {
	start := time.Now()
	headers, ok := fixedMCPHeaders(r.Header)
	if !ok {
		return false
	}
	call, ok := readFixedCall(body)
	if !ok || !headers.admits(call) {
		return false
	}
	if search, ok := readSearchCall(call); ok {
		id, ok := call.answerID(body)
		return ok && rd.serveSearch(r.Context(), w, search, headers.version, id, start)
	}
	req, ok := rd.fixedMCPRequest(call)
	if !ok {
		return false
	}
	id, ok := call.answerID(body)
	if !ok {
		return false
	}
	req.version = headers.version
	a := rd.mcpAnswer(r.Context(), req)
	if a == nil {
		return false
	}
	// One allocation for the header values, which the response owns
	// (Caddy's header directive edits values in place).
	values := []string{mediaJSON, a.cacheControl, strconv.Itoa(len(a.head) + len(id) + len(a.tail))}
	h := w.Header()
	h[headerContentType] = values[0:1:1]
	h[headerCacheControl] = values[1:2:2]
	h[headerContentLength] = values[2:3:3]
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.head)
	_, _ = w.Write(id)
	_, _ = w.Write(a.tail)
	countKept(req, start)
	return true
}

// fixedMCPHeaders reports whether the headers are ones the SDK answers the
// same way for every request of a kind, and gives the protocol version
// they name and, under 2026-07-28, Mcp-Method and Mcp-Name, which admits
// compares with the body. Stricter than the SDK: a header it would reject
// or act on (Last-Event-ID, Mcp-Session-Id, Mcp-Param-*, one of those
// three twice) sends the request to the SDK.
func fixedMCPHeaders(h http.Header) (m mcpHeaders, ok bool) {
	if ct := h[headerContentType]; len(ct) != 1 || !strings.EqualFold(ct[0], mediaJSON) {
		return mcpHeaders{}, false
	}
	if json, stream := acceptsMCP(h["Accept"]); !json || !stream {
		return mcpHeaders{}, false
	}
	for name, values := range h {
		if !strings.HasPrefix(name, "Mcp-") && name != "Last-Event-Id" {
			continue
		}
		if len(values) != 1 {
			return mcpHeaders{}, false
		}
		switch name {
		case "Mcp-Protocol-Version":
		case "Mcp-Method":
			m.method, m.hasMethod = values[0], true
		case "Mcp-Name":
			m.name, m.hasName = values[0], true
		default:
			return mcpHeaders{}, false
		}
	}
	switch v := h.Get("Mcp-Protocol-Version"); v {
	case "":
	case "2025-03-26":
		m.version = "2025-03-26"
	case "2025-06-18":
		m.version = "2025-06-18"
	case "2025-11-25":
		m.version = "2025-11-25"
	case mcpRevision2026:
		m.version = mcpRevision2026
	default:
		return mcpHeaders{}, false
	}
	return m, true
}

// acceptsMCP is the SDK's test of Accept: both application/json and
// text/event-stream, or wildcards covering them.
func acceptsMCP(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for raw := range strings.SplitSeq(value, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// rpcCall is a JSON-RPC call as read by readFixedCall: raw JSON values, the
// params' and arguments' members that matter. Absent members are nil.
type rpcCall struct {
	id, method []byte
	// meta is params' _meta.
	meta []byte
	// params is the whole params value; name, arguments and uri are its
	// members, and argument the first member of arguments (argName), of
	// argCount.
	params, name, arguments, uri []byte
	argName, argument            []byte
	argCount                     int
}

// readFixedCall reads a body holding one JSON-RPC call with the members
// the fixed requests have: jsonrpc "2.0", an id, a method and params of
// at most name and arguments (tools/call), or uri (resources/read); the
// arguments an object. Any other member, a member twice, or a
// member name written with escapes (which the SDK would decode) leaves
// the body to the SDK.
func readFixedCall(body []byte) (rpcCall, bool) {
	var c rpcCall
	var version []byte
	ok := eachMember(body, func(name, value []byte) bool {
		switch string(name) {
		case "jsonrpc":
			return setOnce(&version, value)
		case "id":
			return setOnce(&c.id, value)
		case "method":
			return setOnce(&c.method, value)
		case "params":
			return setOnce(&c.params, value)
		}
		return false
	})
	if !ok || string(version) != `"2.0"` || c.id == nil || c.method == nil {
		return rpcCall{}, false
	}
	if c.params != nil && !eachMember(c.params, func(name, value []byte) bool {
		switch string(name) {
		case "name":
			return setOnce(&c.name, value)
		case "arguments":
			return setOnce(&c.arguments, value)
		case "uri":
			return setOnce(&c.uri, value)
		case "_meta":
			return setOnce(&c.meta, value)
		}
		return false
	}) {
		return rpcCall{}, false
	}
	if c.arguments != nil && !eachMember(c.arguments, func(name, value []byte) bool {
		if c.argName == nil {
			c.argName, c.argument = name, value
		}
		c.argCount++
		return true
	}) {
		return rpcCall{}, false
	}
	return c, true
}

func setOnce(dst *[]byte, value []byte) bool {
	if *dst != nil {
		return false
	}
	*dst = value
	return true
}

// fixedMCPRequest recognises a call whose answer depends on the content
// only, naming something that exists, and gives its canonical form.
func (rd *rendition) fixedMCPRequest(c rpcCall) (fixedMCPRequest, bool) {
	switch plainString(c.method) {
	case "tools/list", "resources/list":
		// The first page: a cursor goes to the SDK.
		if c.params == nil || (c.name == nil && c.arguments == nil && c.uri == nil) {
			return fixedMCPRequest{method: plainString(c.method)}, true
		}
	case "resources/read":
		if c.name != nil || c.arguments != nil {
			break
		}
		if slug, ok := rd.resourceSlug(plainString(c.uri)); ok {
			return fixedMCPRequest{method: "resources/read", arg: "uri", value: rd.insight(slug)}, true
		}
	case "tools/call":
		if c.uri != nil {
			break
		}
		return rd.fixedToolCall(c)
	}
	return fixedMCPRequest{}, false
}

// fixedToolCall recognises a call of a tool whose result depends on the
// content and its arguments only, with arguments naming something that
// exists.
func (rd *rendition) fixedToolCall(c rpcCall) (fixedMCPRequest, bool) {
	if c.argCount > 1 {
		return fixedMCPRequest{}, false
	}
	noArgs := c.argName == nil
	arg := plainString(c.argument)
	switch plainString(c.name) {
	case "get_profile":
		if noArgs {
			return fixedMCPRequest{method: "tools/call", tool: "get_profile"}, true
		}
	case "list_insights":
		if noArgs || (string(c.argName) == "topic" && string(c.argument) == `""`) {
			return fixedMCPRequest{method: "tools/call", tool: "list_insights"}, true
		}
		if string(c.argName) != "topic" || arg == "" {
			break
		}
		// The tool compares topics case-insensitively; the answer is the
		// same for every spelling of one.
		for _, t := range rd.cfg.topics {
			if strings.EqualFold(t, strings.TrimSpace(arg)) {
				return fixedMCPRequest{method: "tools/call", tool: "list_insights", arg: "topic", value: t}, true
			}
		}
	case "get_insight":
		if i, ok := rd.cfg.bySlug[arg]; ok && string(c.argName) == "slug" && content.ValidSlug(arg) {
			return fixedMCPRequest{method: "tools/call", tool: "get_insight", arg: "slug", value: rd.cfg.Site.Insights[i].Slug}, true
		}
	case "fetch":
		if i, ok := rd.cfg.bySlug[arg]; ok && string(c.argName) == "id" && content.ValidSlug(arg) {
			return fixedMCPRequest{method: "tools/call", tool: "fetch", arg: "id", value: rd.cfg.Site.Insights[i].Slug}, true
		}
	}
	return fixedMCPRequest{}, false
}

// resourceSlug is the slug of the insight whose resource URI (its page's
// address) is uri.
func (rd *rendition) resourceSlug(uri string) (string, bool) {
	link := uri
	if rest, ok := strings.CutPrefix(uri, rd.base); ok && strings.HasPrefix(rest, "/") {
		link = rest
	}
	slug, ok := rd.cfg.slugOfPage[link]
	return slug, ok && rd.insight(slug) == uri
}

// plainString is the value of a JSON string written without escapes, in
// UTF-8; "" for anything else. Decoders differ on invalid bytes and lone
// surrogates, and the names, slugs, topics and URIs recognised need
// neither escapes nor those.
func plainString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return ""
	}
	return string(inner)
}

// answerID is the call's id as the SDK writes it in its answer. An integer
// of at most 15 digits (exact in the float64 the SDK's decoder reads
// numbers as) and a string without escapes, in UTF-8 and without the two
// characters encoding/json escapes everywhere (U+2028, U+2029), come back
// as sent (-0 as 0). For any other id (a fraction, an exponent, a larger
// integer, escapes) the body is read by the SDK's own decoder; a null id
// makes the call a notification, which is not answered here.
func (c rpcCall) answerID(body []byte) ([]byte, bool) {
	raw := c.id
	if len(raw) >= 2 && raw[0] == '"' {
		inner := raw[1 : len(raw)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) && !bytes.Contains(inner, []byte("\u2028")) && !bytes.Contains(inner, []byte("\u2029")) {
			return raw, true
		}
	} else if plainInteger(raw) {
		if string(raw) == "-0" {
			return raw[1:], true
		}
		return raw, true
	}
	msg, err := jsonrpc.DecodeMessage(body)
	req, isRequest := msg.(*jsonrpc.Request)
	if err != nil || !isRequest || !req.IsCall() {
		return nil, false
	}
	switch id := req.ID.Raw().(type) {
	case int64:
		return strconv.AppendInt(nil, id, 10), true
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(id) != nil {
			return nil, false
		}
		return bytes.TrimRight(buf.Bytes(), "\n"), true
	}
	return nil, false
}

// plainInteger: -?digits, at most 15, no leading zero.
func plainInteger(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// eachMember calls member for each member of the JSON object raw, valid
// JSON, with its name as written (between the quotes, escapes not decoded)
// and its raw value. It reports false when raw is not an object or member
// returns false.
func eachMember(raw []byte, member func(name, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) && raw[i] == '"' {
		end := skipValue(raw, i)
		name := raw[i+1 : end-1]
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		end = skipValue(raw, i)
		if end <= i || !member(name, raw[i:end]) {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
	return false
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
		i++
	}
	return i
}

// skipValue is the end of the JSON value starting at raw[i], in valid
// JSON.
func skipValue(raw []byte, i int) int {
	depth, inString, escaped := 0, false, false
	for j := i; j < len(raw); j++ {
		c := raw[j]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if depth == 0 {
					return j + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return j
		}
	}
	return len(raw)
}

// mcpAnswer returns the kept answer to the canonical request key, asking
// the SDK for it on first use; nil when the SDK's answer cannot be kept.
func (rd *rendition) mcpAnswer(ctx context.Context, key fixedMCPRequest) *mcpAnswer {
	store := &rd.answers
	store.mu.RLock()
	a := store.byKey[key]
	store.mu.RUnlock()
	if a == nil {
		store.mu.Lock()
		if store.byKey == nil {
			store.byKey = make(map[fixedMCPRequest]*mcpAnswer)
			store.budget = mcpAnswerBudget
			if rd.cache != nil {
				// A request-derived rendition shares the cache's budget.
				store.budget = rd.cache.budget / 4
			}
		}
		if a = store.byKey[key]; a == nil {
			a = new(mcpAnswer)
			store.byKey[key] = a
		}
		store.mu.Unlock()
	}
	a.once.Do(func() {
		head, tail, cacheControl, ok := rd.askSDK(context.WithValue(context.WithoutCancel(ctx), uncounted{}, true), key)
		rd.keep(key, a, head, tail, cacheControl, ok)
	})
	if !a.ok {
		return nil
	}
	return a
}

// askSDK sends the canonical request to the SDK and splits its answer
// around the id; ok is false when the answer is not a 200 JSON result.
func (rd *rendition) askSDK(ctx context.Context, req fixedMCPRequest) (head, tail []byte, cacheControl string, ok bool) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": mcpAnswerID, "method": req.method, "params": req.params()})
	if err != nil {
		panic(err) // strings and maps of strings
	}
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
	r.Header.Set("Content-Type", mediaJSON)
	r.Header.Set("Accept", "application/json, text/event-stream")
	if req.version != "" {
		r.Header.Set("Mcp-Protocol-Version", req.version)
	}
	req.canonicalHeaders(r.Header)
	rec := httptest.NewRecorder()
	rd.mcpHandler().ServeHTTP(rec, r)
	const before = `{"jsonrpc":"2.0","id":`
	answer := rec.Body.Bytes()
	rest, found := bytes.CutPrefix(answer, []byte(before+strconv.Itoa(mcpAnswerID)))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != mediaJSON || !found || !bytes.HasPrefix(rest, []byte(`,"result":`)) {
		return nil, nil, "", false
	}
	return []byte(before), bytes.Clone(rest), rec.Header().Get("Cache-Control"), true
}

// keep publishes an answer and accounts it, making room within the
// budget by dropping others; one that is not a result, or does not fit
// even alone, is not kept.
func (rd *rendition) keep(key fixedMCPRequest, a *mcpAnswer, head, tail []byte, cacheControl string, ok bool) {
	store := &rd.answers
	store.mu.Lock()
	a.head, a.tail, a.cacheControl, a.ok = head, tail, cacheControl, ok
	if !ok || a.size() > store.budget {
		delete(store.byKey, key)
		store.mu.Unlock()
		return
	}
	for k, other := range store.byKey {
		if store.total+a.size() <= store.budget {
			break
		}
		if other != a && other.ok {
			delete(store.byKey, k)
			store.total -= other.size()
		}
	}
	store.total += a.size()
	store.mu.Unlock()
	if rd.cache != nil {
		rd.account(a.size())
	}
}
