package webbotauth

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dunglas/httpsfv"
)

// The signature base of RFC 9421, section 2.5: one line per covered
// component, its identifier and its value taken from the request, and the
// signature parameters last. Every derived component a request can have is
// supported (@method, @target-uri, @authority, @scheme, @request-target,
// @path, @query, @query-param), and header fields whole or as one member of
// a Dictionary (the key parameter), which is how a signature covers its
// Signature-Agent member. What the request lacks, and the parameters this
// package does not implement (sf, bs, tr, req), make the base fail rather
// than be guessed.

// signatureBase returns the signature base for r of the signature whose
// Signature-Input member is covered: an Inner List of component
// identifiers, with the signature parameters as its parameters.
func signatureBase(r *http.Request, covered httpsfv.Member) ([]byte, error) {
	t := newTarget(r)
	return t.signatureBase(r, covered)
}

// signatureBase is the signature base for r, whose target t is; t keeps
// what it parsed of r for the next signature. A base longer than MaxBase
// fails. The identifiers and the parameters are in the canonical
// serialization of RFC 9651, section 4.1, as RFC 9421 requires.
func (t *target) signatureBase(r *http.Request, covered httpsfv.Member) ([]byte, error) {
	list, ok := covered.(httpsfv.InnerList)
	if !ok {
		return nil, errors.New("signature-input member is not an inner list")
	}
	if len(list.Items) > MaxComponents {
		return nil, fmt.Errorf("more than %d covered components", MaxComponents)
	}
	b := make([]byte, 0, 512)
	ids := make([]string, 0, len(list.Items))
	for _, c := range list.Items {
		name, ok := c.Value.(string)
		if !ok {
			return nil, errors.New("component identifier is not a string")
		}
		id, err := httpsfv.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("component %q: %w", name, err)
		}
		if slices.Contains(ids, id) {
			return nil, fmt.Errorf("component %q covered twice", name)
		}
		ids = append(ids, id)
		v, err := componentValue(r, t, c)
		if err != nil {
			return nil, err
		}
		if len(b)+len(v) > MaxBase {
			return nil, fmt.Errorf("signature base longer than %d bytes", MaxBase)
		}
		b = append(b, id...)
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, '\n')
	}
	params, err := httpsfv.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("signature parameters: %w", err)
	}
	b = append(b, `"@signature-params": `...)
	return append(b, params...), nil
}

// stringParam returns the parameter key of ps when it is a String.
func stringParam(ps *httpsfv.Params, key string) (string, bool) {
	v, _ := ps.Get(key)
	s, ok := v.(string)
	return s, ok
}

// componentValue is the value of one covered component in r.
func componentValue(r *http.Request, t *target, c httpsfv.Item) (string, error) {
	name, _ := c.Value.(string)
	if name == "" || name != strings.ToLower(name) {
		return "", fmt.Errorf("component name %q is not lowercase", name)
	}
	if strings.HasPrefix(name, "@") {
		return derivedValue(r, t, name, c.Params)
	}
	for _, p := range c.Params.Names() {
		if _, ok := stringParam(c.Params, p); p != "key" || !ok {
			return "", fmt.Errorf("component %q: parameter %q not supported", name, p)
		}
	}
	value, ok := fieldValue(r.Header, name)
	if !ok {
		return "", fmt.Errorf("covered field %s is missing", name)
	}
	key, hasKey := stringParam(c.Params, "key")
	if !hasKey {
		return value, nil
	}
	if len(value) > MaxFieldLen {
		return "", fmt.Errorf("field %s is longer than %d bytes", name, MaxFieldLen)
	}
	d, err := httpsfv.UnmarshalDictionary([]string{value})
	if err != nil {
		return "", fmt.Errorf("field %s is not a dictionary", name)
	}
	m, ok := d.Get(key)
	if !ok {
		return "", fmt.Errorf("field %s has no member %q", name, key)
	}
	return httpsfv.Marshal(m)
}

// fieldValue combines the field's lines as RFC 9421, 2.1, says: each value
// trimmed, joined with a comma and a space.
func fieldValue(h http.Header, name string) (string, bool) {
	lines := h.Values(name)
	switch len(lines) {
	case 0:
		return "", false
	case 1:
		return strings.Trim(lines[0], " \t"), true
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strings.Trim(l, " \t"))
	}
	return b.String(), true
}

func derivedValue(r *http.Request, t *target, name string, ps *httpsfv.Params) (string, error) {
	names := ps.Names()
	if name == "@query-param" {
		param, ok := stringParam(ps, "name")
		if len(names) != 1 || !ok {
			return "", errors.New("@query-param needs exactly a name parameter")
		}
		return t.queryParam(param)
	}
	if len(names) > 0 {
		return "", fmt.Errorf("component %s: parameter %q not supported", name, names[0])
	}
	switch name {
	case "@method":
		return r.Method, nil
	case "@authority":
		return t.authority, nil
	case "@scheme":
		return t.scheme, nil
	case "@target-uri":
		return t.scheme + "://" + t.authority + t.pathAndQuery(), nil
	case "@request-target":
		return t.requestTarget, nil
	case "@path":
		return t.path, nil
	case "@query":
		return "?" + t.rawQuery, nil
	}
	return "", fmt.Errorf("component %s not supported for requests", name)
}

// target is the request's target URI, in the parts the derived components
// take from it, as the client sent them (not decoded).
type target struct {
	scheme        string
	authority     string // normalized: lowercase host, no default port
	requestTarget string
	path          string // "/" when empty
	rawQuery      string
	hasQuery      bool
	// params are the query's parameters, form-decoded and re-encoded,
	// read once when a signature covers one.
	params map[string][]string
}

func newTarget(r *http.Request) target {
	t := target{scheme: "http"}
	if r.TLS != nil {
		t.scheme = "https"
	}
	t.authority = normalizeAuthority(r.Host, t.scheme)
	t.requestTarget = r.RequestURI
	if t.requestTarget == "" { // a request built in-process, not read from the wire
		t.requestTarget = r.URL.RequestURI()
	}
	if strings.HasPrefix(t.requestTarget, "/") {
		t.path, t.rawQuery, t.hasQuery = strings.Cut(t.requestTarget, "?")
	} else if r.URL != nil {
		t.path, t.rawQuery, t.hasQuery = r.URL.EscapedPath(), r.URL.RawQuery, r.URL.ForceQuery || r.URL.RawQuery != ""
	}
	if t.path == "" {
		t.path = "/"
	}
	return t
}

func (t *target) pathAndQuery() string {
	if t.hasQuery {
		return t.path + "?" + t.rawQuery
	}
	return t.path
}

// normalizeAuthority lowercases the host and drops the scheme's default
// port (RFC 9110, 4.2.3).
func normalizeAuthority(host, scheme string) string {
	host = strings.ToLower(host)
	i := strings.LastIndexByte(host, ':')
	if i < 0 || i < strings.LastIndexByte(host, ']') {
		return host
	}
	switch port := host[i+1:]; {
	case port == "", scheme == "https" && port == "443", scheme == "http" && port == "80":
		return host[:i]
	}
	return host
}

// queryParam is the value of the @query-param component named name (RFC
// 9421, 2.2.8): the parameter's value, form-decoded and re-encoded. A name
// that is absent or appears more than once fails, as the RFC requires. The
// query is read once for all the components of all the signatures of a
// request.
func (t *target) queryParam(name string) (string, error) {
	if len(t.rawQuery) > MaxBase {
		// What a signature may cover is bounded: a query longer than a
		// whole base is not read for one of its parameters.
		return "", fmt.Errorf("query longer than %d bytes for @query-param", MaxBase)
	}
	if t.params == nil {
		t.params = make(map[string][]string)
		for pair := range strings.SplitSeq(t.rawQuery, "&") {
			if pair == "" {
				continue
			}
			n, v, _ := strings.Cut(pair, "=")
			n = formEncode(formDecode(n))
			t.params[n] = append(t.params[n], v)
		}
	}
	values := t.params[formEncode(formDecode(name))]
	switch len(values) {
	case 0:
		return "", fmt.Errorf("query parameter %q is missing", name)
	case 1:
		return formEncode(formDecode(values[0])), nil
	}
	return "", fmt.Errorf("query parameter %q appears more than once", name)
}

// formDecode is application/x-www-form-urlencoded parsing of one name or
// value (WHATWG URL, 5.1): plus is a space, valid percent escapes are
// decoded, and the bytes are read as UTF-8.
func formDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return s
	}
	s = strings.ReplaceAll(s, "+", " ")
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out.WriteRune(r) // utf8.RuneError for invalid bytes
		b = b[size:]
	}
	return out.String()
}

// formEncode is the percent-encoding of application/x-www-form-urlencoded
// serializing, with spaces as %20 as RFC 9421's examples show.
func formEncode(s string) string {
	const hex = "0123456789ABCDEF"
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = isAlpha(c) || isDigit(c) || c == '*' || c == '-' || c == '.' || c == '_'
	}
	if plain {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlpha(c) || isDigit(c) || c == '*' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isHex(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
