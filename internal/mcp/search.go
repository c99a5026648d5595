package mcp

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/caddy-discovery/caddy-discovery/internal/mcp/mcpcall"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
	"github.com/caddy-discovery/caddy-discovery/internal/search"
)

// A search's answer depends on its arguments, so it cannot be kept as the
// answers of answers.go are; yet through the SDK each call costs a
// session, the schema validation of its arguments and a marshalling of the
// result to a map and back, several times the search itself. So a
// tools/call of a search tool (Endpoint.Searches) whose arguments are plain (the
// tool's own names, each once, strings without escapes, a limit within
// its bounds) is answered here, with the bytes the SDK would write:
// the result marshalled with its members sorted, as the SDK's
// map[string]any gives them, both as structuredContent and as the text of
// the one text content. Everything else, and every search that fails
// (an empty query, a cursor of another search, a date that is not one),
// goes to the SDK, which answers it as it always did.

// SearchShape is how the endpoint answers a search tool off the SDK: the
// arguments it reads and the result it writes.
type SearchShape int

const (
	// SearchFull is search_insights': a query, limit, cursor, topic, since
	// and until, and the whole search.Output.
	SearchFull SearchShape = iota + 1
	// SearchConnector is the connectors' search: a query only, and the
	// results as {id, title, url}.
	SearchConnector
)

// searchCall is a recognised search: its tool, the tool's shape and its
// arguments.
type searchCall struct {
	tool  string
	shape SearchShape
	in    search.Input
}

// readSearchCall recognises a tools/call of a search tool of shapes whose
// arguments the SDK would read exactly as they are written.
func readSearchCall(c mcpcall.Call, shapes map[string]SearchShape) (searchCall, bool) {
	if mcpcall.PlainString(c.Method) != "tools/call" || c.URI != nil || c.Arguments == nil {
		return searchCall{}, false
	}
	call := searchCall{tool: mcpcall.PlainString(c.Name)}
	if call.shape = shapes[call.tool]; call.shape == 0 {
		return searchCall{}, false
	}
	var query, limit, cursor, topic, since, until []byte
	if !mcpcall.EachMember(c.Arguments, func(name, value []byte) bool {
		switch string(name) {
		case "query":
			return mcpcall.SetOnce(&query, value)
		}
		if call.shape != SearchFull {
			return false
		}
		switch string(name) {
		case "limit":
			return mcpcall.SetOnce(&limit, value)
		case "cursor":
			return mcpcall.SetOnce(&cursor, value)
		case "topic":
			return mcpcall.SetOnce(&topic, value)
		case "since":
			return mcpcall.SetOnce(&since, value)
		case "until":
			return mcpcall.SetOnce(&until, value)
		}
		return false
	}) {
		return searchCall{}, false
	}
	ok := true
	text := func(raw []byte) string {
		s, plain := plainValue(raw)
		ok = ok && plain
		return s
	}
	if query == nil {
		return searchCall{}, false
	}
	call.in.Query = text(query)
	call.in.Cursor, call.in.Topic, call.in.Since, call.in.Until = text(cursor), text(topic), text(since), text(until)
	if limit != nil {
		n, err := strconv.Atoi(string(limit))
		if !mcpcall.PlainInteger(limit) || err != nil || n < 1 || n > search.MaxLimit {
			return searchCall{}, false
		}
		call.in.Limit = n
	}
	// The schema bounds the cursor's length (in characters; a cursor this
	// server gave is ASCII).
	return call, ok && utf8.RuneCountInString(call.in.Cursor) <= 64
}

// plainValue is the value of an absent member (nil: "") or of a JSON
// string written without escapes, in UTF-8; false for anything else.
func plainValue(raw []byte) (string, bool) {
	if raw == nil {
		return "", true
	}
	if string(raw) == `""` {
		return "", true
	}
	s := mcpcall.PlainString(raw)
	return s, s != ""
}

// serveSearch answers a recognised search under protocol version, reporting
// false, having written nothing, when the search fails (the SDK then
// answers the error). Under 2026-07-28 the result starts with the _meta the
// SDK gives every result there and ends with its resultType.
func (e *Endpoint) serveSearch(ctx context.Context, w http.ResponseWriter, call searchCall, version string, id []byte, start time.Time) bool {
	var meta []byte
	if version == mcpcall.Revision2026 {
		var ok bool
		if meta, ok = e.resultMeta(ctx); !ok {
			return false
		}
	}
	out, err := e.Search(ctx, call.in)
	if err != nil {
		return false
	}
	buf := searchBuffers.Get().(*searchBuffer)
	defer searchBuffers.Put(buf)
	if call.shape == SearchConnector {
		buf.result = appendConnectorResult(buf.result[:0], out)
	} else {
		buf.result = appendSearchResult(buf.result[:0], out)
	}
	b := append(buf.answer[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":{`...)
	if meta != nil {
		b = append(b, `"_meta":`...)
		b = append(b, meta...)
		b = append(b, ',')
	}
	b = append(b, `"content":[{"type":"text","text":`...)
	b = appendJSONString(b, buf.result)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, buf.result...)
	if meta != nil {
		b = append(b, resultTypeComplete...)
	}
	b = append(b, "}}"...)
	buf.answer = b
	values := []string{respond.MediaJSON, sdkCacheControl, strconv.Itoa(len(b))}
	h := w.Header()
	h[respond.HeaderContentType] = values[0:1:1]
	h[respond.HeaderCacheControl] = values[1:2:2]
	h[respond.HeaderContentLength] = values[2:3:3]
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	e.countKept(Request{Method: "tools/call", Tool: call.tool}, start)
	return true
}

// sdkCacheControl is the Cache-Control of the SDK's JSON answers.
const sdkCacheControl = "no-cache, no-transform"

// searchBuffer holds the bytes of one answer while it is written.
type searchBuffer struct{ result, answer []byte }

var searchBuffers = sync.Pool{New: func() any { return new(searchBuffer) }}

// appendSearchResult appends out as the SDK marshals it: members sorted by
// name.
func appendSearchResult(b []byte, out search.Output) []byte {
	b = append(b, `{"count":`...)
	b = strconv.AppendInt(b, int64(out.Count), 10)
	if out.NextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendJSONString(b, out.NextCursor)
	}
	b = append(b, `,"query":`...)
	b = appendJSONString(b, out.Query)
	b = append(b, `,"results":[`...)
	for i, r := range out.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"date":`...)
		b = appendJSONString(b, r.Date)
		b = append(b, `,"score":`...)
		b = appendJSONFloat(b, r.Score)
		b = append(b, `,"slug":`...)
		b = appendJSONString(b, r.Slug)
		b = append(b, `,"snippet":`...)
		b = appendJSONString(b, r.Snippet)
		b = append(b, `,"title":`...)
		b = appendJSONString(b, r.Title)
		b = append(b, `,"topic":`...)
		b = appendJSONString(b, r.Topic)
		b = append(b, `,"url":`...)
		b = appendJSONString(b, r.URL)
		b = append(b, '}')
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(out.Total), 10)
	return append(b, '}')
}

// appendConnectorResult appends the connector search's result of out, as
// connectorSearch makes it and the SDK marshals it.
func appendConnectorResult(b []byte, out search.Output) []byte {
	b = append(b, `{"results":[`...)
	for i, r := range out.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, r.Slug)
		b = append(b, `,"title":`...)
		b = appendJSONString(b, r.Title)
		b = append(b, `,"url":`...)
		b = appendJSONString(b, r.URL)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendJSONString appends s as encoding/json writes a string that has
// been through it twice, as the SDK's results have: HTML characters, the
// line and paragraph separators and control characters escaped, and an
// invalid byte as U+FFFD itself (the first pass writes \ufffd, the second
// the character).
func appendJSONString[S string | []byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
