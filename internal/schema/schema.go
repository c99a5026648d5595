// Package schema generates the JSON Schemas of the module's bodies from the
// Go types that produce them, so that the types, /openapi.json and the MCP
// tools' schemas cannot disagree: the named components of the OpenAPI
// description, with the types they hold referenced by name, and
// self-contained schemas for MCP tools.
//
// Imports from the module: content.
package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// The JSON schemas of the API's bodies are generated from the Go types that
// produce them, so the types, /openapi.json and the MCP tools' output schemas
// cannot disagree. The structure (properties, required, no extra
// properties) comes from jsonschema-go's inference: a field is required
// unless its json tag says omitempty. A field's `jsonschema` tag is its
// description; its `schema` tag adds the specification's constraints as
// key=value pairs separated by ";":
//
//	format=uri  pattern=^[a-z]+$  pattern=@slug  enum=a|b  const=false  type=string|integer
//	minimum=0  maximum=599  minLength=1  maxLength=100  minItems=1  maxItems=0
//	contains=code  examples=1  contentMediaType=text/markdown
//
// pattern=@name is a pattern named rather than written: @slug, or one the
// struct names through its SchemaPatterns method. const is read as JSON; enum, contains and examples values are strings.
// On an array field, format, pattern, enum, minLength and maxLength apply to
// the items, and contains names an item the array must hold.

// Component is a named schema of the OpenAPI description.
type Component struct {
	Name string
	Type reflect.Type
	// Description says what the schema is, when its name does not.
	Description string
	// Open allows properties beyond the declared ones.
	Open bool
}

// Of is the component named name of the type T.
func Of[T any](name, description string) Component {
	return Component{Name: name, Type: reflect.TypeFor[T](), Description: description}
}

// Components are the named schemas of a description, in the order it lists
// them, and their schemas, the types they hold referenced by name.
type Components struct {
	List    []Component
	Schemas map[string]*jsonschema.Schema
}

// Name returns the name of t's component, or "".
func (cs *Components) Name(t reflect.Type) string {
	for _, c := range cs.List {
		if c.Type == t {
			return c.Name
		}
	}
	return ""
}

// NewComponents makes the schemas of the components in list: each struct
// type of the list used inside another is referenced by name. It panics on
// a type whose schema cannot be inferred or whose schema tags are wrong, a
// fault of the program.
func NewComponents(list []Component) *Components {
	refs := make(map[reflect.Type]*jsonschema.Schema, len(list))
	for _, c := range list {
		refs[c.Type] = &jsonschema.Schema{Ref: "#/components/schemas/" + c.Name}
	}
	out := make(map[string]*jsonschema.Schema, len(list))
	for _, c := range list {
		// The component itself and the structs it embeds are described
		// in place, not referenced.
		local := maps.Clone(refs)
		delete(local, c.Type)
		for _, f := range reflect.VisibleFields(c.Type) {
			if f.Anonymous {
				delete(local, f.Type)
			}
		}
		s, err := schemaOf(c.Type, local)
		if err != nil {
			panic(fmt.Sprintf("schema: schema of %s: %v", c.Name, err))
		}
		if c.Open {
			s.AdditionalProperties = &jsonschema.Schema{} // true
		}
		if c.Description != "" {
			s.Description = c.Description
		}
		out[c.Name] = s
	}
	return &Components{List: list, Schemas: out}
}

// inlineSchemas caches Inline's results: a schema depends on its type
// alone, so every rendition's MCP server shares it.
var inlineSchemas sync.Map // reflect.Type -> *jsonschema.Schema

// Inline is t's schema with every component written out in place:
// a self-contained schema, as MCP clients expect of a tool's output schema.
func Inline(t reflect.Type) *jsonschema.Schema {
	if s, ok := inlineSchemas.Load(t); ok {
		return s.(*jsonschema.Schema)
	}
	s, err := schemaOf(t, nil)
	if err != nil {
		panic(fmt.Sprintf("schema: schema of %s: %v", t, err))
	}
	actual, _ := inlineSchemas.LoadOrStore(t, s)
	return actual.(*jsonschema.Schema)
}

// schemaOf infers t's schema, with the types in refs replaced by their
// schemas, and applies the schema tags.
func schemaOf(t reflect.Type, refs map[reflect.Type]*jsonschema.Schema) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: refs})
	if err != nil {
		return nil, err
	}
	if err := applyTags(s, t); err != nil {
		return nil, err
	}
	return s, nil
}

// applyTags walks s alongside the Go type it was inferred from, applying
// the schema tags and turning jsonschema-go's ["null","array"] into
// "array": the service never sends null for a list.
func applyTags(s *jsonschema.Schema, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil || s.Ref != "" {
		return nil
	}
	if len(s.Types) > 0 {
		var types []string
		for _, ty := range s.Types {
			if ty != "null" {
				types = append(types, ty)
			}
		}
		s.Types = nil
		if len(types) == 1 {
			s.Type = types[0]
		} else {
			s.Types = types
		}
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyTags(s.Items, t.Elem())
	case reflect.Map:
		return applyTags(s.AdditionalProperties, t.Elem())
	case reflect.Struct:
	default:
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		prop := s.Properties[name]
		if prop == nil || f.Anonymous {
			continue
		}
		if err := applyTags(prop, f.Type); err != nil {
			return err
		}
		if tag, ok := f.Tag.Lookup("schema"); ok {
			if err := constrain(prop, tag, patternsOf(t)); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

// namedPatterns are patterns a schema tag names rather than writes, where
// another package owns the grammar: pattern=@slug.
var namedPatterns = map[string]string{"@slug": content.SlugPattern}

// Patterns is a type that names patterns of its own for its schema tags
// (pattern=@name), where a grammar is too long to read inside a tag and
// is better built, and commented, in code beside the type.
type Patterns interface {
	SchemaPatterns() map[string]string
}

// patternsOf returns the patterns struct type t names, or nil.
func patternsOf(t reflect.Type) map[string]string {
	if p, ok := reflect.Zero(t).Interface().(Patterns); ok {
		return p.SchemaPatterns()
	}
	if p, ok := reflect.New(t).Interface().(Patterns); ok {
		return p.SchemaPatterns()
	}
	return nil
}

// constrain applies one schema tag to s; own are the patterns the field's
// type names (see Patterns).
func constrain(s *jsonschema.Schema, tag string, own map[string]string) error {
	for _, kv := range strings.Split(tag, ";") {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("schema tag %q: %q is not key=value", tag, kv)
		}
		target := s
		if s.Items != nil && (key == "format" || key == "pattern" || key == "enum" || key == "minLength" || key == "maxLength") {
			target = s.Items
		}
		var err error
		switch key {
		case "format":
			target.Format = value
		case "pattern":
			if named, ok := own[value]; ok {
				value = named
			} else if named, ok := namedPatterns[value]; ok {
				value = named
			} else if strings.HasPrefix(value, "@") {
				return fmt.Errorf("schema tag %q: no pattern is named %s", tag, value)
			}
			target.Pattern = value
		case "enum":
			for _, v := range strings.Split(value, "|") {
				target.Enum = append(target.Enum, v)
			}
		case "const":
			var v any
			if err = json.Unmarshal([]byte(value), &v); err == nil {
				target.Const = &v
			}
		case "type":
			target.Type, target.Types = "", strings.Split(value, "|")
		case "contains":
			var v any = value
			target.Contains = &jsonschema.Schema{Const: &v}
		case "examples":
			target.Examples = append(target.Examples, value)
		case "contentMediaType":
			target.ContentMediaType = value
		case "minimum", "maximum":
			var n float64
			if n, err = strconv.ParseFloat(value, 64); err == nil {
				if key == "minimum" {
					target.Minimum = &n
				} else {
					target.Maximum = &n
				}
			}
		case "minLength":
			target.MinLength, err = intValue(value)
		case "maxLength":
			target.MaxLength, err = intValue(value)
		case "minItems":
			target.MinItems, err = intValue(value)
		case "maxItems":
			target.MaxItems, err = intValue(value)
		default:
			return fmt.Errorf("schema tag %q: unknown key %q", tag, key)
		}
		if err != nil {
			return fmt.Errorf("schema tag %q: %w", tag, err)
		}
	}
	return nil
}

func intValue(s string) (*int, error) {
	n, err := strconv.Atoi(s)
	return &n, err
}

// PropertyNames are the members of an object schema in the order the
// schema gives (the Go type's field order, which the API sends), else
// sorted.
func PropertyNames(s *jsonschema.Schema) []string {
	if len(s.PropertyOrder) > 0 {
		return s.PropertyOrder
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
