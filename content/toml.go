package content

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// parseTOML parses TOML front matter (Hugo's, between lines of +++) into
// the node tree that YAML front matter gives, so that the same decoder
// reads both. TOML's decoder does not say where a value is, so each
// top-level key gets its line from a scan of the text, and every node of
// its value the same line. A syntax error is added to ps at its line;
// offset is the line of the file just before data.
func parseTOML(file string, offset int, data []byte, ps *problems) (*yamlDoc, bool) {
	var values map[string]any
	md, err := toml.Decode(string(data), &values)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			ps.add(file, pe.Position.Line+offset, "front matter", "%s", lowerMessage(pe.Message))
		} else {
			ps.add(file, 0, "front matter", "%s", strings.TrimPrefix(err.Error(), "toml: "))
		}
		return nil, false
	}
	doc := &yamlDoc{file: file, offset: offset}
	lines := tomlKeyLines(string(data))
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1}
	added := make(map[string]bool)
	// Keys in the order written, as the YAML decoder sees them.
	for _, key := range md.Keys() {
		name := key[0]
		if added[name] {
			continue
		}
		added[name] = true
		line := lines[name]
		root.Content = append(root.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name, Line: line},
			tomlNode(values[name], line))
	}
	if len(root.Content) > 0 {
		doc.root = root
	}
	return doc, true
}

// lowerMessage words a decoder's message as this package's messages are
// worded: lowercase, with no closing period.
func lowerMessage(msg string) string {
	msg = strings.TrimSuffix(msg, ".")
	if len(msg) > 1 && 'A' <= msg[0] && msg[0] <= 'Z' && 'a' <= msg[1] && msg[1] <= 'z' {
		msg = string(msg[0]+'a'-'A') + msg[1:]
	}
	return msg
}

// tomlNode converts a decoded TOML value into YAML nodes at line: text and
// numbers as scalars, dates as timestamps written as the generators write
// them (RFC 3339, or YYYY-MM-DD for a local date), arrays as sequences and
// tables as mappings.
func tomlNode(v any, line int) *yaml.Node {
	scalar := func(tag, value string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line}
	}
	switch v := v.(type) {
	case string:
		return scalar("!!str", v)
	case bool:
		return scalar("!!bool", strconv.FormatBool(v))
	case int64:
		return scalar("!!int", strconv.FormatInt(v, 10))
	case float64:
		return scalar("!!float", strconv.FormatFloat(v, 'g', -1, 64))
	case time.Time:
		// The decoder marks a date or time without an offset by the name
		// of its location.
		switch v.Location().String() {
		case "date-local":
			return scalar("!!timestamp", v.Format(time.DateOnly))
		case "datetime-local":
			return scalar("!!timestamp", v.Format("2006-01-02T15:04:05.999999999"))
		case "time-local":
			return scalar("!!str", v.Format("15:04:05.999999999"))
		}
		return scalar("!!timestamp", v.Format(time.RFC3339Nano))
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
		for _, item := range v {
			n.Content = append(n.Content, tomlNode(item, line))
		}
		return n
	case []map[string]any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
		for _, item := range v {
			n.Content = append(n.Content, tomlNode(item, line))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			n.Content = append(n.Content, scalar("!!str", k), tomlNode(v[k], line))
		}
		return n
	}
	return scalar("!!str", fmt.Sprint(v))
}

// tomlKeyLines returns the line, counted from 1, of each top-level key of
// the TOML document s: of the first `key = …` or `key.sub = …` before any
// table, or of the first table header [key] or [key.sub]. s has been
// decoded, so it is valid TOML; the scan passes over strings, comments and
// values that span lines.
func tomlKeyLines(s string) map[string]int {
	lines := make(map[string]int)
	line, depth, inTable := 1, 0, false
	keyNext := true // a key or a table header may begin here
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
			keyNext = depth == 0
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#':
			i = lineEnd(s, i)
			continue
		}
		if keyNext {
			keyNext = false
			table := c == '['
			if table {
				for i < len(s) && s[i] == '[' {
					i++
				}
				i = skipBlanks(s, i)
			}
			name, next := tomlKeySegment(s, i)
			if _, seen := lines[name]; !seen && (table || !inTable) {
				lines[name] = line
			}
			if table {
				// The rest of a header line is the rest of its name, and a
				// comment.
				inTable = true
				i = lineEnd(s, next)
			} else {
				i = next
			}
			continue
		}
		start := i
		switch {
		case strings.HasPrefix(s[i:], `"""`):
			i = tomlStringEnd(s, i+3, `"""`, true)
		case strings.HasPrefix(s[i:], `'''`):
			i = tomlStringEnd(s, i+3, `'''`, false)
		case c == '"':
			i = tomlStringEnd(s, i+1, `"`, true)
		case c == '\'':
			i = tomlStringEnd(s, i+1, `'`, false)
		case c == '[' || c == '{':
			depth++
			i++
		case c == ']' || c == '}':
			depth--
			i++
		default:
			i++
		}
		line += strings.Count(s[start:i], "\n")
	}
	return lines
}

// tomlKeySegment reads the first segment of a key at s[i:]: bare, "basic"
// or 'literal'. It returns the segment and where the scan goes on.
func tomlKeySegment(s string, i int) (name string, next int) {
	if i >= len(s) {
		return "", i
	}
	switch s[i] {
	case '"':
		end := tomlStringEnd(s, i+1, `"`, true)
		if unquoted, err := strconv.Unquote(s[i:end]); err == nil {
			return unquoted, end
		}
		return s[i+1 : max(end-1, i+1)], end
	case '\'':
		end := tomlStringEnd(s, i+1, `'`, false)
		return s[i+1 : max(end-1, i+1)], end
	}
	end := i
	for end < len(s) && !strings.ContainsRune(" \t\r\n=.[]#", rune(s[end])) {
		end++
	}
	return s[i:end], end
}

// tomlStringEnd returns the index just after the quote that closes a
// string whose text begins at s[i:]. A multi-line basic string may end in
// up to two quotes of its own before its closing three.
func tomlStringEnd(s string, i int, quote string, escapes bool) int {
	for i < len(s) {
		switch {
		case escapes && s[i] == '\\':
			i += 2
		case strings.HasPrefix(s[i:], quote):
			i += len(quote)
			for extra := 0; len(quote) == 3 && extra < 2 && i < len(s) && s[i] == quote[0]; extra++ {
				i++
			}
			return i
		default:
			i++
		}
	}
	return len(s)
}

// lineEnd returns the index of the newline that ends the line at s[i:], or
// len(s).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// skipBlanks returns the index of the first byte from s[i:] that is not a
// space or a tab.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
