package agents

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for ua, want := range map[string]string{
		"ClaudeBot/1.0": "claudebot",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)": "claudebot",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot":  "gptbot",
		"Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)":                                     "chatgpt-user",
		"Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)":                              "oai-searchbot",
		"PERPLEXITYBOT/1.0": "perplexitybot",
		"Claude-User/1.0":   "claude-user",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot-Extended/0.1)": "applebot-extended",
		"meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)":                                                     "meta-externalagent",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36":                                   Browser,
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0":                                                                        Browser,
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":                                                                      Other,
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)":                                                                       Other,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0 Safari/537.36":                                     Other,
		"curl/8.5.0": Other,
		"":           None,
		// Only the first MaxUserAgent bytes are read.
		strings.Repeat("x", MaxUserAgent-9) + " ClaudeBot/1.0":  Other,
		strings.Repeat("x", MaxUserAgent-10) + " ClaudeBot/1.0": "claudebot",
	} {
		if got := Classify(ua); got != want {
			t.Errorf("Classify(%.60q) = %q, want %q", ua, got, want)
		}
	}
}

// TestLabelsAreFixed: whatever the User-Agent, the label is one of
// Labels, so made-up User-Agents add no metric series.
func TestLabelsAreFixed(t *testing.T) {
	labels := Labels()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 10_000 {
		b := make([]byte, r.IntN(600))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		ua := string(b)
		if i%2 == 0 {
			ua = fmt.Sprintf("Mozilla/5.0 (compatible; Bot%d/1.0) Chrome/%d", i, i)
		}
		if got := Classify(ua); !slices.Contains(labels, got) {
			t.Fatalf("Classify(%q) = %q, not a label", ua, got)
		}
	}
	if len(labels) != len(Families)+3 {
		t.Errorf("%d labels", len(labels))
	}
}

func TestIsAIAndDomains(t *testing.T) {
	if !IsAI("gptbot") || IsAI(Browser) || IsAI(Other) || IsAI(None) || IsAI("GPTBot") {
		t.Error("IsAI")
	}
	if OfDomain("chatgpt.com") != "chatgpt-user" || OfDomain("example.com") != "" {
		t.Error("OfDomain")
	}
	for i, f := range Families {
		if f.Label != strings.ToLower(f.Label) || Of(f.Label) != &Families[i] {
			t.Errorf("family %q", f.Label)
		}
		if !strings.EqualFold(f.Name, f.Label) {
			t.Errorf("family %q is named %q", f.Label, f.Name)
		}
		if got := Classify("Mozilla/5.0 (compatible; " + f.Name + "/1.0)"); got != f.Label {
			t.Errorf("the User-Agent of %q is classified %q", f.Label, got)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	for _, ua := range []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot",
		"curl/8.5.0",
	} {
		b.Run(ua[:10], func(b *testing.B) {
			for b.Loop() {
				Classify(ua)
			}
		})
	}
}

// Every label has an ID that names it back, and the IDs of the labels
// that name no family are theirs.
func TestIDs(t *testing.T) {
	for i, l := range Labels() {
		id, ok := IDOf(l)
		if !ok || int(id) != i || id.Label() != l {
			t.Errorf("IDOf(%q) = %d, %v; its label %q", l, id, ok, id.Label())
		}
	}
	if BrowserID.Label() != Browser || OtherID.Label() != Other || NoneID.Label() != None {
		t.Error("the IDs of browser, other and none")
	}
	if id, ok := IDOf("GPTBot"); ok || id != OtherID {
		t.Errorf("IDOf of a name that is no label = %d, %v", id, ok)
	}
	if ID(250).Label() != Other {
		t.Error("an ID outside the list is not other's")
	}
	if Identify("") != NoneID || Identify("curl/8.0") != OtherID {
		t.Error("Identify")
	}
}
