package content

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/mail"
	"net/url"
	"os"
	"path"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// LoadDir loads the content directory dir.
func LoadDir(dir string) (*Site, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("loading content: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("loading content: %s is not a directory", dir)
	}
	site, err := Load(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("loading content from %s: %w", dir, err)
	}
	return site, nil
}

// Load reads and validates a content directory: profile.yaml and the
// insights in insights/. Every problem found is reported, each naming its
// file, line and field; the error joins them, sorted by file then line.
func Load(fsys fs.FS) (*Site, error) {
	var ps problems
	site, modTime := loadProfile(fsys, &ps)
	loaded, skipped, found := loadInsights(fsys, &ps)
	if site != nil && site.Profile.LastUpdated == "" {
		// lastUpdated says when the profile last changed; what changes
		// most is its insights.
		switch {
		case len(loaded) > 0:
			for _, in := range loaded {
				site.Profile.LastUpdated = max(site.Profile.LastUpdated, in.DateModifiedISO)
			}
		case found > 0:
			// The insights have problems of their own, reported already.
		case !modTime.IsZero():
			site.Profile.LastUpdated = modTime.UTC().Format(time.DateOnly)
		default:
			ps.add(profileName, 0, "lastUpdated", "is required when there are no insights to take it from")
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
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
}

type signalsFile struct {
	AITrain *bool `yaml:"aiTrain"`
	Search  *bool `yaml:"search"`
	AIInput *bool `yaml:"aiInput"`
}

// loadProfile reads profile.yaml. It returns nil when the file cannot be
// read as a mapping, and the file's modification time when known.
func loadProfile(fsys fs.FS, ps *problems) (*Site, time.Time) {
	file := profileName
	data, err := readLimited(fsys, profileName)
	if err != nil {
		ps.add(file, 0, "", "%s", err)
		return nil, time.Time{}
	}
	info, _ := fs.Stat(fsys, profileName)
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
			Home:    stringOr(pf.Pages.Home, "/"),
			About:   stringOr(pf.Pages.About, "/about"),
			Insight: stringOr(pf.Pages.Insight, "/insights/{slug}"),
		},
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
	v.text("name", p.Name)
	v.text("tagline", p.Tagline)
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
	v.link("pages.insight", site.Pages.Insight)
	if !strings.Contains(site.Pages.Insight, "{slug}") {
		v.errorf("pages.insight", "must contain the placeholder {slug}")
	}
	var modTime time.Time
	if info != nil {
		modTime = info.ModTime()
	}
	return site, modTime
}

// postFile is a Markdown file found in the insights folder.
type postFile struct {
	path string // in the file system
	name string // as messages name it
	// base is the name the slug comes from: the file's name without its
	// extension.
	base   string
	bundle bool
}

// loadInsights reads the insights in insights/. found counts the files
// meant to be published, with or without problems.
func loadInsights(fsys fs.FS, ps *problems) (insights []Insight, skipped []Skip, found int) {
	insights = []Insight{}
	entries, err := fs.ReadDir(fsys, "insights")
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ps.add("insights", 0, "", "%s", unwrapPathError(err))
		}
		return insights, nil, 0
	}
	var files []postFile
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && !strings.HasPrefix(name, ".") && path.Ext(name) == ".md" {
			files = append(files, postFile{path: "insights/" + name, name: "insights/" + name, base: strings.TrimSuffix(name, ".md")})
		}
	}

	// Parsing dominates loading a large directory: spread it over the CPUs.
	type result struct {
		insight Insight
		skip    string
		ps      problems
	}
	results := make([]result, len(files))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				f, r := files[i], &results[i]
				if data, err := readLimited(fsys, f.path); err != nil {
					r.ps.add(f.name, 0, "", "%s", err)
				} else {
					r.insight, r.skip = parseInsight(f, data, &r.ps)
				}
			}
		})
	}
	wg.Wait()

	bySlug := make(map[string]string, len(results))
	for i, r := range results {
		f := files[i]
		*ps = append(*ps, r.ps...)
		if r.skip != "" {
			skipped = append(skipped, Skip{Path: f.name, Reason: r.skip})
			continue
		}
		found++
		if len(r.ps) > 0 {
			continue
		}
		if first, dup := bySlug[r.insight.Slug]; dup {
			ps.add(f.name, 0, "slug", "%q is also the slug of %s: set a different slug in one of them", r.insight.Slug, first)
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
	return insights, skipped, found
}

// ReadTime estimates how long body takes to read at WordsPerMinute, rounded
// to the nearest minute and at least one: "5 min read".
func ReadTime(body string) string {
	words, inWord := 0, false
	for i := 0; i < len(body); {
		var space bool
		if c := body[i]; c < utf8.RuneSelf {
			space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
			i++
		} else {
			r, size := utf8.DecodeRuneInString(body[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !inWord {
			words++
		}
		inWord = !space
	}
	minutes := int(math.Round(float64(words) / WordsPerMinute))
	return strconv.Itoa(max(minutes, 1)) + " min read"
}

func readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	// Read in one allocation when the size is known.
	buf := bytes.NewBuffer(nil)
	if info, err := f.Stat(); err == nil && info.Size() <= MaxFileSize {
		buf.Grow(int(info.Size()) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(f, MaxFileSize+1))
	data := buf.Bytes()
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileSize)
	}
	return data, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
