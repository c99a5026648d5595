package handlers

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

// The JSON schemas of the API's bodies are generated from the Go types that
// produce them, so the types, /openapi.json and the MCP tools' output schemas
// cannot disagree. The structure (properties, required, no extra
// properties) comes from jsonschema-go's inference: a field is required
// unless its json tag says omitempty. A field's `jsonschema` tag is its
// description; its `schema` tag adds the specification's constraints as
// key=value pairs separated by ";":
//
//	format=uri  pattern=^[a-z]+$  enum=a|b  const=false  type=string|integer
//	minimum=0  maximum=599  minLength=1  maxLength=100  minItems=1  maxItems=0
//	contains=code  examples=1  contentMediaType=text/markdown
//
// const is read as JSON; enum, contains and examples values are strings.
// On an array field, format, pattern, enum, minLength and maxLength apply to
// the items, and contains names an item the array must hold.

// component is a named schema of the OpenAPI description.
type component struct {
	name string
	typ  reflect.Type
	// description says what the schema is, when its name does not.
	description string
	// open allows properties beyond the declared ones.
	open bool
}

func componentOf[T any](name, description string) component {
	return component{name: name, typ: reflect.TypeFor[T](), description: description}
}

// components are the named schemas, in the order the description lists
// them. A struct type used inside another is referenced by name.
var components = []component{
	componentOf[health]("Health", ""),
	componentOf[profile]("Profile", ""),
	componentOf[profileContact]("ProfileContact", ""),
	componentOf[siteLink]("SiteLink", ""),
	componentOf[profileURLs]("ProfileUrls", ""),
	componentOf[insightSummary]("InsightSummary", ""),
	componentOf[insightList]("InsightList", ""),
	componentOf[insightDocument]("InsightDocument", ""),
	componentOf[apiIndex]("ApiIndex", "The API index. urls is present in the served index beyond the specification's formal schema."),
	{name: "Problem", typ: reflect.TypeFor[problem.Problem](), open: true,
		description: "An RFC 9457 problem details document with the required code and hint members. Extra members are allowed."},
	componentOf[apiCatalog]("ApiCatalog", "RFC 9727 API catalog: an RFC 9264 linkset."),
	componentOf[protectedResourceMetadata]("ProtectedResourceMetadata", "RFC 9728 protected resource metadata."),
	componentOf[authorizationServerMetadata]("AuthorizationServerMetadata", "RFC 8414 authorization server metadata."),
	componentOf[jwkSet]("JWKSet", "A JSON Web Key Set (RFC 7517); empty, as access tokens are opaque."),
	componentOf[tokenResponse]("TokenResponse", "RFC 6749 section 5.1 access token response."),
	componentOf[tokenRequest]("TokenRequest", "RFC 6749 token request, form-encoded."),
	componentOf[oauthError]("OAuthError", "RFC 6749 section 5.2 error response: a missing, repeated or malformed parameter, or a refused client, grant, code, scope or resource."),
	{name: "ClientRegistration", typ: reflect.TypeFor[clientRegistration](), open: true,
		description: "RFC 7591 client registration request: the members the service reads. Other client metadata is accepted and ignored."},
	componentOf[clientInformation]("ClientInformation", "RFC 7591 client information response. No client secret: clients are public and use PKCE."),
	componentOf[registrationError]("RegistrationError", "RFC 7591 section 3.2.2 error response."),
	componentOf[identityRequest]("IdentityRequest", ""),
	componentOf[identityResponse]("IdentityResponse", ""),
	componentOf[claimResponse]("ClaimResponse", ""),
	componentOf[jsonrpcMessage]("JSONRPCMessage", "A JSON-RPC 2.0 request or notification of the Model Context Protocol."),
	componentOf[jsonrpcResponse]("JSONRPCResponse", "A JSON-RPC 2.0 response: result or error."),
	componentOf[jsonrpcErrorResponse]("JSONRPCErrorResponse", "A JSON-RPC 2.0 error response."),
	componentOf[serverCard]("ServerCard", "MCP server card: the current fields and the older serverInfo/transport ones."),
	componentOf[aiCatalog]("AICatalog", "An AI Catalog (ai-catalog.org) of the site's agent artifacts."),
	componentOf[skillsIndex]("SkillsIndex", "An Agent Skills discovery index (v0.2.0)."),
	componentOf[agentCard]("AgentCard", "An A2A 1.0 agent card: the site's agent, its skills (the MCP server's tools) and the MCP endpoint they are called at."),
}

// componentName returns the name of t's component, or "".
func componentName(t reflect.Type) string {
	for _, c := range components {
		if c.typ == t {
			return c.name
		}
	}
	return ""
}

// componentSchemas are every component's schema, other components
// referenced with $ref.
var componentSchemas = func() map[string]*jsonschema.Schema {
	refs := make(map[reflect.Type]*jsonschema.Schema, len(components))
	for _, c := range components {
		refs[c.typ] = &jsonschema.Schema{Ref: "#/components/schemas/" + c.name}
	}
	out := make(map[string]*jsonschema.Schema, len(components))
	for _, c := range components {
		// The component itself and the structs it embeds are described
		// in place, not referenced.
		local := maps.Clone(refs)
		delete(local, c.typ)
		for _, f := range reflect.VisibleFields(c.typ) {
			if f.Anonymous {
				delete(local, f.Type)
			}
		}
		s, err := schemaOf(c.typ, local)
		if err != nil {
			panic(fmt.Sprintf("handlers: schema of %s: %v", c.name, err))
		}
		if c.open {
			s.AdditionalProperties = &jsonschema.Schema{} // true
		}
		if c.description != "" {
			s.Description = c.description
		}
		out[c.name] = s
	}
	return out
}()

// inlineSchemas caches inlineSchema's results: a schema depends on its type
// alone, so every rendition's MCP server shares it.
var inlineSchemas sync.Map // reflect.Type -> *jsonschema.Schema

// inlineSchema is t's schema with every component written out in place:
// a self-contained schema, as MCP clients expect of a tool's output schema.
func inlineSchema(t reflect.Type) *jsonschema.Schema {
	if s, ok := inlineSchemas.Load(t); ok {
		return s.(*jsonschema.Schema)
	}
	s, err := schemaOf(t, nil)
	if err != nil {
		panic(fmt.Sprintf("handlers: schema of %s: %v", t, err))
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
			if err := constrain(prop, tag); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

// namedPatterns are patterns a schema tag names rather than writes, where
// another package owns the grammar: pattern=@slug.
var namedPatterns = map[string]string{"@slug": content.SlugPattern}

// constrain applies one schema tag to s.
func constrain(s *jsonschema.Schema, tag string) error {
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
			if named, ok := namedPatterns[value]; ok {
				value = named
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
