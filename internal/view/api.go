package view

import (
	"cmp"
	"time"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/wire"
)

// APIVersion is the version in the API's path, sent as the API-Version header
// and in the apiVersion fields.
const APIVersion = "1"

// Health is the health report of a check made at now.
func (l Links) Health(now time.Time) wire.Health {
	return wire.Health{
		Status:     "ok",
		Service:    l.ServiceName,
		Version:    l.Version,
		APIVersion: APIVersion,
		URL:        l.Base + PathHealth,
		CheckedAt:  now.UTC().Format(time.RFC3339),
	}
}

// Profile is the profile, its links absolute.
func (l Links) Profile() wire.Profile {
	p := l.Cat.Site.Profile
	c := &p.Contact
	for _, f := range []*string{&c.Form, &c.LinkedIn, &c.X, &c.Substack, &c.YouTube, &c.CompanyBio} {
		*f = l.Abs(*f)
	}
	p.SiteStructure = make([]content.SiteLink, len(p.SiteStructure))
	for i, sl := range l.Cat.Site.Profile.SiteStructure {
		sl.URL = l.Abs(sl.URL)
		p.SiteStructure[i] = sl
	}
	return wire.Profile{
		Profile: p,
		URLs: wire.ProfileURLs{
			Home: l.Abs(l.Cat.Site.Pages.Home),
			// A site with no About page: the home page is what says who
			// the profile is.
			About:      l.Abs(cmp.Or(l.Cat.Site.Pages.About, l.Cat.Site.Pages.Home)),
			Developers: l.Developers(),
			LLMsTxt:    l.Base + PathLLMs,
			LLMsFull:   l.Base + PathLLMsFull,
			APICatalog: l.Base + PathCatalog,
			OpenAPI:    l.OpenAPI(),
		},
	}
}

// Summary is the list entry of an insight.
func (l Links) Summary(in content.Insight) wire.InsightSummary {
	return wire.InsightSummary{
		Slug:            in.Slug,
		Title:           in.Title,
		Description:     in.Description,
		Date:            in.Date,
		DateISO:         in.DateISO,
		DateModifiedISO: in.DateModifiedISO,
		Topic:           in.Topic,
		ReadTime:        in.ReadTime,
		URL:             l.Insight(in.Slug),
	}
}

// Insights is the list of the published insights.
func (l Links) Insights() wire.InsightList {
	items := make([]wire.InsightSummary, len(l.Cat.Site.Insights))
	for i, in := range l.Cat.Site.Insights {
		items[i] = l.Summary(in)
	}
	return wire.InsightList{Count: len(items), Items: items}
}

// InsightDocument is one insight with its body.
func (l Links) InsightDocument(in content.Insight) wire.InsightDocument {
	return wire.InsightDocument{InsightSummary: l.Summary(in), Content: in.Body}
}
