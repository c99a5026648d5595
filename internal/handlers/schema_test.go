package handlers

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
)

// TestSlugSchemaIsTheGrammar: the slug's schema (on the type, for
// openapi.json and the MCP tools) says what content.ValidSlug checks.
func TestSlugSchemaIsTheGrammar(t *testing.T) {
	slug := componentSchemas["InsightSummary"].Properties["slug"]
	if slug == nil || slug.MaxLength == nil || *slug.MaxLength != content.MaxSlugLength || *slug.MinLength != 1 {
		t.Fatalf("slug schema %+v", slug)
	}
	pattern := regexp.MustCompile(slug.Pattern)
	for _, s := range []string{"a", "a-b", "abc-123", "a--b", "-a", "a-", "A", "a_b", "é", strings.Repeat("a", 200)} {
		if got, want := pattern.MatchString(s), content.ValidSlug(s); got != want {
			t.Errorf("%q: pattern %v, ValidSlug %v", s, got, want)
		}
	}
}

func TestSchemaTags(t *testing.T) {
	type tagged struct {
		URL    string   `json:"url" schema:"format=uri"`
		Kind   string   `json:"kind" schema:"enum=a|b"`
		Links  []string `json:"links,omitempty" schema:"format=uri;minItems=1"`
		Count  int      `json:"count" schema:"minimum=0;maximum=9"`
		Closed bool     `json:"closed" schema:"const=false"`
	}
	s, err := schemaOf(reflect.TypeFor[tagged](), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	if p["url"].Format != "uri" || len(p["kind"].Enum) != 2 || p["links"].Items.Format != "uri" ||
		*p["links"].MinItems != 1 || *p["count"].Maximum != 9 || *p["closed"].Const != false {
		t.Errorf("constraints not applied: %+v", p)
	}
	if p["links"].Type != "array" || len(p["links"].Types) != 0 {
		t.Errorf("a list is %q %q, want array (never null)", p["links"].Type, p["links"].Types)
	}
	type lists struct {
		URIs   []string `json:"uris" schema:"maxItems=4;maxLength=9"`
		Grants []string `json:"grants,omitempty" schema:"type=array|null;contains=code"`
	}
	l, err := schemaOf(reflect.TypeFor[lists](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if uris := l.Properties["uris"]; *uris.MaxItems != 4 || uris.Items.MaxLength == nil || *uris.Items.MaxLength != 9 || uris.MaxLength != nil {
		t.Errorf("maxLength on a list applies to its items: %+v", uris)
	}
	if g := l.Properties["grants"]; g.Type != "" || strings.Join(g.Types, ",") != "array,null" || g.Contains == nil || *g.Contains.Const != "code" {
		t.Errorf("type and contains not applied: %+v", g)
	}
	if strings.Join(s.Required, ",") != "url,kind,count,closed" {
		t.Errorf("required %v", s.Required)
	}

	type bad struct {
		X string `json:"x" schema:"colour=blue"`
	}
	if _, err := schemaOf(reflect.TypeFor[bad](), nil); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("an unknown tag key: %v", err)
	}
}

// TestEveryBodyIsAComponent: the OpenAPI description references each JSON
// body, request and error body by its component's name, so each must have
// one.
func TestEveryBodyIsAComponent(t *testing.T) {
	for _, rt := range routes {
		for _, typ := range []reflect.Type{rt.Body, rt.Request, rt.ErrorBody} {
			if typ != nil && componentName(typ) == "" {
				t.Errorf("%s %s: %s is not among the components", rt.Method, rt.Path, typ)
			}
		}
	}
}
