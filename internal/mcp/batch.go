package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/caddy-discovery/caddy-discovery/internal/ratelimit"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// MaxBatch is the most messages a JSON-RPC batch to /mcp may hold (MCP
// 2025-03-26 allows batches; later versions do not). A batch is capped at
// the quota when that is smaller, since a larger one could never be served.
const MaxBatch = 32

// rpcRateLimited is the JSON-RPC error code of a batch refused by the rate
// limit: one of the codes JSON-RPC leaves to the server (-32000 to -32099).
const rpcRateLimited = -32000

// BatchCap is the most messages a batch may hold under a quota of events
// (0: none).
func BatchCap(events int) int {
	if e := events; e > 0 {
		return min(MaxBatch, e)
	}
	return MaxBatch
}

// admitBatch counts a JSON-RPC batch against the client's quota: the
// request was counted once when it arrived, and each further message
// counts once more, so a batch costs what its messages would cost sent one
// by one. A batch over the cap is refused with a JSON-RPC -32600 error; one
// larger than what the client has left is refused whole, with nothing run,
// as a 429 carrying Retry-After and a JSON-RPC error for each request in
// it. It reports whether the body may go on to the MCP server; a body that
// is not a batch always may.
func (e *Endpoint) admitBatch(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
		return true
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(body, &batch); err != nil || len(batch) < 2 {
		return true // the SDK answers an empty batch; one message costs no more
	}
	if limit := BatchCap(e.Events); len(batch) > limit {
		msg := fmt.Sprintf("Invalid Request: a batch may hold at most %d messages; this one holds %d. Send them in batches of %d or fewer, or one by one.", limit, len(batch), limit)
		writeRPCErrors(w, r, http.StatusBadRequest, []json.RawMessage{nil}, -32600, msg, nil)
		return false
	}
	if e.Charge == nil {
		return true
	}
	extra := e.Charge(w.Header(), r, len(batch)-1)
	if extra.Allowed {
		return true
	}
	w.Header().Set(respond.HeaderRetryAfter, strconv.Itoa(extra.RetryAfter))
	msg := fmt.Sprintf("Rate limit exceeded: this batch of %d messages counts as %d requests, and the client has %d left of the %d the %q policy allows in %d seconds. Nothing in it was run. Retry the batch after %d seconds (the Retry-After header), or send fewer messages.",
		len(batch), len(batch), extra.Remaining, e.Events, ratelimit.PolicyName, e.WindowSeconds, extra.RetryAfter)
	data := map[string]any{"retryAfter": extra.RetryAfter, "violatedPolicies": []string{ratelimit.PolicyName}}
	writeRPCErrors(w, r, http.StatusTooManyRequests, requestIDs(batch), rpcRateLimited, msg, data)
	return false
}

// requestIDs are the ids of the batch's requests, the messages that expect
// an answer; a batch of notifications alone gets one error with a null id.
func requestIDs(batch []json.RawMessage) []json.RawMessage {
	var ids []json.RawMessage
	for _, raw := range batch {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(raw, &m) == nil && len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null")) {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		ids = []json.RawMessage{nil}
	}
	return ids
}

// writeRPCErrors answers with one JSON-RPC error object per id (nil: a null
// id): a single object for a single nil id, else a batch of them.
func writeRPCErrors(w http.ResponseWriter, r *http.Request, status int, ids []json.RawMessage, code int, message string, data any) {
	type rpcError struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   Error           `json:"error"`
	}
	errs := make([]rpcError, len(ids))
	for i, id := range ids {
		if id == nil {
			id = json.RawMessage("null")
		}
		errs[i] = rpcError{JSONRPC: "2.0", ID: id, Error: Error{Code: code, Message: message, Data: data}}
	}
	var v any = errs
	if len(ids) == 1 && ids[0] == nil {
		v = errs[0]
	}
	body, err := respond.Marshal(v)
	if err != nil {
		panic(err) // ids are valid JSON, the rest strings and ints
	}
	respond.Write(w, r, status, respond.MediaJSON, body)
}
