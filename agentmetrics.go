package discovery

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
)

// observe serves r with serve and counts it under surface: who asked
// (the agent, and whether it proved it), the outcome by the status
// answered, and the Markdown served.
func (h *Handler) observe(w http.ResponseWriter, r *http.Request, surface string, serve func(http.ResponseWriter) error) error {
	agent, verified := h.identify(r)
	rec := caddyhttp.NewResponseRecorder(w, nil, nil)
	err := serve(rec)
	status := rec.Status()
	var he caddyhttp.HandlerError
	switch {
	case errors.As(err, &he):
		status = he.StatusCode
	case err != nil:
		status = http.StatusInternalServerError
	case status == 0:
		status = http.StatusOK // what Caddy answers when nothing was written
	}
	metrics.Request(surface, agent, verified, status)
	if status == http.StatusOK && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/markdown") {
		tokens, _ := strconv.Atoi(rec.Header().Get("X-Markdown-Tokens"))
		metrics.Markdown(agent, rec.Size(), tokens)
	}
	return err
}

// identify names the agent of r: the family its User-Agent names (see
// agents.Classify), and whether it proved who it is.
func (h *Handler) identify(r *http.Request) (agent string, verified bool) {
	return agents.Classify(r.Header.Get("User-Agent")), false
}
