package token

import (
	"errors"
	"fmt"
	"strings"
)

// RFC 8707 resource indicators in access tokens and authorization codes:
// the absolute URLs of what a token may be used on. The caller checks that
// each names the service and writes it in one spelling; this file encodes
// them and decides which addresses they cover.

const (
	// MaxResources is the most resources one token or code is bound to.
	MaxResources = 4
	// MaxResourcesLen is the most bytes the resources of one token or
	// code can have together; each has at most 255.
	MaxResourcesLen = 512
)

// ErrResources means resources cannot be bound to a token or code: too
// many, too long, or empty.
var ErrResources = errors.New("token: resources out of bounds")

// CheckResources reports whether resources can be bound to a token or
// code: at most MaxResources, each of 1 to 255 bytes without NUL, at most
// MaxResourcesLen together.
func CheckResources(resources []string) error {
	if len(resources) > MaxResources {
		return fmt.Errorf("%w: at most %d resources", ErrResources, MaxResources)
	}
	total := 0
	for _, r := range resources {
		if r == "" || len(r) > 255 || strings.IndexByte(r, 0) >= 0 {
			return fmt.Errorf("%w: a resource must be 1 to 255 bytes", ErrResources)
		}
		total += len(r)
	}
	if total > MaxResourcesLen {
		return fmt.Errorf("%w: at most %d bytes together", ErrResources, MaxResourcesLen)
	}
	return nil
}

// Covers reports whether a token bound to resource may be used at target,
// both absolute URLs without query or fragment: the resource itself, or an
// address under it (a path below it, at a "/"). A resource of a site's
// base URL covers the whole site; one of its /mcp only /mcp and below.
func Covers(resource, target string) bool {
	rest, ok := strings.CutPrefix(target, resource)
	return ok && (rest == "" || rest[0] == '/' || strings.HasSuffix(resource, "/"))
}

// appendResources appends the encoding of resources, which CheckResources
// accepted: their number, then each with its length as one byte.
func appendResources(b []byte, resources []string) []byte {
	b = append(b, byte(len(resources)))
	for _, r := range resources {
		b = append(b, byte(len(r)))
		b = append(b, r...)
	}
	return b
}

// readResources decodes what appendResources wrote, which must fill b.
func readResources(b []byte) ([]string, bool) {
	if len(b) == 0 {
		return nil, false
	}
	n, rest := int(b[0]), b[1:]
	resources := make([]string, 0, n)
	for range n {
		if len(rest) == 0 || len(rest) < 1+int(rest[0]) || rest[0] == 0 {
			return nil, false
		}
		resources = append(resources, string(rest[1:1+rest[0]]))
		rest = rest[1+rest[0]:]
	}
	return resources, len(rest) == 0 && n > 0
}

// coversAddress reports whether one of the encoded resources in b covers
// the address base+path, as Covers does, without allocating; ok is false
// when b is not a well-formed encoding.
func coversAddress(b []byte, base, path string) (covered, ok bool) {
	if len(b) == 0 || b[0] == 0 {
		return false, false
	}
	n, rest := int(b[0]), b[1:]
	for range n {
		if len(rest) == 0 || len(rest) < 1+int(rest[0]) || rest[0] == 0 {
			return false, false
		}
		r := rest[1 : 1+rest[0]]
		rest = rest[1+rest[0]:]
		covered = covered || coversBytes(r, base, path)
	}
	return covered, len(rest) == 0
}

// coversBytes is Covers(string(r), base+path) without building either.
func coversBytes(r []byte, base, path string) bool {
	if len(r) < len(base) || string(r[:len(base)]) != base {
		return false
	}
	res := r[len(base):] // the resource's path: "" or from a "/"
	if len(res) == 0 {
		return true
	}
	if res[len(res)-1] == '/' {
		return len(path) >= len(res) && string(path[:len(res)]) == string(res)
	}
	return len(path) >= len(res) && string(path[:len(res)]) == string(res) && (len(path) == len(res) || path[len(res)] == '/')
}
