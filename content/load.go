package content

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/mail"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing/fstest"
	"time"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Limits of a content directory, checked when it is loaded.
const (
	// MaxFileSize is the largest profile.yaml or insight file accepted.
	MaxFileSize = 1 << 20
	// WordsPerMinute converts an insight's word count into its read time.
	WordsPerMinute = 200
	// CJKCharactersPerMinute converts an insight's Chinese, Japanese and
	// Korean characters into read time: those scripts are read by the
	// character, Chinese and Japanese being written without spaces between
	// words. 500 is a common estimate for all three.
	CJKCharactersPerMinute = 500
)

//go:embed sample
var sampleFS embed.FS

// SampleFS is the embedded sample content directory.
func SampleFS() fs.FS {
	sub, err := fs.Sub(sampleFS, "sample")
	if err != nil {
		panic(err) // "sample" is a valid, embedded directory name
	}
	return sub
}

// Sample loads the embedded sample content.
func Sample() (*Site, error) {
	return Load(SampleFS())
}

// ScaledSample is the sample content grown to n insights, for benchmarks
// and tests of large content: the sample's profile, and insight i a copy of
// sample insight i mod 8 under its own slug (insight-00042) and title, one
// day later than insight i-1, over 2 000 days from 2020-01-01.
func ScaledSample(n int) (fs.FS, error) {
	sample, err := Sample()
	if err != nil {
		return nil, err
	}
	profile, err := fs.ReadFile(SampleFS(), "profile.yaml")
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{"profile.yaml": {Data: profile}}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		src := sample.Insights[i%len(sample.Insights)]
		day := start.AddDate(0, 0, i%2000).Format(time.DateOnly)
		fsys[fmt.Sprintf("insights/insight-%05d.md", i)] = &fstest.MapFile{Data: fmt.Appendf(nil,
			"---\ntitle: %q\ndescription: %q\ndate: %q\ndateISO: %q\ndateModifiedISO: %q\ntopic: %q\n---\n%s",
			fmt.Sprintf("%s (%d)", src.Title, i), src.Description, day, day, day, src.Topic, src.Body)}
	}
	return fsys, nil
}

// Options change what a content directory loads to. A nil *Options is the
// zero value, which loads every post.
type Options struct {
	// Exclude lists patterns of posts to keep off every surface, in the
	// syntax of path.Match, each matched against a file's or folder's
	// slash-separated path relative to the insights folder and against its
	// name alone: "drafts/", "*-wip.md", "2019/*". A pattern that matches a
	// folder excludes everything in it; one that ends in "/" matches only
	// folders, and one that begins with "/" only paths from the insights
	// folder. What a pattern excludes is listed in Site.Skipped with the
	// reason "excluded (<pattern>)". A malformed pattern is an error.
	Exclude []string
}

// check reports a malformed pattern.
func (o *Options) check() error {
	if o == nil {
		return nil
	}
	for _, pattern := range o.Exclude {
		if _, err := path.Match(trimPattern(pattern), ""); err != nil {
			return fmt.Errorf("exclude: %q: %w", pattern, err)
		}
	}
	return nil
}

// exclude returns the patterns of o, which may be nil.
func (o *Options) exclude() []string {
	if o == nil {
		return nil
	}
	return o.Exclude
}

// Load reads and validates a content directory: profile.yaml, and the
// insights under insights/ when that folder exists. Every problem found is
// reported, each naming its file, line and field; the error joins them,
// sorted by file then line.
//
// Symbolic links are followed as long as they stay inside fsys (when fsys
// can read links, as os.DirFS can); named pipes and other special files are
// never opened. Prefer LoadDir for a directory on disk: it also refuses a
// file swapped for a named pipe while it is being loaded.
func Load(fsys fs.FS) (*Site, error) {
	return LoadWith(fsys, nil)
}

// LoadWith is Load with options.
func LoadWith(fsys fs.FS, opts *Options) (*Site, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	t := tree{fsys: fsys, display: func(name string) string { return name }, scope: "the content directory"}
	return load(&t, t, "insights", false, opts.exclude())
}

// LoadDir loads the content directory dir: dir/profile.yaml and the
// insights under dir/insights, naming files in messages relative to dir.
// Symbolic links may not lead outside dir.
func LoadDir(dir string) (*Site, error) {
	return LoadDirWith(dir, nil)
}

// LoadDirWith is LoadDir with options.
func LoadDirWith(dir string, opts *Options) (*Site, error) {
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	root, err := openDir(dir)
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	defer root.Close()
	t := tree{fsys: rootDir{root}, display: func(name string) string { return name }, scope: "the content directory"}
	site, err := load(&t, t, "insights", false, opts.exclude())
	if err != nil {
		return nil, fmt.Errorf("loading content from %s: %w", dir, err)
	}
	return site, nil
}

// LoadDirs loads profileDir/profile.yaml and the insights under
// insightsDir, which may be any folder of Markdown posts: a Hugo
// content/posts, a Jekyll _posts, an Eleventy posts or an Astro
// src/content/blog. Messages name files by their path under the folder as
// given. Symbolic links may not lead outside the folder they are in.
func LoadDirs(profileDir, insightsDir string) (*Site, error) {
	return LoadDirsWith(profileDir, insightsDir, nil)
}

// LoadDirsWith is LoadDirs with options.
func LoadDirsWith(profileDir, insightsDir string, opts *Options) (*Site, error) {
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	profileRoot, err := openDir(profileDir)
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	defer profileRoot.Close()
	insightsRoot, err := openDir(insightsDir)
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	defer insightsRoot.Close()
	under := func(dir string) func(string) string {
		return func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
	}
	site, err := load(
		&tree{fsys: rootDir{profileRoot}, display: under(profileDir), scope: profileDir},
		tree{fsys: rootDir{insightsRoot}, display: under(insightsDir), scope: insightsDir},
		".", true, opts.exclude())
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	return site, nil
}

// LoadInsightsWith loads the posts under insightsDir with no profile.yaml:
// the profile is left to the catalog, which takes it from the site.
func LoadInsightsWith(insightsDir string, opts *Options) (*Site, error) {
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	root, err := openDir(insightsDir)
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	defer root.Close()
	t := tree{fsys: rootDir{root}, display: func(name string) string { return filepath.Join(insightsDir, filepath.FromSlash(name)) }, scope: insightsDir}
	site, err := load(nil, t, ".", true, opts.exclude())
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	return site, nil
}

// Bare is a site with nothing of the owner's: every profile field empty
// (the catalog takes them from the site), the default content signals and
// pages, no posts.
func Bare() *Site {
	return &Site{
		Profile: Profile{About: []string{}, KeyFacts: []string{}, Recognition: []string{}, Expertise: []string{},
			Education: []string{}, SiteStructure: []SiteLink{}},
		CompanyFacts: []string{}, Initiatives: []string{},
		Signals:  ContentSignals{AITrain: true, Search: true, AIInput: true},
		Pages:    Pages{Home: "/", About: "/about", Insights: "/insights", Insight: "/insights/{slug}"},
		Insights: []Insight{},
	}
}

func openDir(dir string) (*os.Root, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	return os.OpenRoot(dir)
}

// load reads profile.yaml from profile and the insights under the folder
// insightsDir of insights, which must exist when insightsRequired, leaving
// out what the patterns exclude.
func load(profile *tree, insights tree, insightsDir string, insightsRequired bool, exclude []string) (*Site, error) {
	var ps problems
	var site *Site
	var modTime time.Time
	if profile != nil {
		site, modTime = loadProfile(*profile, &ps)
	} else {
		site = Bare()
	}
	loaded, skipped, postProblems := loadInsights(insights, insightsDir, insightsRequired, exclude, &ps)
	if site != nil {
		site.PostsFolder = insightsRequired || insights.exists(insightsDir)
	}
	if site != nil && site.Profile.LastUpdated == "" {
		// lastUpdated says when the profile last changed; what changes
		// most is its insights.
		switch {
		case len(loaded) > 0:
			for _, in := range loaded {
				site.Profile.LastUpdated = max(site.Profile.LastUpdated, in.DateModifiedISO)
			}
		case profile != nil && !modTime.IsZero():
			site.Profile.LastUpdated = modTime.UTC().Format(time.DateOnly)
		}
		// Otherwise the catalog takes it from the site's posts.
	}
	if len(ps) > 0 {
		// The profile (or the folder) fails the load; the posts' own
		// problems are named with it, so that one pass shows them all.
		return nil, append(ps, postProblems...).err()
	}
	for i := range loaded {
		if !loaded[i].PageGiven {
			loaded[i].Page = FillPage(site.Pages.Insight, loaded[i].Slug, loaded[i].DateISO)
		}
	}
	for i := range skipped {
		if s := &skipped[i]; s.Slug != "" && s.Page == "" && (s.dateISO != "" || !strings.Contains(site.Pages.Insight, "{")) {
			s.Page = FillPage(site.Pages.Insight, s.Slug, s.dateISO)
		}
	}
	site.Insights = loaded
	site.Skipped = skipped
	return site, nil
}

const profileName = "profile.yaml"

// profileFile is the shape of profile.yaml: the Profile fields plus the
// sections only other documents use.
type profileFile struct {
	Profile        `yaml:",inline"`
	CompanyFacts   []string    `yaml:"companyFacts"`
	Initiatives    []string    `yaml:"initiatives"`
	ContentSignals signalsFile `yaml:"contentSignals"`
	Pages          Pages       `yaml:"pages"`
	Security       Security    `yaml:"security"`
}

type signalsFile struct {
	AITrain *bool `yaml:"aiTrain"`
	Search  *bool `yaml:"search"`
	AIInput *bool `yaml:"aiInput"`
}

// loadProfile reads profile.yaml. It returns nil when the file cannot be
// read as a mapping, and the file's modification time when known.
func loadProfile(t tree, ps *problems) (*Site, time.Time) {
	file := t.display(profileName)
	name, err := t.resolve(profileName)
	if err != nil {
		ps.add(file, 0, "", "%s", err)
		return nil, time.Time{}
	}
	data, info, err := readRegular(t.fsys, name)
	if err != nil {
		ps.add(file, 0, "", "%s", err)
		return nil, time.Time{}
	}
	doc, ok := parseYAML(file, 0, "", data, ps)
	if !ok {
		return nil, time.Time{}
	}
	if doc.root == nil {
		ps.add(file, 0, "", "is empty")
		return nil, time.Time{}
	}
	if doc.root.Kind != yaml.MappingNode {
		ps.add(file, doc.line(doc.root), "", "must be a mapping of keys to values, not %s", describe(doc.root))
		return nil, time.Time{}
	}
	var pf profileFile
	lines := make(map[string]int)
	d := structDecoder{doc: doc, ps: ps, lines: lines}
	d.decode(doc.root, reflect.ValueOf(&pf).Elem(), "")

	site := &Site{
		Profile:      pf.Profile,
		CompanyFacts: nonNil(pf.CompanyFacts),
		Initiatives:  nonNil(pf.Initiatives),
		Signals: ContentSignals{
			AITrain: boolOr(pf.ContentSignals.AITrain, true),
			Search:  boolOr(pf.ContentSignals.Search, true),
			AIInput: boolOr(pf.ContentSignals.AIInput, true),
		},
		Pages: Pages{
			Home:          stringOr(pf.Pages.Home, "/"),
			About:         stringOr(pf.Pages.About, "/about"),
			Insights:      stringOr(pf.Pages.Insights, "/insights"),
			Insight:       stringOr(pf.Pages.Insight, "/insights/{slug}"),
			AboutGiven:    pf.Pages.About != "",
			InsightsGiven: pf.Pages.Insights != "",
			InsightGiven:  pf.Pages.Insight != "",
		},
		Security: pf.Security,
	}
	p := &site.Profile
	p.About = nonNil(p.About)
	p.KeyFacts = nonNil(p.KeyFacts)
	p.Recognition = nonNil(p.Recognition)
	p.Expertise = nonNil(p.Expertise)
	p.Education = nonNil(p.Education)
	if p.SiteStructure == nil {
		p.SiteStructure = []SiteLink{}
	}

	v := validator{file: file, lines: lines, ps: ps}
	// Every field is optional: what the file leaves out, the catalog takes
	// from the site (name and tagline included).
	p.Name, p.Tagline = strings.TrimSpace(p.Name), strings.TrimSpace(p.Tagline)
	for _, section := range []struct {
		field string
		items []string
	}{
		{"about", p.About}, {"keyFacts", p.KeyFacts}, {"recognition", p.Recognition},
		{"expertise", p.Expertise}, {"education", p.Education},
		{"companyFacts", site.CompanyFacts}, {"initiatives", site.Initiatives},
	} {
		for i, s := range section.items {
			v.text(section.field+"["+strconv.Itoa(i)+"]", s)
		}
	}
	c := &p.Contact
	for _, channel := range []struct {
		field string
		value *string
		check func(field, s string)
	}{
		{"contact.form", &c.Form, v.link},
		{"contact.phone", &c.Phone, nil},
		{"contact.email", &c.Email, v.email},
		{"contact.linkedin", &c.LinkedIn, v.link},
		{"contact.x", &c.X, v.link},
		{"contact.substack", &c.Substack, v.link},
		{"contact.youtube", &c.YouTube, v.link},
		{"contact.companyBio", &c.CompanyBio, v.link},
	} {
		// A channel left blank is a channel not given.
		if strings.TrimSpace(*channel.value) == "" {
			*channel.value = ""
		} else if channel.check != nil {
			channel.check(channel.field, *channel.value)
		}
	}
	for i, l := range p.SiteStructure {
		field := "siteStructure[" + strconv.Itoa(i) + "]"
		v.text(field+".label", l.Label)
		if v.text(field+".url", l.URL) {
			v.link(field+".url", l.URL)
		}
		v.text(field+".desc", l.Desc)
	}
	if strings.TrimSpace(p.LastUpdated) == "" {
		p.LastUpdated = ""
	} else {
		v.date("lastUpdated", p.LastUpdated)
	}
	v.link("pages.home", site.Pages.Home)
	v.link("pages.about", site.Pages.About)
	v.link("pages.insights", site.Pages.Insights)
	v.link("pages.insight", site.Pages.Insight)
	if unknown := unknownPlaceholders(site.Pages.Insight); len(unknown) > 0 {
		what := unknown[0] + " is not a placeholder"
		if len(unknown) > 1 {
			what = strings.Join(unknown, " and ") + " are not placeholders"
		}
		v.errorf("pages.insight", "%s: the placeholders are %s", what, strings.Join(InsightPlaceholders, ", "))
	} else if !strings.Contains(site.Pages.Insight, "{slug}") {
		v.errorf("pages.insight", "must contain the placeholder {slug}")
	}
	v.security(&site.Security)
	var modTime time.Time
	if info != nil {
		modTime = info.ModTime()
	}
	return site, modTime
}

// loadInsights reads the insights under the folder dir of t, but for what
// the patterns exclude. A post with problems is skipped, its problems in
// its Skip and in postProblems; ps gets only the problems of the folder
// itself.
func loadInsights(t tree, dir string, required bool, exclude []string, ps *problems) (insights []Insight, skipped []Skip, postProblems problems) {
	insights = []Insight{}
	resolved, err := t.resolve(dir)
	if err == nil {
		var info fs.FileInfo
		if info, err = fs.Lstat(t.fsys, resolved); err == nil && !info.IsDir() {
			err = errors.New("is not a folder")
		}
	}
	switch {
	case err == nil:
	case !required && errors.Is(err, fs.ErrNotExist):
		return insights, nil, nil
	default:
		ps.add(t.display(dir), 0, "", "%s", unwrapPathError(err))
		return insights, nil, nil
	}
	w := walker{tree: t, root: dir, exclude: exclude, visited: make(map[string]string), ps: ps}
	w.walk(dir, resolved, 0, nil)
	for i := range w.files {
		w.files[i].wholeTerms = w.wholeTerms()
	}

	// Parsing dominates loading a large directory: spread it over the CPUs.
	type result struct {
		insight Insight
		skip    string
		ps      problems
	}
	results := make([]result, len(w.files))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(w.files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(w.files); i = int(next.Add(1) - 1) {
				f, r := w.files[i], &results[i]
				data, _, err := readRegular(t.fsys, f.path)
				var notRegular errNotRegular
				switch {
				case errors.As(err, &notRegular):
					r.skip = irregular(notRegular.mode)
				case err != nil:
					r.ps.add(f.name, 0, "", "%s", err)
				default:
					r.insight, r.skip = parseInsight(f, data, &r.ps)
				}
			}
		})
	}
	wg.Wait()

	skipped = w.skipped
	bySlug := make(map[string]string, len(results))
	for i, r := range results {
		f := w.files[i]
		if len(r.ps) > 0 {
			skipped = append(skipped, Skip{Path: f.name, Reason: reasonUnusable, Err: r.ps.err()})
			postProblems = append(postProblems, r.ps...)
			continue
		}
		if r.skip != "" {
			skip := Skip{Path: f.name, Reason: r.skip}
			if strings.HasPrefix(r.skip, reasonPrivate) && ValidSlug(r.insight.Slug) {
				skip.Slug, skip.dateISO = r.insight.Slug, r.insight.DateISO
				if r.insight.PageGiven {
					skip.Page = r.insight.Page
				}
			}
			skipped = append(skipped, skip)
			continue
		}
		if first, dup := bySlug[r.insight.Slug]; dup {
			var dupe problems
			dupe.add(f.name, 0, "slug", "%q is also the slug of %s: set a different slug in one of them", r.insight.Slug, first)
			skipped = append(skipped, Skip{Path: f.name, Reason: reasonUnusable, Err: dupe.err()})
			postProblems = append(postProblems, dupe...)
			continue
		}
		bySlug[r.insight.Slug] = f.name
		insights = append(insights, r.insight)
	}
	sort.Slice(insights, func(i, j int) bool {
		if insights[i].DateISO != insights[j].DateISO {
			return insights[i].DateISO > insights[j].DateISO
		}
		return insights[i].Slug < insights[j].Slug
	})
	sort.SliceStable(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return insights, skipped, postProblems
}

// ReadTime estimates how long body takes to read, rounded to the nearest
// minute and at least one: "5 min read". Words separated by spaces are read
// at WordsPerMinute, and the characters of Chinese, Japanese and Korean
// text (Han, Hiragana, Katakana, Hangul) at CJKCharactersPerMinute.
func ReadTime(body string) string {
	words, chars := 0, 0
	inWord := false
	afterCJK := false // punctuation right after CJK text is part of it, no word
	for i := 0; i < len(body); {
		if c := body[i]; c < utf8.RuneSelf {
			i++
			switch {
			case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
				inWord, afterCJK = false, false
			case afterCJK && isASCIIPunct(c):
			case !inWord:
				words++
				inWord, afterCJK = true, false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(body[i:])
		i += size
		switch {
		case isCJK(r):
			chars++
			inWord, afterCJK = false, true
		case unicode.IsSpace(r):
			inWord, afterCJK = false, false
		case (afterCJK || r >= '\u3000') && unicode.IsPunct(r):
			// CJK punctuation (、。「」！), or punctuation after CJK text:
			// it ends a word, and is none.
			inWord = false
		case !inWord:
			words++
			inWord, afterCJK = true, false
		}
	}
	minutes := int(math.Round(float64(words)/WordsPerMinute + float64(chars)/CJKCharactersPerMinute))
	return strconv.Itoa(max(minutes, 1)) + " min read"
}

// isCJK reports whether r is a character of Chinese, Japanese or Korean
// text, read one by one.
func isCJK(r rune) bool {
	switch {
	case r < '\u1100':
		return false
	case '\u4e00' <= r && r <= '\u9fff', '\uac00' <= r && r <= '\ud7a3', '\u3041' <= r && r <= '\u30ff' && r != '・':
		// The common ideographs, Hangul syllables, and kana with the
		// katakana long vowel mark, which belongs to no one script: the
		// most of such text, found without a table.
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// date checks a YYYY-MM-DD date and reports whether it is one.
func (v *validator) date(field, s string) bool {
	if s == "" {
		v.errorf(field, "is required")
		return false
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		v.errorf(field, "%q is not a date (YYYY-MM-DD)", s)
		return false
	}
	return true
}

func (v *validator) email(field, s string) {
	if s == "" {
		v.errorf(field, "is required")
		return
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s {
		v.errorf(field, "%q is not an email address", s)
	}
}

// languageTag matches a BCP 47 language tag in its common forms: "en",
// "en-GB", "zh-Hant-TW".
var languageTag = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

// security checks the security contact: none at all, or a contact URI
// with an optional https policy and language tags.
func (v *validator) security(s *Security) {
	s.Contact, s.Policy = strings.TrimSpace(s.Contact), strings.TrimSpace(s.Policy)
	if s.Contact == "" && s.Policy == "" && len(s.Languages) == 0 {
		return
	}
	if s.Contact == "" {
		v.errorf("security.contact", "is required with the rest of security: a mailto:, tel: or https: URI")
	} else if u, err := url.Parse(s.Contact); err != nil || strings.ContainsAny(s.Contact, " \t\n") ||
		!(u.Scheme == "mailto" && u.Opaque != "" || u.Scheme == "tel" && u.Opaque != "" || u.Scheme == "https" && u.Host != "") {
		v.errorf("security.contact", "%q is not a mailto:, tel: or https: URI (for an email address, write mailto:%s)", s.Contact, strings.TrimPrefix(s.Contact, "mailto:"))
	}
	if s.Policy != "" {
		if u, err := url.Parse(s.Policy); !ValidLink(s.Policy) || err != nil || u.Scheme == "http" {
			v.errorf("security.policy", "%q is neither a path beginning with / nor an absolute https URL", s.Policy)
		}
	}
	for i, tag := range s.Languages {
		if !languageTag.MatchString(tag) {
			v.errorf("security.languages["+strconv.Itoa(i)+"]", "%q is not a language tag such as en or en-GB", tag)
		}
	}
}

// link accepts a path beginning with "/" (resolved against the base URL when
// served) or an absolute http or https URL.
func (v *validator) link(field, s string) {
	if s == "" {
		v.errorf(field, "is required")
		return
	}
	if !ValidLink(s) {
		v.errorf(field, "%q is neither a path beginning with / nor an absolute http(s) URL", s)
	}
}

// ValidLink reports whether s is a path beginning with a single "/" or an
// absolute http or https URL with a host.
func ValidLink(s string) bool {
	u, err := url.Parse(s)
	if err != nil || strings.ContainsAny(s, " \t\n") {
		return false
	}
	if strings.HasPrefix(s, "/") {
		return !strings.HasPrefix(s, "//") && u.Host == "" && u.Scheme == ""
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

func stringOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
