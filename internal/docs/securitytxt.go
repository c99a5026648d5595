package docs

import (
	"bytes"
	"strings"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/catalog"
	"github.com/caddy-discovery/caddy-discovery/internal/pages"
	"github.com/caddy-discovery/caddy-discovery/internal/view"
)

// The site's security contact (RFC 9116), from the content's security
// section. A site's own /.well-known/security.txt always wins: the route
// asks the site first (siteFirst).

// securityTxtLifetime is how long after the content was loaded the
// security.txt stays valid. RFC 9116 recommends less than a year, and a
// reload, or a change of the content with watch on, renders it again.
const securityTxtLifetime = 364 * 24 * time.Hour

// securityExpires is the Expires of security.txt: a whole day, 364 days
// after the day (UTC) the content was loaded, so the file's bytes are the
// same all that day.
func securityExpires(c *catalog.Catalog) time.Time {
	loaded := c.Loaded.UTC()
	return time.Date(loaded.Year(), loaded.Month(), loaded.Day(), 0, 0, 0, 0, time.UTC).Add(securityTxtLifetime)
}

// SecurityTxt renders /.well-known/security.txt: Contact and Expires
// (required), then Policy, Preferred-Languages and Canonical. RFC 9116
// allows only https web addresses, so on a plain-http base URL (a test or
// development server) a policy given as a path and Canonical are left out.
func SecurityTxt(l view.Links) []byte {
	sec := l.Cat.Site.Security
	var b bytes.Buffer
	b.WriteString("# How to report a vulnerability in " + pages.OneLine(l.Cat.Site.Profile.Name) + "'s site (RFC 9116).\n")
	b.WriteString("Contact: " + sec.Contact + "\n")
	b.WriteString("Expires: " + securityExpires(l.Cat).Format(time.RFC3339) + "\n")
	if policy := l.Abs(sec.Policy); strings.HasPrefix(policy, "https://") {
		b.WriteString("Policy: " + policy + "\n")
	}
	if len(sec.Languages) > 0 {
		b.WriteString("Preferred-Languages: " + strings.Join(sec.Languages, ", ") + "\n")
	}
	if strings.HasPrefix(l.Base, "https://") {
		b.WriteString("Canonical: " + l.Base + view.PathSecurityTxt + "\n")
	}
	return b.Bytes()
}
