package caddytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
)

// metricsCaddyfile serves the sample content with the discovery
// subdirectives given, then the site lines, and an admin endpoint to
// scrape.
func metricsCaddyfile(storage, discovery, site string) string {
	discovery = withSample(discovery)
	return fmt.Sprintf(`{
	admin localhost:9284
	auto_https off
	persist_config off
	http_port 9283
	storage file_system %s
}

http://localhost:9283 {
	discovery {
		%s
	}
	%s
}
`, storage, discovery, site)
}

// quotaPerClient is a small quota per X-Client, so that a client can be
// refused.
const quotaPerClient = "rate_limit 3 60s\n\t\trate_limit_key {http.request.header.X-Client}"

// scrape reads the admin endpoint's /metrics, checks it with promtool,
// and returns the families by name.
func scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://localhost:9284/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		// promtool finds nothing to say about a well-formed exposition;
		// anything it prints about the module's series is a defect.
		var ours []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "caddy_discovery_") {
				ours = append(ours, line)
			}
		}
		if len(ours) > 0 || !strings.Contains(string(out), "caddy_") && err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// value is the value of the series of family with the labels given as
// name, value pairs (other labels free), summed; 0 when there is none.
func value(families map[string]*dto.MetricFamily, family string, labels ...string) float64 {
	f := families[family]
	if f == nil {
		return 0
	}
	sum := 0.0
	for _, m := range f.Metric {
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
			}
			match = match && found
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// TestMetrics: after a known sequence of requests, as several agents, the
// scraped counters equal it per surface, agent and outcome; promtool finds
// nothing; a thousand made-up User-Agents add no series; a reload keeps
// counting.
func TestMetrics(t *testing.T) {
	p := startProcess(t, "Caddy", "http://localhost:9283", metricsCaddyfile(t.TempDir(), quotaPerClient, ""))
	const (
		gptBot  = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot"
		claude  = "Claude-User/1.0 (+https://www.anthropic.com)"
		browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
	)
	before := scrape(t)
	do := func(method, path, client, ua string, want int, headers ...string) *http.Response {
		t.Helper()
		headers = append(headers, "User-Agent", ua)
		resp, _, err := p.send(method, path, client, nil, headers...)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("%s %s as %s: %v %v, want %d", method, path, ua, resp, err, want)
		}
		return resp
	}
	// GPTBot reads llms.txt, then again on its ETag, then a path that is not there.
	llms := do(http.MethodGet, "/llms.txt", "gpt", gptBot, http.StatusOK)
	do(http.MethodGet, "/llms.txt", "gpt", gptBot, http.StatusNotModified, "If-None-Match", llms.Header.Get("ETag"))
	do(http.MethodGet, "/api/v1/nope", "gpt", gptBot, http.StatusNotFound)
	// It is refused on its fourth request in the minute.
	do(http.MethodGet, "/api/v1/profile", "gpt", gptBot, http.StatusTooManyRequests)
	// Claude asks for the home page as Markdown (its twin) and registers.
	home := do(http.MethodGet, "/", "claude", claude, http.StatusOK, "Accept", "text/markdown")
	do(http.MethodPost, "/agent/register", "claude", claude, http.StatusOK)
	// A browser reads the profile; a client without a User-Agent the
	// OpenAPI description.
	do(http.MethodGet, "/api/v1/profile", "browser", browser, http.StatusOK)
	resp, _, err := p.send(http.MethodGet, "/openapi.json", "none", nil, "User-Agent", "") // Go's client then sends none
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatal(resp, err)
	}
	// MCP: a tool call twice (the second from the answer kept), and an
	// unknown tool.
	mcpCall := func(tool string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
		resp, _, err := p.send(http.MethodPost, "/mcp", "mcp"+tool, strings.NewReader(body), "User-Agent", claude,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-06-18")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("tools/call %s: %v %v", tool, resp, err)
		}
	}
	mcpCall("get_profile")
	mcpCall("get_profile")
	mcpCall("made_up_tool")

	after := scrape(t)
	delta := func(family string, labels ...string) float64 {
		return value(after, family, labels...) - value(before, family, labels...)
	}
	for _, c := range []struct {
		family string
		labels []string
		want   float64
	}{
		{"caddy_discovery_requests_total", []string{"surface", "llms", "agent", "gptbot", "verified", "false", "outcome", "ok"}, 1},
		{"caddy_discovery_requests_total", []string{"surface", "llms", "agent", "gptbot", "outcome", "not_modified"}, 1},
		{"caddy_discovery_requests_total", []string{"surface", "api", "agent", "gptbot", "outcome", "client_error"}, 1},
		{"caddy_discovery_requests_total", []string{"surface", "api", "agent", "gptbot", "outcome", "rate_limited"}, 1},
		{"caddy_discovery_requests_total", []string{"agent", "gptbot"}, 4},
		{"caddy_discovery_requests_total", []string{"surface", "markdown", "agent", "claude-user", "outcome", "ok"}, 1},
		{"caddy_discovery_requests_total", []string{"surface", "tokens", "agent", "claude-user", "outcome", "ok"}, 1},
		{"caddy_discovery_requests_total", []string{"surface", "mcp", "agent", "claude-user", "outcome", "ok"}, 3},
		{"caddy_discovery_requests_total", []string{"surface", "api", "agent", "browser", "outcome", "ok"}, 1},
		{"caddy_discovery_requests_total", []string{"surface", "documents", "agent", "none", "outcome", "ok"}, 1},
		{"caddy_discovery_requests_total", nil, 11},
		{"caddy_discovery_rate_limit_refusals_total", []string{"agent", "gptbot"}, 1},
		{"caddy_discovery_tokens_issued_total", []string{"grant", "register"}, 1},
		{"caddy_discovery_markdown_tokens_total", []string{"agent", "claude-user"}, mustAtof(t, home.Header.Get("X-Markdown-Tokens"))},
		{"caddy_discovery_mcp_calls_total", []string{"kind", "tool", "name", "get_profile", "outcome", "ok"}, 2},
		{"caddy_discovery_mcp_calls_total", []string{"kind", "tool", "name", "other", "outcome", "error"}, 1},
		{"caddy_discovery_mcp_call_duration_seconds", []string{"kind", "tool", "name", "get_profile"}, 2},
	} {
		if got := delta(c.family, c.labels...); got != c.want {
			t.Errorf("%s%v: %v more, want %v", c.family, c.labels, got, c.want)
		}
	}
	if value(after, "caddy_discovery_markdown_bytes_total", "agent", "claude-user") == 0 {
		t.Error("no Markdown bytes counted")
	}
	if value(after, "caddy_discovery_content_loads_total", "result", "ok") < 1 || value(after, "caddy_discovery_insights") != 8 {
		t.Errorf("content loads %v, insights %v", value(after, "caddy_discovery_content_loads_total", "result", "ok"), value(after, "caddy_discovery_insights"))
	}

	// A thousand made-up User-Agents, on the site's home page: no new series.
	series := len(after["caddy_discovery_requests_total"].Metric)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 1000 {
		ua := fmt.Sprintf("Mozilla/5.0 (compatible; Crawler%d/%d.0; +https://bot%d.example)", r.Int(), i, i)
		if i%2 == 0 {
			ua = fmt.Sprintf("agent-%x/%d", r.Uint64(), i)
		}
		do(http.MethodGet, "/", fmt.Sprint("flood", i), ua, http.StatusOK)
	}
	flooded := scrape(t)
	if got := len(flooded["caddy_discovery_requests_total"].Metric); got > series+1 {
		t.Errorf("1 000 User-Agents added %d series", got-series)
	}
	if got := value(flooded, "caddy_discovery_requests_total", "surface", "pages", "agent", "other") -
		value(after, "caddy_discovery_requests_total", "surface", "pages", "agent", "other"); got != 1000 {
		t.Errorf("the flood counted %v, want 1000", got)
	}

	// A reload keeps counting.
	reload, err := http.NewRequest(http.MethodPost, "http://localhost:9284/load", strings.NewReader(metricsCaddyfile(t.TempDir(), quotaPerClient, "")))
	if err != nil {
		t.Fatal(err)
	}
	reload.Header.Set("Content-Type", "text/caddyfile")
	if resp, err := http.DefaultClient.Do(reload); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("reload: %v %v", resp, err)
	}
	do(http.MethodGet, "/api/v1/profile", "after-reload", browser, http.StatusOK)
	reloaded := scrape(t)
	if got, want := value(reloaded, "caddy_discovery_requests_total", "surface", "api", "agent", "browser", "outcome", "ok"),
		value(flooded, "caddy_discovery_requests_total", "surface", "api", "agent", "browser", "outcome", "ok")+1; got != want {
		t.Errorf("after a reload: %v, want %v", got, want)
	}
	if got := value(reloaded, "caddy_discovery_content_loads_total", "result", "ok"); got < 2 {
		t.Errorf("content loads after a reload: %v", got)
	}
	agentLabels := map[string]bool{}
	for _, m := range reloaded["caddy_discovery_requests_total"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "agent" {
				agentLabels[l.GetValue()] = true
			}
		}
	}
	if want := []string{"browser", "claude-user", "gptbot", "none", "other"}; !slices.Equal(sortedKeys(agentLabels), want) {
		t.Errorf("agent labels %v, want %v", sortedKeys(agentLabels), want)
	}
}

func mustAtof(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return f
}

// sendAs sends method path over loopback to the site at addr (a host and
// port: the port is dialled on loopback, addr is the Host header), as
// User-Agent ua, with headers given as name, value pairs, and returns the
// status.
func sendAs(t *testing.T, addr, method, path, ua string, body string, headers ...string) int {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, "http://localhost:"+port+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = addr
	req.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := processClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// siteLabels are the values of the site label of family in families.
func siteLabels(families map[string]*dto.MetricFamily, family string) map[string]bool {
	out := map[string]bool{}
	if f := families[family]; f != nil {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if l.GetName() == "site" {
					out[l.GetValue()] = true
				}
			}
		}
	}
	return out
}

// reloadMetricsCaddy loads caddyfile into the Caddy of metricsCaddyfile's
// admin address.
func reloadMetricsCaddy(t *testing.T, caddyfile string) {
	t.Helper()
	reload, err := http.NewRequest(http.MethodPost, "http://localhost:9284/load", strings.NewReader(caddyfile))
	if err != nil {
		t.Fatal(err)
	}
	reload.Header.Set("Content-Type", "text/caddyfile")
	resp, err := http.DefaultClient.Do(reload)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reload: %d %s", resp.StatusCode, b)
	}
}

// sitesCaddyfile is four sites in one Caddy, each named in its metrics
// another way: by its host matcher (localhost), by its base_url's host
// (two.example), by metrics_label (blog), and, on a port of its own with
// no host, by its server's name. The blog publishes one insight fewer.
// Without the blog site when withBlog is false. The MCP endpoint's Host
// check is off where the Host is not loopback's own name: the test's
// requests all arrive on loopback.
func sitesCaddyfile(storage string, withBlog bool) string {
	blog := `
http://three.localhost:9283 {
	discovery {
		content sample
		exclude where-warehouse-spend-really-goes.md
		metrics_label blog
		mcp_host_check off
	}
}
`
	if !withBlog {
		blog = ""
	}
	return fmt.Sprintf(`{
	admin localhost:9284
	auto_https off
	persist_config off
	http_port 9283
	storage file_system %s
}

http://localhost:9283 {
	discovery {
		content sample
	}
}

http://two.localhost:9283 {
	discovery {
		content sample
		base_url https://two.example
		mcp_host_check off
	}
}

http://:9285 {
	discovery {
		content sample
	}
}
%s`, storage, blog)
}

// TestMetricsPerSite: four sites in one Caddy, scraped at the admin
// endpoint and checked with promtool, are counted apart, each under its
// own site label (its host, its base_url's host, its metrics_label, its
// server's name), the insights gauge included; a reload keeps each
// site's label and counts; a site removed by a reload leaves the scrape.
func TestMetricsPerSite(t *testing.T) {
	mustBeFree(t, "Caddy", "http://localhost:9285")
	startProcess(t, "Caddy", "http://localhost:9283", sitesCaddyfile(t.TempDir(), true))
	const gptBot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot"
	sites := []struct {
		host, label string
		requests    int
		insights    float64
	}{
		{"localhost:9283", "localhost", 1, 8},
		{"two.localhost:9283", "two.example", 2, 8},
		{"three.localhost:9283", "blog", 3, 7},
		{"localhost:9285", serverListening(t, ":9285"), 4, 8},
	}
	before := scrape(t)
	request := func() {
		t.Helper()
		for _, s := range sites {
			for range s.requests {
				if status := sendAs(t, s.host, http.MethodGet, "/api/v1/profile", gptBot, ""); status != http.StatusOK {
					t.Fatalf("%s: /api/v1/profile: %d", s.host, status)
				}
			}
			// An MCP call and a token: counted by the packages behind the
			// request path, for the same site.
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_profile","arguments":{}}}`
			if status := sendAs(t, s.host, http.MethodPost, "/mcp", gptBot, call, "Content-Type", "application/json",
				"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-06-18"); status != http.StatusOK {
				t.Fatalf("%s: /mcp: %d", s.host, status)
			}
			if status := sendAs(t, s.host, http.MethodPost, "/agent/register", gptBot, ""); status != http.StatusOK {
				t.Fatalf("%s: /agent/register: %d", s.host, status)
			}
		}
	}
	request()
	after := scrape(t)
	delta := func(families map[string]*dto.MetricFamily, family string, labels ...string) float64 {
		return value(families, family, labels...) - value(before, family, labels...)
	}
	for _, s := range sites {
		for _, c := range []struct {
			family string
			labels []string
			want   float64
		}{
			{"caddy_discovery_requests_total", []string{"surface", "api", "agent", "gptbot"}, float64(s.requests)},
			{"caddy_discovery_requests_total", []string{"surface", "mcp", "agent", "gptbot"}, 1},
			{"caddy_discovery_requests_total", []string{"surface", "tokens", "agent", "gptbot"}, 1},
			{"caddy_discovery_mcp_calls_total", []string{"name", "get_profile", "outcome", "ok"}, 1},
			{"caddy_discovery_mcp_call_duration_seconds", []string{"name", "get_profile"}, 1},
			{"caddy_discovery_tokens_issued_total", []string{"grant", "register"}, 1},
		} {
			if got := delta(after, c.family, append([]string{"site", s.label}, c.labels...)...); got != c.want {
				t.Errorf("%s: %s%v: %v more, want %v", s.label, c.family, c.labels, got, c.want)
			}
		}
		if got := value(after, "caddy_discovery_insights", "site", s.label); got != s.insights {
			t.Errorf("%s: insights %v, want %v", s.label, got, s.insights)
		}
		if value(after, "caddy_discovery_content_loads_total", "site", s.label, "result", "ok") < 1 {
			t.Errorf("%s: no content load counted", s.label)
		}
	}
	// Every series of the module's names one of the four sites.
	var want []string
	for _, s := range sites {
		want = append(want, s.label)
	}
	slices.Sort(want)
	for name, f := range after {
		if !strings.HasPrefix(name, "caddy_discovery_") {
			continue
		}
		for _, m := range f.Metric {
			site := ""
			for _, l := range m.Label {
				if l.GetName() == "site" {
					site = l.GetValue()
				}
			}
			if !slices.Contains(want, site) {
				t.Errorf("%s: a series of site %q, want one of %v", name, site, want)
			}
		}
	}

	// A reload keeps each site's label, and its counts go on.
	reloadMetricsCaddy(t, sitesCaddyfile(t.TempDir(), true))
	request()
	reloaded := scrape(t)
	for _, s := range sites {
		if got := delta(reloaded, "caddy_discovery_requests_total", "site", s.label, "surface", "api"); got != float64(2*s.requests) {
			t.Errorf("%s after a reload: %v requests, want %d", s.label, got, 2*s.requests)
		}
	}
	if got := sortedKeys(siteLabels(reloaded, "caddy_discovery_requests_total")); !slices.Equal(got, want) {
		t.Errorf("after a reload, the site labels are %v, want %v", got, want)
	}

	// A reload without the blog: its series leave the scrape, the others
	// stay.
	reloadMetricsCaddy(t, sitesCaddyfile(t.TempDir(), false))
	removed := scrape(t)
	for name, f := range removed {
		if strings.HasPrefix(name, "caddy_discovery_") && siteLabels(removed, name)["blog"] {
			t.Errorf("%s still has a series of the removed site blog (%d series)", name, len(f.Metric))
		}
	}
	if got := value(removed, "caddy_discovery_requests_total", "site", "two.example", "surface", "api"); got != value(reloaded, "caddy_discovery_requests_total", "site", "two.example", "surface", "api") {
		t.Errorf("two.example's requests after the blog's removal: %v, want %v", got, value(reloaded, "caddy_discovery_requests_total", "site", "two.example", "surface", "api"))
	}
}

// serverListening is the name of the server of the Caddy of
// metricsCaddyfile's admin address that listens on addr, as its config
// says.
func serverListening(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://localhost:9284/config/apps/http/servers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var servers map[string]struct {
		Listen []string `json:"listen"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&servers); err != nil {
		t.Fatal(err)
	}
	for name, srv := range servers {
		if slices.Contains(srv.Listen, addr) {
			return name
		}
	}
	t.Fatalf("no server listens on %s: %v", addr, servers)
	return ""
}

// TestMetricsSitesAreBounded: a Caddy of two sites more than
// metrics.MaxSites counts the first MaxSites under their own labels and
// the last two under "other", and says so in one WARN; a reload of the
// same config adds no label and no WARN.
func TestMetricsSitesAreBounded(t *testing.T) {
	n := metrics.MaxSites + 2
	caddyfile := func(storage string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "{\n\tadmin localhost:9284\n\tauto_https off\n\tpersist_config off\n\thttp_port 9283\n\tstorage file_system %s\n}\n", storage)
		// The probe's site first, then the others.
		for i := range n {
			host := fmt.Sprintf("s%d.localhost", i)
			if i == 0 {
				host = "localhost"
			}
			fmt.Fprintf(&b, "\nhttp://%s:9283 {\n\tdiscovery {\n\t\tcontent sample\n\t\tsite_check off\n\t\trate_limit off\n\t}\n}\n", host)
		}
		return b.String()
	}
	p := startProcess(t, "Caddy", "http://localhost:9283", caddyfile(t.TempDir()))
	hosts := []string{"localhost"}
	for i := 1; i < n; i++ {
		hosts = append(hosts, fmt.Sprintf("s%d.localhost", i))
	}
	request := func() {
		t.Helper()
		for _, host := range hosts {
			if status := sendAs(t, host+":9283", http.MethodGet, "/api/v1/profile", "GPTBot/1.2", ""); status != http.StatusOK {
				t.Fatalf("%s: %d", host, status)
			}
		}
	}
	check := func(when string, each float64) {
		t.Helper()
		families := scrape(t)
		labels := siteLabels(families, "caddy_discovery_requests_total")
		if len(labels) != metrics.MaxSites+1 || !labels[metrics.Overflow] {
			t.Errorf("%s: %d site labels (%s among them: %v), want %d and %s", when, len(labels), metrics.Overflow, labels[metrics.Overflow], metrics.MaxSites, metrics.Overflow)
		}
		for label := range labels {
			want := each
			if label == metrics.Overflow {
				want = 2 * each
			} else if !slices.Contains(hosts, label) {
				t.Errorf("%s: site label %q is no site's host", when, label)
			}
			if got := value(families, "caddy_discovery_requests_total", "site", label, "agent", "gptbot"); got != want {
				t.Errorf("%s: site %s counted %v requests, want %v", when, label, got, want)
			}
		}
		if warns := strings.Count(p.log.String(), "more sites count metrics in this process than the bound"); warns != 1 {
			t.Errorf("%s: %d WARNs about the bound, want 1", when, warns)
		}
	}
	request()
	check("at start", 1)
	reloadMetricsCaddy(t, caddyfile(t.TempDir()))
	request()
	check("after a reload", 2)
}
