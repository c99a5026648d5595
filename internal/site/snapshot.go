package site

import (
	"net/url"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/sitefacts"
)

// Snapshot is what a read found on the site, as the catalog is built
// from it: immutable once published.
type Snapshot struct {
	// Site is the origin read.
	Site *url.URL
	// Complete reports that a full read has finished: until then the
	// snapshot holds what was read so far.
	Complete bool
	// At is when the snapshot was made.
	At time.Time
	// Robots is the site's robots.txt as read (nil when it has none), for
	// the comparison with the content signals.
	Robots []byte
	// Home is the home page's facts; nil when it could not be read.
	// HomePath is its address after redirects on the site ("/" unless
	// the site sends its home elsewhere, as a blog under /blog/).
	Home     *sitefacts.Page
	HomePath string
	// About is the site's About page; nil when it has none.
	About *PageText
	// Contact is the path of the site's contact page, "" when none.
	Contact string
	// List is the path of the page that lists the posts, when it is not
	// the home page; "" otherwise.
	List string
	// Texts are the main content, as Markdown, of the pages read for it
	// that are not posts (the home page, the About page, the owner's posts
	// whose sources hold template syntax), by path.
	Texts map[string][]byte
	// Descriptions are the descriptions the pages read carry of
	// themselves (their <meta name="description">, but the site's own,
	// which a theme repeats on every page), by path.
	Descriptions map[string]string
	// Nav are the pages the home page's navigation names that answer 200,
	// in its order.
	Nav []NavPage
	// Feeds are the feeds read (their items in Posts).
	Feeds []FeedInfo
	// Posts are the posts found, newest first.
	Posts []Post
	// SitemapPaths are the paths of every address the site's sitemaps
	// list (escaped), to match the owner's posts to.
	SitemapPaths []string
	// Status is the site's status for each path checked (escaped, with
	// any query); 0 when the site gave no answer.
	Status map[string]int
	// SiteFiles are the module's documents the site has files of its own
	// at (see Options.Documents).
	SiteFiles []string
	// Requests counts the requests the reader has sent the site in all.
	Requests int64
}

// PageText is a page of the site with its content as Markdown.
type PageText struct {
	// Path is its address on the site (escaped).
	Path  string
	Facts *sitefacts.Page
	// Markdown is its main content.
	Markdown []byte
}

// NavPage is one page the home page's navigation names.
type NavPage struct {
	Path, Label, Description string
}

// FeedInfo is what a feed says of the site.
type FeedInfo struct {
	URL, Title, Description string
	Authors                 []string
	Generator               string
}

// Post is one post of the site.
type Post struct {
	// Path is its page's address on the site (escaped, with any query).
	Path string
	// Facts are what its page says of it; nil when only a feed was read
	// of it.
	Facts *sitefacts.Page
	// Item is its entry in a feed, nil when no feed lists it.
	Item *sitefacts.FeedItem
	// Markdown is its body: the element the page marks as the post's,
	// else the feed's full content, else the page's main content,
	// converted; its title heading removed.
	Markdown []byte
	// Tags are the texts of the page's links to its tags and categories.
	Tags []string
	// LastMod is the sitemap's lastmod, LastModified the page's
	// Last-Modified header; zero when not given.
	LastMod, LastModified time.Time
}

// StatusOf is the status the site answered path with, and whether path
// was asked at all.
func (s *Snapshot) StatusOf(path string) (int, bool) {
	status, ok := s.Status[path]
	return status, ok
}
