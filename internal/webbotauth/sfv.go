package webbotauth

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Structured Field Values (RFC 9651, which extends RFC 8941 with Dates and
// Display Strings): the strict parser and the serializer that the signature
// fields and the signature base need. Parsing follows the RFC's algorithms,
// failing on anything they fail on; serializing produces the canonical form
// that RFC 9421 puts in a signature base.

var errSF = errors.New("malformed structured field")

type sfKind uint8

const (
	sfInteger sfKind = iota + 1
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBoolean
	sfDate
	sfDisplayString
)

// bareItem is one value. Integers and Dates are in i, Decimals in i as
// thousandths; Strings, Tokens and Display Strings in s.
type bareItem struct {
	kind sfKind
	i    int64
	s    string
	b    []byte
	bool bool
}

type param struct {
	key   string
	value bareItem
}

type params []param

// get returns the value of the parameter named key.
func (ps params) get(key string) (bareItem, bool) {
	for _, p := range ps {
		if p.key == key {
			return p.value, true
		}
	}
	return bareItem{}, false
}

// item is an Item, or an Inner List when inner is set.
type item struct {
	value  bareItem
	list   []item // the Inner List's items
	inner  bool
	params params
}

type member struct {
	key string
	item
}

// dictionary is an ordered Dictionary.
type dictionary []member

func (d dictionary) get(key string) (item, bool) {
	for _, m := range d {
		if m.key == key {
			return m.item, true
		}
	}
	return item{}, false
}

// sfParser walks one field value.
type sfParser struct {
	s   string
	pos int
}

func (p *sfParser) eof() bool { return p.pos >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.pos]
}

func (p *sfParser) skipSP() {
	for !p.eof() && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *sfParser) skipOWS() {
	for !p.eof() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

// parseDictionary parses a whole field value as a Dictionary (RFC 9651,
// 4.2 and 4.2.2). A repeated key keeps its first position and takes the
// last value.
func parseDictionary(s string) (dictionary, error) {
	p := &sfParser{s: s}
	p.skipSP()
	var d dictionary
	for !p.eof() {
		key, err := p.parseKey()
		if err != nil {
			return nil, err
		}
		var it item
		if p.peek() == '=' {
			p.pos++
			if it, err = p.parseItemOrInnerList(); err != nil {
				return nil, err
			}
		} else {
			it.value = bareItem{kind: sfBoolean, bool: true}
			if it.params, err = p.parseParams(); err != nil {
				return nil, err
			}
		}
		replaced := false
		for i := range d {
			if d[i].key == key {
				d[i].item, replaced = it, true
				break
			}
		}
		if !replaced {
			d = append(d, member{key: key, item: it})
		}
		p.skipOWS()
		if p.eof() {
			break
		}
		if p.s[p.pos] != ',' {
			return nil, errSF
		}
		p.pos++
		p.skipOWS()
		if p.eof() {
			return nil, errSF // trailing comma
		}
	}
	return d, nil
}

// parseItem parses a whole field value as an Item.
func parseItem(s string) (item, error) {
	p := &sfParser{s: s}
	p.skipSP()
	it, err := p.parseItem()
	if err != nil {
		return item{}, err
	}
	p.skipSP()
	if !p.eof() {
		return item{}, errSF
	}
	return it, nil
}

func (p *sfParser) parseItemOrInnerList() (item, error) {
	if p.peek() == '(' {
		return p.parseInnerList()
	}
	return p.parseItem()
}

func (p *sfParser) parseInnerList() (item, error) {
	p.pos++ // (
	it := item{inner: true}
	for !p.eof() {
		p.skipSP()
		if p.peek() == ')' {
			p.pos++
			var err error
			it.params, err = p.parseParams()
			return it, err
		}
		member, err := p.parseItem()
		if err != nil {
			return item{}, err
		}
		it.list = append(it.list, member)
		if c := p.peek(); c != ' ' && c != ')' {
			return item{}, errSF
		}
	}
	return item{}, errSF
}

func (p *sfParser) parseItem() (item, error) {
	v, err := p.parseBareItem()
	if err != nil {
		return item{}, err
	}
	ps, err := p.parseParams()
	return item{value: v, params: ps}, err
}

func (p *sfParser) parseParams() (params, error) {
	var ps params
	for p.peek() == ';' {
		p.pos++
		p.skipSP()
		key, err := p.parseKey()
		if err != nil {
			return nil, err
		}
		v := bareItem{kind: sfBoolean, bool: true}
		if p.peek() == '=' {
			p.pos++
			if v, err = p.parseBareItem(); err != nil {
				return nil, err
			}
		}
		replaced := false
		for i := range ps {
			if ps[i].key == key {
				ps[i].value, replaced = v, true
				break
			}
		}
		if !replaced {
			ps = append(ps, param{key: key, value: v})
		}
	}
	return ps, nil
}

func (p *sfParser) parseKey() (string, error) {
	start := p.pos
	if c := p.peek(); !isLCAlpha(c) && c != '*' {
		return "", errSF
	}
	p.pos++
	for !p.eof() {
		c := p.s[p.pos]
		if !isLCAlpha(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' && c != '*' {
			break
		}
		p.pos++
	}
	return p.s[start:p.pos], nil
}

func (p *sfParser) parseBareItem() (bareItem, error) {
	switch c := p.peek(); {
	case c == '-' || isDigit(c):
		return p.parseNumber()
	case c == '"':
		s, err := p.parseString()
		return bareItem{kind: sfString, s: s}, err
	case c == '*' || isAlpha(c):
		return p.parseToken(), nil
	case c == ':':
		return p.parseBytes()
	case c == '?':
		return p.parseBoolean()
	case c == '@':
		p.pos++
		n, err := p.parseNumber()
		if err != nil || n.kind != sfInteger {
			return bareItem{}, errSF
		}
		return bareItem{kind: sfDate, i: n.i}, nil
	case c == '%':
		return p.parseDisplayString()
	}
	return bareItem{}, errSF
}

func (p *sfParser) parseNumber() (bareItem, error) {
	neg := false
	if p.peek() == '-' {
		neg = true
		p.pos++
	}
	if !isDigit(p.peek()) {
		return bareItem{}, errSF
	}
	var intPart, frac int64
	intDigits, fracDigits, decimal := 0, 0, false
digits:
	for !p.eof() {
		c := p.s[p.pos]
		switch {
		case isDigit(c) && !decimal:
			intPart = intPart*10 + int64(c-'0')
			intDigits++
			if intDigits > 15 {
				return bareItem{}, errSF
			}
		case isDigit(c):
			frac = frac*10 + int64(c-'0')
			fracDigits++
			if fracDigits > 3 {
				return bareItem{}, errSF
			}
		case c == '.' && !decimal:
			if intDigits > 12 {
				return bareItem{}, errSF
			}
			decimal = true
		default:
			break digits
		}
		p.pos++
	}
	if !decimal {
		if neg {
			intPart = -intPart
		}
		return bareItem{kind: sfInteger, i: intPart}, nil
	}
	if fracDigits == 0 {
		return bareItem{}, errSF
	}
	for range 3 - fracDigits {
		frac *= 10
	}
	v := intPart*1000 + frac
	if neg {
		v = -v
	}
	return bareItem{kind: sfDecimal, i: v}, nil
}

func (p *sfParser) parseString() (string, error) {
	p.pos++ // "
	var b strings.Builder
	start := p.pos
	for !p.eof() {
		c := p.s[p.pos]
		switch {
		case c == '\\':
			b.WriteString(p.s[start:p.pos])
			p.pos++
			if n := p.peek(); n != '"' && n != '\\' {
				return "", errSF
			}
			start = p.pos
		case c == '"':
			if b.Len() == 0 {
				s := p.s[start:p.pos]
				p.pos++
				return s, nil
			}
			b.WriteString(p.s[start:p.pos])
			p.pos++
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", errSF
		}
		p.pos++
	}
	return "", errSF
}

func (p *sfParser) parseToken() bareItem {
	start := p.pos
	p.pos++
	for !p.eof() {
		c := p.s[p.pos]
		if !isTChar(c) && c != ':' && c != '/' {
			break
		}
		p.pos++
	}
	return bareItem{kind: sfToken, s: p.s[start:p.pos]}
}

func (p *sfParser) parseBytes() (bareItem, error) {
	p.pos++ // :
	end := strings.IndexByte(p.s[p.pos:], ':')
	if end < 0 {
		return bareItem{}, errSF
	}
	enc := p.s[p.pos : p.pos+end]
	p.pos += end + 1
	for i := 0; i < len(enc); i++ {
		if c := enc[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return bareItem{}, errSF
		}
	}
	// RFC 9651, 4.2.7: parsers should accept missing padding and non-zero
	// pad bits, which the non-strict decoder of unpadded input does.
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return bareItem{}, errSF
	}
	return bareItem{kind: sfBytes, b: b}, nil
}

func (p *sfParser) parseBoolean() (bareItem, error) {
	p.pos++ // ?
	switch p.peek() {
	case '1':
		p.pos++
		return bareItem{kind: sfBoolean, bool: true}, nil
	case '0':
		p.pos++
		return bareItem{kind: sfBoolean}, nil
	}
	return bareItem{}, errSF
}

func (p *sfParser) parseDisplayString() (bareItem, error) {
	p.pos++ // %
	if p.peek() != '"' {
		return bareItem{}, errSF
	}
	p.pos++
	var b []byte
	for !p.eof() {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c < 0x20 || c > 0x7e:
			return bareItem{}, errSF
		case c == '%':
			if p.pos+2 > len(p.s) {
				return bareItem{}, errSF
			}
			hi, ok1 := lowerHex(p.s[p.pos])
			lo, ok2 := lowerHex(p.s[p.pos+1])
			if !ok1 || !ok2 {
				return bareItem{}, errSF
			}
			b = append(b, hi<<4|lo)
			p.pos += 2
		case c == '"':
			if !utf8.Valid(b) {
				return bareItem{}, errSF
			}
			return bareItem{kind: sfDisplayString, s: string(b)}, nil
		default:
			b = append(b, c)
		}
	}
	return bareItem{}, errSF
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case isDigit(c):
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func isDigit(c byte) bool   { return '0' <= c && c <= '9' }
func isLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || ('A' <= c && c <= 'Z') }

// isTChar reports a token character of RFC 9110, 5.6.2.
func isTChar(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Serialization (RFC 9651, 4.1).

func (it item) appendTo(b []byte) []byte {
	if it.inner {
		b = append(b, '(')
		for i, m := range it.list {
			if i > 0 {
				b = append(b, ' ')
			}
			b = m.appendTo(b)
		}
		b = append(b, ')')
	} else {
		b = it.value.appendTo(b)
	}
	return it.params.appendTo(b)
}

func (ps params) appendTo(b []byte) []byte {
	for _, p := range ps {
		b = append(b, ';')
		b = append(b, p.key...)
		if p.value.kind != sfBoolean || !p.value.bool {
			b = append(b, '=')
			b = p.value.appendTo(b)
		}
	}
	return b
}

func (v bareItem) appendTo(b []byte) []byte {
	switch v.kind {
	case sfInteger:
		return strconv.AppendInt(b, v.i, 10)
	case sfDecimal:
		n := v.i
		if n < 0 {
			b = append(b, '-')
			n = -n
		}
		b = strconv.AppendInt(b, n/1000, 10)
		b = append(b, '.')
		frac := strings.TrimRight(strconv.FormatInt(1000+n%1000, 10)[1:], "0")
		if frac == "" {
			frac = "0"
		}
		return append(b, frac...)
	case sfString:
		return appendString(b, v.s)
	case sfToken:
		return append(b, v.s...)
	case sfBytes:
		b = append(b, ':')
		b = base64.StdEncoding.AppendEncode(b, v.b)
		return append(b, ':')
	case sfBoolean:
		if v.bool {
			return append(b, "?1"...)
		}
		return append(b, "?0"...)
	case sfDate:
		b = append(b, '@')
		return strconv.AppendInt(b, v.i, 10)
	case sfDisplayString:
		b = append(b, '%', '"')
		const hex = "0123456789abcdef"
		for i := 0; i < len(v.s); i++ {
			c := v.s[i]
			if c == '%' || c == '"' || c < 0x20 || c > 0x7e {
				b = append(b, '%', hex[c>>4], hex[c&0xf])
			} else {
				b = append(b, c)
			}
		}
		return append(b, '"')
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
