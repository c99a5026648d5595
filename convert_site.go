package discovery

import (
	"errors"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
)

// serveConverted answers a request that asks for Markdown of a page the
// content does not name: next is asked for the page and its HTML is
// converted (see handlers.Service.ServeConverted). When next fails after it
// answered, its answer was held, not written, so its headers are taken
// back: Caddy's error answer, written next, must not carry them.
func (h *Handler) serveConverted(w http.ResponseWriter, r *http.Request, service *handlers.Service, next caddyhttp.Handler) error {
	before := w.Header().Clone()
	dropped, err := service.ServeConverted(w, r, next.ServeHTTP)
	if dropped {
		restoreHeader(w.Header(), before)
	}
	return err
}

// logConvertFailure logs a page served as HTML to a client that asked for
// Markdown, once until the page changes or a minute passes: at DEBUG for
// a page with no text to convert, else at WARN.
func (h *Handler) logConvertFailure(page string, err error) {
	if errors.Is(err, handlers.ErrNothingToConvert) {
		h.logger.Debug("page served as HTML: it has no text to convert to Markdown", zap.String("page", page))
		return
	}
	if errors.Is(err, handlers.ErrNoIndex) {
		h.logger.Debug("page served as HTML: the site keeps it out of indexes (noindex), so the module makes no Markdown of it", zap.String("page", page))
		return
	}
	h.logger.Warn("page served as HTML: it could not be converted to Markdown", zap.String("page", page), zap.Error(err))
}
