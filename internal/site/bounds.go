package site

import (
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/convert"
)

// Bounds are the limits of reading the site: what one read may cost the
// site and the process, whatever the site serves. DefaultBounds are the
// documented ones (docs/content.md).
type Bounds struct {
	// Concurrency is how many answers the reader waits on at once (one
	// past its time counts until it ends). Pages are read one at a time,
	// whatever it is, and after each the reader waits as long as the
	// page took (the site's answer, then parsing and converting it): it
	// keeps the site busy at most half the time of one visitor.
	Concurrency int
	// AnswerTime bounds each answer, from the request to its last byte.
	// An answer still running then is left to finish on its own, and no
	// more than Concurrency such answers are left at once.
	AnswerTime time.Duration
	// PageBytes, FeedBytes, SitemapBytes and RobotsBytes are the most
	// bytes read of one answer of each kind, after decompression; a
	// larger answer is skipped.
	PageBytes, FeedBytes, SitemapBytes, RobotsBytes int
	// Pages is how many pages one full read reads in all (the home page,
	// posts, list pages, the About page, the pages its navigation names).
	Pages int
	// Sitemaps is how many sitemap files one read reads; Addresses how
	// many addresses it takes from them in all.
	Sitemaps, Addresses int
	// Feeds is how many distinct feeds are read, FeedPages how many
	// documents of one paged feed.
	Feeds, FeedPages int
	// Depth is how many links from the home page the crawl follows.
	Depth int
	// ReadTime bounds one full read; what was read by then is published.
	ReadTime time.Duration
	// Refresh is how often the feeds and sitemaps are asked again,
	// conditionally; 0 reads the site once.
	Refresh time.Duration
	// FullRead is how often every page read is asked again,
	// conditionally, to find posts changed or removed that no feed or
	// sitemap announces.
	FullRead time.Duration
}

// DefaultBounds are the bounds of reading the site.
var DefaultBounds = Bounds{
	Concurrency:  2,
	AnswerTime:   10 * time.Second,
	PageBytes:    convert.MaxHTML,
	FeedBytes:    16 << 20,
	SitemapBytes: 16 << 20,
	RobotsBytes:  512 << 10,
	Pages:        5000,
	Sitemaps:     64,
	Addresses:    100_000,
	Feeds:        4,
	FeedPages:    100,
	Depth:        3,
	ReadTime:     10 * time.Minute,
	Refresh:      30 * time.Second,
	FullRead:     6 * time.Hour,
}
