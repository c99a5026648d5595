package caddytest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestPrecompressedDocuments checks that documents come precompressed when
// the client accepts it, with their own ETag, and unchanged when unpacked.
func TestPrecompressedDocuments(t *testing.T) {
	s := startCaddy(t, sampleSite)
	unpack := map[string]func([]byte) ([]byte, error){
		"gzip": func(b []byte) ([]byte, error) {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			return io.ReadAll(zr)
		},
		"zstd": func(b []byte) ([]byte, error) {
			zr, err := zstd.NewReader(nil)
			if err != nil {
				return nil, err
			}
			defer zr.Close()
			return zr.DecodeAll(b, nil)
		},
	}
	for _, path := range []string{"/api/v1/profile", "/api/v1/insights", "/llms-full.txt", "/openapi.json", "/developers"} {
		plain := s.get(path)
		vary := "Accept-Encoding"
		if path == "/developers" {
			vary = "Accept, User-Agent, Accept-Encoding" // it answers its Markdown by Accept or to an AI agent
		}
		if plain.Header.Get("Content-Encoding") != "" || plain.Header.Get("Vary") != vary {
			t.Errorf("%s identity: Content-Encoding %q, Vary %q", path, plain.Header.Get("Content-Encoding"), plain.Header.Get("Vary"))
		}
		for _, tc := range []struct{ accept, want string }{
			{"gzip", "gzip"},
			{"gzip, deflate, br", "gzip"},
			{"zstd, gzip", "zstd"},
			{"gzip;q=1.0, zstd;q=0", "gzip"},
			{"br", ""},
			{"gzip;q=0", ""},
		} {
			r := s.get(path, "Accept-Encoding", tc.accept)
			if got := r.Header.Get("Content-Encoding"); got != tc.want {
				t.Errorf("%s Accept-Encoding %q: Content-Encoding %q, want %q", path, tc.accept, got, tc.want)
				continue
			}
			if tc.want == "" {
				if !bytes.Equal(r.body, plain.body) {
					t.Errorf("%s Accept-Encoding %q: the identity body differs", path, tc.accept)
				}
				continue
			}
			body, err := unpack[tc.want](r.body)
			if err != nil || !bytes.Equal(body, plain.body) {
				t.Errorf("%s %s: unpacks to other bytes (%v)", path, tc.want, err)
			}
			if len(r.body) >= len(plain.body) || r.Header.Get("ETag") == plain.Header.Get("ETag") {
				t.Errorf("%s %s: %d bytes against %d, ETag %q", path, tc.want, len(r.body), len(plain.body), r.Header.Get("ETag"))
			}
			if again := s.get(path, "Accept-Encoding", tc.accept, "If-None-Match", r.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("%s %s: If-None-Match with its ETag: %d", path, tc.want, again.StatusCode)
			}
		}
	}
	if r := s.get("/api/v1/health", "Accept-Encoding", "gzip"); r.Header.Get("Content-Encoding") != "" {
		t.Error("health is compressed: it is small and changes on every request")
	}
}
