package caddytest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// findChromium finds a Chromium or Chrome on PATH (CHROMIUM names one
// elsewhere); CI installs Debian's chromium.
func findChromium(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("CHROMIUM"); path != "" {
		return path
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatal("no Chromium on PATH: install one (Debian: apt-get install -y chromium) or set CHROMIUM to its path")
	return ""
}

// TestDeveloperPortalInBrowser loads /developers in headless Chromium at a
// phone's width: it renders under its own CSP, every anchor a problem type
// names exists, nothing overflows sideways, and no link on it is broken.
// phoneBrowser is headless Chromium in a phone-sized window (390 x 844),
// for at most timeout; it starts with the first action run in it.
func phoneBrowser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(390, 844),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	return ctx
}

func TestDeveloperPortalInBrowser(t *testing.T) {
	findChromium(t)
	s := startCaddy(t, demoSite(t))
	ctx := phoneBrowser(t, 60*time.Second)

	// Collect what the page logs as an error (CSP violations among them).
	consoleCtx, stopConsole := context.WithCancel(ctx)
	messages := chromedp.Console(consoleCtx)
	var consoleErrors []string
	consoleDone := make(chan struct{})
	go func() {
		defer close(consoleDone)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				consoleErrors = append(consoleErrors, m.Text)
			}
		}
	}()

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/developers"), chromedp.WaitVisible("#errors")); err != nil {
		t.Fatalf("loading the portal in Chromium: %v", err)
	}
	evaluate := func(expression string, into any) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expression))
		if err == nil {
			err = json.Unmarshal(raw, into)
		}
		if err != nil {
			t.Fatalf("%s: %v", expression, err)
		}
	}
	var (
		title                   string
		ids, hrefs              []string
		scrollWidth, innerWidth int
		maxWidth                string
	)
	evaluate(`document.title`, &title)
	evaluate(`[...document.querySelectorAll("[id]")].map(e => e.id)`, &ids)
	evaluate(`[...document.querySelectorAll("a[href]")].map(a => a.href)`, &hrefs)
	evaluate(`document.documentElement.scrollWidth`, &scrollWidth)
	evaluate(`window.innerWidth`, &innerWidth)
	evaluate(`getComputedStyle(document.querySelector("main")).maxWidth`, &maxWidth)
	time.Sleep(200 * time.Millisecond) // let late console messages arrive
	stopConsole()
	<-consoleDone
	if !strings.Contains(title, "Developers") {
		t.Errorf("title %q", title)
	}
	if maxWidth != "832px" {
		t.Errorf("main max-width %q: the inline style did not apply under the page's CSP", maxWidth)
	}
	if scrollWidth > innerWidth {
		t.Errorf("the page is %dpx wide in a %dpx viewport", scrollWidth, innerWidth)
	}
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: %q", consoleErrors)
	}

	anchors := map[string]bool{}
	for _, id := range ids {
		anchors[id] = true
	}
	for _, want := range []string{"errors", "versioning", "endpoints", "authentication", "rate-limits", "mcp", "cli", "quick-start"} {
		if !anchors[want] {
			t.Errorf("no #%s section", want)
		}
	}
	// The codes of the design's problem table (and forbidden, the MCP
	// endpoint's origin and host refusals), each with its anchor
	// #error-<code with hyphens>.
	for _, code := range []string{"bad_request", "invalid_token", "forbidden", "not_found", "method_not_allowed",
		"request_timeout", "payload_too_large", "unsupported_media_type", "rate_limited", "internal_error"} {
		if anchor := "error-" + strings.ReplaceAll(code, "_", "-"); !anchors[anchor] {
			t.Errorf("no anchor #%s for the problem code %s", anchor, code)
		}
	}
	// The type of every problem the server actually sends names an anchor.
	for _, r := range []*response{
		s.get("/api/v1/nope"),
		s.get("/api/v1/insights/Bad"),
		s.do(http.MethodDelete, base+"/api/v1", nil),
		s.get("/api/v1", "Authorization", "Bearer forged"),
		s.do(http.MethodPost, base+"/agent/identity", strings.NewReader("x"), "Content-Type", "text/plain"),
	} {
		typ, _ := r.json(t)["type"].(string)
		page, fragment, _ := strings.Cut(typ, "#")
		if page != base+"/developers" || !anchors[fragment] {
			t.Errorf("problem type %q names no anchor of the portal", typ)
		}
	}

	// No link is broken: in-page links name an anchor, links to the site
	// answer, and links elsewhere are https.
	checked := map[string]bool{}
	for _, href := range hrefs {
		u, err := url.Parse(href)
		if err != nil {
			t.Errorf("link %q: %v", href, err)
			continue
		}
		if u.Fragment != "" && strings.HasPrefix(href, base+"/developers#") {
			if !anchors[u.Fragment] {
				t.Errorf("link %s names no anchor", href)
			}
			continue
		}
		if !strings.HasPrefix(href, base) {
			if u.Scheme != "https" {
				t.Errorf("external link %s is not https", href)
			}
			continue
		}
		u.Fragment = ""
		if checked[u.String()] {
			continue
		}
		checked[u.String()] = true
		if r := s.do(http.MethodGet, u.String(), nil); r.StatusCode != http.StatusOK && !(r.StatusCode == http.StatusMethodNotAllowed && isPostEndpoint(u.String())) {
			t.Errorf("link %s: %d", href, r.StatusCode)
		}
	}
	if len(checked) < 10 {
		t.Errorf("only %d links to the site were found", len(checked))
	}
}
