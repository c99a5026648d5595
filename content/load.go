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

// frontMatter is the YAML header of an insight file.
type frontMatter struct {
	Title           string `yaml:"title"`
	Description     string `yaml:"description"`
	Date            string `yaml:"date"`
	DateISO         string `yaml:"dateISO"`
	DateModifiedISO string `yaml:"dateModifiedISO"`
	Topic           string `yaml:"topic"`
	ReadTime        string `yaml:"readTime"`
}

// Load reads and validates a content directory: profile.yaml and
// insights/<slug>.md. Every problem found is reported, each naming its file
// and field, and its line when one line is at fault.
func Load(fsys fs.FS) (*Site, error) {
	var ps problems
	site, modTime := loadProfile(fsys, &ps)
	insights, insightsErr := loadInsights(fsys)
	if site != nil && site.Profile.LastUpdated == "" {
		// lastUpdated says when the profile last changed; what changes
		// most is its insights.
		switch {
		case len(insights) > 0:
			for _, in := range insights {
				site.Profile.LastUpdated = max(site.Profile.LastUpdated, in.DateModifiedISO)
			}
		case insightsErr != nil:
			// The insights have problems of their own, reported already.
		case !modTime.IsZero():
			site.Profile.LastUpdated = modTime.UTC().Format(time.DateOnly)
		default:
			ps.add(profileName, 0, "lastUpdated", "is required when there are no insights to take it from")
		}
	}
	if err := errors.Join(ps.err(), insightsErr); err != nil {
		return nil, err
	}
	site.Insights = insights
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

func loadInsights(fsys fs.FS) ([]Insight, error) {
	entries, err := fs.ReadDir(fsys, "insights")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return []Insight{}, nil
		}
		return nil, fmt.Errorf("insights: %w", err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && !strings.HasPrefix(name, ".") && path.Ext(name) == ".md" {
			names = append(names, "insights/"+name)
		}
	}
	// Parsing dominates loading a large directory: spread it over the CPUs.
	loaded := make([]Insight, len(names))
	errs := make([]error, len(names))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(names); i = int(next.Add(1) - 1) {
				loaded[i], errs[i] = loadInsight(fsys, names[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	insights := append([]Insight{}, loaded...)
	sort.Slice(insights, func(i, j int) bool {
		if insights[i].DateISO != insights[j].DateISO {
			return insights[i].DateISO > insights[j].DateISO
		}
		return insights[i].Slug < insights[j].Slug
	})
	return insights, nil
}

func loadInsight(fsys fs.FS, name string) (Insight, error) {
	slug := strings.TrimSuffix(path.Base(name), ".md")
	if !ValidSlug(slug) {
		return Insight{}, fmt.Errorf("%s: file name: %q is not a slug (%s)", name, slug, SlugGrammar)
	}
	data, err := readLimited(fsys, name)
	if err != nil {
		return Insight{}, fmt.Errorf("%s: %w", name, err)
	}
	header, body, err := splitFrontMatter(data)
	if err != nil {
		return Insight{}, fmt.Errorf("%s: %w", name, err)
	}
	var fm frontMatter
	if err := decodeStrict(header, &fm); err != nil {
		return Insight{}, fmt.Errorf("%s: front matter: %w", name, err)
	}
	var ps problems
	v := validator{file: name, ps: &ps}
	v.text("title", fm.Title)
	v.text("description", fm.Description)
	v.text("date", fm.Date)
	published := v.date("dateISO", fm.DateISO)
	modified := v.date("dateModifiedISO", fm.DateModifiedISO)
	if published && modified && fm.DateModifiedISO < fm.DateISO {
		v.errorf("dateModifiedISO", "%q is before dateISO %q", fm.DateModifiedISO, fm.DateISO)
	}
	v.text("topic", fm.Topic)
	if fm.ReadTime != "" {
		v.text("readTime", fm.ReadTime)
	}
	if strings.TrimSpace(body) == "" {
		v.errorf("body", "is empty")
	} else if !utf8.ValidString(body) {
		v.errorf("body", "is not valid UTF-8")
	}
	if err := ps.err(); err != nil {
		return Insight{}, err
	}
	readTime := fm.ReadTime
	if readTime == "" {
		readTime = ReadTime(body)
	}
	return Insight{
		Slug:            slug,
		Title:           fm.Title,
		Description:     fm.Description,
		Date:            fm.Date,
		DateISO:         fm.DateISO,
		DateModifiedISO: fm.DateModifiedISO,
		Topic:           fm.Topic,
		ReadTime:        readTime,
		Body:            body,
	}, nil
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

// splitFrontMatter separates the YAML header, fenced by lines of "---", from
// the Markdown body.
func splitFrontMatter(data []byte) (header []byte, body string, err error) {
	if bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, "", errors.New("front matter: the file must begin with a line of three hyphens (---)")
	}
	rest := data[len("---\n"):]
	end := bytes.Index(rest, []byte("\n---\n"))
	switch {
	case bytes.HasPrefix(rest, []byte("---\n")):
		return nil, "", errors.New("front matter: is empty")
	case end < 0 && bytes.HasSuffix(rest, []byte("\n---")):
		return rest[:len(rest)-len("\n---")], "", nil
	case end < 0:
		return nil, "", errors.New("front matter: no closing line of three hyphens (---)")
	}
	return rest[:end+1], strings.TrimLeft(string(rest[end+len("\n---\n"):]), "\n"), nil
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

// decodeStrict decodes one YAML document, refusing unknown fields.
func decodeStrict(data []byte, out any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("is empty")
		}
		return err
	}
	return nil
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
