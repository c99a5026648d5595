package caddytest

import (
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The site's pages that the content does not name, asked for as Markdown,
// are converted from the HTML file_server serves; a browser gets the
// site's answer as if the module were not there. One Caddy serves the
// same root twice: with the module and without it.
const (
	convertBase = "http://localhost:9271"
	plainBase   = "http://localhost:9272"
)

const gptBot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"

const guidePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Installation guide</title>
<meta name="description" content="How to install the thing.">
<script>window.analytics = "tracking";</script>
</head>
<body>
<header><a href="/">Example site</a></header>
<nav><a href="/docs/">Docs</a> <a href="/blog/">Blog</a></nav>
<main>
<h1>Installation</h1>
<p>Download the <a href="downloads/thing.tar.gz">archive</a>, then read <a href="/docs/setup.html">the setup</a>.</p>
<ul><li>Unpack it.</li><li>Run it.</li></ul>
</main>
<footer>Copyright Example</footer>
<script src="/app.js"></script>
</body>
</html>
`

func TestConvertedSitePages(t *testing.T) {
	root := t.TempDir()
	big := "<!doctype html><title>Big</title><main><p>" + strings.Repeat("A long page of words. ", 110_000) + "</p></main>"
	for name, data := range map[string]string{
		"docs/install.html":    guidePage,
		"gallery/index.html":   `<!doctype html><title>Gallery</title><article><h1>Cats</h1><p><img src="img/cat.png" alt="A cat"></p></article>`,
		"gallery/img/cat.png":  "\x89PNG\r\n\x1a\nnot really a cat",
		"big.html":             big,
		"data.csv":             "name,value\na,1\n",
		"empty-app/index.html": `<!doctype html><title>App</title><div id="root"></div><script src="/bundle.js"></script>`,
		"stated/index.html":    `<!doctype html><title>Stated</title><main><h1>Its own preferences</h1><p>This page says how it may be used.</p></main>`,
	} {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), data)
	}
	site := "\troot * " + root + "\n\theader Vary Origin\n\theader Cache-Control \"max-age=60\"\n\theader /stated/* Content-Usage \"train-ai=n\"\n"
	s := startCaddyWith(t, strings.Replace(globalOptions, "http_port 9080", "http_port 9271", 1),
		convertBase+" {\n"+site+"\tdiscovery {\n\t\tcontent sample\n\t}\n\tfile_server\n}\n"+plainBase+" {\n"+site+"\tfile_server\n}\n")
	get := func(base, path string, headers ...string) *response {
		return s.do(http.MethodGet, base+path, nil, headers...)
	}
	// The redirects are the site's answers to compare, not to follow.
	client := *s.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.Client = &client

	t.Run("Accept: text/markdown", func(t *testing.T) {
		r := get(convertBase, "/docs/install.html", "Accept", "text/markdown")
		html := get(plainBase, "/docs/install.html")
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%d %q\n%s", r.StatusCode, r.Header.Get("Content-Type"), r.body)
		}
		body := string(r.body)
		for _, want := range []string{
			"---\ntitle: \"Installation guide\"\ndescription: \"How to install the thing.\"\ncanonical_url: \"" + convertBase + "/docs/install.html\"\nlast_updated: \"",
			"# Installation\n",
			"[archive](" + convertBase + "/docs/downloads/thing.tar.gz)",
			"[the setup](" + convertBase + "/docs/setup.html)",
			"- Unpack it.",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("no %q in\n%s", want, body)
			}
		}
		for _, absent := range []string{"Example site", "Blog", "Copyright", "tracking", "app.js", "<"} {
			if strings.Contains(body, absent) {
				t.Errorf("%q is in\n%s", absent, body)
			}
		}
		h := r.Header
		if vary := varyNames(h); !slices.Contains(vary, "origin") || !slices.Contains(vary, "accept") || !slices.Contains(vary, "user-agent") {
			t.Errorf("Vary %q, want the site's Origin with Accept and User-Agent", h.Values("Vary"))
		}
		if got := links(h); !slices.Contains(got, "canonical "+convertBase+"/docs/install.html") {
			t.Errorf("Link %q, want the page as canonical", h.Values("Link"))
		}
		// The site's preferences, as robots.txt states them (the sample's:
		// everything allowed), in both vocabularies.
		if h.Get("Content-Usage") != "train-ai=y, search=y" || h.Get("Content-Signal") != "ai-train=yes, search=yes, ai-input=yes" {
			t.Errorf("Content-Usage %q, Content-Signal %q", h.Values("Content-Usage"), h.Values("Content-Signal"))
		}
		if n, err := strconv.Atoi(h.Get("X-Markdown-Tokens")); err != nil || n < len(body)/5 || n > len(body)/3 {
			t.Errorf("X-Markdown-Tokens %q for %d bytes", h.Get("X-Markdown-Tokens"), len(body))
		}
		if h.Get("Content-Length") != strconv.Itoa(len(body)) || h.Get("Cache-Control") != "max-age=60" || h.Get("Accept-Ranges") != "" {
			t.Errorf("Content-Length %q, Cache-Control %q, Accept-Ranges %q", h.Get("Content-Length"), h.Get("Cache-Control"), h.Get("Accept-Ranges"))
		}
		if etag := h.Get("Etag"); etag == "" || etag == html.Header.Get("Etag") {
			t.Errorf("ETag %q, the HTML's %q: want one of the Markdown's own", etag, html.Header.Get("Etag"))
		}
		if lm := h.Get("Last-Modified"); lm == "" || lm != html.Header.Get("Last-Modified") {
			t.Errorf("Last-Modified %q, the HTML's %q", lm, html.Header.Get("Last-Modified"))
		}

		// Again: the same Markdown, 304 on its ETag, and HEAD without a body.
		again := get(convertBase, "/docs/install.html", "Accept", "text/markdown")
		if string(again.body) != body || again.Header.Get("Etag") != h.Get("Etag") {
			t.Errorf("repeat: %q\n%s", again.Header.Get("Etag"), again.body)
		}
		cond := get(convertBase, "/docs/install.html", "Accept", "text/markdown", "If-None-Match", h.Get("Etag"))
		if cond.StatusCode != http.StatusNotModified || len(cond.body) != 0 || cond.Header.Get("Etag") != h.Get("Etag") {
			t.Errorf("If-None-Match of the Markdown: %d %q", cond.StatusCode, cond.body)
		}
		head := s.do(http.MethodHead, convertBase+"/docs/install.html", nil, "Accept", "text/markdown")
		if head.StatusCode != http.StatusOK || len(head.body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(body)) ||
			head.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("HEAD: %d %q %q", head.StatusCode, head.Header.Get("Content-Type"), head.Header.Get("Content-Length"))
		}
	})

	t.Run("a page that states its own preferences", func(t *testing.T) {
		r := get(convertBase, "/stated/", "Accept", "text/markdown")
		if r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || !slices.Equal(r.Header.Values("Content-Usage"), []string{"train-ai=n"}) ||
			r.Header.Get("Content-Signal") != "" {
			t.Errorf("%q: Content-Usage %q, Content-Signal %q: want the site's own alone", r.Header.Get("Content-Type"), r.Header.Values("Content-Usage"), r.Header.Values("Content-Signal"))
		}
	})

	t.Run("an AI crawler", func(t *testing.T) {
		r := get(convertBase, "/docs/install.html", "User-Agent", gptBot, "Accept", "*/*")
		if r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || !strings.Contains(string(r.body), "# Installation") {
			t.Errorf("%q\n%s", r.Header.Get("Content-Type"), r.body)
		}
		if r := get(convertBase, "/docs/install.html", "User-Agent", gptBot, "Accept", "text/html"); !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Errorf("asking for HTML by name: %q", r.Header.Get("Content-Type"))
		}
	})

	t.Run("images made absolute", func(t *testing.T) {
		r := get(convertBase, "/gallery/", "Accept", "text/markdown")
		if want := "![A cat](" + convertBase + "/gallery/img/cat.png)"; !strings.Contains(string(r.body), want) {
			t.Errorf("no %q in\n%s", want, r.body)
		}
	})

	t.Run("the site's answer as it is", func(t *testing.T) {
		for _, tt := range []struct {
			name, path string
			headers    []string
		}{
			{"a browser", "/docs/install.html", []string{"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"}},
			{"a browser's conditional request", "/docs/install.html", []string{"Accept", "text/html", "If-Modified-Since", "Sun, 01 Jan 2090 00:00:00 GMT"}},
			{"a page over the size cap", "/big.html", []string{"Accept", "text/markdown"}},
			{"a file that is not HTML", "/data.csv", []string{"Accept", "text/markdown"}},
			{"an image", "/gallery/img/cat.png", []string{"Accept", "text/markdown"}},
			{"a page with no text", "/empty-app/", []string{"Accept", "text/markdown"}},
			{"a redirect", "/gallery", []string{"Accept", "text/markdown"}},
			{"a missing page", "/no/such/page", []string{"Accept", "text/markdown"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					with := s.do(method, convertBase+tt.path, nil, tt.headers...)
					without := s.do(method, plainBase+tt.path, nil, tt.headers...)
					if with.StatusCode != without.StatusCode || string(with.body) != string(without.body) {
						t.Errorf("%s: %d, %d bytes; without the module %d, %d bytes", method, with.StatusCode, len(with.body), without.StatusCode, len(without.body))
					}
					for name := range mergeKeys(with.Header, without.Header) {
						if name != "Date" && strings.Join(with.Header.Values(name), "|") != strings.Join(without.Header.Values(name), "|") {
							t.Errorf("%s: %s %q, without the module %q", method, name, with.Header.Values(name), without.Header.Values(name))
						}
					}
					if with.StatusCode != http.StatusNotFound && strings.HasPrefix(with.Header.Get("Content-Type"), "text/markdown") {
						t.Errorf("%s: Markdown", method)
					}
				}
			})
		}
	})
}

// mergeKeys is the set of the field names of a and b.
func mergeKeys(a, b http.Header) map[string]bool {
	names := map[string]bool{}
	for name := range a {
		names[name] = true
	}
	for name := range b {
		names[name] = true
	}
	return names
}
