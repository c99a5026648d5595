package respond

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

// Write sets the type, the length and no-store, drops an ETag a handler
// before it set (the body is made per request), and writes no body to HEAD.
func TestWrite(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		w := httptest.NewRecorder()
		w.Header().Set(HeaderETag, `"stale"`)
		Write(w, httptest.NewRequest(method, "/x", nil), http.StatusCreated, MediaText, []byte("hello"))
		h := w.Header()
		if w.Code != http.StatusCreated || h.Get(HeaderContentType) != MediaText || h.Get(HeaderCacheControl) != CacheNever ||
			h.Get(HeaderContentLength) != "5" || h.Get(HeaderETag) != "" {
			t.Errorf("%s: %d %v", method, w.Code, h)
		}
		if want := map[string]string{http.MethodGet: "hello", http.MethodHead: ""}[method]; w.Body.String() != want {
			t.Errorf("%s: body %q, want %q", method, w.Body, want)
		}
	}
}

// JSON marks the answer Pragma: no-cache and escapes markup, so that
// nothing taken from the content reaches a client as HTML.
func TestJSON(t *testing.T) {
	w := httptest.NewRecorder()
	JSON(w, httptest.NewRequest(http.MethodGet, "/x", nil), http.StatusOK, map[string]string{"a": "<b>&"})
	if w.Header().Get(HeaderPragma) != "no-cache" || w.Header().Get(HeaderContentType) != MediaJSON {
		t.Errorf("headers %v", w.Header())
	}
	if got := w.Body.String(); got != `{"a":"\u003cb\u003e\u0026"}` {
		t.Errorf("body %s", got)
	}
}

// Problem writes the problem with its status as application/problem+json.
func TestProblem(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/api/v1/x", nil)
	Problem(w, r, problem.New("https://example.com", problem.PayloadTooLarge, r, "Too large."))
	var p problem.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || w.Code != http.StatusRequestEntityTooLarge ||
		w.Header().Get(HeaderContentType) != MediaProblem || p.Status != w.Code || p.Detail != "Too large." {
		t.Errorf("%d %v %s (%v)", w.Code, w.Header(), w.Body, err)
	}
}
