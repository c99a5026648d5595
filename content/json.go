package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// splitJSON separates JSON front matter, an object that opens the file, from
// the body after its closing brace. The file is at most MaxFileSize bytes,
// which bounds the decoding.
func splitJSON(data []byte) (header []byte, body string, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var object json.RawMessage
	if err := dec.Decode(&object); err != nil {
		return nil, "", jsonError(data, err)
	}
	end := int(dec.InputOffset())
	return data[:end], strings.TrimLeft(string(bytes.TrimLeft(data[end:], " \t")), "\n"), nil
}

// jsonError words an error of decoding JSON front matter, at its line when
// the decoder says where it is.
func jsonError(data []byte, err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		at := min(max(int(syntax.Offset)-1, 0), len(data))
		return &lineError{line: 1 + bytes.Count(data[:at], []byte("\n")), msg: "is not valid JSON: " + syntax.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errors.New("no closing brace (}) of the JSON object")
	}
	return err
}

// parseJSON parses JSON front matter into the node tree that YAML front
// matter gives, so that the same decoder reads both. Each node has the line
// of the file where its value ends, which for a key or a scalar is the line
// it is on: JSON text holds no line break.
func parseJSON(file string, data []byte, ps *problems) (*yamlDoc, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := jsonWalker{dec: dec, data: data, line: 1}
	root, err := w.node()
	if err != nil {
		err = jsonError(data, err)
		ps.add(file, errorLine(err), "front matter", "%s", err)
		return nil, false
	}
	doc := &yamlDoc{file: file}
	if len(root.Content) > 0 {
		doc.root = root
	}
	return doc, true
}

// jsonWalker reads a JSON value token by token into YAML nodes, keeping
// count of the lines read.
type jsonWalker struct {
	dec  *json.Decoder
	data []byte
	read int // bytes whose lines are counted
	line int // of the byte at read
}

// tokenLine returns the line of the token just read.
func (w *jsonWalker) tokenLine() int {
	end := int(w.dec.InputOffset())
	w.line += bytes.Count(w.data[w.read:end], []byte("\n"))
	w.read = end
	return w.line
}

func (w *jsonWalker) node() (*yaml.Node, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, err
	}
	line := w.tokenLine()
	scalar := func(tag, value string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line}
	}
	switch tok := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
		if tok == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for w.dec.More() {
			if n.Kind == yaml.MappingNode {
				key, err := w.dec.Token()
				if err != nil {
					return nil, err
				}
				name, _ := key.(string)
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name, Line: w.tokenLine()})
			}
			item, err := w.node()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, item)
		}
		_, err := w.dec.Token() // the closing delimiter
		return n, err
	case string:
		return scalar("!!str", tok), nil
	case json.Number:
		if strings.ContainsAny(tok.String(), ".eE") {
			return scalar("!!float", tok.String()), nil
		}
		return scalar("!!int", tok.String()), nil
	case bool:
		if tok {
			return scalar("!!bool", "true"), nil
		}
		return scalar("!!bool", "false"), nil
	}
	return scalar("!!null", "null"), nil
}
