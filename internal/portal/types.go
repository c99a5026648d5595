package portal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/caddy-discovery/caddy-discovery/internal/schema"
)

// The portal's field reference: each response type's members, read from
// the same schemas /openapi.json publishes, in the order the API sends
// them. Objects that are not components of their own are flattened into
// their parent ("urls.home", "endpoints[].path").

// typesOf are the named types and every component they refer to, in
// the order of the components table.
func typesOf(named map[string]bool, components *schema.Components) []Type {
	want := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if want[name] {
			return
		}
		want[name] = true
		walkRefs(components.Schemas[name], visit)
	}
	for name := range named {
		visit(name)
	}
	var out []Type
	for _, c := range components.List {
		if !want[c.Name] {
			continue
		}
		s := components.Schemas[c.Name]
		t := Type{Name: c.Name, ID: typeAnchor(c.Name), Description: s.Description}
		t.Fields = schemaFields("", s)
		out = append(out, t)
	}
	return out
}

// walkRefs calls f with the component named by every $ref in s.
func walkRefs(s *jsonschema.Schema, f func(string)) {
	if s == nil {
		return
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
		f(name)
		return
	}
	walkRefs(s.Items, f)
	walkRefs(s.AdditionalProperties, f)
	for _, p := range s.Properties {
		walkRefs(p, f)
	}
	for _, sub := range slices.Concat(s.AnyOf, s.OneOf, s.AllOf) {
		walkRefs(sub, f)
	}
}

// schemaFields lists the members of an object schema, prefix naming the
// object within its type.
func schemaFields(prefix string, s *jsonschema.Schema) []Field {
	names := schema.PropertyNames(s)
	var fields []Field
	for _, name := range names {
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		f := Field{Name: prefix + name, Required: slices.Contains(s.Required, name), Description: prop.Description}
		f.Type, f.Ref = schemaType(prop)
		if f.Ref != "" {
			f.RefID = typeAnchor(f.Ref)
		}
		fields = append(fields, f)
		// An object described in place: its members follow, prefixed.
		switch {
		case len(prop.Properties) > 0:
			fields = append(fields, schemaFields(prefix+name+".", prop)...)
		case prop.Items != nil && len(prop.Items.Properties) > 0:
			fields = append(fields, schemaFields(prefix+name+"[].", prop.Items)...)
		}
	}
	return fields
}

// schemaType says what a member holds, and the component it refers to.
func schemaType(s *jsonschema.Schema) (string, string) {
	if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
		return "", name
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	var desc string
	switch {
	case s.Const != nil:
		desc = fmt.Sprintf("always %v", *s.Const)
	case slices.Contains(types, "array") && s.Items != nil:
		inner, ref := schemaType(s.Items)
		if ref != "" {
			return "array of ", ref
		}
		desc = "array of " + inner
	case len(s.Enum) > 0:
		var values []string
		for _, v := range s.Enum {
			values = append(values, fmt.Sprintf("%q", v))
		}
		desc = "one of " + strings.Join(values, ", ")
	case len(types) == 0:
		desc = "any"
	default:
		desc = strings.Join(types, " or ")
	}
	if s.Format != "" {
		desc += " (" + s.Format + ")"
	}
	if s.ContentMediaType != "" {
		desc += " (" + s.ContentMediaType + ")"
	}
	return desc, ""
}
