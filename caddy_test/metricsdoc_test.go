package caddytest

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
)

// docs/metrics.md is written by hand; these tests hold it to what
// internal/metrics and internal/agents say, and a doctored copy of it is
// refused.

const metricsDocFile = "../docs/metrics.md"

func readMetricsDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(metricsDocFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docRow is one row of a Markdown table: its cells, trimmed.
type docRow []string

// codeSpans are the `…` of s.
func codeSpans(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// tableRows returns the rows of every table in doc whose first cell is a
// single code span, keyed by that span, in the order they come, and the
// spans that head more than one row.
func tableRows(doc string) (rows map[string]docRow, order, repeated []string) {
	rows = map[string]docRow{}
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		spans := codeSpans(cells[0])
		if len(spans) != 1 || cells[0] != "`"+spans[0]+"`" {
			continue
		}
		if _, dup := rows[spans[0]]; dup {
			repeated = append(repeated, spans[0])
		}
		rows[spans[0]] = cells
		order = append(order, spans[0])
	}
	return rows, order, repeated
}

// section is the text of doc under the heading line head, up to the
// next heading of the same or a higher level.
func section(doc, head string) string {
	level := strings.Count(strings.Fields(head)[0], "#")
	_, rest, found := strings.Cut(doc, "\n"+head+"\n")
	if !found {
		return ""
	}
	for _, line := range strings.SplitAfter(rest, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Trim(f[0], "#") == "" && len(f[0]) <= level {
			end := strings.Index(rest, line)
			return rest[:end]
		}
	}
	return rest
}

// cardinality is the bound the documentation must state for the request
// counter: every surface, agent, verified value and outcome.
func cardinality() string {
	s, a, o := len(metrics.Surfaces), len(agents.Labels()), len(metrics.Outcomes)
	return fmt.Sprintf("%d surfaces × %d agents × 2 × %d outcomes = %d series", s, a, o, s*a*2*o)
}

// checkMetricsDoc returns what doc gets wrong or leaves out of the series,
// their types and labels, the surfaces, outcomes and agents, and the
// cardinality.
func checkMetricsDoc(doc string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	rows, _, repeated := tableRows(doc)
	for _, r := range repeated {
		fail("`%s` heads two table rows", r)
	}

	// Every series, with its type and exactly its labels.
	known := map[string]bool{"le": true}
	series, _ := exportedSeries()
	for _, m := range metrics.Exported() {
		known[m.Name] = true
		for _, l := range m.Labels {
			known[l] = true
		}
		row, ok := rows[m.Name]
		if !ok {
			fail("no table row for %s", m.Name)
			continue
		}
		if len(row) < 4 {
			fail("the row of %s has %d cells, not 4 (series, type, labels, meaning)", m.Name, len(row))
			continue
		}
		if row[1] != m.Type {
			fail("%s is a %s, the page says %q", m.Name, m.Type, row[1])
		}
		documented := codeSpans(row[2])
		if len(m.Labels) == 0 && row[2] != "—" || !slices.Equal(documented, m.Labels) && len(m.Labels) > 0 {
			fail("%s has the labels %v, the page lists %q", m.Name, m.Labels, row[2])
		}
		if strings.TrimSpace(row[3]) == "" {
			fail("the row of %s says nothing of what it counts", m.Name)
		}
	}
	// Every label has a row in the labels table.
	labelsTable, _, _ := tableRows(section(doc, "### Labels"))
	for l := range known {
		if strings.HasPrefix(l, "caddy_discovery_") {
			continue
		}
		if _, ok := labelsTable[l]; !ok {
			fail("label %s has no row in the labels table", l)
		}
	}
	// Every surface and outcome, in their tables.
	for head, values := range map[string][]string{"### Surfaces": metrics.Surfaces, "### Outcomes": metrics.Outcomes} {
		_, order, _ := tableRows(section(doc, head))
		if !slices.Equal(order, values) {
			fail("the table under %q lists %v, the module %v", head, order, values)
		}
		for _, v := range values {
			known[v] = true
		}
	}
	// Every agent, in the module's order, with its operator, purpose and
	// the origins it signs as.
	agentRows, order, _ := tableRows(section(doc, "## Agents"))
	if !slices.Equal(order, agents.Labels()) {
		fail("the agents table lists %v, the module %v", order, agents.Labels())
	}
	for _, l := range agents.Labels() {
		known[l] = true
		row := agentRows[l]
		if row == nil {
			continue
		}
		want := docRow{"`" + l + "`", "—", "—", "—"}
		if f := agents.Of(l); f != nil {
			want[1], want[2] = f.Operator, f.Purpose
			if len(f.Domains) > 0 {
				want[3] = "`" + strings.Join(f.Domains, "`, `") + "`"
			}
		}
		if !slices.Equal(row, want) {
			fail("the agents table has %q for %s, the module %q", row, l, want)
		}
	}
	// No row names what the module does not have.
	for name := range rows {
		if !known[name] {
			fail("a table row is headed `%s`, which is no series, label, surface, outcome or agent of the module", name)
		}
	}
	// Nor does the text name another series.
	for _, name := range regexp.MustCompile(`caddy_discovery_[a-z_]*[a-z]`).FindAllString(doc, -1) {
		if series[name] == nil && !known[name] {
			fail("the page names %s, which the module does not export", name)
		}
	}
	if !strings.Contains(doc, cardinality()) {
		fail("the page does not bound the requests counter with %q", cardinality())
	}
	if each := fmt.Sprintf("%d each", len(agents.Labels())); !strings.Contains(doc, each) {
		fail("the page does not bound the per-agent counters with %q", each)
	}
	// The bound of sites, where the cardinality is, and what is past it.
	if bound := fmt.Sprintf("at most %d sites per process, and `%s`", metrics.MaxSites, metrics.Overflow); !strings.Contains(section(doc, "## Cardinality"), bound) {
		fail("the Cardinality section does not bound the sites with %q", bound)
	}
	if past := fmt.Sprintf("counted under `site=\"%s\"`", metrics.Overflow); !strings.Contains(section(doc, "## Sites"), past) {
		fail("the Sites section does not say that the sites past the bound are %s", past)
	}
	return errs
}

// TestMetricsDoc: docs/metrics.md names every series the module exports,
// with its type and labels, every surface, outcome and agent as the
// module has them, the cardinality the module's lists make, and nothing
// else; doctored copies of it are refused.
func TestMetricsDoc(t *testing.T) {
	doc := readMetricsDoc(t)
	for _, e := range checkMetricsDoc(doc) {
		t.Error(e)
	}
	doctored := map[string]func(string) string{
		"a series left out": func(d string) string {
			return strings.Replace(d, "| `caddy_discovery_insights` |", "| insights |", 1)
		},
		"a label left out": func(d string) string {
			return strings.Replace(d, "`surface`, `agent`, `verified`, `outcome`", "`surface`, `agent`, `outcome`", 1)
		},
		"a wrong type": func(d string) string {
			return strings.Replace(d, "| `caddy_discovery_insights` | gauge |", "| `caddy_discovery_insights` | counter |", 1)
		},
		"an agent left out": func(d string) string {
			return strings.Replace(d, "| `ccbot` | Common Crawl | training | — |\n", "", 1)
		},
		"an agent's wrong operator": func(d string) string {
			return strings.Replace(d, "| `claudebot` | Anthropic |", "| `claudebot` | OpenAI |", 1)
		},
		"an agent the module does not know": func(d string) string {
			return strings.Replace(d, "| `browser` |", "| `webbot` | Someone | search | — |\n| `browser` |", 1)
		},
		"a series the module does not export": func(d string) string {
			return strings.Replace(d, "## Privacy", "See also `caddy_discovery_requests_seconds`.\n\n## Privacy", 1)
		},
		"a surface left out": func(d string) string {
			return strings.Replace(d, "| `cli` |", "| cli |", 1)
		},
		"a wrong bound": func(d string) string {
			return strings.Replace(d, cardinality(), "12 surfaces × 30 agents × 2 × 6 outcomes = 4320 series", 1)
		},
		"a wrong bound of sites": func(d string) string {
			return strings.Replace(d, "at most 64 sites per process", "at most 100 sites per process", 1)
		},
		"the site label left out": func(d string) string {
			return strings.Replace(d, "| `caddy_discovery_insights` | gauge | `site` |", "| `caddy_discovery_insights` | gauge | — |", 1)
		},
	}
	for name, doctor := range doctored {
		changed := doctor(doc)
		if changed == doc {
			t.Errorf("%s: the doctoring changed nothing", name)
			continue
		}
		if errs := checkMetricsDoc(changed); len(errs) == 0 {
			t.Errorf("a page with %s passes the checks", name)
		} else {
			t.Logf("a page with %s is refused: %s", name, errs[0])
		}
	}
}

// fencedBlocks are the bodies of doc's code blocks fenced as lang.
func fencedBlocks(doc, lang string) []string {
	var blocks []string
	re := regexp.MustCompile("(?ms)^( *)```" + lang + "\n(.*?)^ *```$")
	for _, m := range re.FindAllStringSubmatch(doc, -1) {
		var lines []string
		for _, line := range strings.Split(m[2], "\n") {
			lines = append(lines, strings.TrimPrefix(line, m[1]))
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	return blocks
}

// TestMetricsDocQueries: every PromQL example of docs/metrics.md parses
// and uses only series and labels the module exports.
func TestMetricsDocQueries(t *testing.T) {
	doc := readMetricsDoc(t)
	series, metricOf := exportedSeries()
	blocks := fencedBlocks(doc, "promql")
	if len(blocks) < 10 {
		t.Fatalf("the page has %d PromQL examples", len(blocks))
	}
	const asked = "sum by (agent) (increase(caddy_discovery_markdown_tokens_total[7d]))"
	if !slices.Contains(blocks, asked+"\n") {
		t.Errorf("the page does not show %s", asked)
	}
	for _, q := range blocks {
		for _, e := range checkQuery(promQuery{expr: q, series: series, metrics: metricOf}, used{}) {
			t.Error(e)
		}
	}
}

// TestMetricsDocCaddyfiles: every Caddyfile of docs/metrics.md adapts,
// without a warning.
func TestMetricsDocCaddyfiles(t *testing.T) {
	doc := readMetricsDoc(t)
	blocks := fencedBlocks(doc, "caddyfile")
	if len(blocks) < 3 {
		t.Fatalf("the page has %d Caddyfiles", len(blocks))
	}
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, b := range blocks {
		_, warnings, err := adapter.Adapt([]byte(b), nil)
		if err != nil {
			t.Errorf("%s\ndoes not adapt: %v", b, err)
		}
		for _, w := range warnings {
			t.Errorf("%s\nadapts with a warning: %s", b, w)
		}
	}
}
