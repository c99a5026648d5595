package handlers

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// minCompressSize is the smallest body worth compressing; below it the
// encoding's overhead eats the gain.
const minCompressSize = 1024

// encoding is one compressed representation of a document. It is made
// once per document (and so per rendition, one per base URL), by the first
// request that accepts it, and served from memory after that: a site of
// thousands of insights need not compress them all at load.
type encoding struct {
	name          string
	once          sync.Once
	body          []byte // nil when compression does not pay
	etag          string // the identity ETag with a suffix per coding
	contentLength string
}

// The codings, in the order the module prefers them.
var codings = []struct {
	name     string
	compress func([]byte) []byte
}{
	{"zstd", func(b []byte) []byte { return zstdEncoder.EncodeAll(b, make([]byte, 0, len(b)/3)) }},
	{"gzip", func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(&buf)
		_, _ = zw.Write(b)
		_ = zw.Close()
		gzipWriters.Put(zw)
		return buf.Bytes()
	}},
}

// zstdEncoder is shared by every document: EncodeAll is safe for concurrent
// use.
var zstdEncoder = func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("handlers: zstd encoder: " + err.Error()) // fixed, valid options
	}
	return enc
}()

var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestCompression)
	return zw
}}

// newEncodings prepares the compressed forms of a body worth compressing.
func newEncodings(body []byte) []encoding {
	if len(body) < minCompressSize {
		return nil
	}
	out := make([]encoding, len(codings))
	for i, c := range codings {
		out[i].name = c.name
	}
	return out
}

// get returns the compressed form, making it on first use; nil when it
// would not be a tenth smaller than the identity form, or when the document
// cannot be kept (see tooLargeToKeep).
func (e *encoding) get(i int, doc *document) *encoding {
	if doc.tooLargeToKeep() {
		return nil
	}
	e.once.Do(func() {
		if doc.owner != nil {
			doc.owner.cache.slots <- struct{}{}
			defer func() { <-doc.owner.cache.slots }()
		}
		compressed := codings[i].compress(doc.body)
		if len(compressed) > len(doc.body)*9/10 {
			return
		}
		// The coders' buffers are sized for the input (zstd's a third of
		// it): keep only the bytes, so that what is kept is what is
		// accounted.
		compressed = bytes.Clone(compressed)
		if doc.owner != nil {
			doc.owner.account(len(compressed))
		}
		e.body = compressed
		// Not "-gzip" or "-zstd": Caddy's encode handler strips those
		// suffixes from If-None-Match, as they are its own.
		e.etag = strings.TrimSuffix(doc.etag, `"`) + "." + e.name + `"`
		e.contentLength = strconv.Itoa(len(compressed))
	})
	if e.body == nil {
		return nil
	}
	return e
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

// tooLargeToKeep reports whether doc belongs to a Host that is not the
// site's own and is larger than the whole cache: it is rendered for each
// request and dropped, so compressing it (seconds for tens of MB) would be
// paid every time for nothing. It is served as it is.
func (doc *document) tooLargeToKeep() bool {
	return doc.owner != nil && !doc.owner.own && len(doc.body) > doc.owner.cache.budget
}
