package handlers

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
)

// TestSlugSchemaIsTheGrammar: the slug's schema (on the type, for
// openapi.json and the MCP tools) says what content.ValidSlug checks.
func TestSlugSchemaIsTheGrammar(t *testing.T) {
	slug := docs.Components.Schemas["InsightSummary"].Properties["slug"]
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

// TestEveryBodyIsAComponent: the OpenAPI description references each JSON
// body, request and error body by its component's name, so each must have
// one.
func TestEveryBodyIsAComponent(t *testing.T) {
	for _, rt := range routes {
		for _, typ := range []reflect.Type{rt.Body, rt.Request, rt.ErrorBody} {
			if typ != nil && docs.Components.Name(typ) == "" {
				t.Errorf("%s %s: %s is not among the components", rt.Method, rt.Path, typ)
			}
		}
	}
}
