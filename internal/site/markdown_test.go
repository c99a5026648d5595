package site

import "testing"

// TestTemplated: a post's source holds template syntax the generator
// renders (then its body is its page's) only outside its code and the
// blocks a generator shows as written.
func TestTemplated(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     bool
	}{
		{"plain prose", "Hello, {world}.\n", false},
		{"an include", "Intro.\n\n{% include figure.html src=\"a.png\" %}\n", true},
		{"a Hugo shortcode", "Watch:\n\n{{< youtube dQw4w9WgXcQ >}}\n", true},
		{"a Liquid output", "Written for {{ site.title }}.\n", true},
		{"a table of contents", "[[toc]]\n\n## One\n", true},
		{"highlighted code", "{% highlight html %}\n<script>{{ x }}</script>\n{% endhighlight %}\n", false},
		{"fenced code", "```\n{% include x.html %}\n```\n", false},
		{"a code span", "Write `{{ site.title }}` in a layout.\n", false},
		{"a comment", "{% comment %}{% include x %}{% endcomment %}\n", false},
		{"braces that are no tag", "A set { {1} } and a brace {% with no end.\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := templated(tc.md); got != tc.want {
				t.Errorf("templated(%q) = %v, want %v", tc.md, got, tc.want)
			}
		})
	}
}
