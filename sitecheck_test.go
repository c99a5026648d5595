package discovery

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestSiteCheckStopsAtCleanup: the check of the site's pages, which goes
// on behind the first request, stops asking the site once the handler is
// cleaned up, as a reload cleans up the config it replaces.
func TestSiteCheckStopsAtCleanup(t *testing.T) {
	h := &Handler{RateLimit: &RateLimitPolicy{Off: true}} // the test cleans up twice
	provision(t, h)
	started := make(chan string, 64)
	release := make(chan struct{})
	var asked atomic.Int32
	site := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if r.Header.Get("User-Agent") != "caddy-discovery site check" {
			return nil
		}
		if strings.HasSuffix(r.URL.Path, ".txt") || strings.HasSuffix(r.URL.Path, ".xml") {
			return caddyhttp.Error(http.StatusNotFound, nil)
		}
		asked.Add(1)
		started <- r.URL.Path
		<-release
		return nil
	})
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, prepare(w, "/api/v1/health", "192.0.2.9"), site); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the site check asked for no page")
	}
	if err := h.Cleanup(); err != nil {
		t.Fatal(err)
	}
	close(release)
	time.Sleep(200 * time.Millisecond)
	if n := asked.Load(); n != 1 {
		t.Errorf("the site was asked for %d pages, 1 of them after the cleanup began", n)
	}
	if pages := len(h.service.Load().SitePages()); pages < 3 {
		t.Errorf("the sample publishes %d pages: the check would have asked for more than one", pages)
	}
}
