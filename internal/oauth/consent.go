package oauth

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"net/url"

	"github.com/caddy-discovery/caddy-discovery/internal/cimd"
	"github.com/caddy-discovery/caddy-discovery/internal/respond"
)

// The page of a valid authorization request whose redirect URI is an https
// address: it names the host the user is about to go to, and links there
// with the code. It reuses the 429 page's style, allowed by its hash, and
// may not be framed, so that no other site can have it clicked unseen.

//go:embed consent.html
var consentHTML string

var consentTemplate = template.Must(template.New("consent").Parse(consentHTML))

// writeConsentPage writes the page for a valid request to the redirect URI
// target, which links to location. A client named by its Client ID Metadata
// Document is shown with the host of its client_id and the name the document
// gives (the draft's section 8.5), so that the user sees who asks.
func (s *Server) writeConsentPage(w http.ResponseWriter, r *http.Request, at At, target, location, clientID, clientName string) {
	host := target
	if u, err := url.Parse(target); err == nil {
		host = u.Host
	}
	var clientHost string
	if u, err := url.Parse(clientID); err == nil && cimd.IsURL(clientID) {
		clientHost = u.Host
	}
	var b bytes.Buffer
	err := consentTemplate.Execute(&b, map[string]any{
		"Name": s.cfg.SiteName, "Host": host, "Target": template.URL(location),
		"Home": at.Home, "Style": template.CSS(s.cfg.PageStyle),
		"ClientHost": clientHost, "ClientName": clientName,
	})
	if err != nil {
		panic(err) // a fixed template of strings
	}
	h := w.Header()
	h.Set(respond.HeaderCSP, s.cfg.PageCSP)
	h.Set(respond.HeaderReferrerPolicy, "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	respond.Write(w, r, http.StatusOK, respond.MediaHTML, b.Bytes())
}
