package wire

// AICatalog is an AI Catalog (application/ai-catalog+json, spec version
// 1.0): typed entries pointing at the site's agent artifacts.
type AICatalog struct {
	SpecVersion string           `json:"specVersion" schema:"enum=1.0"`
	Host        AICatalogHost    `json:"host"`
	Entries     []AICatalogEntry `json:"entries"`
}

// AICatalogHost names who operates the catalog.
type AICatalogHost struct {
	DisplayName      string `json:"displayName"`
	Identifier       string `json:"identifier" jsonschema:"The site's domain name."`
	DocumentationURL string `json:"documentationUrl" schema:"format=uri"`
}

// AICatalogEntry is one artifact, with the name, description and sample
// questions the Agentic Resource Discovery schema asks for so registries
// can index it; each is taken from the artifact itself (the server card's
// title and description, the skill's front matter), so the two agree.
type AICatalogEntry struct {
	Identifier            string   `json:"identifier" schema:"pattern=^urn:air:[^:]+:[^:]+:[^:]+$" jsonschema:"A urn:air identifier: the publishing domain, a namespace and a name."`
	DisplayName           string   `json:"displayName" jsonschema:"The artifact's name, as people read it."`
	Type                  string   `json:"type" jsonschema:"The artifact's media type."`
	URL                   string   `json:"url" schema:"format=uri"`
	Description           string   `json:"description" jsonschema:"What the artifact offers."`
	RepresentativeQueries []string `json:"representativeQueries" schema:"minItems=2;maxItems=5" jsonschema:"Questions the artifact answers, for registries that index by meaning."`
}
