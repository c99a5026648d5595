package caddytest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestServerCardMatchesInitialize: what the server card says of the server
// (its name, version and capabilities) is what initialize answers, in every
// protocol version, so a client that reads the card first is not misled.
func TestServerCardMatchesInitialize(t *testing.T) {
	s := startCaddy(t, sampleSite)
	var card struct {
		Endpoint     string          `json:"endpoint"`
		Capabilities json.RawMessage `json:"capabilities"`
		ServerInfo   struct {
			Name, Title, Version string
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(s.get("/.well-known/mcp/server-card.json").body, &card); err != nil {
		t.Fatal(err)
	}
	if card.Endpoint != base+"/mcp" {
		t.Errorf("endpoint %q, want %s/mcp", card.Endpoint, base)
	}
	want := decode(t, "the card's capabilities", card.Capabilities)

	// The raw answer, as any client reads it.
	for _, version := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		r := s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"card","version":"1"}}}`,
			"MCP-Protocol-Version", version)
		var answer struct {
			Result struct {
				Capabilities json.RawMessage `json:"capabilities"`
				ServerInfo   struct{ Name, Title, Version string }
			} `json:"result"`
		}
		if err := json.Unmarshal(r.body, &answer); err != nil {
			t.Fatalf("initialize %s: %v: %s", version, err, r.body)
		}
		if got := decode(t, "initialize's capabilities", answer.Result.Capabilities); !reflect.DeepEqual(got, want) {
			t.Errorf("initialize %s: capabilities %s, the card says %s", version, answer.Result.Capabilities, card.Capabilities)
		}
		if answer.Result.ServerInfo != card.ServerInfo {
			t.Errorf("initialize %s: serverInfo %+v, the card says %+v", version, answer.Result.ServerInfo, card.ServerInfo)
		}
	}

	// What the SDK client makes of every version's handshake, the newest
	// (server/discover) included.
	for _, version := range mcpVersions {
		res := connectMCP(t, s, version).InitializeResult()
		raw, err := json.Marshal(res.Capabilities)
		if err != nil {
			t.Fatal(err)
		}
		if got := decode(t, "the client's capabilities", raw); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the client sees capabilities %s, the card says %s", version, raw, card.Capabilities)
		}
		if res.ServerInfo.Name != card.ServerInfo.Name || res.ServerInfo.Version != card.ServerInfo.Version {
			t.Errorf("%s: the client sees server %s %s, the card says %s %s", version,
				res.ServerInfo.Name, res.ServerInfo.Version, card.ServerInfo.Name, card.ServerInfo.Version)
		}
	}
}

func decode(t *testing.T, what string, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, raw)
	}
	return v
}
