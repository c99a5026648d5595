// Package mcpcall reads an MCP JSON-RPC call straight off its bytes, for
// the answers the module keeps and the searches it answers without the
// SDK: whether a request's headers and body are ones the SDK would
// certainly accept and answer as the canonical request of their kind (one
// call, the members the kept requests have, a _meta and headers the SDK
// reads without fail under protocol 2026-07-28), and the id the answer
// carries, as the SDK would write it. It decodes nothing it does not need
// and refuses, leaving the request to the SDK, whatever it is not sure of.
//
// Imports from the module: none.
package mcpcall

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Revision2026 is the protocol version of the stateless revision.
const Revision2026 = "2026-07-28"

// Versions are the MCP protocol versions the endpoint speaks, newest
// first: those its server card declares and the pre-check admits.
var Versions = []string{Revision2026, "2025-11-25", "2025-06-18", "2025-03-26"}

// The per-request _meta members of 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// Headers are the MCP headers of a request: the protocol version and,
// under 2026-07-28, Mcp-Method and Mcp-Name.
type Headers struct {
	Version, Method, Name string
	HasMethod, HasName    bool
}

// Admits reports whether a call with these headers is one the SDK answers
// as the canonical request of its kind: before 2026-07-28, a call without
// _meta (whose members the SDK would act on); under it, a call whose _meta
// the SDK reads without fail and whose Mcp-Method and Mcp-Name say what
// the body says (the SDK refuses a mismatch). Mcp-Name is required of
// tools/call and resources/read and, being ignored by the SDK elsewhere,
// refused here on the lists.
func (h Headers) Admits(c Call) bool {
	if h.Version != Revision2026 {
		return c.Meta == nil && !h.HasMethod && !h.HasName
	}
	method := PlainString(c.Method)
	if !h.HasMethod || h.Method != method || method == "" || !readableMeta(c.Meta) {
		return false
	}
	switch method {
	case "tools/call":
		return h.HasName && h.Name != "" && h.Name == PlainString(c.Name)
	case "resources/read":
		return h.HasName && h.Name != "" && h.Name == PlainString(c.URI)
	}
	return !h.HasName
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
	return EachMember(raw, func(name, value []byte) bool {
		switch string(name) {
		case MetaProtocolVersion:
			return SetOnce(&version, value)
		case MetaClientCapabilities:
			return SetOnce(&capabilities, value)
		case MetaClientInfo:
			return SetOnce(&info, value)
		}
		return false
	}) && string(version) == `"`+Revision2026+`"` && readableCapabilities(capabilities) && (info == nil || readableClientInfo(info))
}

// readableCapabilities reports whether raw is client capabilities the SDK
// decodes without fail: an object whose members are objects, each at most
// once, those the SDK knows holding what it expects (roots' listChanged a
// boolean; sampling's context and tools, elicitation's form and url
// objects). Members it does not know it ignores, as it does the
// experimental and extensions settings, which it keeps as they are.
func readableCapabilities(raw []byte) bool {
	seen := map[string]bool{}
	return EachMember(raw, func(name, value []byte) bool {
		if seen[string(name)] || !IsObject(value) {
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
				return (string(name) == "context" || string(name) == "tools") && IsObject(value)
			})
		case "elicitation":
			return membersAre(value, func(name, value []byte) bool {
				return (string(name) == "form" || string(name) == "url") && IsObject(value)
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
	return EachMember(raw, func(name, value []byte) bool {
		for _, n := range names {
			if bytes.Equal(n, name) {
				return false
			}
		}
		names = append(names, name)
		return ok(name, value)
	})
}

// IsObject reports whether raw, valid JSON, is an object.
func IsObject(raw []byte) bool { return len(raw) > 0 && raw[0] == '{' }

// depth is the deepest nesting of objects and arrays in raw, valid JSON.
func depth(raw []byte) int {
	d, deepest := 0, 0
	var str stringState
	for _, c := range raw {
		if str.holds(c) {
			continue
		}
		switch c {
		case '{', '[':
			d++
			deepest = max(deepest, d)
		case '}', ']':
			d--
		}
	}
	return deepest
}

// stringState follows the strings of valid JSON a byte at a time, so that
// a scan can tell structure from text.
type stringState struct{ in, escaped bool }

// holds reports whether c, the next byte, belongs to a string, its quotes
// included; a byte it does not hold is structure.
func (s *stringState) holds(c byte) bool {
	switch {
	case s.escaped:
		s.escaped = false
	case s.in && c == '\\':
		s.escaped = true
	case c == '"':
		s.in = !s.in
	default:
		return s.in
	}
	return true
}

// ReadHeaders reports whether the headers are ones the SDK answers the
// same way for every request of a kind, and gives the protocol version
// they name and, under 2026-07-28, Mcp-Method and Mcp-Name, which admits
// compares with the body. Stricter than the SDK: a header it would reject
// or act on (Last-Event-ID, Mcp-Session-Id, Mcp-Param-*, one of those
// three twice) sends the request to the SDK.
func ReadHeaders(h http.Header) (m Headers, ok bool) {
	if ct := h["Content-Type"]; len(ct) != 1 || !strings.EqualFold(ct[0], "application/json") {
		return Headers{}, false
	}
	if json, stream := AcceptsMCP(h["Accept"]); !json || !stream {
		return Headers{}, false
	}
	for name, values := range h {
		if !strings.HasPrefix(name, "Mcp-") && name != "Last-Event-Id" {
			continue
		}
		if len(values) != 1 {
			return Headers{}, false
		}
		switch name {
		case "Mcp-Protocol-Version":
		case "Mcp-Method":
			m.Method, m.HasMethod = values[0], true
		case "Mcp-Name":
			m.Name, m.HasName = values[0], true
		default:
			return Headers{}, false
		}
	}
	if v := h.Get("Mcp-Protocol-Version"); v != "" {
		i := slices.Index(Versions, v)
		if i < 0 {
			return Headers{}, false
		}
		m.Version = Versions[i] // the constant, not the header's copy
	}
	return m, true
}

// AcceptsMCP is the SDK's test of Accept: both application/json and
// text/event-stream, or wildcards covering them.
func AcceptsMCP(values []string) (jsonOK, streamOK bool) {
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

// Call is a JSON-RPC call as read by Read: raw JSON values, the
// params' and arguments' members that matter. Absent members are nil.
type Call struct {
	ID, Method []byte
	// Meta is params' _meta.
	Meta []byte
	// Params is the whole params value; Name, Arguments and URI are its
	// members, and Argument the first member of Arguments (named ArgName),
	// of ArgCount.
	Params, Name, Arguments, URI []byte
	ArgName, Argument            []byte
	ArgCount                     int
}

// Read reads a body holding one JSON-RPC call with the members
// the fixed requests have: jsonrpc "2.0", an id, a method and params of
// at most name and arguments (tools/call), or uri (resources/read); the
// arguments an object. Any other member, a member twice, or a
// member name written with escapes (which the SDK would decode) leaves
// the body to the SDK.
func Read(body []byte) (Call, bool) {
	var c Call
	var version []byte
	ok := EachMember(body, func(name, value []byte) bool {
		switch string(name) {
		case "jsonrpc":
			return SetOnce(&version, value)
		case "id":
			return SetOnce(&c.ID, value)
		case "method":
			return SetOnce(&c.Method, value)
		case "params":
			return SetOnce(&c.Params, value)
		}
		return false
	})
	if !ok || string(version) != `"2.0"` || c.ID == nil || c.Method == nil {
		return Call{}, false
	}
	if c.Params != nil && !EachMember(c.Params, func(name, value []byte) bool {
		switch string(name) {
		case "name":
			return SetOnce(&c.Name, value)
		case "arguments":
			return SetOnce(&c.Arguments, value)
		case "uri":
			return SetOnce(&c.URI, value)
		case "_meta":
			return SetOnce(&c.Meta, value)
		}
		return false
	}) {
		return Call{}, false
	}
	if c.Arguments != nil && !EachMember(c.Arguments, func(name, value []byte) bool {
		if c.ArgName == nil {
			c.ArgName, c.Argument = name, value
		}
		c.ArgCount++
		return true
	}) {
		return Call{}, false
	}
	return c, true
}

// SetOnce sets *dst to value unless it is set already, and reports
// whether it did: a member named twice refuses the call.
func SetOnce(dst *[]byte, value []byte) bool {
	if *dst != nil {
		return false
	}
	*dst = value
	return true
}

// PlainString is the value of a JSON string written without escapes, in
// UTF-8; "" for anything else. Decoders differ on invalid bytes and lone
// surrogates, and the names, slugs, topics and URIs recognised need
// neither escapes nor those.
func PlainString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return ""
	}
	return string(inner)
}

// AnswerID is the call's id as the SDK writes it in its answer. An integer
// of at most 15 digits (exact in the float64 the SDK's decoder reads
// numbers as) and a string without escapes, in UTF-8 and without the two
// characters encoding/json escapes everywhere (U+2028, U+2029), come back
// as sent (-0 as 0). For any other id (a fraction, an exponent, a larger
// integer, escapes) the body is read by the SDK's own decoder; a null id
// makes the call a notification, which is not answered here.
func (c Call) AnswerID(body []byte) ([]byte, bool) {
	raw := c.ID
	if len(raw) >= 2 && raw[0] == '"' {
		inner := raw[1 : len(raw)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) && !bytes.Contains(inner, []byte("\u2028")) && !bytes.Contains(inner, []byte("\u2029")) {
			return raw, true
		}
	} else if PlainInteger(raw) {
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

// PlainInteger: -?digits, at most 15, no leading zero.
func PlainInteger(raw []byte) bool {
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

// EachMember calls member for each member of the JSON object raw, valid
// JSON, with its name as written (between the quotes, escapes not decoded)
// and its raw value. It reports false when raw is not an object or member
// returns false.
func EachMember(raw []byte, member func(name, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) && raw[i] == '"' {
		end := SkipValue(raw, i)
		name := raw[i+1 : end-1]
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		end = SkipValue(raw, i)
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

// SkipValue is the end of the JSON value starting at raw[i], in valid
// JSON.
func SkipValue(raw []byte, i int) int {
	depth := 0
	var str stringState
	for j := i; j < len(raw); j++ {
		c := raw[j]
		if str.holds(c) {
			if c == '"' && !str.in && depth == 0 {
				return j + 1 // a string value's closing quote
			}
			continue
		}
		switch {
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
