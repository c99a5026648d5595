package discovery

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
)

// observe serves r with serve and counts it under its surface: who asked
// (the agent, and whether it proved it), the outcome by the status
// answered, and the Markdown served.
func (h *Handler) observe(w http.ResponseWriter, r *http.Request, service *handlers.Service, m handlers.Match, next caddyhttp.Handler, who agent) error {
	o := observedPool.Get().(*observed)
	o.ResponseWriterWrapper.ResponseWriter, o.status, o.size = w, 0, 0
	defer func() {
		o.ResponseWriterWrapper.ResponseWriter = nil
		observedPool.Put(o)
	}()
	err := h.serveAgent(o, r, service, m, next, who)
	status := o.status
	switch {
	case err != nil:
		status = http.StatusInternalServerError
		if he := (caddyhttp.HandlerError{}); errors.As(err, &he) {
			status = he.StatusCode
		}
	case status == 0:
		status = http.StatusOK // what Caddy answers when nothing was written
	}
	metrics.Request(m.Surface(), who.agent, who.verified, status)
	if status == http.StatusOK && strings.HasPrefix(first(w.Header(), "Content-Type"), "text/markdown") {
		tokens, _ := strconv.Atoi(first(w.Header(), "X-Markdown-Tokens"))
		metrics.Markdown(who.agent, o.size, tokens)
	}
	return err
}

// observed is a ResponseWriter that notes the status and the size of an
// answer as it passes through; one is reused for many requests, as every
// request would otherwise leave one behind.
type observed struct {
	caddyhttp.ResponseWriterWrapper
	status, size int
}

var observedPool = sync.Pool{New: func() any { return new(observed) }}

func (o *observed) WriteHeader(status int) {
	if o.status == 0 && status >= 200 {
		o.status = status
	}
	o.ResponseWriterWrapper.WriteHeader(status)
}

func (o *observed) Write(b []byte) (int, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	n, err := o.ResponseWriterWrapper.Write(b)
	o.size += n
	return n, err
}

func (o *observed) ReadFrom(src io.Reader) (int64, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	n, err := o.ResponseWriterWrapper.ReadFrom(src)
	o.size += int(n)
	return n, err
}

// agent is who sent a request, as far as the module can tell.
type agent struct {
	// agent is one of agents.Labels.
	agent agents.ID
	// verified reports a valid Web Bot Auth signature, made by the agent
	// named; origin is then the signer's (its Signature-Agent host).
	verified bool
	origin   string
}

// identify names the agent of r. Its User-Agent names a family (see
// agents.Classify), which anyone can claim. A valid Web Bot Auth signature
// proves the signer's origin: when that origin is the one a family signs
// as, the request is that family's, verified; a verified signer the list
// does not know is "other", verified. A User-Agent that claims a family
// without its signature is counted as claimed: that family, unverified.
func (h *Handler) identify(r *http.Request) agent {
	claimed := agents.Identify(first(r.Header, "User-Agent"))
	if h.verifier == nil || first(r.Header, "Signature-Input") == "" {
		return agent{agent: claimed}
	}
	res := h.verifier.Verify(r)
	if !res.Verified {
		return agent{agent: claimed}
	}
	host, _, _ := strings.Cut(res.Agent, ":")
	signer, _ := agents.IDOf(agents.OfDomain(host)) // Other for a signer the list does not know
	return agent{agent: signer, verified: true, origin: res.Agent}
}

// first is the first value of the header key, which must be in canonical
// form: Header.Get without canonicalizing a key that already is, which
// costs every counted request a scan of the key.
func first(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
