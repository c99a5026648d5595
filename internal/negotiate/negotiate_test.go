package negotiate

import (
	"strings"
	"testing"
)

func TestPrefersMarkdown(t *testing.T) {
	for _, tt := range []struct {
		accept string
		want   bool
	}{
		{"text/markdown", true},
		{"TEXT/Markdown", true},
		{"text/markdown; charset=utf-8", true},
		{"text/markdown, text/html, */*", true},
		{"text/markdown, text/html;q=0.9", true},
		{"text/html, text/markdown", true},
		{"text/markdown;q=0.9, text/html", false},
		{"text/html;q=0.5, text/markdown;q=0.5", true},
		{"text/markdown;q=0.5, */*", false},
		{"text/markdown;q=0.5, */*;q=0.1", true},
		{"text/markdown;q=0.5, text/*", false},
		{"text/markdown;q=0.5, text/html;q=0.1, */*", true}, // text/html is more specific than */*
		{"text/markdown;q=0.9, application/xhtml+xml", false},
		{"text/markdown;q=0", false},
		{"text/markdown;q=abc", false},
		{"text/markdown;q=2", false},
		{"*/*", false},
		{"text/*", false},
		{"text/html", false},
		{"text/plain", false},
		{"", false},
		{"text/x-markdown", false},
	} {
		if got := PrefersMarkdown([]string{tt.accept}); got != tt.want {
			t.Errorf("Accept %q: Markdown %v, want %v", tt.accept, got, tt.want)
		}
	}
	// Several Accept fields count as one list.
	if !PrefersMarkdown([]string{"text/html;q=0.8", "text/markdown"}) {
		t.Error("two fields: Markdown not chosen")
	}
	// A list too long to read is answered with the default.
	if PrefersMarkdown([]string{strings.Repeat("a/b, ", MaxRanges) + "text/markdown"}) {
		t.Error("an overlong Accept chose Markdown")
	}
}

func TestPrefersHTML(t *testing.T) {
	const chrome = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
	const firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tt := range []struct {
		accept string
		want   bool
	}{
		{chrome, true},
		{firefox, true},
		{"text/html", true},
		{"application/xhtml+xml", true},
		{"TEXT/HTML; charset=utf-8", true},
		{"text/html, */*", true},
		{"*/*, text/html", true},
		{"application/json;q=0.5, text/html", true},
		{"text/html, application/*", true},
		{"", false},
		{"*/*", false},
		{"text/*", false},
		{"application/json", false},
		{"application/problem+json", false},
		{"application/json, text/html", false},
		{"text/html, application/problem+json", false},
		{"text/html;q=0.5, application/json", false},
		{"text/html;q=0.9, */*", false},
		{"text/html;q=0", false},
		{"text/html;q=x", false},
		{"text/plain", false},
		{strings.Repeat("text/plain, ", MaxRanges) + "text/html", false},
	} {
		if got := PrefersHTML([]string{tt.accept}); got != tt.want {
			t.Errorf("Accept %q: HTML %v, want %v", tt.accept, got, tt.want)
		}
	}
	if !PrefersHTML([]string{"application/json;q=0.1", "text/html"}) {
		t.Error("Accept spread over two fields was not read as one list")
	}
}
