// Package markdown reads the Markdown source of a post as its generator
// does before any Markdown parser sees it: the template language around
// the Markdown (Liquid in Jekyll and Eleventy, Hugo's shortcodes, kramdown's
// extensions) runs first, so a block of code a template tag wraps is code
// whatever it holds, and a comment block is no text. It finds those blocks
// and masks them for goldmark, which does not know them, and reads the
// template tags themselves. The readers of post bodies (the description
// derived from a body, the links made absolute) build on it.
//
// Imports from the module: none.
package markdown

import (
	"bytes"
	"slices"
)

// Kind is what a template block holds.
type Kind int

const (
	// Code is a block of code a template tag wraps: Liquid's
	// {% highlight lang %} … {% endhighlight %} (Jekyll, and Eleventy's
	// syntax highlighting plugin), Hugo's {{< highlight lang >}} …
	// {{< /highlight >}} and the shortcodes themes name code, codeblock
	// or code-block. The generator shows it as written.
	Code Kind = iota
	// Comment is a comment block: Liquid's {% comment %} …
	// {% endcomment %}, kramdown's {::comment} … {:/comment}. The
	// generator shows nothing of it.
	Comment
	// Raw is kramdown's {::nomarkdown} … {:/nomarkdown}: HTML written for
	// the page, which kramdown leaves unparsed.
	Raw
)

// Block is a template block: the bytes [Start, End) of the source, its
// opening and closing tags included.
type Block struct {
	Start, End int
	Kind       Kind
}

// codeShortcodes are the Hugo shortcodes whose inner text is code.
var codeShortcodes = map[string]bool{"highlight": true, "code": true, "codeblock": true, "code-block": true}

// TemplateBlocks returns the template blocks of src in order, none inside
// another. A block is a pair of tags: an opening tag with no closing tag
// after it opens nothing (the generator would refuse the post), and the
// text between Liquid's {% raw %} and {% endraw %} is never a tag.
// Template tags are found wherever they are, fenced code included, as the
// generators find them: their template language runs before Markdown.
func TemplateBlocks(src []byte) []Block {
	var blocks []Block
	// unclosed is, for a closing tag's name, where a search for it found
	// none to the end: no later search can, so none is made again, and a
	// post of many unclosed tags is read in one pass.
	unclosed := map[string]int{}
	closing := func(from int, read func([]byte) (string, []byte, int), name string) int {
		if at, ok := unclosed[name]; ok && from >= at {
			return -1
		}
		e := findTag(src, from, read, name)
		if e < 0 {
			unclosed[name] = from
		}
		return e
	}
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '{')
		if j < 0 {
			break
		}
		i += j
		rest := src[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("{%")):
			name, _, n := LiquidTag(rest)
			end := ""
			kind := Code
			switch name {
			case "raw":
				// Liquid reads nothing up to {% endraw %}.
				if e := closing(i+n, LiquidTag, "endraw"); e > 0 {
					i = e
					continue
				}
			case "highlight":
				end = "endhighlight"
			case "comment":
				end, kind = "endcomment", Comment
			}
			if end != "" {
				if e := closing(i+n, LiquidTag, end); e > 0 {
					blocks = append(blocks, Block{i, e, kind})
					i = e
					continue
				}
			}
			i += max(n, 1)
		case bytes.HasPrefix(rest, []byte("{{<")), bytes.HasPrefix(rest, []byte("{{%")):
			name, _, n := Shortcode(rest)
			if codeShortcodes[name] {
				if e := closing(i+n, Shortcode, "/"+name); e > 0 {
					blocks = append(blocks, Block{i, e, Code})
					i = e
					continue
				}
			}
			i += max(n, 1)
		case bytes.HasPrefix(rest, []byte("{::comment}")), bytes.HasPrefix(rest, []byte("{::nomarkdown}")):
			kind, name := Comment, "comment"
			if rest[3] == 'n' {
				kind, name = Raw, "nomarkdown"
			}
			if at, ok := unclosed["{:/"+name]; !ok || i < at {
				if e := kramdownEnd(src, i+len("{::"+name+"}"), name); e > 0 {
					blocks = append(blocks, Block{i, e, kind})
					i = e
					continue
				}
				unclosed["{:/"+name] = i
			}
			i++
		default:
			i++
		}
	}
	return blocks
}

// findTag returns the end of the first tag named name that read finds in
// src from i on, or -1.
func findTag(src []byte, i int, read func([]byte) (string, []byte, int), name string) int {
	for i < len(src) {
		j := bytes.IndexByte(src[i:], '{')
		if j < 0 {
			return -1
		}
		i += j
		if got, _, n := read(src[i:]); n > 0 {
			if got == name {
				return i + n
			}
			i += n
			continue
		}
		i++
	}
	return -1
}

// kramdownEnd returns the end of the tag that closes a kramdown extension
// named name ({:/name} or {:/}) in src from i on, or -1.
func kramdownEnd(src []byte, i int, name string) int {
	for i < len(src) {
		j := bytes.Index(src[i:], []byte("{:/"))
		if j < 0 {
			return -1
		}
		i += j
		for _, tag := range []string{"{:/}", "{:/" + name + "}"} {
			if bytes.HasPrefix(src[i:], []byte(tag)) {
				return i + len(tag)
			}
		}
		i += len("{:/")
	}
	return -1
}

// LiquidTag reads the Liquid tag s begins with, {% name args %} (either
// delimiter may carry Liquid's "-"): its name, its arguments with the
// blanks around them trimmed, and its length; n is 0 when s begins with
// no tag. A tag may span lines.
func LiquidTag(s []byte) (name string, args []byte, n int) {
	return tagIn(s, "{%", "%}")
}

// Shortcode reads the Hugo shortcode s begins with, {{< name args >}} or
// {{% name args %}}, as LiquidTag reads a Liquid tag; a closing
// shortcode's name begins with "/". A shortcode escaped as Hugo's
// documentation writes it, {{</* name */>}}, is none.
func Shortcode(s []byte) (name string, args []byte, n int) {
	switch {
	case bytes.HasPrefix(s, []byte("{{<")):
		name, args, n = tagIn(s, "{{<", ">}}")
	case bytes.HasPrefix(s, []byte("{{%")):
		name, args, n = tagIn(s, "{{%", "%}}")
	}
	switch {
	case n == 0:
	case len(name) >= 2 && name[:2] == "/*":
		return "", nil, 0
	case name == "/" && len(args) > 0:
		// {{< / highlight >}}: the name after the slash.
		i := bytes.IndexFunc(args, isBlank)
		if i < 0 {
			i = len(args)
		}
		name, args = "/"+string(args[:i]), bytes.TrimSpace(args[i:])
	}
	return name, args, n
}

// OutputTag reads the Liquid output tag s begins with, {{ expression }},
// as LiquidTag reads a tag: the expression, and its length.
func OutputTag(s []byte) (expression []byte, n int) {
	if bytes.HasPrefix(s, []byte("{{<")) || bytes.HasPrefix(s, []byte("{{%")) {
		return nil, 0
	}
	name, args, n := tagIn(s, "{{", "}}")
	if n == 0 {
		return nil, 0
	}
	if len(args) == 0 {
		return []byte(name), n
	}
	return append(append([]byte(name), ' '), args...), n
}

// maxTag is the longest template tag read, in bytes: a tag is a line or
// a few, and a "{%" with no end must not cost a scan of the whole post.
const maxTag = 4096

// tagIn reads a tag between open and close at the start of s: its first
// word, the rest trimmed, and its length.
func tagIn(s []byte, open, close string) (name string, args []byte, n int) {
	if !bytes.HasPrefix(s, []byte(open)) {
		return "", nil, 0
	}
	end := bytes.Index(s[len(open):min(len(s), maxTag)], []byte(close))
	if end < 0 {
		return "", nil, 0
	}
	end += len(open)
	inner := s[len(open):end]
	// Liquid's whitespace control: {%- … -%}, {{- … -}}.
	inner = bytes.TrimPrefix(inner, []byte("-"))
	if bytes.HasSuffix(inner, []byte("-")) {
		inner = inner[:len(inner)-1]
	}
	inner = bytes.TrimSpace(inner)
	i := bytes.IndexFunc(inner, isBlank)
	if i < 0 {
		return string(inner), nil, end + len(close)
	}
	return string(inner[:i]), bytes.TrimSpace(inner[i:]), end + len(close)
}

func isBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// Mask returns src with the bytes of the blocks of the given kinds made
// blanks, but for their line ends, so that a Markdown parser reads each as
// blank lines while every other byte keeps its offset. It returns src
// itself when no block is of those kinds.
func Mask(src []byte, blocks []Block, kinds ...Kind) []byte {
	var masked []byte
	for _, b := range blocks {
		if !slices.Contains(kinds, b.Kind) {
			continue
		}
		if masked == nil {
			masked = bytes.Clone(src)
		}
		for i := b.Start; i < b.End; i++ {
			if masked[i] != '\n' {
				masked[i] = ' '
			}
		}
	}
	if masked == nil {
		return src
	}
	return masked
}
