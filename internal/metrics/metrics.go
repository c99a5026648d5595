// Package metrics counts what agents do with the site, as Prometheus
// metrics named caddy_discovery_*: requests by surface, agent and
// outcome; MCP tool calls and resource reads; Markdown served; tokens
// issued; rate-limit refusals; content loads.
//
// Every series carries the site it counts for (the site label: one value
// per discovery block, see Site), so that two sites in one Caddy never
// add up into one series. The collectors are the process's, made once,
// and registered into each registry Caddy gives a config (as Caddy's own
// admin and config metrics are), so that a `caddy reload` keeps counting.
// Every other label takes its value from a fixed, documented list (an
// agent is one of agents.Labels, a tool one of the module's), never from
// a raw User-Agent, path, Host or address: no client can add a series.
//
// Imports from the module: internal/agents.
package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "caddy_discovery"

// Surfaces are the values of the surface label: what part of the module
// answered.
var Surfaces = []string{"api", "mcp", "markdown", "llms", "sitemap", "robots", "documents", "oauth", "tokens", "portal", "cli", "pages"}

// Outcomes are the values of the outcome label.
var Outcomes = []string{"ok", "not_modified", "rate_limited", "refused", "client_error", "server_error"}

// Outcome is the outcome of an answer with the HTTP status: a 304 is
// not_modified, a 429 rate_limited, a 401 or 403 refused, another 4xx a
// client_error, a 5xx a server_error, anything else ok.
func Outcome(status int) string {
	return Outcomes[outcomeOf(status)]
}

// outcomeOf is the index in Outcomes of the outcome of status.
func outcomeOf(status int) int {
	switch {
	case status == 304:
		return 1
	case status == 429:
		return 2
	case status == 401 || status == 403:
		return 3
	case status >= 500:
		return 5
	case status >= 400:
		return 4
	}
	return 0
}

// siteLabel names the label every series has first: the site it counts
// for.
const siteLabel = "site"

var (
	requests = counterVec("requests_total",
		"Requests the module answered (or, for the site's pages the content names, passed on), by site, surface, agent, whether the agent proved who it is with a Web Bot Auth signature, and outcome.",
		"surface", "agent", "verified", "outcome")
	markdownBytes = counterVec("markdown_bytes_total",
		"Bytes of Markdown served (twins, pages asked for as Markdown, pages converted from their HTML), by site and agent.",
		"agent")
	markdownTokens = counterVec("markdown_tokens_total",
		"Estimated tokens of Markdown served (the X-Markdown-Tokens of each answer), by site and agent.",
		"agent")
	conversions = counterVec("markdown_conversions_total",
		"Site pages asked for as Markdown, by site and result: converted from their HTML, reused (the Markdown kept for the page's current version), failed (served as HTML).",
		"result")
	mcpCalls = counterVec("mcp_calls_total",
		"MCP tool calls and resource reads, by site, kind (tool or resource), name (the tool, or the resource's kind) and outcome (ok or error).",
		"kind", "name", "outcome")
	mcpDuration = histogramVec("mcp_call_duration_seconds",
		"Time to answer an MCP tool call or resource read, by site, kind and name.",
		[]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
		"kind", "name")
	tokensIssued = counterVec("tokens_issued_total",
		"Access tokens issued, by site and grant.",
		"grant")
	rateLimited = counterVec("rate_limit_refusals_total",
		"Requests refused by the rate limit (429), by site and agent.",
		"agent")
	contentLoads = counterVec("content_loads_total",
		"Loads of the content (at start, on reload, on a watched change), by site and result (ok or failed).",
		"result")
	insights = gaugeVec("insights",
		"Insights published by the content last loaded, by site.")

	collectors = []prometheus.Collector{requests, markdownBytes, markdownTokens, conversions, mcpCalls, mcpDuration,
		tokensIssued, rateLimited, contentLoads, insights}
	// vectors are the collectors, as what a site's series are dropped
	// from when no config counts for it any more.
	vectors = []interface {
		DeletePartialMatch(prometheus.Labels) int
	}{requests, markdownBytes, markdownTokens, conversions, mcpCalls, mcpDuration,
		tokensIssued, rateLimited, contentLoads, insights}
)

// Series is one metric the module exports, as a scrape names it.
type Series struct {
	// Name is the metric's name, caddy_discovery_*. A histogram's
	// samples are Name_bucket (with the label le), Name_sum and
	// Name_count.
	Name string
	// Type is "counter", "gauge" or "histogram".
	Type string
	// Help is the help text.
	Help string
	// Labels are the label names, in order: site first.
	Labels []string
}

// exported are the series, in the order the collectors are made.
var exported []Series

// Exported lists every metric the module exports, with its label names:
// what dashboards, alerts and the documentation may name.
func Exported() []Series {
	out := make([]Series, len(exported))
	for i, s := range exported {
		s.Labels = append([]string(nil), s.Labels...)
		out[i] = s
	}
	return out
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	labels = append([]string{siteLabel}, labels...)
	exported = append(exported, Series{namespace + "_" + name, "counter", help, labels})
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	labels = append([]string{siteLabel}, labels...)
	exported = append(exported, Series{namespace + "_" + name, "histogram", help, labels})
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
}

func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	labels = append([]string{siteLabel}, labels...)
	exported = append(exported, Series{namespace + "_" + name, "gauge", help, labels})
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

// Register adds the collectors to reg; registering them again (the same
// registry, or one where they are already) is not an error.
func Register(reg prometheus.Registerer) error {
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}
