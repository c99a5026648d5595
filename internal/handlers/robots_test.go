package handlers

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/caddy-discovery/caddy-discovery/content"
	"github.com/caddy-discovery/caddy-discovery/internal/docs"
)

// The site's preferences in the IETF's vocabulary, read the way the
// drafts say a recipient reads them: usagePreferences is the processing of
// draft-ietf-aipref-vocab-07 (section 6), robotsPreference that of the
// Content-Usage rule of draft-ietf-aipref-attach-05 (section 3). Each is
// first held to the drafts' own examples, then to what the module sends.

// usagePreferences is what a statement of preference says of each label:
// "allow" or "disallow"; a label it leaves unknown is absent. The field is
// an RFC 9651 dictionary; a value counts only as the token y or n, the
// last one of a key winning; a dictionary that does not parse says
// nothing.
func usagePreferences(field string) map[string]string {
	prefs := map[string]string{}
	d, err := httpsfv.UnmarshalDictionary([]string{field})
	if err != nil {
		return prefs
	}
	for _, label := range d.Names() {
		member, _ := d.Get(label)
		item, ok := member.(httpsfv.Item)
		if !ok {
			continue
		}
		switch item.Value {
		case httpsfv.Token("y"):
			prefs[label] = "allow"
		case httpsfv.Token("n"):
			prefs[label] = "disallow"
		}
	}
	return prefs
}

func TestUsagePreferencesReadTheVocabularyExamples(t *testing.T) {
	for _, tt := range []struct {
		field string
		want  map[string]string
	}{
		// draft-ietf-aipref-vocab-07, section 6 and its subsections.
		{"train-ai=y, search=n", map[string]string{"train-ai": "allow", "search": "disallow"}},
		{`train-ai=y, train-ai, search=n, search="n"`, map[string]string{}},
		{"train-ai;allow=n, train-ai=y", map[string]string{"train-ai": "allow"}},
		{`train-ai;has;parameters="?";`, map[string]string{}},
		{"Train-AI=n", map[string]string{}},
		// draft-ietf-aipref-attach-05, section 1.2.
		{"train-ai=n", map[string]string{"train-ai": "disallow"}},
	} {
		if got := usagePreferences(tt.field); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%q: %v, want %v", tt.field, got, tt.want)
		}
	}
}

// TestUsageValueStatesTheSignals: for every setting of the three content
// signals, Content-Usage is a dictionary the vocabulary reads as the same
// preferences: ai-train as train-ai, search as search, and nothing for
// ai-input, which has no label; Content-Signal says all three.
func TestUsageValueStatesTheSignals(t *testing.T) {
	word := map[bool]string{true: "allow", false: "disallow"}
	yes := map[bool]string{true: "yes", false: "no"}
	for _, train := range []bool{true, false} {
		for _, search := range []bool{true, false} {
			for _, input := range []bool{true, false} {
				s := content.ContentSignals{AITrain: train, Search: search, AIInput: input}
				usage := docs.UsageValue(s)
				want := map[string]string{"train-ai": word[train], "search": word[search]}
				if got := usagePreferences(usage); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%+v: Content-Usage %q reads as %v, want %v", s, usage, got, want)
				}
				if _, err := httpsfv.UnmarshalDictionary([]string{usage}); err != nil {
					t.Errorf("%+v: Content-Usage %q is not a dictionary: %v", s, usage, err)
				}
				signal, err := httpsfv.UnmarshalDictionary([]string{docs.SignalValue(s)})
				if err != nil {
					t.Fatalf("Content-Signal %q: %v", docs.SignalValue(s), err)
				}
				for key, on := range map[string]bool{"ai-train": train, "search": search, "ai-input": input} {
					if m, _ := signal.Get(key); m == nil || m.(httpsfv.Item).Value != httpsfv.Token(yes[on]) {
						t.Errorf("%+v: Content-Signal %q says %s=%v", s, docs.SignalValue(s), key, m)
					}
				}
			}
		}
	}
}

// robotsRule is one Allow, Disallow or Content-Usage rule of a group.
type robotsRule struct{ kind, path, value string }

// robotsPreference is the usage preference the robots.txt gives an asset
// at path for the crawler agent (its product token, lowercase), as
// draft-ietf-aipref-attach-05 section 3 reads it: the group of the agent,
// else the group of "*"; no preference for a path the group does not let
// it crawl (the longest matching Allow or Disallow, Allow on a tie); the
// Content-Usage rule with the longest matching path (an absent path
// matching every path), rules of identical paths combined, the most
// restrictive preference winning. crawl is false for a disallowed path.
func robotsPreference(robots, agent, path string) (prefs map[string]string, crawl bool) {
	groups := map[string][]robotsRule{}
	var agents []string
	inAgents := false
	for _, line := range strings.Split(robots, "\n") {
		line, _, _ = strings.Cut(strings.TrimRight(line, "\r"), "#")
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value = strings.ToLower(strings.Trim(key, " \t")), strings.Trim(value, " \t")
		switch key {
		case "user-agent":
			if !inAgents {
				agents = nil
			}
			agents, inAgents = append(agents, strings.ToLower(value)), true
		case "allow", "disallow", "content-usage":
			inAgents = false
			rule := robotsRule{kind: key, path: value}
			if key == "content-usage" {
				rule.path, rule.value = "", value
				if strings.HasPrefix(value, "/") {
					rule.path, rule.value, _ = strings.Cut(value, " ")
					rule.path, _, _ = strings.Cut(rule.path, "\t")
					rule.value = strings.TrimLeft(value[len(rule.path):], " \t")
				}
			}
			for _, a := range agents {
				groups[a] = append(groups[a], rule)
			}
		}
	}
	rules, ok := groups[agent]
	if !ok {
		rules = groups["*"]
	}
	best, crawl := -1, true
	for _, r := range rules {
		if (r.kind == "allow" || r.kind == "disallow") && r.path != "" && strings.HasPrefix(path, r.path) {
			if n := len(r.path); n > best || n == best && r.kind == "allow" {
				best, crawl = n, r.kind == "allow"
			}
		}
	}
	if !crawl {
		return nil, false
	}
	longest := -1
	for _, r := range rules {
		if r.kind == "content-usage" && strings.HasPrefix(path, r.path) {
			longest = max(longest, len(r.path))
		}
	}
	prefs = map[string]string{}
	for _, r := range rules {
		if r.kind != "content-usage" || len(r.path) != longest || !strings.HasPrefix(path, r.path) {
			continue
		}
		for label, pref := range usagePreferences(r.value) {
			if prefs[label] != "disallow" {
				prefs[label] = pref
			}
		}
	}
	return prefs, true
}

// attachExample is the robots.txt of draft-ietf-aipref-attach-05, section
// 3.4.
const attachExample = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
`

func TestRobotsPreferenceReadsTheAttachExample(t *testing.T) {
	for _, tt := range []struct {
		agent, path string
		crawl       bool
		want        map[string]string
	}{
		// The draft's table, for the crawlers of the first group.
		{"otherbot", "/test", true, map[string]string{"train-ai": "disallow"}},
		{"otherbot", "/never/test", false, nil},
		{"otherbot", "/ai-ok/test", true, map[string]string{"train-ai": "allow"}},
		// Its text, for ExampleBot.
		{"examplebot", "/test", true, map[string]string{"train-ai": "allow"}},
		{"examplebot", "/never/test", true, map[string]string{"train-ai": "allow"}},
	} {
		got, crawl := robotsPreference(attachExample, tt.agent, tt.path)
		if crawl != tt.crawl || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s %s: crawl %v, %v; want %v, %v", tt.agent, tt.path, crawl, got, tt.crawl, tt.want)
		}
	}
	// Identical paths with conflicting preferences: the most restrictive.
	if got, _ := robotsPreference("User-agent: *\nContent-Usage: train-ai=y\nContent-Usage: train-ai=n, search=y\n", "x", "/"); fmt.Sprint(got) != fmt.Sprint(map[string]string{"train-ai": "disallow", "search": "allow"}) {
		t.Errorf("conflicting rules: %v", got)
	}
}

// TestRobotsStateContentUsage: with robots_content_usage, the module's own
// robots.txt and a site's robots.txt merged give every crawler the
// preferences of the settings on every path the site lets it crawl, and
// leave the site's rules as they were; a site that states preferences of
// its own keeps them whole. Without it, robots.txt has no Content-Usage
// rule at all.
func TestRobotsStateContentUsage(t *testing.T) {
	site := "# the site's own\nUser-agent: GPTBot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /drafts/\n"
	for _, signals := range []content.ContentSignals{{AITrain: true, Search: true, AIInput: true}, {Search: true, AIInput: true}, {}} {
		sample, err := content.Sample()
		if err != nil {
			t.Fatal(err)
		}
		withSignals := *sample
		withSignals.Signals = signals
		s, err := New(Config{Site: &withSignals, TokenSecret: []byte(strings.Repeat("s", 32)),
			BaseURL: "https://example.com", Robots: true, RobotsContentUsage: true})
		if err != nil {
			t.Fatal(err)
		}
		l := s.fixed.links
		want := usagePreferences(docs.UsageValue(signals))
		own := string(docs.RobotsTxt(l.Links))
		merged := string(docs.MergeRobots(l.Links, []byte(site)))
		for _, tt := range []struct{ robots, agent, path string }{
			{own, "otherbot", "/"}, {own, "gptbot", "/insights/x"},
			{merged, "otherbot", "/about"}, {merged, "otherbot", "/insights/x"},
		} {
			got, crawl := robotsPreference(tt.robots, tt.agent, tt.path)
			if !crawl || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%+v, %s %s: crawl %v, %v; want %v\n%s", signals, tt.agent, tt.path, crawl, got, want, tt.robots)
			}
		}
		if _, crawl := robotsPreference(merged, "otherbot", "/drafts/x"); crawl {
			t.Errorf("the merged file lets crawlers into the site's /drafts/:\n%s", merged)
		}
		if !containsInOrder(merged, strings.Split(site, "\n")) {
			t.Errorf("the site's lines are not all in the merged file, in order:\n%s", merged)
		}
		if n := strings.Count(merged, "\nContent-Usage: "); n != 1 {
			t.Errorf("%d Content-Usage rules in the merged file, want 1:\n%s", n, merged)
		}
	}

	s := newTestService(t, Config{BaseURL: "https://example.com", Robots: true, RobotsContentUsage: true})
	l := s.fixed.links
	for _, statement := range []string{"Content-Usage: train-ai=n\n", "Content-Usage: /blog/ search=n\n", "Content-Signal: ai-train=no\n"} {
		stated := "User-agent: *\n" + statement + "Allow: /\n"
		merged := string(docs.MergeRobots(l.Links, []byte(stated)))
		if !strings.Contains(merged, "\n"+stated) {
			t.Errorf("a site that states %q: merged into\n%s", statement, merged)
		}
		if strings.Count(merged, "\nContent-") != 1 {
			t.Errorf("a site that states %q gets the module's preferences too:\n%s", statement, merged)
		}
	}
	if got, _ := robotsPreference(string(docs.MergeRobots(l.Links, []byte("User-agent: *\nContent-Usage: train-ai=n\n"))), "x", "/"); got["train-ai"] != "disallow" {
		t.Errorf("the site's own train-ai=n reads as %v", got)
	}

	off := newTestService(t, Config{BaseURL: "https://example.com", Robots: true})
	for _, robots := range [][]byte{docs.RobotsTxt(off.fixed.links.Links), docs.MergeRobots(off.fixed.links.Links, []byte(site))} {
		if strings.Contains(string(robots), "Content-Usage") || !strings.Contains(string(robots), "\nContent-Signal: ") {
			t.Errorf("robots.txt without robots_content_usage:\n%s", robots)
		}
	}
}

// containsInOrder reports whether every non-empty line of want is a line of
// got, in the same order.
func containsInOrder(got string, want []string) bool {
	lines := strings.Split(got, "\n")
	at := 0
	for _, w := range want {
		if w == "" {
			continue
		}
		i := slices.Index(lines[at:], w)
		if i < 0 {
			return false
		}
		at += i + 1
	}
	return true
}
