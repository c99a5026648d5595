package schema

import (
	"reflect"
	"strings"
	"testing"
)

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

// ownPatterns names a pattern of its own for its schema tags.
type ownPatterns struct {
	Code  string   `json:"code" schema:"pattern=@code"`
	Codes []string `json:"codes" schema:"pattern=@code"`
	Slug  string   `json:"slug" schema:"pattern=@slug"`
}

func (ownPatterns) SchemaPatterns() map[string]string {
	return map[string]string{"@code": "^[a-z]{3}$"}
}

// TestNamedPatterns: a tag's pattern=@name is the pattern its struct names,
// or a module-wide one, and a name nobody gives is an error, not a pattern.
func TestNamedPatterns(t *testing.T) {
	s, err := schemaOf(reflect.TypeFor[ownPatterns](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Properties; p["code"].Pattern != "^[a-z]{3}$" || p["codes"].Items.Pattern != "^[a-z]{3}$" || p["slug"].Pattern == "" || strings.HasPrefix(p["slug"].Pattern, "@") {
		t.Errorf("named patterns: %q %q %q", p["code"].Pattern, p["codes"].Items.Pattern, p["slug"].Pattern)
	}
	type unnamed struct {
		X string `json:"x" schema:"pattern=@nobody"`
	}
	if _, err := schemaOf(reflect.TypeFor[unnamed](), nil); err == nil || !strings.Contains(err.Error(), "@nobody") {
		t.Errorf("a pattern nobody names: %v", err)
	}
}
