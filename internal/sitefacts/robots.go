// robots.txt read for the module's own user agent, "caddy-discovery": the
// group for that token, else the group for "*", decides which paths the
// reader may read, as temoto/robotstxt matches them (the longest matching
// rule wins, an Allow over a Disallow of the same length; * and $
// wildcards). Before temoto parses the file, it is cut down to what
// applies to the reader: the groups of the two tokens, at most
// MaxRobotsRules rules of at most MaxRobotsRuleBytes each, and the Sitemap
// lines. temoto alone is quadratic on a large file (every rule is copied
// to every agent of its group: a 512 KiB file of agents and rules took
// 18 s and 10 GB) and its wildcard rules cost a regular expression match
// each per path, so the cut keeps a file of any size within those bounds.
// Each cut errs on the side of reading less: a long Disallow is
// shortened (it then matches more paths), a long Allow dropped, and a
// group with more rules than the cap disallows what its kept rules do not
// allow. With the caps, one Allowed call costs at most a few milliseconds
// for a path of MaxURLBytes, far less for a usual one
// (BenchmarkRobotsAllowed); uncut, 75 ms. temoto's wildcard rules match anywhere in a path, not only from
// its start, which also reads less.

package sitefacts

import (
	"bytes"
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// The bounds of reading robots.txt (the reader caps the file at 512 KiB
// before it is parsed).
const (
	// RobotsAgent is the user agent token the reader's rules are looked
	// up with.
	RobotsAgent = "caddy-discovery"
	// MaxRobotsRules is how many Allow and Disallow rules are kept, in
	// the groups that apply to the reader.
	MaxRobotsRules = 1000
	// MaxRobotsRuleBytes is the longest rule kept whole.
	MaxRobotsRuleBytes = 512
	// MaxRobotsWildcardBytes bounds the wildcard (* or $) rules kept, in
	// bytes of all of them: temoto matches each with a regular expression,
	// at a cost of about the path's length times the rule's, per path.
	// Past it a Disallow keeps the part before its first wildcard (a
	// prefix, which matches more) and an Allow is dropped. Shopify's
	// robots.txt, among the largest sites serve, has about 40 short
	// wildcard rules: they fit.
	MaxRobotsWildcardBytes = 1 << 10
	// MaxRobotsSitemaps is how many Sitemap lines are kept.
	MaxRobotsSitemaps = 64
)

// Robots is a parsed robots.txt.
type Robots struct {
	data     *robotstxt.RobotsData // nil: everything allowed
	group    *robotstxt.Group      // the group that applies to the reader; nil: everything allowed
	sitemaps []string
}

// ParseRobots reads a robots.txt (nil or empty data: everything allowed).
func ParseRobots(data []byte) *Robots {
	r := &Robots{}
	kept, sitemaps := keepRobots(data)
	r.sitemaps = sitemaps
	if len(kept) == 0 {
		return r
	}
	parsed, err := robotstxt.FromBytes(kept)
	if err != nil {
		// What is left after the cut always parses; should it not, the
		// reader keeps out rather than guess.
		parsed, _ = robotstxt.FromBytes([]byte("User-agent: *\nDisallow: /\n"))
	}
	r.data = parsed
	r.group = parsed.FindGroup(RobotsAgent)
	return r
}

// Allowed reports whether the reader (user agent token "caddy-discovery";
// the group for that token, else "*") may read path (with query).
func (r *Robots) Allowed(path string) bool {
	if r == nil || r.group == nil {
		return true
	}
	if path == "" {
		path = "/"
	}
	return r.group.Test(path)
}

// MaxCrawlDelay is the longest Crawl-delay honoured: a site that asks for
// more is read at this pace.
const MaxCrawlDelay = 5 * time.Second

// CrawlDelay is the time the site's group for the reader asks between two
// requests (Crawl-delay), at most MaxCrawlDelay; 0 when it asks none.
func (r *Robots) CrawlDelay() time.Duration {
	if r == nil || r.group == nil {
		return 0
	}
	return min(r.group.CrawlDelay, MaxCrawlDelay)
}

// Sitemaps are the Sitemap: lines, as written (the lead resolves them), at
// most MaxRobotsSitemaps.
func (r *Robots) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return r.sitemaps
}

// keepRobots is the part of a robots.txt that applies to the reader, in
// the form temoto reads (the groups for RobotsAgent and "*", their rules
// within the bounds), and its Sitemap lines.
func keepRobots(data []byte) (kept []byte, sitemaps []string) {
	var out bytes.Buffer
	var agents []string // of the group being read, those that apply to the reader
	inAgents := false   // the last line read was a User-agent line
	rules := 0          // rules written
	wildcards := 0      // bytes of the wildcard rules written
	full := make(map[string]bool)
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		k := strings.ToLower(strings.TrimSpace(string(key)))
		v := strings.TrimSpace(string(value))
		switch k {
		case "user-agent", "useragent":
			if !inAgents {
				agents = agents[:0]
			}
			inAgents = true
			if a := strings.ToLower(v); (a == "*" || a == RobotsAgent) && !contains(agents, a) {
				agents = append(agents, a)
			}
			continue
		case "allow", "disallow":
			inAgents = false
			if len(agents) == 0 || v == "" {
				continue
			}
			if len(v) > MaxRobotsRuleBytes {
				if k == "allow" {
					continue
				}
				v = v[:MaxRobotsRuleBytes]
			}
			if i := strings.IndexAny(v, "*$"); i >= 0 {
				if wildcards+len(v) > MaxRobotsWildcardBytes {
					if k == "allow" {
						continue
					}
					if v = v[:i]; v == "" {
						v = "/"
					}
				} else {
					wildcards += len(v)
				}
			}
			for _, a := range agents {
				if rules >= MaxRobotsRules {
					if !full[a] {
						full[a] = true
						out.WriteString("User-agent: " + a + "\nDisallow: /\n")
					}
					continue
				}
				rules++
				out.WriteString("User-agent: " + a + "\n" + k + ": " + v + "\n")
			}
		case "sitemap", "site-map":
			if v != "" && len(sitemaps) < MaxRobotsSitemaps && len(v) <= MaxURLBytes && !contains(sitemaps, v) {
				sitemaps = append(sitemaps, v)
			}
		default:
			// Crawl-delay, Host and other lines neither end a group's
			// User-agent lines nor matter to the rules.
			if k == "crawl-delay" || k == "crawldelay" {
				inAgents = false
			}
		}
	}
	return out.Bytes(), sitemaps
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, have := range list {
		if have == s {
			return true
		}
	}
	return false
}
