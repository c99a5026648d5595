// Package content holds the model of what the discovery API publishes (one
// profile and its insight articles), the loader that reads it from a content
// directory, and the embedded sample content.
//
// Content is loaded and validated once, when Caddy provisions the module; a
// loaded Site is never modified afterwards, so it can be shared by every
// request without locking.
//
// Imports from the module: internal/markdown.
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

	// Security is whom to tell about a vulnerability in the site, published
	// in security.txt; its zero value names no one.
	Security Security

	// Insights are the published articles, newest first (by dateISO, then slug).
	Insights []Insight

	// Anonymous reports that no one is named: the site says no person,
	// and the owner's files name none either; Profile.Name is then the
	// site's own name, which no document gives as an author's.
	Anonymous bool

	// PageTexts are the main content of the site's own pages the catalog
	// names (home, About), as Markdown, by their link in Pages: their
	// Markdown twins say what the pages say, the module's facts after it.
	PageTexts map[string]string

	// SiteFiles are the addresses of the module's documents (an
	// /openapi.json, a /.well-known/ document, an /index.md) that the site
	// serves files of its own at: the module leaves them to the site, and
	// hides none of its files.
	SiteFiles []string

	// PostsFolder reports that the posts come from a folder of the owner's
	// (the content's insights/, or the insights subdirective): they are
	// then the posts, and the site is read for their addresses only.
	PostsFolder bool

	// Language is the language tag of the site's text as its home page
	// declares it (<html lang>: "en", "pt-BR"); empty when unknown. The
	// search stems words in it (English when it names no language the
	// search knows).
	Language string

	// Skipped lists the files and folders under the insights folder that
	// were passed over, sorted by path, for the caller to log: on purpose
	// (drafts, posts the owner guards, section pages, non-Markdown files,
	// ...), or because a post cannot be used (Err set). A post never stops
	// the rest from loading.
	Skipped []Skip
}

// Skip is a file or folder the loader passed over, and why. It is not an
// error: a site's posts folder holds more than posts, and a post the loader
// cannot use is left out while the rest is served.
type Skip struct {
	// Path names the file as error messages do: relative to the content
	// directory for Load and LoadDir, under the insights folder as given
	// for LoadDirs.
	Path string
	// Reason is a short lowercase phrase, such as "draft" or "not Markdown".
	Reason string
	// Err, when set, is why a post could not be used: each problem names
	// the file, the line and the key at fault, and how to fix it. Reason is
	// then "cannot be used".
	Err error
	// Slug and Page are set for a post the owner keeps off every surface
	// (kept private, or excluded): its slug, and its page's address when
	// it can be told, so that the module serves nothing of that page
	// either (no Markdown made from the site's HTML).
	Slug, Page string
	dateISO    string
}

// Guarded reports whether the file is a post the owner keeps off every
// surface.
func (s Skip) Guarded() bool { return s.Slug != "" }

func (s Skip) String() string {
	if s.Err != nil {
		return s.Err.Error()
	}
	return s.Path + ": " + s.Reason
}

// reasonUnusable is the Reason of a post skipped for its problems.
const reasonUnusable = "cannot be used"

// Profile is the profile subject as the API publishes it, minus the derived
// urls object. Field names and order follow the specification. Only Name,
// Tagline and LastUpdated are always present; an empty section or contact
// channel is left out of the JSON.
//
// The schema tag carries the specification's JSON Schema keywords as
// ";"-separated key=value pairs for the schema generated from these types;
// the jsonschema tag is a field's description.
type Profile struct {
	Name          string     `json:"name" yaml:"name" jsonschema:"The subject's name"`
	Tagline       string     `json:"tagline" yaml:"tagline" jsonschema:"One sentence saying who the subject is and what they do"`
	About         []string   `json:"about,omitempty" yaml:"about" jsonschema:"Biography, one paragraph per item, in reading order"`
	KeyFacts      []string   `json:"keyFacts,omitempty" yaml:"keyFacts" jsonschema:"Short factual statements about the subject, one per item"`
	Recognition   []string   `json:"recognition,omitempty" yaml:"recognition" jsonschema:"Awards, talks, publications and appointments, one per item"`
	Expertise     []string   `json:"expertise,omitempty" yaml:"expertise" jsonschema:"Areas of expertise, one short phrase per item"`
	Education     []string   `json:"education,omitempty" yaml:"education" jsonschema:"Degrees and certifications, one per item"`
	Contact       Contact    `json:"contact" yaml:"contact" jsonschema:"Ways to reach the subject; channels the subject does not use are left out"`
	SiteStructure []SiteLink `json:"siteStructure,omitempty" yaml:"siteStructure" jsonschema:"The main pages of the subject's site"`
	LastUpdated   string     `json:"lastUpdated" yaml:"lastUpdated" schema:"format=date" jsonschema:"The day the profile or its newest insight last changed"`
}

// Contact lists the ways to reach the profile subject. Every channel is
// optional; links are paths beginning with "/" or absolute http(s) URLs.
type Contact struct {
	Form       string `json:"form,omitempty" yaml:"form" schema:"format=uri" jsonschema:"Address of a contact form"`
	Phone      string `json:"phone,omitempty" yaml:"phone" jsonschema:"Phone number as written, ideally in international format"`
	Email      string `json:"email,omitempty" yaml:"email" schema:"format=email" jsonschema:"Email address"`
	LinkedIn   string `json:"linkedin,omitempty" yaml:"linkedin" schema:"format=uri" jsonschema:"Profile on LinkedIn"`
	X          string `json:"x,omitempty" yaml:"x" schema:"format=uri" jsonschema:"Profile on X (formerly Twitter)"`
	Substack   string `json:"substack,omitempty" yaml:"substack" schema:"format=uri" jsonschema:"Newsletter on Substack"`
	YouTube    string `json:"youtube,omitempty" yaml:"youtube" schema:"format=uri" jsonschema:"Channel on YouTube"`
	CompanyBio string `json:"companyBio,omitempty" yaml:"companyBio" schema:"format=uri" jsonschema:"The subject's biography on their company's site"`
}

// SiteLink is one page of the site's structure.
type SiteLink struct {
	Label string `json:"label" yaml:"label" jsonschema:"The page's name as the site's navigation shows it"`
	URL   string `json:"url" yaml:"url" schema:"format=uri" jsonschema:"Absolute address of the page"`
	Desc  string `json:"desc" yaml:"desc" jsonschema:"What the page holds"`
}

// Pages are the addresses of the site's own pages, as paths beginning with
// "/" or absolute http(s) URLs: the home page, the about page, the list of
// insights, and the pattern of each insight's page (Insight holds the
// placeholder "{slug}", and may hold "{year}", "{month}" and "{day}" of its
// publication day, zero-padded as Jekyll and Hugo write them).
type Pages struct {
	Home     string `yaml:"home"`
	About    string `yaml:"about"`
	Insights string `yaml:"insights"`
	Insight  string `yaml:"insight"`
	// AboutGiven, InsightsGiven and InsightGiven report that profile.yaml
	// names the About and insights pages and the insights' pattern: a
	// default address (/about, /insights) is published only when the site
	// answers it, and the pattern of posts read from the site is theirs.
	AboutGiven, InsightsGiven, InsightGiven bool `yaml:"-"`
}

// Security is the site's security contact (RFC 9116 security.txt).
// Contact is set whenever any field is: a mailto:, tel: or https: URI.
type Security struct {
	Contact string `yaml:"contact"`
	// Policy is the vulnerability disclosure policy: a path beginning with
	// "/" or an absolute https URL.
	Policy string `yaml:"policy"`
	// Languages are the language tags (BCP 47) reports may be written in.
	Languages []string `yaml:"languages"`
}

// ContentSignals are the contentsignals.org preferences: true is "yes",
// false is "no".
type ContentSignals struct {
	AITrain bool
	Search  bool
	AIInput bool
}

// Insight is one published article. Fields the front matter leaves out are
// derived when it is loaded, so every field is set.
type Insight struct {
	// Slug comes from the front matter's slug, else from the file name
	// (without a Jekyll date prefix), or from the folder of a page bundle.
	Slug        string
	Title       string
	Description string // from the front matter, else the body's first paragraph
	// DescriptionGiven reports that the front matter gives the
	// description: a derived one gives way to the description the post's
	// page carries (its <meta name="description">).
	DescriptionGiven bool
	Date             string // display date: free text, or derived ("July 15, 2025")
	DateISO          string // YYYY-MM-DD
	DateModifiedISO  string // YYYY-MM-DD, not before DateISO
	Topic            string // from topic, else the first category or tag, else DefaultTopic
	ReadTime         string // from front matter, or computed from the word count
	Body             string // Markdown

	// Page is the address of the insight's page on the site: a path
	// beginning with "/", percent-encoded as in a URL, or an absolute
	// URL. It is the front matter's permalink (Jekyll, Eleventy) or url
	// (Hugo) when one is given, else Pages.Insight filled in; the site's
	// own sitemap may correct the latter (see MatchSitemap).
	Page string
	// PageGiven reports whether Page comes from the front matter, which
	// nothing overrides.
	PageGiven bool
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
