package caddytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// batchOf is a JSON-RPC batch of n search_insights calls with ids 1 to n.
func batchOf(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_insights","arguments":{"query":"data contracts","limit":1}}}`, i+1)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// rpcAnswer is one JSON-RPC response object.
type rpcAnswer struct {
	ID     any            `json:"id"`
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// Without a rate limit only the cap applies.
func TestMCPBatchWithoutRateLimit(t *testing.T) {
	s := startCaddy(t, limitedSite("batch-off", "rate_limit off"))
	r := s.mcpPost(batchOf(32))
	var answers []rpcAnswer
	if err := json.Unmarshal(r.body, &answers); err != nil || r.StatusCode != http.StatusOK || len(answers) != 32 {
		t.Errorf("batch of 32: %d %s", r.StatusCode, r.body)
	}
	if r.Header.Get("RateLimit") != "" {
		t.Errorf("RateLimit %q with rate_limit off", r.Header.Get("RateLimit"))
	}
	s.validate(r)
	r = s.mcpPost(batchOf(33))
	var invalid rpcAnswer
	if err := json.Unmarshal(r.body, &invalid); err != nil || r.StatusCode != http.StatusBadRequest ||
		invalid.Error == nil || invalid.Error.Code != -32600 || !strings.Contains(invalid.Error.Message, "at most 32 messages") {
		t.Errorf("batch of 33: %d %s", r.StatusCode, r.body)
	}
	s.validate(r)
}
