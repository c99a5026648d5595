package markdown

import (
	"slices"
	"strings"
	"testing"
)

// TestTemplateBlocks: each block is found with its tags, as the generator
// finds it; what opens no block, or cannot, is none.
func TestTemplateBlocks(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string // each block's text, then its kind
		kinds     []Kind
	}{
		{"Liquid highlight", "a\n{% highlight html %}\n<script>x</script>\n{% endhighlight %}\nb",
			[]string{"{% highlight html %}\n<script>x</script>\n{% endhighlight %}"}, []Kind{Code}},
		{"whitespace control and options", "{%- highlight js linenos -%}x{%- endhighlight -%}",
			[]string{"{%- highlight js linenos -%}x{%- endhighlight -%}"}, []Kind{Code}},
		{"Eleventy's quoted language", `{% highlight "js" %}x{% endhighlight %}`,
			[]string{`{% highlight "js" %}x{% endhighlight %}`}, []Kind{Code}},
		{"Liquid comment", "{% comment %}\nnot yet\n{% endcomment %}", []string{"{% comment %}\nnot yet\n{% endcomment %}"}, []Kind{Comment}},
		{"Hugo highlight", "{{< highlight go \"linenos=table\" >}}\nx\n{{< /highlight >}}",
			[]string{"{{< highlight go \"linenos=table\" >}}\nx\n{{< /highlight >}}"}, []Kind{Code}},
		{"a code shortcode closed with blanks", "{{% code file=\"a.go\" %}}x{{% / code %}}", []string{"{{% code file=\"a.go\" %}}x{{% / code %}}"}, []Kind{Code}},
		{"kramdown", "{::comment}\nx\n{:/comment} {::nomarkdown}<b>{:/}", []string{"{::comment}\nx\n{:/comment}", "{::nomarkdown}<b>{:/}"}, []Kind{Comment, Raw}},
		{"two blocks", "{% highlight a %}1{% endhighlight %} {{< highlight b >}}2{{< /highlight >}}",
			[]string{"{% highlight a %}1{% endhighlight %}", "{{< highlight b >}}2{{< /highlight >}}"}, []Kind{Code, Code}},
		{"a comment holding a highlight is one block", "{% comment %}{% highlight a %}{% endcomment %}{% endhighlight %}",
			[]string{"{% comment %}{% highlight a %}{% endcomment %}"}, []Kind{Comment}},
		{"never closed", "{% highlight html %}\nx\n", nil, nil},
		{"inside raw", "{% raw %}{% highlight a %}{% endraw %}x{% endhighlight %}", nil, nil},
		{"an escaped shortcode", "{{</* highlight go */>}}x{{</* /highlight */>}}", nil, nil},
		{"other tags", "{% include a.html %} {{< figure src=x >}} {{ site.title }} {% if a %}{% endif %}", nil, nil},
		{"a tag with no end", "{% highlight " + strings.Repeat("x", 5000) + " %}y{% endhighlight %}", nil, nil},
		{"empty", "", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			blocks := TemplateBlocks([]byte(tt.src))
			var got []string
			var kinds []Kind
			for _, b := range blocks {
				got = append(got, tt.src[b.Start:b.End])
				kinds = append(kinds, b.Kind)
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(kinds, tt.kinds) {
				t.Errorf("got %q %v, want %q %v", got, kinds, tt.want, tt.kinds)
			}
		})
	}
}

// TestTags: a tag's name and arguments, read as the template language
// reads them.
func TestTags(t *testing.T) {
	for _, tt := range []struct {
		read       func([]byte) (string, []byte, int)
		src        string
		name, args string
		n          int
	}{
		{LiquidTag, "{% post_url 2024-01-01-a %} after", "post_url", "2024-01-01-a", 27},
		{LiquidTag, "{%-   link _posts/a.md\n -%}", "link", "_posts/a.md", 27},
		{LiquidTag, "{%raw%}", "raw", "", 7},
		{LiquidTag, "{% unclosed", "", "", 0},
		{LiquidTag, "no tag", "", "", 0},
		{Shortcode, "{{< figure src=\"a.png\" >}}", "figure", `src="a.png"`, 26},
		{Shortcode, "{{</highlight>}}", "/highlight", "", 16},
		{Shortcode, "{{% / notice %}}", "/notice", "", 16},
		{Shortcode, "{{</* figure */>}}", "", "", 0},
		{Shortcode, "{{ .Title }}", "", "", 0},
	} {
		name, args, n := tt.read([]byte(tt.src))
		if name != tt.name || string(args) != tt.args || n != tt.n {
			t.Errorf("%q: %q %q %d, want %q %q %d", tt.src, name, args, n, tt.name, tt.args, tt.n)
		}
	}
	for src, want := range map[string]string{"{{ site.baseurl }}{% x %}": "site.baseurl", "{{- site.url -}}": "site.url", "{{< x >}}": "", "{{ a | b }}": "a | b"} {
		if expr, _ := OutputTag([]byte(src)); string(expr) != want {
			t.Errorf("OutputTag(%q) = %q, want %q", src, expr, want)
		}
	}
}

// TestMask: the blocks of the kinds named become blanks, line ends kept,
// every other byte where it was.
func TestMask(t *testing.T) {
	src := []byte("a\n{% highlight x %}\n<b>\n{% endhighlight %}\n{% comment %}c{% endcomment %}\nz")
	got := string(Mask(src, TemplateBlocks(src), Code))
	want := "a\n" + strings.Repeat(" ", 17) + "\n   \n" + strings.Repeat(" ", 18) + "\n{% comment %}c{% endcomment %}\nz"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	if plain := []byte("no blocks"); &Mask(plain, nil, Code)[0] != &plain[0] {
		t.Error("a source with no block was copied")
	}
}

// FuzzTemplateBlocks: any source gives blocks in order, inside it, none
// overlapping, each beginning with "{", and a mask of its own length.
func FuzzTemplateBlocks(f *testing.F) {
	for _, seed := range []string{"{% highlight a %}x{% endhighlight %}", "{{< highlight >}}{{< /highlight >}}", "{::comment}{:/}",
		"{% raw %}{% endraw", "{%", "{{</*", "{% comment %}{% highlight %}{% endhighlight %}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		blocks := TemplateBlocks([]byte(src))
		end := 0
		for _, b := range blocks {
			if b.Start < end || b.End <= b.Start || b.End > len(src) || src[b.Start] != '{' {
				t.Fatalf("block %+v after %d in %q", b, end, src)
			}
			end = b.End
		}
		if masked := Mask([]byte(src), blocks, Code, Comment, Raw); len(masked) != len(src) {
			t.Fatalf("mask of %d bytes for %d", len(masked), len(src))
		}
	})
}
