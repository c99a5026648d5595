package portal

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
)

// The page a person gets instead of the 429 problem when their browser asks
// for HTML: how long to wait, what the limit is, and where it is explained.
// It is self-contained (one inline style, allowed by its hash) and made per
// refusal from a few numbers, so it costs little more than the problem.

//go:embed assets/limited.html
var limitedHTML string

// LimitedCSS is the page's style, which the OAuth consent page shares.
//
//go:embed assets/limited.css
var LimitedCSS string

var limitedTemplate = template.Must(template.New("limited").Parse(limitedHTML))

// LimitedCSP allows the page's own inline style and nothing else.
var LimitedCSP = func() string {
	sum := sha256.Sum256([]byte(LimitedCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// Limited is the HTML answer to a refused request: the site's name, the
// seconds to wait, the limit (events per window seconds), and the
// addresses of the portal and the site's home page.
func Limited(name string, retryAfter, events, window int, portal, home string) []byte {
	minutes := 0
	if retryAfter >= 120 {
		minutes = (retryAfter + 30) / 60
	}
	var b bytes.Buffer
	err := limitedTemplate.Execute(&b, map[string]any{
		"Name": name, "RetryAfter": retryAfter, "Minutes": minutes,
		"Events": events, "Window": window,
		"Portal": portal, "Home": home, "Style": template.CSS(LimitedCSS),
	})
	if err != nil {
		panic(err) // a fixed template of strings and numbers
	}
	return b.Bytes()
}
