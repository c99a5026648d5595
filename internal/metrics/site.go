package metrics

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-discovery/caddy-discovery/internal/agents"
)

// MaxSites bounds how many site labels one process counts under at once:
// a site acquired past it is counted under Overflow. A label is held
// while a loaded config counts for it, so reloads do not add up.
const MaxSites = 64

// Overflow is the site label of the sites past MaxSites.
const Overflow = "other"

// MaxLabel is the length of the longest site label, in bytes.
const MaxLabel = 64

// ValidLabel reports whether label may be a site's label as its owner
// names it: 1 to MaxLabel letters, digits, '.', '_' or '-', and not
// Overflow, which would merge the site with those past the bound.
func ValidLabel(label string) bool {
	if label == "" || len(label) > MaxLabel || label == Overflow {
		return false
	}
	for i := 0; i < len(label); i++ {
		if c := label[i]; !isLabelByte(c) {
			return false
		}
	}
	return true
}

func isLabelByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// LabelOf is the site label of a name the configuration gives a site (a
// host, with its port when it has one; a Caddy server's name): in lower
// case, each byte that is not a letter, a digit or one of . _ - : * [ ]
// made '_', at most MaxLabel bytes. The label is then plain ASCII, which
// a PromQL regular expression quotes simply.
func LabelOf(name string) string {
	b := []byte(name)
	if len(b) > MaxLabel {
		b = b[:MaxLabel]
	}
	for i, c := range b {
		switch {
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case isLabelByte(c) || c == ':' || c == '*' || c == '[' || c == ']':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// Site counts for one site: every series it adds to carries its label.
// The handlers that count for one label (a reload's handler and the one
// it replaces, or blocks an owner gave one label) share it; see Acquire.
// Its methods are safe for concurrent use, and a nil *Site counts
// nothing.
type Site struct {
	label string
	// refs is how many holders have the site; under sitesMu.
	refs int

	// The series a request adds to, made on first use and kept: the hot
	// path is an index and an atomic add, with no lock and no hashing.
	// requests are by requestIndex; the others by agent.
	requests                                []atomic.Pointer[prometheus.Counter]
	markdownBytes, markdownTokens, refusals []atomic.Pointer[prometheus.Counter]
	conversions                             [len(conversionResults)]atomic.Pointer[prometheus.Counter]
	// mcp are the series of MCP calls by kind (mcpKinds) and name,
	// copied on write: the names are the server's tools and a few fixed
	// ones, so the maps stay small and are read without a lock.
	mcp   [len(mcpKinds)]atomic.Pointer[map[string]*mcpSeries]
	mcpMu sync.Mutex
}

// mcpSeries are the series of one kind and name of MCP call.
type mcpSeries struct {
	calls    [2]atomic.Pointer[prometheus.Counter] // by outcome: ok, error
	duration prometheus.Observer
}

var (
	agentCount = len(agents.Labels())
	documents  = slices.Index(Surfaces, "documents")
	// requestSeries is the number of label sets of the request counter.
	requestSeries = len(Surfaces) * agentCount * 2 * len(Outcomes)

	conversionResults = [...]string{"converted", "reused", "failed"}
	mcpKinds          = [...]string{"tool", "resource"}
	mcpOutcomes       = [...]string{"ok", "error"}
)

var (
	sitesMu sync.Mutex
	// sites are the sites held, by label.
	sites = make(map[string]*Site)
	// overflowed is set once a site was counted under Overflow.
	overflowed bool
)

// Acquire returns the counts of the site labelled label, shared with
// every other holder of that label until each calls Release. Past
// MaxSites labels held at once, a new label is counted under Overflow;
// first reports that this happened for the first time in the process, so
// that it is said once.
func Acquire(label string) (s *Site, first bool) {
	sitesMu.Lock()
	defer sitesMu.Unlock()
	s = sites[label]
	if s == nil && label != Overflow && heldLabels() >= MaxSites {
		first, overflowed = !overflowed, true
		label = Overflow
		s = sites[label]
	}
	if s == nil {
		s = newSite(label)
		sites[label] = s
	}
	s.refs++
	return s, first
}

// heldLabels is how many labels count towards MaxSites; sitesMu is held.
func heldLabels() int {
	n := len(sites)
	if sites[Overflow] != nil {
		n--
	}
	return n
}

func newSite(label string) *Site {
	return &Site{
		label:          label,
		requests:       make([]atomic.Pointer[prometheus.Counter], requestSeries),
		markdownBytes:  make([]atomic.Pointer[prometheus.Counter], agentCount),
		markdownTokens: make([]atomic.Pointer[prometheus.Counter], agentCount),
		refusals:       make([]atomic.Pointer[prometheus.Counter], agentCount),
	}
}

// Release gives back what Acquire gave. Once no holder is left, the label
// no longer counts towards MaxSites and the site's series leave the
// scrape: a site removed from the config is dropped from /metrics at the
// reload that removes it, its history staying in Prometheus.
func (s *Site) Release() {
	if s == nil {
		return
	}
	sitesMu.Lock()
	defer sitesMu.Unlock()
	if s.refs--; s.refs > 0 || sites[s.label] != s {
		return
	}
	delete(sites, s.label)
	for _, v := range vectors {
		v.DeletePartialMatch(prometheus.Labels{siteLabel: s.label})
	}
}

// Label is the site's label, Overflow for a site past MaxSites.
func (s *Site) Label() string { return s.label }

// resolve makes the series of vec with values, keeps it in slot and
// returns what slot holds: the first series made, when two requests made
// one at once.
func resolve(slot *atomic.Pointer[prometheus.Counter], vec *prometheus.CounterVec, values ...string) *prometheus.Counter {
	c := vec.WithLabelValues(values...)
	slot.CompareAndSwap(nil, &c)
	return slot.Load()
}

// surfaceOf is the index of surface in Surfaces, that of "documents" for
// a surface outside the list. The list is short: a scan of it costs less
// than hashing the name.
func surfaceOf(surface string) int {
	for i, s := range Surfaces {
		if s == surface {
			return i
		}
	}
	return documents
}

// agentOf is agent, or agents.OtherID for an agent outside agents.Labels.
func agentOf(agent agents.ID) agents.ID {
	if int(agent) >= agentCount {
		return agents.OtherID
	}
	return agent
}

// Request counts one request of surface from agent, verified or not,
// with the status of its answer. A surface outside the list counts under
// "documents"; an agent outside agents.Labels under "other".
func (s *Site) Request(surface string, agent agents.ID, verified bool, status int) {
	if s == nil {
		return
	}
	surf := surfaceOf(surface)
	agent = agentOf(agent)
	outcome := outcomeOf(status)
	v := 0
	if verified {
		v = 1
	}
	i := ((surf*agentCount+int(agent))*2+v)*len(Outcomes) + outcome
	c := s.requests[i].Load()
	if c == nil {
		c = resolve(&s.requests[i], requests, s.label, Surfaces[surf], agent.Label(), boolLabel(verified), Outcomes[outcome])
	}
	(*c).Inc()
	if status == 429 {
		r := s.refusals[agent].Load()
		if r == nil {
			r = resolve(&s.refusals[agent], rateLimited, s.label, agent.Label())
		}
		(*r).Inc()
	}
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Markdown counts Markdown served to agent: its bytes and estimated
// tokens.
func (s *Site) Markdown(agent agents.ID, bytes, tokens int) {
	if s == nil {
		return
	}
	agent = agentOf(agent)
	b := s.markdownBytes[agent].Load()
	if b == nil {
		b = resolve(&s.markdownBytes[agent], markdownBytes, s.label, agent.Label())
	}
	t := s.markdownTokens[agent].Load()
	if t == nil {
		t = resolve(&s.markdownTokens[agent], markdownTokens, s.label, agent.Label())
	}
	(*b).Add(float64(bytes))
	(*t).Add(float64(tokens))
}

// Conversion counts a site page asked for as Markdown by result:
// "converted", "reused" or "failed" (any other result counts as failed).
func (s *Site) Conversion(result string) {
	if s == nil {
		return
	}
	i := slices.Index(conversionResults[:], result)
	if i < 0 {
		i = len(conversionResults) - 1
	}
	c := s.conversions[i].Load()
	if c == nil {
		c = resolve(&s.conversions[i], conversions, s.label, conversionResults[i])
	}
	(*c).Inc()
}

// MCPCall counts one MCP tool call or resource read (kind "tool" or
// "resource"; any other kind counts as a tool) named name (one of the
// module's tools or resource kinds, else "other": the caller bounds the
// names), failed or not, and how long it took.
func (s *Site) MCPCall(kind, name string, failed bool, took time.Duration) {
	if s == nil {
		return
	}
	k := 0
	if kind == mcpKinds[1] {
		k = 1
	}
	var series *mcpSeries
	if m := s.mcp[k].Load(); m != nil {
		series = (*m)[name]
	}
	if series == nil {
		series = s.addMCP(k, name)
	}
	o := 0
	if failed {
		o = 1
	}
	c := series.calls[o].Load()
	if c == nil {
		c = resolve(&series.calls[o], mcpCalls, s.label, mcpKinds[k], name, mcpOutcomes[o])
	}
	(*c).Inc()
	series.duration.Observe(took.Seconds())
}

// addMCP adds the series of kind k and name to the site's, unless another
// call did first, and returns them.
func (s *Site) addMCP(k int, name string) *mcpSeries {
	s.mcpMu.Lock()
	defer s.mcpMu.Unlock()
	old := s.mcp[k].Load()
	if old != nil && (*old)[name] != nil {
		return (*old)[name]
	}
	m := make(map[string]*mcpSeries, 1)
	if old != nil {
		for n, series := range *old {
			m[n] = series
		}
	}
	series := &mcpSeries{duration: mcpDuration.WithLabelValues(s.label, mcpKinds[k], name)}
	m[name] = series
	s.mcp[k].Store(&m)
	return series
}

// TokenIssued counts an access token issued with grant.
func (s *Site) TokenIssued(grant string) {
	if s == nil {
		return
	}
	tokensIssued.WithLabelValues(s.label, grant).Inc()
}

// ContentLoad counts a load of the content (the owner's files) and, when
// it succeeded, sets the number of insights published.
func (s *Site) ContentLoad(ok bool, published int) {
	if s == nil {
		return
	}
	if !ok {
		contentLoads.WithLabelValues(s.label, "failed").Inc()
		return
	}
	contentLoads.WithLabelValues(s.label, "ok").Inc()
	s.Published(published)
}

// Published sets the number of insights published: a catalog's, as the
// owner's files and the site's own pages make it.
func (s *Site) Published(n int) {
	if s == nil {
		return
	}
	insights.WithLabelValues(s.label).Set(float64(n))
}
