package content

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlDoc is one parsed YAML document of a file.
type yamlDoc struct {
	file string
	// offset is the line in the file just before the document's first line:
	// 0 for profile.yaml, 1 for front matter, which follows a line of ---.
	offset int
	root   *yaml.Node // nil when the document is empty
}

// line is the line in the file of node n.
func (d *yamlDoc) line(n *yaml.Node) int { return n.Line + d.offset }

var yamlErrorLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlParserErrors are the messages of yaml.v3's parser, which, unlike its
// scanner, reports a line counted from zero.
var yamlParserErrors = []string{
	"did not find expected key",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected <document start>",
	"found undefined tag handle",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
}

// parseYAML parses data into its node tree. A syntax error is added to ps as
// a problem of field, at its real line in the file.
func parseYAML(file string, offset int, field string, data []byte, ps *problems) (*yamlDoc, bool) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		msg, line := err.Error(), 0
		if m := yamlErrorLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = msg[len(m[0]):]
			for _, p := range yamlParserErrors {
				if strings.HasPrefix(msg, p) {
					line++
					break
				}
			}
			line += offset
		}
		ps.add(file, line, field, "%s", strings.TrimPrefix(msg, "yaml: "))
		return nil, false
	}
	doc := &yamlDoc{file: file, offset: offset}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		doc.root = n.Content[0]
	}
	return doc, true
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// isNull reports whether n holds no value ("key:" or "key: null"), which
// counts as the key being absent.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what a node holds, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return "text"
}

// parseBool reads the YAML booleans, including the YAML 1.1 yes/no/on/off
// that older sites still write.
func parseBool(n *yaml.Node) (value, ok bool) {
	if n.Kind != yaml.ScalarNode {
		return false, false
	}
	switch strings.ToLower(n.Value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// structDecoder fills a Go struct from a YAML mapping by the fields' yaml
// tags. Unlike yaml.v3's own decoding, it carries on past a wrong key or
// value, so one pass reports every problem with its line, and its messages
// speak of keys, text and lists rather than Go types.
type structDecoder struct {
	doc   *yamlDoc
	ps    *problems
	lines map[string]int // field path -> line of its key
}

func (d *structDecoder) problemf(n *yaml.Node, field, format string, args ...any) {
	d.ps.add(d.doc.file, d.doc.line(n), field, format, args...)
}

func (d *structDecoder) decode(n *yaml.Node, v reflect.Value, field string) {
	n = deref(n)
	if isNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.mapping(n, v, field)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.problemf(n, field, "must be text, not %s", describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.problemf(n, field, "must be a list, not %s", describe(n))
			return
		}
		list := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			itemField := field + "[" + strconv.Itoa(i) + "]"
			d.lines[itemField] = d.doc.line(item)
			d.decode(item, list.Index(i), itemField)
		}
		v.Set(list)
	case reflect.Pointer: // *bool, the only pointer in these files
		b, ok := parseBool(n)
		if !ok {
			d.problemf(n, field, "must be true or false, not %q", n.Value)
			return
		}
		v.Set(reflect.ValueOf(&b))
	}
}

func (d *structDecoder) mapping(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.problemf(n, field, "must be a mapping of keys to values, not %s", describe(n))
		return
	}
	keys, index := yamlKeys(v.Type())
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, value := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.problemf(k, field, "keys must be text, not %s", describe(k))
			continue
		}
		path := k.Value
		if field != "" {
			path = field + "." + k.Value
		}
		if line, dup := seen[k.Value]; dup {
			d.problemf(k, path, "already given on line %d", line)
			continue
		}
		seen[k.Value] = d.doc.line(k)
		fieldIndex, ok := index[k.Value]
		if !ok {
			d.problemf(k, path, "%s", unknownKey(k.Value, keys))
			continue
		}
		d.lines[path] = d.doc.line(k)
		d.decode(value, v.FieldByIndex(fieldIndex), path)
	}
}

// yamlKeys lists the keys of a struct's yaml tags in declaration order, with
// the index of the field of each; inline structs contribute their keys.
func yamlKeys(t reflect.Type) (keys []string, index map[string][]int) {
	index = make(map[string][]int)
	for _, f := range reflect.VisibleFields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || opts == "inline" {
			continue
		}
		keys = append(keys, name)
		index[name] = f.Index
	}
	return keys, index
}

// unknownKey is the message for a key that is not one of allowed,
// suggesting the allowed key it is most likely a typo of.
func unknownKey(key string, allowed []string) string {
	msg := "unknown key"
	if near := nearest(key, allowed); near != "" {
		msg += ", did you mean " + near + "?"
	}
	return msg + " (allowed: " + strings.Join(allowed, ", ") + ")"
}

// nearest returns the candidate that key is likely a typo of, ignoring case:
// one edit away from a key of up to five letters, two from a longer one.
// It returns "" when none is that close.
func nearest(key string, candidates []string) string {
	key = strings.ToLower(key)
	best, bestDist := "", 3
	for _, c := range candidates {
		limit := 2
		if len(c) <= 5 {
			limit = 1
		}
		if d := editDistance(key, strings.ToLower(c)); d <= limit && d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of adjacent
// bytes that turn one into the other.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // no typo of a key is that long; bound the work
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
