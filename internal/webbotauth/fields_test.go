package webbotauth

import (
	"bytes"
	"testing"

	"github.com/dunglas/httpsfv"
)

// The signature fields are read and the signature base is written with
// httpsfv (RFC 9651). These tests hold the parts of its behaviour the base
// depends on: what it refuses, and the canonical serialization RFC 9421
// puts in a signature base, so that an upgrade that changes either is
// noticed here rather than as signatures that no longer verify.

// serializeDict is the canonical serialization of a parsed Dictionary.
func serializeDict(d *httpsfv.Dictionary) string {
	s, err := httpsfv.Marshal(d)
	if err != nil {
		return "unserializable: " + err.Error()
	}
	return s
}

func TestParseDictionary(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" means a parse error
	}{
		{"empty", "", ""},
		{"integers", "a=1, b=-2", "a=1, b=-2"},
		{"extra whitespace", "  a=1 ,\tb=2", "a=1, b=2"},
		{"bare key is true", "a, b;x=1", "a, b;x=1"},
		{"explicit true", "a=?1", "a"},
		{"false", "a=?0", "a=?0"},
		{"params", "b=2;x=1;y=2", "b=2;x=1;y=2"},
		{"inner list", "c=(a   b   c)", "c=(a b c)"},
		{"inner list with params", `sig=("@authority" "signature-agent";key="sig");created=1;tag="web-bot-auth"`,
			`sig=("@authority" "signature-agent";key="sig");created=1;tag="web-bot-auth"`},
		{"empty inner list", "a=()", "a=()"},
		{"repeated key keeps its place", "a=1, b=2, a=3", "a=3, b=2"},
		{"repeated param", "a=1;x=1;x=2", "a=1;x=2"},
		{"string escapes", `a="q\"b\\s"`, `a="q\"b\\s"`},
		{"token", "a=foo/bar:baz*, b=*x", "a=foo/bar:baz*, b=*x"},
		{"bytes", "a=:aGVsbG8=:", "a=:aGVsbG8=:"},
		{"empty bytes", "a=::", "a=::"},
		{"decimal", "a=1.50, b=-0.001, c=123456789012.1", "a=1.5, b=-0.001, c=123456789012.1"},
		{"largest integer", "a=999999999999999", "a=999999999999999"},
		{"date", "a=@1659578233", "a=@1659578233"},
		{"display string", `a=%"f%c3%bc%22r"`, `a=%"f%c3%bc%22r"`},
		{"key characters", "a1_-.*=1, *b=2", "a1_-.*=1, *b=2"},

		{"trailing comma", "a=1,", ""},
		{"missing comma", "a=1 b=2", ""},
		{"uppercase key", "A=1", ""},
		{"key starts with digit", "1a=1", ""},
		{"bad escape", `a="\n"`, ""},
		{"control in string", "a=\"x\x01\"", ""},
		{"non-ascii in string", "a=\"caf\u00e9\"", ""},
		{"unterminated string", `a="abc`, ""},
		{"unterminated inner list", "a=(1 2", ""},
		{"comma in inner list", "a=(1,2)", ""},
		{"integer too long", "a=1234567890123456", ""},
		{"decimal integer part too long", "a=1234567890123.1", ""},
		{"decimal fraction too long", "a=1.1234", ""},
		{"decimal without fraction", "a=1.", ""},
		{"lone minus", "a=-", ""},
		{"bad boolean", "a=?2", ""},
		{"bad bytes character", "a=:a*b:", ""},
		{"unterminated bytes", "a=:aGVsbG8=", ""},
		// RFC 9651, 4.2.7, lets a parser that cannot be told otherwise
		// refuse a Byte Sequence without its padding; httpsfv does.
		{"bytes without padding", "a=:aGVsbG8:", ""},
		{"decimal date", "a=@1.5", ""},
		{"display string uppercase hex", `a=%"%C3%BC"`, ""},
		{"display string invalid utf-8", `a=%"%ff"`, ""},
		{"display string not quoted", "a=%abc", ""},
		{"empty value", "a=", ""},
		{"tab inside inner list", "a=(1\t2)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := httpsfv.UnmarshalDictionary([]string{tt.in})
			if tt.want == "" && tt.in != "" {
				if err == nil {
					t.Fatalf("parsed %q as %q, want an error", tt.in, serializeDict(d))
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalDictionary(%q): %v", tt.in, err)
			}
			if got := serializeDict(d); got != tt.want {
				t.Errorf("UnmarshalDictionary(%q) serializes as %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseItem(t *testing.T) {
	it, err := httpsfv.UnmarshalItem([]string{` "https://signature-agent.test" `})
	if s, _ := it.Value.(string); err != nil || s != "https://signature-agent.test" {
		t.Fatalf("UnmarshalItem of a string: %+v, %v", it, err)
	}
	it, err = httpsfv.UnmarshalItem([]string{":AQID:;p"})
	if b, _ := it.Value.([]byte); err != nil || !bytes.Equal(b, []byte{1, 2, 3}) || len(it.Params.Names()) != 1 {
		t.Fatalf("UnmarshalItem of bytes: %+v, %v", it, err)
	}
	for _, bad := range []string{"", `"a" "b"`, `"a",`, "(1 2)"} {
		if _, err := httpsfv.UnmarshalItem([]string{bad}); err == nil {
			t.Errorf("UnmarshalItem(%q) succeeded", bad)
		}
	}
}
