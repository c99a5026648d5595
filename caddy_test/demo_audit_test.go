package caddytest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The demo site in a real browser: Lighthouse and axe (audit.mjs), and the
// layout at the narrowest phone width.

// demoAuditPages are the pages audited: every kind the demo site has.
var demoAuditPages = []string{"/", "/about", "/insights", "/contact", "/insights/" + insightSlug, "/insights/no-such-insight"}

// TestDemoSiteAudit: Lighthouse (mobile) scores at least 95 in every
// category on every kind of page (Agentic Browsing included), and axe finds
// nothing at 1280 and 390 px.
// The 404 page is held to the same, except that Lighthouse's SEO audit
// http-status-code fails on it by definition (a 404 is not a page to
// index): that is the one SEO audit it may fail, and its score is not
// counted.
func TestDemoSiteAudit(t *testing.T) {
	startCaddy(t, demoSite(t))
	notFound := base + "/insights/no-such-insight"
	var urls []string
	for _, path := range demoAuditPages {
		urls = append(urls, base+path)
	}
	results := audit(t, auditRequest{URLs: urls, Lighthouse: []string{"mobile"}, AxeWidths: []int{1280, 390}, ErrorPages: []string{notFound}, Agentic: true})

	mobile := results[notFound].Lighthouse["mobile"]
	var seoFailing []string
	for _, f := range mobile.Failing {
		if f.Category == "seo" {
			seoFailing = append(seoFailing, f.ID)
		}
	}
	if !slices.Equal(seoFailing, []string{"http-status-code"}) {
		t.Errorf("the 404 page fails the SEO audits %q, want http-status-code alone", seoFailing)
	}
	t.Logf("%s mobile seo: %.0f (http-status-code fails on a 404 by definition)", notFound, mobile.Scores["seo"]*100)
	delete(mobile.Scores, "seo")
	requireAudit(t, results, 0.95)

	// Every page offers the search form as a declarative WebMCP tool and the
	// WebMCP script's tools as imperative ones; the contact page its form too.
	for _, path := range demoAuditPages {
		tools := results[base+path].Lighthouse["mobile"].WebMCPTools
		want := []string{"find_insights"}
		if path == "/contact" {
			want = append(want, "compose_message")
		}
		slices.Sort(want)
		declarative := slices.Sorted(slices.Values(tools["Declarative Tools"]))
		if !slices.Equal(declarative, want) {
			t.Errorf("%s: declarative WebMCP tools %q, want %q", path, declarative, want)
		}
		if !slices.Contains(tools["Imperative Tools"], "get_profile") {
			t.Errorf("%s: imperative WebMCP tools %q, want the script's, get_profile among them", path, tools["Imperative Tools"])
		}
	}
}

// TestDemoSiteAtPhoneWidth: at 320 px nothing scrolls sideways (the nav
// wraps, the form fits), the nav links keep apart, and no page logs an
// error to the console.
func TestDemoSiteAtPhoneWidth(t *testing.T) {
	findChromium(t)
	startCaddy(t, demoSite(t))
	ctx := phoneBrowser(t, 40*time.Second)

	// The window cannot be narrower than 500 px; the page's viewport can.
	narrow := chromedp.EmulateViewport(320, 640, chromedp.EmulateMobile)
	// This starts the browser, before anything listens to it.
	if err := chromedp.Do(ctx, narrow); err != nil {
		t.Fatalf("a 320 px viewport: %v", err)
	}
	consoleCtx, stopConsole := context.WithCancel(ctx)
	defer stopConsole()
	var consoleErrors []string
	consoleDone := make(chan struct{})
	go func() {
		defer close(consoleDone)
		for m, err := range chromedp.Console(consoleCtx) {
			if err != nil {
				return
			}
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !slices.Contains(consoleErrors, m.Text) {
				consoleErrors = append(consoleErrors, m.Text)
			}
		}
	}()

	for _, path := range demoAuditPages[:5] {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitReady("footer")); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var layout struct {
			ScrollWidth, InnerWidth int
			Overflowing             []string
			NavGaps                 []float64
		}
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`(() => {
			const inner = 320;
			const overflowing = [...document.querySelectorAll("body *")]
				.filter((e) => e.getBoundingClientRect().right > inner + 0.5)
				.map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""));
			const links = [...document.querySelectorAll("nav a")].map((a) => a.getBoundingClientRect());
			const gaps = [];
			for (let i = 1; i < links.length; i++) {
				if (Math.abs(links[i].top - links[i - 1].top) < 1) gaps.push(links[i].left - links[i - 1].right);
			}
			return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, overflowing, navGaps: gaps};
		})()`))
		if err == nil {
			err = json.Unmarshal(raw, &layout)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if layout.InnerWidth >= 500 {
			t.Fatalf("%s: the viewport is %d px wide: the 320 px emulation did not apply", path, layout.InnerWidth)
		}
		// A page wider than the device widens a phone's layout viewport.
		if layout.ScrollWidth > 320 || layout.InnerWidth > 320 || len(layout.Overflowing) > 0 {
			t.Errorf("%s: %d px wide (viewport %d px) on a 320 px phone; wider than it: %q",
				path, layout.ScrollWidth, layout.InnerWidth, layout.Overflowing)
		}
		for _, gap := range layout.NavGaps {
			if gap < 12 {
				t.Errorf("%s: nav links %.0f px apart, want at least 12", path, gap)
			}
		}
	}
	time.Sleep(200 * time.Millisecond) // let late console messages arrive
	stopConsole()
	<-consoleDone
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: %q", consoleErrors)
	}
}
