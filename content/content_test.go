package content

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestSchemaTags pins the JSON Schema keywords the generated schema takes
// from the profile's types, and checks that every schema tag is a
// ";"-separated list of key=value pairs.
func TestSchemaTags(t *testing.T) {
	want := map[string]string{
		"Profile.LastUpdated": "format=date",
		"Contact.Form":        "format=uri",
		"Contact.Email":       "format=email",
		"Contact.LinkedIn":    "format=uri",
		"Contact.X":           "format=uri",
		"Contact.Substack":    "format=uri",
		"Contact.YouTube":     "format=uri",
		"Contact.CompanyBio":  "format=uri",
		"SiteLink.URL":        "format=uri",
	}
	got := make(map[string]string)
	for _, v := range []any{Profile{}, Contact{}, SiteLink{}} {
		typ := reflect.TypeOf(v)
		for _, f := range reflect.VisibleFields(typ) {
			name := typ.Name() + "." + f.Name
			if tag, ok := f.Tag.Lookup("schema"); ok {
				got[name] = tag
				for _, pair := range strings.Split(tag, ";") {
					if k, v, ok := strings.Cut(pair, "="); !ok || k == "" || v == "" {
						t.Errorf("%s: schema tag %q: %q is not key=value", name, tag, pair)
					}
				}
			}
			if tag, ok := f.Tag.Lookup("jsonschema"); ok && (tag == "" || strings.Contains(strings.SplitN(tag, " ", 2)[0], "=")) {
				t.Errorf("%s: jsonschema tag %q must be a description", name, tag)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema tags = %v\nwant %v", got, want)
	}
}

// TestProfileJSON checks that sections and channels left out are left out
// of the JSON, and the required fields and the contact object never are.
func TestProfileJSON(t *testing.T) {
	tests := []struct {
		name    string
		profile Profile
		want    string
	}{
		{
			name:    "only what is required",
			profile: Profile{Name: "Ada", Tagline: "Engineer.", About: []string{}, SiteStructure: []SiteLink{}, LastUpdated: "2026-01-02"},
			want:    `{"name":"Ada","tagline":"Engineer.","contact":{},"lastUpdated":"2026-01-02"}`,
		},
		{
			name: "some sections and channels",
			profile: Profile{Name: "Ada", Tagline: "Engineer.", Expertise: []string{"Pipelines"},
				Contact: Contact{Email: "ada@example.com"}, LastUpdated: "2026-01-02"},
			want: `{"name":"Ada","tagline":"Engineer.","expertise":["Pipelines"],"contact":{"email":"ada@example.com"},"lastUpdated":"2026-01-02"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.profile)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
