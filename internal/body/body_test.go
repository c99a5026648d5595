package body

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-discovery/caddy-discovery/internal/problem"
)

// Read returns a body within its bounds and of the wanted type, and
// otherwise writes the problem that says why not.
func TestRead(t *testing.T) {
	post := func(body string, contentType ...string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/agent/identity", strings.NewReader(body))
		r.Header["Content-Type"] = contentType
		return r
	}
	huge := post("{}", "application/json")
	huge.ContentLength = MaxSize + 1
	for name, tt := range map[string]struct {
		r      *http.Request
		want   string
		status int // of the problem, 0 when the body is read
	}{
		"json":                 {post(`{"type":"anonymous"}`, "application/json"), "application/json", 0},
		"json with parameters": {post(`{}`, "application/json; charset=utf-8"), "application/json", 0},
		"any type":             {post("a=b", "application/x-www-form-urlencoded"), "", 0},
		"empty, no type":       {post(""), "application/json", 0},
		"another type":         {post("a=b", "application/x-www-form-urlencoded"), "application/json", http.StatusUnsupportedMediaType},
		"two types":            {post("{}", "application/json", "text/plain"), "", http.StatusBadRequest},
		"declared too large":   {huge, "", http.StatusRequestEntityTooLarge},
		"too large":            {post(strings.Repeat("x", MaxSize+1), "text/plain"), "", http.StatusRequestEntityTooLarge},
	} {
		w := httptest.NewRecorder()
		data, ok := Read(w, tt.r, "https://example.com", time.Second, tt.want)
		if tt.status == 0 {
			if !ok || w.Body.Len() != 0 {
				t.Errorf("%s: refused: %d %s", name, w.Code, w.Body)
			}
			continue
		}
		var p problem.Problem
		if ok || data != nil || w.Code != tt.status || json.Unmarshal(w.Body.Bytes(), &p) != nil || p.Status != tt.status {
			t.Errorf("%s: ok %v, %d %s; want a %d problem", name, ok, w.Code, w.Body, tt.status)
		}
	}
}
