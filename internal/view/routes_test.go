package view

import "testing"

func TestTwinPath(t *testing.T) {
	for page, want := range map[string]string{
		"/":                  "/index.md",
		"/about":             "/about.md",
		"/about.html":        "/about.md",
		"/about.htm":         "/about.md",
		"/docs/":             "/docs/index.md",
		"/insights/{slug}":   "/insights/{slug}.md",
		"/posts/{slug}/":     "/posts/{slug}/index.md",
		"/index.html":        "/index.md",
		"/blog/x.y/overview": "/blog/x.y/overview.md",
	} {
		if got := TwinPath(page); got != want {
			t.Errorf("TwinPath(%q) = %q, want %q", page, got, want)
		}
	}
}
