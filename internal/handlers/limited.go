package handlers

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"

	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// The page a person gets instead of the 429 problem when their browser asks
// for HTML: how long to wait, what the limit is, and where it is explained.
// It is self-contained (one inline style, allowed by its hash) and made per
// refusal from a few numbers, so it costs little more than the problem.

//go:embed portal/limited.html
var limitedHTML string

//go:embed portal/limited.css
var limitedCSS string

var limitedTemplate = template.Must(template.New("limited").Parse(limitedHTML))

// limitedCSP allows the page's own inline style and nothing else.
var limitedCSP = func() string {
	sum := sha256.Sum256([]byte(limitedCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// writeLimitedPage writes the HTML answer to a refused request; the rate
// limit headers and Vary are already set.
func writeLimitedPage(cfg *Config, cat *siteCatalog, f *fields, w http.ResponseWriter, r *http.Request, base string, retryAfter int) {
	l := links{base: base, cfg: cfg, cat: cat}
	minutes := 0
	if retryAfter >= 120 {
		minutes = (retryAfter + 30) / 60
	}
	var b bytes.Buffer
	err := limitedTemplate.Execute(&b, map[string]any{
		"Name": cat.Site.Profile.Name, "RetryAfter": retryAfter, "Minutes": minutes,
		"Events": cfg.RateLimit.Events, "Window": cfg.RateLimit.WindowSeconds(),
		"Portal": l.developers(), "Home": l.abs(cat.Site.Pages.Home), "Style": template.CSS(limitedCSS),
	})
	if err != nil {
		panic(err) // a fixed template of strings and numbers
	}
	f.set(respond.HeaderCSP, limitedCSP)
	f.set(respond.HeaderReferrerPolicy, "no-referrer")
	respond.Write(w, r, http.StatusTooManyRequests, respond.MediaHTML, b.Bytes())
}
