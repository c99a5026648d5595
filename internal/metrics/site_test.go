package metrics

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
)

// scrape gathers the module's series as a registry Caddy gives a config
// would, and returns each sample as "name{site=value,label=value,...}" →
// value, the site first and the other labels by name (a histogram by its
// count); a sample without a site is keyed "name{,...}".
func scrape(t *testing.T) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			site, labels := "", []string{}
			for _, l := range m.GetLabel() {
				if l.GetName() == siteLabel {
					site = "site=" + l.GetValue()
					continue
				}
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			key := f.GetName() + "{" + strings.Join(append([]string{site}, labels...), ",") + "}"
			key = strings.Replace(key, ",}", "}", 1)
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// ofSite are the samples of scraped whose site is label.
func ofSite(scraped map[string]float64, label string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range scraped {
		if strings.Contains(k, "{site="+label+",") || strings.Contains(k, "{site="+label+"}") {
			out[k] = v
		}
	}
	return out
}

// TestSitesAreCountedApart: two sites counting the same things have a
// series each, with the site label first, and the insights gauge of each
// is its own.
func TestSitesAreCountedApart(t *testing.T) {
	one, _ := Acquire("one.example")
	two, _ := Acquire("two.example")
	defer one.Release()
	defer two.Release()
	gpt, _ := agents.IDOf("gptbot")
	for _, s := range []*Site{one, two, two} {
		s.Request("api", gpt, false, 200)
		s.Request("api", gpt, false, 429)
		s.Markdown(gpt, 100, 25)
		s.Conversion("reused")
		s.MCPCall("tool", "get_profile", false, time.Millisecond)
		s.MCPCall("resource", "insight", true, time.Millisecond)
		s.TokenIssued("register")
	}
	one.ContentLoad(true, 8)
	two.ContentLoad(true, 3)
	two.ContentLoad(false, 0)

	got := scrape(t)
	for _, c := range []struct {
		series string
		one    float64
		two    float64
	}{
		{"caddy_discovery_requests_total{site=%s,agent=gptbot,outcome=ok,surface=api,verified=false}", 1, 2},
		{"caddy_discovery_requests_total{site=%s,agent=gptbot,outcome=rate_limited,surface=api,verified=false}", 1, 2},
		{"caddy_discovery_rate_limit_refusals_total{site=%s,agent=gptbot}", 1, 2},
		{"caddy_discovery_markdown_bytes_total{site=%s,agent=gptbot}", 100, 200},
		{"caddy_discovery_markdown_tokens_total{site=%s,agent=gptbot}", 25, 50},
		{"caddy_discovery_markdown_conversions_total{site=%s,result=reused}", 1, 2},
		{"caddy_discovery_mcp_calls_total{site=%s,kind=tool,name=get_profile,outcome=ok}", 1, 2},
		{"caddy_discovery_mcp_calls_total{site=%s,kind=resource,name=insight,outcome=error}", 1, 2},
		{"caddy_discovery_mcp_call_duration_seconds{site=%s,kind=tool,name=get_profile}", 1, 2},
		{"caddy_discovery_tokens_issued_total{site=%s,grant=register}", 1, 2},
		{"caddy_discovery_content_loads_total{site=%s,result=ok}", 1, 1},
		{"caddy_discovery_insights{site=%s}", 8, 3},
	} {
		for _, site := range []struct {
			label string
			want  float64
		}{{"one.example", c.one}, {"two.example", c.two}} {
			key := fmt.Sprintf(c.series, site.label)
			if v, ok := got[key]; !ok || v != site.want {
				t.Errorf("%s = %v (present %v), want %v", key, v, ok, site.want)
			}
		}
	}
	if v := got["caddy_discovery_content_loads_total{site=two.example,result=failed}"]; v != 1 {
		t.Errorf("two.example's failed loads = %v, want 1", v)
	}
	// Only what was counted is there: no error series for a tool that
	// never failed.
	if _, ok := got["caddy_discovery_mcp_calls_total{site=one.example,kind=tool,name=get_profile,outcome=error}"]; ok {
		t.Error("a series of errors that never happened")
	}
	for key := range got {
		if !strings.Contains(key, "{site=") {
			t.Errorf("%s has no site label", key)
		}
	}
}

// TestSitesAreBounded: past MaxSites labels held at once, a new site is
// counted under Overflow, and said once in the process; a label acquired
// again (a reload) is the same site and does not count twice; a label
// released by every holder frees its place, and its series leave the
// scrape.
func TestSitesAreBounded(t *testing.T) {
	var held []*Site
	defer func() {
		for _, s := range held {
			s.Release()
		}
	}()
	for i := range MaxSites {
		s, first := Acquire(fmt.Sprintf("site-%d", i))
		if first || s.Label() != fmt.Sprintf("site-%d", i) {
			t.Fatalf("site %d: counted as %s (first overflow %v)", i, s.Label(), first)
		}
		held = append(held, s)
		s.Request("api", agents.NoneID, false, 200)
	}
	// A reload of every site: the same sites, and no overflow.
	for i := range MaxSites {
		s, first := Acquire(fmt.Sprintf("site-%d", i))
		if first || s != held[i] {
			t.Fatalf("site %d acquired again: a new site (first overflow %v)", i, first)
		}
		s.Release()
	}
	// Two more sites: both counted under Overflow, said once.
	extra, first := Acquire("one-too-many")
	held = append(held, extra)
	if extra.Label() != Overflow || !first {
		t.Fatalf("the site past the bound is counted as %q (first %v), want %q, first", extra.Label(), first, Overflow)
	}
	another, first := Acquire("two-too-many")
	held = append(held, another)
	if another != extra || first {
		t.Errorf("a second site past the bound: counted as %q, said again %v", another.Label(), first)
	}
	extra.Request("api", agents.NoneID, false, 200)
	another.Request("api", agents.NoneID, false, 200)
	got := scrape(t)
	if v := got["caddy_discovery_requests_total{site=other,agent=none,outcome=ok,surface=api,verified=false}"]; v != 2 {
		t.Errorf("requests of the sites past the bound: %v, want 2", v)
	}
	labels := map[string]bool{}
	for key := range got {
		if site, ok := strings.CutPrefix(key, "caddy_discovery_requests_total{site="); ok {
			labels[site[:strings.Index(site, ",")]] = true
		}
	}
	if len(labels) != MaxSites+1 {
		t.Errorf("%d site labels, want %d and %s", len(labels), MaxSites, Overflow)
	}

	// The first site, released, leaves the scrape and frees a place.
	held[0].Release()
	held = held[1:]
	if n := len(ofSite(scrape(t), "site-0")); n != 0 {
		t.Errorf("site-0, released, still has %d series", n)
	}
	back, first := Acquire("site-new")
	held = append(held, back)
	if back.Label() != "site-new" || first {
		t.Errorf("a site acquired once a place is free is counted as %q", back.Label())
	}
}

// TestSiteLabels: a label an owner names is plain and short; a label made
// of a host or a server's name is in lower case, bounded, and of bytes a
// PromQL regular expression needs no escape for but . * [ ].
func TestSiteLabels(t *testing.T) {
	for _, c := range []struct {
		label string
		valid bool
	}{
		{"blog", true}, {"Blog.example-2_b", true}, {strings.Repeat("a", MaxLabel), true},
		{"", false}, {strings.Repeat("a", MaxLabel+1), false}, {"my blog", false}, {"a:1", false},
		{`a"}`, false}, {"ö", false}, {Overflow, false},
	} {
		if got := ValidLabel(c.label); got != c.valid {
			t.Errorf("ValidLabel(%q) = %v, want %v", c.label, got, c.valid)
		}
	}
	for _, c := range []struct{ name, label string }{
		{"Example.COM", "example.com"},
		{"localhost:9283", "localhost:9283"},
		{"[::1]:8080", "[::1]:8080"},
		{"*.example.com", "*.example.com"},
		{"srv0", "srv0"},
		{`my "server"/ö`, "my__server____"},
		{strings.Repeat("é", 40), strings.Repeat("_", MaxLabel)},
	} {
		if got := LabelOf(c.name); got != c.label {
			t.Errorf("LabelOf(%q) = %q, want %q", c.name, got, c.label)
		}
	}
}

// TestNilSiteCountsNothing: with metrics off, a handler has no site, and
// every count is a no-op.
func TestNilSiteCountsNothing(t *testing.T) {
	before := scrape(t)
	var s *Site
	s.Request("api", agents.NoneID, false, 200)
	s.Markdown(agents.NoneID, 1, 1)
	s.Conversion("converted")
	s.MCPCall("tool", "get_profile", false, time.Millisecond)
	s.TokenIssued("register")
	s.ContentLoad(true, 1)
	s.Release()
	if after := scrape(t); len(after) != len(before) {
		t.Errorf("a nil site added %d series", len(after)-len(before))
	}
}

// TestSiteCountsConcurrently: many goroutines counting for a site lose
// nothing (run with -race).
func TestSiteCountsConcurrently(t *testing.T) {
	s, _ := Acquire("concurrent.example")
	defer s.Release()
	const goroutines, each = 8, 500
	tools := []string{"get_profile", "list_insights", "search_insights", "other"}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				s.Request(Surfaces[i%len(Surfaces)], agents.ID(g), i%2 == 0, 200)
				s.MCPCall("tool", tools[i%len(tools)], false, time.Microsecond)
			}
		})
	}
	wg.Wait()
	var requests, calls float64
	for key, v := range ofSite(scrape(t), "concurrent.example") {
		switch {
		case strings.HasPrefix(key, "caddy_discovery_requests_total{"):
			requests += v
		case strings.HasPrefix(key, "caddy_discovery_mcp_calls_total{"):
			calls += v
		}
	}
	if requests != goroutines*each || calls != goroutines*each {
		t.Errorf("counted %v requests and %v calls, want %d each", requests, calls, goroutines*each)
	}
	if !slices.Contains(agents.Labels(), agents.ID(goroutines-1).Label()) {
		t.Fatal("fewer agents than goroutines")
	}
}

// BenchmarkSite is what counting costs on the request path: a request, the
// Markdown it served, an MCP call.
func BenchmarkSite(b *testing.B) {
	s, _ := Acquire("bench.example")
	defer s.Release()
	gpt, _ := agents.IDOf("gptbot")
	b.Run("request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Request("api", gpt, false, 200)
		}
	})
	b.Run("markdown", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Markdown(gpt, 1000, 250)
		}
	})
	b.Run("mcp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.MCPCall("tool", "get_profile", false, time.Millisecond)
		}
	})
}
