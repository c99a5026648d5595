package handlers

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// minCompressSize is the smallest body worth compressing; below it the
// encoding's overhead eats the gain.
const minCompressSize = 1024

// encoding is one precompressed representation of a document.
type encoding struct {
	name          string   // the Content-Encoding token
	body          []byte   // the compressed bytes
	etag          []string // the identity ETag with a suffix per encoding
	contentLength []string
	contentCoding []string
}

// zstdEncoder is shared by every document: EncodeAll is safe for concurrent
// use, and one encoder keeps its tables once.
var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))

// compress precomputes the zstd and gzip forms of body (in the order the
// module prefers them) where they are smaller by a tenth or more.
func compress(body []byte, etag string) []encoding {
	if len(body) < minCompressSize {
		return nil
	}
	var out []encoding
	add := func(name string, compressed []byte) {
		if len(compressed) > len(body)*9/10 {
			return
		}
		out = append(out, encoding{
			name:          name,
			body:          compressed,
			etag:          []string{strings.TrimSuffix(etag, `"`) + "-" + name + `"`},
			contentLength: []string{strconv.Itoa(len(compressed))},
			contentCoding: []string{name},
		})
	}
	add("zstd", zstdEncoder.EncodeAll(body, make([]byte, 0, len(body)/3)))
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	add("gzip", gz.Bytes())
	return out
}

// acceptsEncoding reports whether an Accept-Encoding header value admits
// the coding name with a non-zero quality.
func acceptsEncoding(header, name string) bool {
	for len(header) > 0 {
		var item string
		item, header, _ = strings.Cut(header, ",")
		coding, params, _ := strings.Cut(item, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), name) {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "q") {
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				return err == nil && q > 0
			}
		}
		return true
	}
	return false
}
