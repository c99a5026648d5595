// Package content holds the model of what the discovery API publishes (one
// profile and its insight articles), the loader that reads it from a content
// directory, and the embedded sample content.
//
// Content is loaded and validated once, when Caddy provisions the module; a
// loaded Site is never modified afterwards, so it can be shared by every
// request without locking.
package content

// Site is everything a content directory holds.
type Site struct {
	// Profile is the published profile, with URLs as written in profile.yaml
	// (paths beginning with "/" are resolved against the base URL when served).
	Profile Profile

	// CompanyFacts and Initiatives are free-form sections that only
	// llms-full.txt publishes.
	CompanyFacts []string
	Initiatives  []string

	// Signals are the content-usage preferences published in robots.txt.
	Signals ContentSignals

	// Pages are the site's own pages that the API links to.
	Pages Pages

	// Insights are the published articles, newest first (by dateISO, then slug).
	Insights []Insight
}

// Profile is the profile subject as the API publishes it, minus the derived
// urls object. Field names and order follow the specification.
type Profile struct {
	Name          string     `json:"name" yaml:"name"`
	Tagline       string     `json:"tagline" yaml:"tagline"`
	About         []string   `json:"about" yaml:"about"`
	KeyFacts      []string   `json:"keyFacts" yaml:"keyFacts"`
	Recognition   []string   `json:"recognition" yaml:"recognition"`
	Expertise     []string   `json:"expertise" yaml:"expertise"`
	Education     []string   `json:"education" yaml:"education"`
	Contact       Contact    `json:"contact" yaml:"contact"`
	SiteStructure []SiteLink `json:"siteStructure" yaml:"siteStructure"`
	LastUpdated   string     `json:"lastUpdated" yaml:"lastUpdated"`
}

// Contact lists the ways to reach the profile subject. Every field is
// required by the specification.
type Contact struct {
	Form       string `json:"form" yaml:"form"`
	Phone      string `json:"phone" yaml:"phone"`
	Email      string `json:"email" yaml:"email"`
	LinkedIn   string `json:"linkedin" yaml:"linkedin"`
	X          string `json:"x" yaml:"x"`
	Substack   string `json:"substack" yaml:"substack"`
	YouTube    string `json:"youtube" yaml:"youtube"`
	CompanyBio string `json:"companyBio" yaml:"companyBio"`
}

// SiteLink is one page of the site's structure.
type SiteLink struct {
	Label string `json:"label" yaml:"label"`
	URL   string `json:"url" yaml:"url"`
	Desc  string `json:"desc" yaml:"desc"`
}

// Pages are the addresses of the site's own pages, as paths beginning with
// "/" or absolute http(s) URLs. Insight holds the placeholder "{slug}".
type Pages struct {
	Home    string `yaml:"home"`
	About   string `yaml:"about"`
	Insight string `yaml:"insight"`
}

// ContentSignals are the contentsignals.org preferences: true is "yes",
// false is "no".
type ContentSignals struct {
	AITrain bool
	Search  bool
	AIInput bool
}

// Insight is one published article.
type Insight struct {
	// Slug comes from the file name: insights/<slug>.md.
	Slug            string
	Title           string
	Description     string
	Date            string // display date, free text
	DateISO         string // YYYY-MM-DD
	DateModifiedISO string // YYYY-MM-DD, not before DateISO
	Topic           string
	ReadTime        string // from front matter, or computed from the word count
	Body            string // Markdown
}

// Topics returns the distinct insight topics in order of first appearance.
func (s *Site) Topics() []string {
	seen := make(map[string]bool)
	var topics []string
	for _, in := range s.Insights {
		if !seen[in.Topic] {
			seen[in.Topic] = true
			topics = append(topics, in.Topic)
		}
	}
	return topics
}
