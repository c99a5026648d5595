package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// maxBatch is the most messages a JSON-RPC batch to /mcp may hold (MCP
// 2025-03-26 allows batches; later versions do not). A batch is capped at
// the quota when that is smaller, since a larger one could never be served.
const maxBatch = 32

// batchCap is the most messages a batch may hold in this configuration.
func (c *Config) batchCap() int {
	if e := c.RateLimit.Events; e > 0 {
		return min(maxBatch, e)
	}
	return maxBatch
}

// admitBatch refuses a JSON-RPC batch over the cap with a JSON-RPC -32600
// error. It reports whether the body may go on to the MCP server; a body
// that is not a batch always may.
func (s *Service) admitBatch(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
		return true
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(body, &batch); err != nil || len(batch) < 2 {
		return true // the SDK answers an empty batch
	}
	if limit := s.cfg.batchCap(); len(batch) > limit {
		msg := fmt.Sprintf("Invalid Request: a batch may hold at most %d messages; this one holds %d. Send them in batches of %d or fewer, or one by one.", limit, len(batch), limit)
		writeRPCErrors(w, r, http.StatusBadRequest, []json.RawMessage{nil}, -32600, msg, nil)
		return false
	}
	return true
}

// writeRPCErrors answers with one JSON-RPC error object per id (nil: a null
// id): a single object for a single nil id, else a batch of them.
func writeRPCErrors(w http.ResponseWriter, r *http.Request, status int, ids []json.RawMessage, code int, message string, data any) {
	type rpcError struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpcError    `json:"error"`
	}
	errs := make([]rpcError, len(ids))
	for i, id := range ids {
		if id == nil {
			id = json.RawMessage("null")
		}
		errs[i] = rpcError{JSONRPC: "2.0", ID: id, Error: jsonrpcError{Code: code, Message: message, Data: data}}
	}
	var v any = errs
	if len(ids) == 1 && ids[0] == nil {
		v = errs[0]
	}
	body, err := marshal(v)
	if err != nil {
		panic(err) // ids are valid JSON, the rest strings and ints
	}
	write(w, r, status, mediaJSON, body)
}
