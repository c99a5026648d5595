package caddytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
	"github.com/caddy-discovery/caddy-discovery/internal/metrics"
)

// The Grafana dashboard of dashboards/ is checked in two ways, neither of
// which needs Grafana, Prometheus or a Caddy:
//
//   - as a document: it must validate against Grafana's own JSON Schemas
//     of the classic dashboard model, of each panel type's options and of
//     a Prometheus query (testdata/grafana, copied from the Grafana
//     Foundation SDK; see the README there), and hold to what the schema
//     cannot say but an import needs: unique panel ids, panels inside the
//     24-column grid and not overlapping, every query with an expression
//     and a refId of its own, every data source a declared variable;
//   - as queries: each expression must parse as PromQL (Prometheus's own
//     parser), name only series the module exports (metrics.Exported),
//     filter and group only by labels those series have, and its legend
//     may only show labels the result keeps; every series a panel selects
//     is filtered by the Site variable, so that no panel adds up the sites
//     the owner did not choose.

const dashboardFile = "../dashboards/caddy-discovery.json"

// grafanaSchemas are the compiled schemas of testdata/grafana.
type grafanaSchemas struct {
	dashboard *jsonschema.Schema
	options   map[string]*jsonschema.Schema // panel type → its options
	custom    map[string]*jsonschema.Schema // panel type → fieldConfig.defaults.custom, when it has one
	query     *jsonschema.Schema            // a Prometheus target
}

// panelTypes are the panel types the dashboard may use: those whose
// options schema is in testdata/grafana.
var panelTypes = []string{"timeseries", "stat", "bargauge", "table"}

func compileGrafanaSchemas(t *testing.T) *grafanaSchemas {
	t.Helper()
	const base = "https://test.invalid/grafana/"
	c := jsonschema.NewCompiler()
	for _, name := range append([]string{"dashboard", "prometheus"}, panelTypes...) {
		f, err := os.Open(filepath.Join("testdata", "grafana", name+".jsonschema.json"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.jsonschema.json: %v", name, err)
		}
		if err := c.AddResource(base+name+".jsonschema.json", doc); err != nil {
			t.Fatal(err)
		}
	}
	compile := func(loc string) *jsonschema.Schema {
		s, err := c.Compile(base + loc)
		if err != nil {
			t.Fatalf("compiling %s: %v", loc, err)
		}
		return s
	}
	s := &grafanaSchemas{
		dashboard: compile("dashboard.jsonschema.json"),
		query:     compile("prometheus.jsonschema.json#/definitions/Dataquery"),
		options:   make(map[string]*jsonschema.Schema),
		custom:    map[string]*jsonschema.Schema{},
	}
	for _, p := range panelTypes {
		s.options[p] = compile(p + ".jsonschema.json#/definitions/Options")
		if p == "timeseries" || p == "table" {
			s.custom[p] = compile(p + ".jsonschema.json#/definitions/FieldConfig")
		}
	}
	return s
}

func readDashboard(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dashboardDoc is the part of the dashboard model the checks read.
type dashboardDoc struct {
	UID           string         `json:"uid"`
	Title         string         `json:"title"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []panelDoc     `json:"panels"`
	Templating    *templatingDoc `json:"templating"`
}

type templatingDoc struct {
	List []variableDoc `json:"list"`
}

type variableDoc struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Query      json.RawMessage `json:"query"`
	Datasource *datasourceDoc  `json:"datasource"`
	IncludeAll bool            `json:"includeAll"`
	Multi      bool            `json:"multi"`
}

type datasourceDoc struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panelDoc struct {
	ID          int             `json:"id"`
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	GridPos     *gridPosDoc     `json:"gridPos"`
	Datasource  *datasourceDoc  `json:"datasource"`
	Targets     []targetDoc     `json:"targets"`
	Panels      []panelDoc      `json:"panels"`
	Options     json.RawMessage `json:"options"`
	FieldConfig *struct {
		Defaults struct {
			Custom json.RawMessage `json:"custom"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

type gridPosDoc struct {
	X, Y, W, H int
}

type targetDoc struct {
	RefID        string         `json:"refId"`
	Expr         string         `json:"expr"`
	LegendFormat string         `json:"legendFormat"`
	Datasource   *datasourceDoc `json:"datasource"`
	raw          []byte         // the whole target, for its schema
}

func (t *targetDoc) UnmarshalJSON(b []byte) error {
	type plain targetDoc
	if err := json.Unmarshal(b, (*plain)(t)); err != nil {
		return err
	}
	t.raw = slices.Clone(b)
	return nil
}

// allPanels are the dashboard's panels, those inside rows included.
func (d *dashboardDoc) allPanels() []panelDoc {
	var all []panelDoc
	for _, p := range d.Panels {
		all = append(all, p)
		all = append(all, p.Panels...)
	}
	return all
}

// checkDashboard returns what is wrong with the dashboard raw as a
// document: schema violations and what an import needs besides.
func checkDashboard(s *grafanaSchemas, raw []byte) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	validate := func(what string, schema *jsonschema.Schema, b []byte) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			fail("%s: %v", what, err)
			return
		}
		if err := schema.Validate(doc); err != nil {
			fail("%s does not validate: %v", what, err)
		}
	}
	validate("the dashboard", s.dashboard, raw)

	var d dashboardDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return append(errs, err.Error())
	}
	if strings.TrimSpace(d.Title) == "" {
		fail("the dashboard has no title")
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`).MatchString(d.UID) {
		fail("uid %q is not 1 to 40 letters, digits, - or _", d.UID)
	}
	if d.SchemaVersion < 39 {
		fail("schemaVersion %d is older than Grafana 11's", d.SchemaVersion)
	}
	if d.Templating == nil {
		return append(errs, "the dashboard has no templating")
	}
	// Variables: unique names; data sources are variables of type
	// datasource.
	vars, sources := map[string]variableDoc{}, map[string]string{}
	for _, v := range d.Templating.List {
		if _, dup := vars[v.Name]; dup {
			fail("variable %q declared twice", v.Name)
		}
		vars[v.Name] = v
		if v.Type == "datasource" {
			var plugin string
			if err := json.Unmarshal(v.Query, &plugin); err != nil {
				fail("data source variable %q: query is not a plugin id", v.Name)
			}
			sources["${"+v.Name+"}"] = plugin
		}
	}
	resolves := func(where string, ds *datasourceDoc) {
		switch {
		case ds == nil:
			fail("%s has no datasource", where)
		case sources[ds.UID] == "":
			fail("%s: datasource uid %q is not a declared data source variable", where, ds.UID)
		case sources[ds.UID] != ds.Type:
			fail("%s: datasource type %q, but %s is a %q data source", where, ds.Type, ds.UID, sources[ds.UID])
		}
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			resolves("variable "+v.Name, v.Datasource)
		}
	}
	// Panels: unique ids, in the grid, not overlapping; rows hold no
	// queries; other panels are of a type whose options schema is here,
	// and validate against it.
	ids := map[int]string{}
	var placed []panelDoc
	for _, p := range d.allPanels() {
		where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if p.ID <= 0 {
			fail("%s: id must be a positive integer", where)
		} else if other, dup := ids[p.ID]; dup {
			fail("%s: id already used by %q", where, other)
		}
		ids[p.ID] = p.Title
		if strings.TrimSpace(p.Title) == "" {
			fail("%s has no title", where)
		}
		if g := p.GridPos; g == nil {
			fail("%s has no gridPos", where)
		} else {
			if g.W <= 0 || g.H <= 0 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
				fail("%s: gridPos %+v is outside the 24-column grid", where, *g)
			}
			for _, q := range placed {
				h := q.GridPos
				if g.X < h.X+h.W && h.X < g.X+g.W && g.Y < h.Y+h.H && h.Y < g.Y+g.H {
					fail("%s overlaps panel %d %q", where, q.ID, q.Title)
				}
			}
			placed = append(placed, p)
		}
		if p.Type == "row" {
			if len(p.Targets) > 0 {
				fail("%s: a row has no queries", where)
			}
			continue
		}
		schema := s.options[p.Type]
		if schema == nil {
			fail("%s: type %q is not one of %v, whose options schemas are in testdata/grafana", where, p.Type, panelTypes)
			continue
		}
		if len(p.Options) == 0 {
			fail("%s has no options", where)
		} else {
			validate(where+" options", schema, p.Options)
		}
		if c := s.custom[p.Type]; c != nil && p.FieldConfig != nil && len(p.FieldConfig.Defaults.Custom) > 0 {
			validate(where+" fieldConfig.defaults.custom", c, p.FieldConfig.Defaults.Custom)
		}
		resolves(where, p.Datasource)
		if len(p.Targets) == 0 {
			fail("%s has no queries", where)
		}
		refs := map[string]bool{}
		for i, tg := range p.Targets {
			tw := fmt.Sprintf("%s target %d", where, i)
			validate(tw, s.query, tg.raw)
			if tg.RefID == "" || refs[tg.RefID] {
				fail("%s: refId %q is empty or repeated", tw, tg.RefID)
			}
			refs[tg.RefID] = true
			if strings.TrimSpace(tg.Expr) == "" {
				fail("%s has no expr", tw)
			}
			resolves(tw, tg.Datasource)
			if tg.Datasource != nil && p.Datasource != nil && *tg.Datasource != *p.Datasource {
				fail("%s: its datasource is not its panel's", tw)
			}
		}
	}
	return errs
}

// TestDashboardSchema: the dashboard is a valid classic Grafana dashboard
// by Grafana's own schemas, which Grafana can import as it is, and a
// doctored copy of it is refused.
func TestDashboardSchema(t *testing.T) {
	s := compileGrafanaSchemas(t)
	raw := readDashboard(t)
	for _, e := range checkDashboard(s, raw) {
		t.Error(e)
	}

	// Each change makes a dashboard Grafana would refuse or show
	// broken; each must be caught.
	doctored := map[string]func(d map[string]any){
		"an unknown member":            func(d map[string]any) { d["rows"] = []any{} },
		"no templating":                func(d map[string]any) { delete(d, "templating") },
		"a panel wider than the grid":  func(d map[string]any) { firstPanel(d, "timeseries")["gridPos"].(map[string]any)["w"] = 25 },
		"a panel with a string id":     func(d map[string]any) { firstPanel(d, "stat")["id"] = "1" },
		"two panels with one id":       func(d map[string]any) { firstPanel(d, "stat")["id"] = firstPanel(d, "timeseries")["id"] },
		"overlapping panels":           func(d map[string]any) { firstPanel(d, "timeseries")["gridPos"].(map[string]any)["y"] = 1 },
		"a target without expr":        func(d map[string]any) { delete(firstTarget(d, "timeseries"), "expr") },
		"a target with an unknown key": func(d map[string]any) { firstTarget(d, "bargauge")["query"] = "up" },
		"a repeated refId":             func(d map[string]any) { secondTarget(d)["refId"] = "A" },
		"stat options without reduce":  func(d map[string]any) { delete(firstPanel(d, "stat")["options"].(map[string]any), "reduceOptions") },
		"a legend placed on top": func(d map[string]any) {
			firstPanel(d, "timeseries")["options"].(map[string]any)["legend"].(map[string]any)["placement"] = "top"
		},
		"a data source not declared":    func(d map[string]any) { firstPanel(d, "table")["datasource"].(map[string]any)["uid"] = "${prom}" },
		"a data source as a bare name":  func(d map[string]any) { firstPanel(d, "table")["datasource"] = "Prometheus" },
		"a panel type without a schema": func(d map[string]any) { firstPanel(d, "bargauge")["type"] = "graph" },
	}
	names := make([]string, 0, len(doctored))
	for name := range doctored {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		doctored[name](d)
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if errs := checkDashboard(s, b); len(errs) == 0 {
			t.Errorf("a dashboard with %s passes the checks", name)
		} else {
			t.Logf("a dashboard with %s is refused: %s", name, firstLine(errs[0]))
		}
	}
}

// firstLine is the first line of an error and, for a validation error,
// which goes on with the schema's every complaint, the first of those.
func firstLine(s string) string {
	line, rest, _ := strings.Cut(s, "\n")
	if cause, _, _ := strings.Cut(strings.TrimSpace(rest), "\n"); cause != "" {
		return line + " " + cause
	}
	return line
}

// firstPanel is the first panel of type typ in the decoded dashboard d.
func firstPanel(d map[string]any, typ string) map[string]any {
	for _, p := range d["panels"].([]any) {
		if p := p.(map[string]any); p["type"] == typ {
			return p
		}
	}
	panic("no panel of type " + typ)
}

func firstTarget(d map[string]any, typ string) map[string]any {
	return firstPanel(d, typ)["targets"].([]any)[0].(map[string]any)
}

// secondTarget is the second target of the first panel that has two.
func secondTarget(d map[string]any) map[string]any {
	for _, p := range d["panels"].([]any) {
		if ts, _ := p.(map[string]any)["targets"].([]any); len(ts) > 1 {
			return ts[1].(map[string]any)
		}
	}
	panic("no panel with two targets")
}

// exportedSeries maps each series name a query may select to its labels:
// every metric of metrics.Exported, a histogram by its _bucket (with le),
// _sum and _count series. It also returns which metric each name is of.
func exportedSeries() (series map[string]map[string]bool, metricOf map[string]string) {
	series, metricOf = map[string]map[string]bool{}, map[string]string{}
	add := func(name, metric string, ls []string, extra ...string) {
		set := map[string]bool{}
		for _, l := range append(slices.Clone(ls), extra...) {
			set[l] = true
		}
		series[name], metricOf[name] = set, metric
	}
	for _, m := range metrics.Exported() {
		if m.Type == "histogram" {
			add(m.Name+"_bucket", m.Name, m.Labels, "le")
			add(m.Name+"_sum", m.Name, m.Labels)
			add(m.Name+"_count", m.Name, m.Labels)
			continue
		}
		add(m.Name, m.Name, m.Labels)
	}
	return series, metricOf
}

// labelValues are the values some labels take, from the lists the module
// exports: a query that filters on another value selects nothing.
func labelValues() map[string][]string {
	return map[string][]string{
		"agent":    agents.Labels(),
		"surface":  metrics.Surfaces,
		"verified": {"true", "false"},
	}
}

// grafanaGlobals are the interval variables Grafana fills in, and what
// they are replaced with to parse a query.
var grafanaGlobals = regexp.MustCompile(`\$__(rate_interval|interval|range)\b`)

// variableRef finds the $name and ${name} references of a query.
var variableRef = regexp.MustCompile(`\$(\w+)|\$\{(\w+)\}`)

// promQuery is one query and what its checks know.
type promQuery struct {
	expr    string
	legend  string          // a Grafana legendFormat, or ""
	vars    map[string]bool // the dashboard's variables, or nil
	series  map[string]map[string]bool
	metrics map[string]string
}

// used gathers the metrics the checked queries select.
type used map[string]bool

// checkQuery returns what is wrong with q: it must parse as PromQL once
// Grafana's variables are filled in, select by name only series the
// module exports, match, group and join only on labels those series
// have, and its legend must name only labels its result keeps.
func checkQuery(q promQuery, seen used) []string {
	var errs []string
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s: ", q.expr)+fmt.Sprintf(format, args...))
	}
	for _, m := range variableRef.FindAllStringSubmatch(q.expr, -1) {
		name := m[1] + m[2]
		if strings.HasPrefix(name, "__") {
			if !grafanaGlobals.MatchString("$" + name) {
				fail("Grafana variable $%s is not one the check knows", name)
			}
			continue
		}
		if q.vars == nil || !q.vars[name] {
			fail("variable $%s is not declared", name)
		}
	}
	expr, err := parser.ParseExpr(grafanaGlobals.ReplaceAllString(q.expr, "5m"))
	if err != nil {
		fail("does not parse: %v", err)
		return errs
	}
	c := &labelChecker{q: q, seen: seen, fail: fail}
	result := c.labels(expr)
	if q.legend != "" && q.legend != "__auto" && result != nil {
		for _, m := range regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`).FindAllStringSubmatch(q.legend, -1) {
			if !result[m[1]] {
				fail("legend %q shows label %s, which the result does not have (it has %v)", q.legend, m[1], sortedKeys(result))
			}
		}
	}
	return errs
}

type labelChecker struct {
	q    promQuery
	seen used
	fail func(format string, args ...any)
}

// labels returns the labels the result of e may have, checking every
// selector, matcher, grouping and join on the way; nil means unknown (an
// error was reported).
func (c *labelChecker) labels(e parser.Expr) map[string]bool {
	switch e := e.(type) {
	case *parser.VectorSelector:
		return c.selector(e)
	case *parser.MatrixSelector:
		return c.labels(e.VectorSelector)
	case *parser.SubqueryExpr:
		return c.labels(e.Expr)
	case *parser.ParenExpr:
		return c.labels(e.Expr)
	case *parser.UnaryExpr:
		return c.labels(e.Expr)
	case *parser.StepInvariantExpr:
		return c.labels(e.Expr)
	case *parser.NumberLiteral, *parser.StringLiteral:
		return map[string]bool{}
	case *parser.AggregateExpr:
		return c.aggregate(e)
	case *parser.Call:
		return c.call(e)
	case *parser.BinaryExpr:
		return c.binary(e)
	}
	c.fail("expression %T is not one the check knows", e)
	return nil
}

func (c *labelChecker) selector(e *parser.VectorSelector) map[string]bool {
	name := e.Name
	for _, m := range e.LabelMatchers {
		if m.Name == labels.MetricName && name == "" && m.Type == labels.MatchEqual {
			name = m.Value
		}
	}
	if name == "" {
		c.fail("selector %s names no series", e)
		return nil
	}
	have, ok := c.q.series[name]
	if !ok {
		c.fail("series %s is not one the module exports", name)
		return nil
	}
	c.seen[c.q.metrics[name]] = true
	values := labelValues()
	for _, m := range e.LabelMatchers {
		if m.Name == labels.MetricName {
			continue
		}
		if !have[m.Name] {
			c.fail("%s has no label %s (it has %v)", name, m.Name, sortedKeys(have))
			continue
		}
		known := values[m.Name]
		if name == "caddy_discovery_requests_total" && m.Name == "outcome" {
			known = metrics.Outcomes
		}
		if known == nil || strings.Contains(m.Value, "$") {
			continue
		}
		// An equality, or a regex that is a list of words: every value it
		// names must be one the label takes.
		words := []string{m.Value}
		if m.Type == labels.MatchRegexp || m.Type == labels.MatchNotRegexp {
			if !regexp.MustCompile(`^[a-z0-9_-]+(\|[a-z0-9_-]+)*$`).MatchString(m.Value) {
				continue
			}
			words = strings.Split(m.Value, "|")
		}
		for _, w := range words {
			if !slices.Contains(known, w) {
				c.fail("%s never has %s=%q", name, m.Name, w)
			}
		}
	}
	return cloneSet(have)
}

func (c *labelChecker) aggregate(e *parser.AggregateExpr) map[string]bool {
	in := c.labels(e.Expr)
	if e.Param != nil {
		c.labels(e.Param)
	}
	if in != nil {
		for _, g := range e.Grouping {
			if !in[g] {
				c.fail("%s groups by %s, which its operand does not have (it has %v)", e.Op, g, sortedKeys(in))
			}
		}
	}
	switch {
	case e.Op == parser.TOPK || e.Op == parser.BOTTOMK:
		return in
	case e.Op == parser.COUNT_VALUES:
		out := labelSet(e.Grouping)
		if s, ok := e.Param.(*parser.StringLiteral); ok {
			out[s.Val] = true
		}
		return out
	case e.Without:
		if in == nil {
			return nil
		}
		out := cloneSet(in)
		for _, g := range e.Grouping {
			delete(out, g)
		}
		return out
	}
	return labelSet(e.Grouping)
}

func (c *labelChecker) call(e *parser.Call) map[string]bool {
	args := make([]map[string]bool, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.labels(a)
	}
	switch e.Func.Name {
	case "histogram_quantile":
		in := args[1]
		if in == nil {
			return nil
		}
		if !in["le"] {
			c.fail("histogram_quantile of series without le (it has %v)", sortedKeys(in))
		}
		out := cloneSet(in)
		delete(out, "le")
		return out
	case "label_replace", "label_join":
		out := cloneSet(args[0])
		if s, ok := e.Args[1].(*parser.StringLiteral); ok && out != nil {
			out[s.Val] = true
		}
		return out
	}
	if e.Func.ReturnType != parser.ValueTypeVector {
		return map[string]bool{}
	}
	for i, a := range e.Args {
		if t := a.Type(); t == parser.ValueTypeVector || t == parser.ValueTypeMatrix {
			return args[i]
		}
	}
	return map[string]bool{} // vector(), time() and the like
}

func (c *labelChecker) binary(e *parser.BinaryExpr) map[string]bool {
	l, r := c.labels(e.LHS), c.labels(e.RHS)
	m := e.VectorMatching
	if m == nil { // a scalar on one side
		if e.LHS.Type() == parser.ValueTypeVector {
			return l
		}
		return r
	}
	if l == nil || r == nil {
		return nil
	}
	for _, name := range m.MatchingLabels {
		if m.On && (!l[name] || !r[name]) || !m.On && !l[name] && !r[name] {
			c.fail("%s matches on %s, which its operands do not both have", e.Op, name)
		}
	}
	one, many := r, l
	if m.Card == parser.CardOneToMany {
		one, many = l, r
	}
	for _, name := range m.Include {
		if !one[name] {
			c.fail("%s copies %s from a side that does not have it", e.Op, name)
		}
	}
	switch {
	case e.Op == parser.LOR:
		out := cloneSet(l)
		for k := range r {
			out[k] = true
		}
		return out
	case e.Op == parser.LAND || e.Op == parser.LUNLESS:
		return l
	case m.Card == parser.CardOneToOne && m.On:
		out := map[string]bool{}
		for _, name := range m.MatchingLabels {
			if l[name] {
				out[name] = true
			}
		}
		return out
	case m.Card == parser.CardOneToOne:
		out := cloneSet(l)
		for _, name := range m.MatchingLabels {
			delete(out, name)
		}
		return out
	}
	out := cloneSet(many)
	for _, name := range m.Include {
		out[name] = true
	}
	return out
}

func labelSet(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

func cloneSet(m map[string]bool) map[string]bool {
	if m == nil {
		return nil
	}
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dashboardQueries checks every query of the dashboard raw, its variables'
// queries included, and returns the errors and the metrics selected.
func dashboardQueries(t *testing.T, raw []byte) ([]string, used) {
	t.Helper()
	var d dashboardDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	series, metricOf := exportedSeries()
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	seen := used{}
	var errs []string
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q string
		if err := json.Unmarshal(v.Query, &q); err != nil {
			errs = append(errs, fmt.Sprintf("variable %s: query is not a string", v.Name))
			continue
		}
		m := regexp.MustCompile(`^label_values\((\w+)(\{[^}]*\})?,\s*(\w+)\)$`).FindStringSubmatch(q)
		switch {
		case m == nil:
			errs = append(errs, fmt.Sprintf("variable %s: %q is not label_values(series, label) or label_values(series{…}, label)", v.Name, q))
		case series[m[1]] == nil:
			errs = append(errs, fmt.Sprintf("variable %s: series %s is not one the module exports", v.Name, m[1]))
		case !series[m[1]][m[3]]:
			errs = append(errs, fmt.Sprintf("variable %s: %s has no label %s", v.Name, m[1], m[3]))
		case m[2] != "":
			for _, e := range checkQuery(promQuery{m[1] + m[2], "", vars, series, metricOf}, used{}) {
				errs = append(errs, fmt.Sprintf("variable %s: %s", v.Name, e))
			}
		}
	}
	// The Site variable: every site the series name, or all of them.
	if site := variable(d, "site"); site == nil {
		errs = append(errs, "the dashboard has no site variable")
	} else if q := string(site.Query); site.Type != "query" || q != `"label_values(caddy_discovery_requests_total, site)"` || !site.IncludeAll || !site.Multi {
		errs = append(errs, fmt.Sprintf("the site variable is a %s of %s (all %v, multi %v), want a query of label_values(caddy_discovery_requests_total, site) with All and several values", site.Type, q, site.IncludeAll, site.Multi))
	}
	for _, p := range d.allPanels() {
		for _, tg := range p.Targets {
			for _, e := range checkQuery(promQuery{tg.Expr, tg.LegendFormat, vars, series, metricOf}, seen) {
				errs = append(errs, fmt.Sprintf("panel %d %q, query %s: %s", p.ID, p.Title, tg.RefID, e))
			}
			for _, sel := range unfilteredBySite(tg.Expr) {
				errs = append(errs, fmt.Sprintf("panel %d %q, query %s: %s is not filtered by the site variable (site=~\"$site\")", p.ID, p.Title, tg.RefID, sel))
			}
		}
	}
	return errs, seen
}

// variable is the dashboard's variable named name, nil when it has none.
func variable(d dashboardDoc, name string) *variableDoc {
	for i, v := range d.Templating.List {
		if v.Name == name {
			return &d.Templating.List[i]
		}
	}
	return nil
}

// unfilteredBySite are the series selectors of expr that do not match
// site=~"$site"; nil for an expression that does not parse (checkQuery
// reports it).
func unfilteredBySite(expr string) []string {
	e, err := parser.ParseExpr(grafanaGlobals.ReplaceAllString(expr, "5m"))
	if err != nil {
		return nil
	}
	var out []string
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok && !slices.ContainsFunc(vs.LabelMatchers, func(m *labels.Matcher) bool {
			return m.Name == "site" && m.Type == labels.MatchRegexp && m.Value == "$site"
		}) {
			out = append(out, vs.String())
		}
		return nil
	})
	return out
}

// TestDashboardQueries: every query of the dashboard parses as PromQL,
// selects only series the module exports, by labels they have, filters
// every series by the Site variable, and every metric the module exports
// is on the dashboard. Doctored queries are refused.
func TestDashboardQueries(t *testing.T) {
	raw := readDashboard(t)
	errs, seen := dashboardQueries(t, raw)
	for _, e := range errs {
		t.Error(e)
	}
	for _, m := range metrics.Exported() {
		if !seen[m.Name] {
			t.Errorf("no panel shows %s", m.Name)
		}
	}

	// A doctored copy of the dashboard whose first query names a series
	// the module does not export is refused.
	doctored := bytes.Replace(raw, []byte("caddy_discovery_requests_total{"), []byte("caddy_discovery_request_total{"), 1)
	if bytes.Equal(doctored, raw) {
		t.Fatal("the dashboard has no caddy_discovery_requests_total{ to doctor")
	}
	if errs, _ := dashboardQueries(t, doctored); len(errs) == 0 {
		t.Error("a dashboard that queries caddy_discovery_request_total passes the checks")
	} else {
		t.Logf("a dashboard that queries caddy_discovery_request_total is refused: %s", errs[0])
	}

	// Copies with a query that adds up every site, whatever the owner
	// chose, or without the Site list, are refused.
	for name, doctor := range map[string]func([]byte) []byte{
		"a query not filtered by site": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`caddy_discovery_mcp_calls_total{site=~\"$site\"}`), []byte(`caddy_discovery_mcp_calls_total`), 1)
		},
		"a site filter that names one site": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`{site=~\"$site\", agent=~\"$agent\"}`), []byte(`{site=\"example.com\", agent=~\"$agent\"}`), 1)
		},
		"no Site list": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name": "site"`), []byte(`"name": "sites"`), 1)
		},
	} {
		changed := doctor(raw)
		if bytes.Equal(changed, raw) {
			t.Errorf("%s: the doctoring changed nothing", name)
			continue
		}
		if errs, _ := dashboardQueries(t, changed); len(errs) == 0 {
			t.Errorf("a dashboard with %s passes the checks", name)
		} else {
			t.Logf("a dashboard with %s is refused: %s", name, errs[0])
		}
	}

	series, metricOf := exportedSeries()
	vars := map[string]bool{"agent": true}
	for _, bad := range []struct{ expr, legend string }{
		{`sum(rate(caddy_discovery_requests_total[$__rate_interval])`, ""},                                           // unbalanced
		{`sum by (agent) (rate(caddy_discovery_request_total[5m]))`, ""},                                             // no such series
		{`rate(caddy_discovery_mcp_call_duration_seconds[5m])`, ""},                                                  // a histogram by its bare name
		{`rate({__name__=~"caddy_discovery_.+"}[5m])`, ""},                                                           // no name
		{`sum by (path) (rate(caddy_discovery_requests_total[5m]))`, ""},                                             // no such label
		{`rate(caddy_discovery_markdown_tokens_total{surface="api"}[5m])`, ""},                                       // a label of another series
		{`sum by (agent) (rate(caddy_discovery_requests_total{outcome="rate-limited"}[5m]))`, ""},                    // no such value
		{`sum(rate(caddy_discovery_requests_total{agent=~"gptbot|chatgpt"}[5m]))`, ""},                               // no such agent
		{`histogram_quantile(0.95, sum by (name) (rate(caddy_discovery_mcp_call_duration_seconds_bucket[5m])))`, ""}, // le dropped
		{`sum by (agent) (sum by (surface) (rate(caddy_discovery_requests_total[5m])))`, ""},                         // agent summed away
		{`sum by (agent) (rate(caddy_discovery_requests_total[5m])) / on (grant) sum by (agent) (rate(caddy_discovery_markdown_tokens_total[5m]))`, ""},
		{`sum by (agent) (rate(caddy_discovery_requests_total{agent=~"$agnet"}[5m]))`, ""}, // undeclared variable
		{`sum by (agent) (rate(caddy_discovery_requests_total[5m]))`, "{{surface}}"},       // legend of a label summed away
	} {
		if errs := checkQuery(promQuery{bad.expr, bad.legend, vars, series, metricOf}, used{}); len(errs) == 0 {
			t.Errorf("%s (legend %q) passes the checks", bad.expr, bad.legend)
		} else {
			t.Logf("refused: %s", errs[0])
		}
	}
}
