// Package agents tells who sent a request from its User-Agent: one of a
// fixed list of AI crawler and agent families, a browser, another client,
// or none. The list is the one place the module names agents: it chooses
// who gets Markdown by User-Agent, labels the metrics and the logs. A
// label is always one of the list's, so that no client can add a metric
// series by making up a User-Agent.
//
// Imports from the module: none.
package agents

import (
	"bytes"
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Family is one AI crawler or agent as its User-Agent names it.
type Family struct {
	// Label is the family's metric label: its product token, lowercase.
	Label string
	// Operator runs it.
	Operator string
	// Purpose is what it fetches for: "training" (gathers text to train
	// models), "search" (indexes for an AI search or answer engine) or
	// "user" (fetches a page because a person asked an assistant to).
	Purpose string
	// Domains are the origins it signs Web Bot Auth requests as, when it
	// does (the host of its Signature-Agent).
	Domains []string
	// Name is its User-Agent token as its operator writes it, the name a
	// robots.txt group gives it: GPTBot.
	Name string
}

// Families are the AI crawlers and agents the module knows. A User-Agent
// is matched by its words: "GPTBot/1.2" names gptbot; when it names two
// families, the one listed first wins.
var Families = []Family{
	{"gptbot", "OpenAI", "training", nil, "GPTBot"},
	{"chatgpt-user", "OpenAI", "user", []string{"chatgpt.com"}, "ChatGPT-User"},
	{"oai-searchbot", "OpenAI", "search", nil, "OAI-SearchBot"},
	{"claudebot", "Anthropic", "training", nil, "ClaudeBot"},
	{"claude-user", "Anthropic", "user", []string{"claude.ai", "anthropic.com"}, "Claude-User"},
	{"claude-searchbot", "Anthropic", "search", nil, "Claude-SearchBot"},
	{"anthropic-ai", "Anthropic", "training", nil, "anthropic-ai"},
	{"perplexitybot", "Perplexity", "search", nil, "PerplexityBot"},
	{"perplexity-user", "Perplexity", "user", []string{"perplexity.ai"}, "Perplexity-User"},
	{"google-cloudvertexbot", "Google", "user", nil, "Google-CloudVertexBot"},
	{"gemini-deep-research", "Google", "user", nil, "Gemini-Deep-Research"},
	{"google-extended", "Google", "training", nil, "Google-Extended"},
	{"applebot-extended", "Apple", "training", nil, "Applebot-Extended"},
	{"bytespider", "ByteDance", "training", nil, "Bytespider"},
	{"ccbot", "Common Crawl", "training", nil, "CCBot"},
	{"meta-externalagent", "Meta", "training", nil, "meta-externalagent"},
	{"meta-externalfetcher", "Meta", "user", nil, "meta-externalfetcher"},
	{"facebookbot", "Meta", "training", nil, "FacebookBot"},
	{"amazonbot", "Amazon", "search", nil, "Amazonbot"},
	{"novaact", "Amazon", "user", nil, "NovaAct"},
	{"mistralai-user", "Mistral AI", "user", nil, "MistralAI-User"},
	{"cohere-ai", "Cohere", "training", nil, "cohere-ai"},
	{"duckassistbot", "DuckDuckGo", "search", nil, "DuckAssistBot"},
	{"youbot", "You.com", "search", nil, "YouBot"},
	{"ai2bot", "Allen Institute for AI", "training", nil, "AI2Bot"},
	{"deepseekbot", "DeepSeek", "training", nil, "DeepSeekBot"},
	{"diffbot", "Diffbot", "training", nil, "Diffbot"},
	{"timpibot", "Timpi", "training", nil, "Timpibot"},
	{"imagesiftbot", "ImageSift", "training", nil, "ImagesiftBot"},
	{"omgili", "Webz.io", "training", nil, "omgili"},
	{"kagi-fetcher", "Kagi", "user", nil, "Kagi-Fetcher"},
}

// The labels of requests that name no family.
const (
	// Browser is a web browser's User-Agent that names no AI agent.
	Browser = "browser"
	// Other is any other User-Agent: a search engine's crawler, a library,
	// a command-line client, an unknown bot.
	Other = "other"
	// None is a request without a User-Agent.
	None = "none"
)

// MaxUserAgent is how much of a User-Agent is read: product tokens come
// first, and the work stays bounded whatever a client sends.
const MaxUserAgent = 512

var (
	byToken = func() map[string]int {
		m := make(map[string]int, len(Families))
		for i, f := range Families {
			m[f.Label] = i
		}
		return m
	}()
	minToken, maxToken = func() (lo, hi int) {
		lo = MaxUserAgent
		for _, f := range Families {
			lo, hi = min(lo, len(f.Label)), max(hi, len(f.Label))
		}
		return lo, hi
	}()
	byLabel = func() map[string]*Family {
		m := make(map[string]*Family, len(Families))
		for i := range Families {
			m[Families[i].Label] = &Families[i]
		}
		return m
	}()
	byDomain = func() map[string]string {
		m := make(map[string]string)
		for _, f := range Families {
			for _, d := range f.Domains {
				m[d] = f.Label
			}
		}
		return m
	}()
	// browserProducts are the product tokens of browsers.
	browserProducts = map[string]bool{"chrome": true, "firefox": true, "safari": true, "edg": true}
	// notBrowsers are words in a Mozilla-like User-Agent that a browser
	// does not send.
	notBrowsers = [][]byte{[]byte("bot"), []byte("crawl"), []byte("spider"), []byte("headless"), []byte("http"), []byte("fetch")}
)

// ID is a label's position in Labels: what the metrics count by, with no
// lookup by name.
type ID uint8

// The IDs of the labels that name no family.
var (
	BrowserID = ID(len(Families))
	OtherID   = BrowserID + 1
	NoneID    = BrowserID + 2
)

// labels are Labels, by ID.
var labels = Labels()

// Label is the label of id; an ID outside Labels is Other's.
func (id ID) Label() string {
	if int(id) >= len(labels) {
		return Other
	}
	return labels[id]
}

// IDOf returns the ID of label, and whether label is one of Labels.
func IDOf(label string) (ID, bool) {
	for i, l := range labels {
		if l == label {
			return ID(i), true
		}
	}
	return OtherID, false
}

// Classify returns the label of the User-Agent ua: a family's, Browser,
// Other or None (see Identify).
func Classify(ua string) string { return Identify(ua).Label() }

// Identify returns the ID of the label of the User-Agent ua. A client
// sends the same User-Agent on every request, so
// the labels of recent ones are kept (a fixed number of slots, each
// holding one User-Agent of at most cachedUserAgent bytes, whatever
// clients send); otherwise it reads at most MaxUserAgent bytes, lowered
// into a buffer on the stack, and looks each word (a run of letters,
// digits and hyphens) up once.
func Identify(ua string) ID {
	if ua == "" {
		return NoneID
	}
	if len(ua) > cachedUserAgent {
		return classify(ua)
	}
	slot := &recent[maphash.String(seed, ua)%uint64(len(recent))]
	if c := slot.Load(); c != nil && c.ua == ua {
		return c.id
	}
	id := classify(ua)
	slot.Store(&classified{ua: strings.Clone(ua), id: id})
	return id
}

// The labels of recent User-Agents: a direct-mapped cache of a bounded
// size, where a new User-Agent takes the slot of an older one.
const cachedUserAgent = 256

type classified struct {
	ua string
	id ID
}

var (
	recent [1024]atomic.Pointer[classified]
	seed   = maphash.MakeSeed()
)

// classify is Identify without the cache.
func classify(ua string) ID {
	var buf [MaxUserAgent]byte
	n := copy(buf[:], ua)
	lower := buf[:n]
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	family, browser := -1, false
	for i := 0; i < n; {
		if !wordByte(lower[i]) {
			i++
			continue
		}
		start := i
		for i < n && wordByte(lower[i]) {
			i++
		}
		word := lower[start:i]
		if len(word) < minToken || len(word) > maxToken || word[0] <= '9' {
			continue // a version, or too short or long to be a token
		}
		if f, ok := byToken[string(word)]; ok && (family < 0 || f < family) {
			family = f
		}
		if i < n && lower[i] == '/' && browserProducts[string(word)] {
			browser = true
		}
	}
	switch {
	case family >= 0:
		return ID(family)
	case browser && bytes.HasPrefix(lower, []byte("mozilla/")) && !containsAny(lower, notBrowsers):
		return BrowserID
	}
	return OtherID
}

func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-'
}

func containsAny(b []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

// IsAI reports whether label is one of Families.
func IsAI(label string) bool { return byLabel[label] != nil }

// Of returns the family of label, or nil.
func Of(label string) *Family { return byLabel[label] }

// OfDomain returns the label of the family that signs as host, or "".
func OfDomain(host string) string { return byDomain[host] }

// Labels are every label Classify may return: the families', then
// Browser, Other and None.
func Labels() []string {
	labels := make([]string, 0, len(Families)+3)
	for _, f := range Families {
		labels = append(labels, f.Label)
	}
	return append(labels, Browser, Other, None)
}
