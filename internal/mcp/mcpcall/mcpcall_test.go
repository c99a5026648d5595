package mcpcall

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzEachMember: on any valid JSON object, EachMember sees exactly the
// members encoding/json decodes, in order, each value as written and each
// name as written (the same as encoding/json's when it holds no escape and
// is valid UTF-8); on anything else that is valid JSON it
// reports false without a panic; SkipValue ends every value where
// encoding/json does; and depth is the nesting encoding/json finds.
func FuzzEachMember(f *testing.F) {
	for _, seed := range []string{
		`{}`, ` { "a" : 1 , "b" : [1, {"c": "}"}], "d": "x\"y" } `, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`[1,2]`, `"s"`, `{"a":{"b":{"c":[]}}}`, `{"a":null,"b":true,"c":-1.5e3}`, `{"\u0061":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		if got, want := depth(raw), tokenDepth(raw); got != want {
			t.Errorf("depth(%q) = %d, encoding/json says %d", raw, got, want)
		}
		var names []string
		var values [][]byte
		ok := EachMember(raw, func(name, value []byte) bool {
			names = append(names, string(name))
			values = append(values, value)
			return true
		})
		dec := json.NewDecoder(bytes.NewReader(raw))
		tok, _ := dec.Token()
		if d, isDelim := tok.(json.Delim); !isDelim || d != '{' {
			if ok {
				t.Fatalf("EachMember took %q for an object", raw)
			}
			return
		}
		if !ok {
			t.Fatalf("EachMember refused the object %q", raw)
		}
		for i := 0; dec.More(); i++ {
			key, _ := dec.Token()
			var value json.RawMessage
			if err := dec.Decode(&value); err != nil {
				t.Fatal(err)
			}
			if i >= len(names) {
				t.Fatalf("%q: EachMember saw %d members, encoding/json more", raw, len(names))
			}
			if bytes.IndexByte([]byte(names[i]), '\\') < 0 && utf8.ValidString(names[i]) && names[i] != key.(string) {
				t.Errorf("%q: member %d is %q, encoding/json says %q", raw, i, names[i], key)
			}
			if !bytes.Equal(values[i], value) {
				t.Errorf("%q: the value of %q is %q, encoding/json says %q", raw, key, values[i], value)
			}
			if end := SkipValue(values[i], 0); end != len(values[i]) {
				t.Errorf("SkipValue(%q) = %d, want %d", values[i], end, len(values[i]))
			}
		}
	})
}

// tokenDepth is the deepest nesting of objects and arrays in raw, valid
// JSON, by encoding/json's tokens.
func tokenDepth(raw []byte) int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	d, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			d++
			deepest = max(deepest, d)
		case json.Delim('}'), json.Delim(']'):
			d--
		}
	}
}

// TestRead: a call with the members the kept requests have is read, and
// any other member, a member twice or another JSON-RPC version is not.
func TestRead(t *testing.T) {
	c, ok := Read([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_insight","arguments":{"slug":"x"}}}`))
	if !ok || string(c.ID) != "7" || PlainString(c.Method) != "tools/call" || PlainString(c.Name) != "get_insight" ||
		string(c.ArgName) != "slug" || PlainString(c.Argument) != "x" || c.ArgCount != 1 {
		t.Fatalf("Read: %+v %v", c, ok)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","extra":1}`,
		`{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/list"}`,
		`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","other":1}}`,
		`[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]`,
	} {
		if _, ok := Read([]byte(body)); ok {
			t.Errorf("Read took %s", body)
		}
	}
}
