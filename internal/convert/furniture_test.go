package convert

import (
	"context"
	"strings"
	"testing"
)

// convertText converts page, at https://example.com/posts/a/, to Markdown.
func convertText(t *testing.T, page string) string {
	t.Helper()
	c, err := Page(context.Background(), []byte(page), "text/html; charset=utf-8", "https://example.com/posts/a/")
	if err != nil {
		t.Fatalf("Page: %v\n%s", err, page)
	}
	return string(c.Markdown)
}

// checkText checks that md holds each of want and none of absent.
func checkText(t *testing.T, md string, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("no %q in\n%s", w, md)
		}
	}
	for _, a := range absent {
		if strings.Contains(md, a) {
			t.Errorf("%q is in\n%s", a, md)
		}
	}
}

// A post's page as themes build it: the post inside <main>, and around it
// in <main> the theme's furniture.
const (
	// postInMain is a post with the theme's author line, neighbours and
	// comment section beside it in <main>, the way Hugo's hermit sets them.
	postInMain = `<!doctype html><title>Mending a kite | Wind notes</title><body><header><a href="/">Wind notes</a></header><main>
<article><header><div class="post-meta"><span>Apr 2, 2024</span></div><h1>Mending a kite</h1></header>
<div class="content"><p>A torn sail is mended with ripstop tape on both sides, never glue.</p><p>Let the spar rest overnight before the next flight.</p></div>
<hr class="post-end"><footer class="post-info"><p>kitewright</p><p>412 Words</p><p>2024-04-02 09:00 +0000</p></footer></article>
<div class="post-nav"><a class="next-post" href="/posts/b/"><span>Newer</span><br><span>Flying in gusts</span></a><a class="prev-post" href="/posts/c/"><span>Older</span><br><span>Choosing a line</span></a></div>
<div id="comments"><div id="disqus_thread"></div><script>var d = 1;</script><noscript>Enable scripts for the comments.</noscript><a href="https://comments.example.net" class="brand">comments served by a vendor</a></div>
</main><footer>Copyright Wind notes</footer></body>`
	// postBesideSidebar is a post with a sidebar of the newest titles and
	// the tag cloud beside it, inside <main>, the way Astro themes set them.
	postBesideSidebar = `<!doctype html><title>Night sky</title><body><main><div class="container"><div class="main-content"><article><div class="prose">
<h1>~$ Counting meteors</h1><p>Lie flat, face north-east, and count for a full hour before you judge the shower.</p></div></article></div>
<div class="sidebar"><h4>Latest posts</h4><p><span>2024-08-12:</span><br><a href="/p/1/">Finding the Plough</a></p>
<p><span>2024-07-30:</span><br><a href="/p/2/">A red torch for night vision</a></p><h4>Tags</h4><a href="/t/moon/">Moon (12)</a><a href="/t/gear/">Gear (4)</a></div></div></main></body>`
)

// TestPageContent (the theme's furniture): the content is the post, not
// what the theme sets around it; what the markup says is furniture goes,
// and the post's own words, header and footer stay.
func TestPageContent(t *testing.T) {
	for _, tt := range []struct {
		name, page   string
		want, absent []string
	}{{
		name: "a post with the theme's author line, neighbours and comments in main",
		page: postInMain,
		want: []string{"Apr 2, 2024", "ripstop tape on both sides", "Let the spar rest overnight"},
		absent: []string{"kitewright", "412 Words", "2024-04-02 09:00", "Newer", "Flying in gusts", "Choosing a line",
			"Enable scripts", "comments served", "* * *", "Copyright", "Wind notes"},
	}, {
		name:   "a post beside a sidebar of titles and tags",
		page:   postBesideSidebar,
		want:   []string{"Counting meteors", "count for a full hour"},
		absent: []string{"Latest posts", "Finding the Plough", "red torch", "Moon (12)", "Gear", "2024-08-12"},
	}, {
		name: "a short post beside lists of links the theme does not name",
		page: `<main><div class="grid"><article><h1>Short</h1><p>Only a line of words here.</p></article>` +
			`<div class="col"><h4>More</h4><ul><li><a href="/1">First of the older posts of the site</a></li><li><a href="/2">Second of the older posts of the site</a></li>` +
			`<li><a href="/3">Third of the older posts of the site</a></li></ul></div></div></main>`,
		want: []string{"Only a line of words here."}, absent: []string{"More", "older posts"},
	}, {
		name: "main whose own text is most of it: an article in it is a part",
		page: `<main><h1>Welcome</h1><p>This is a long introduction to the whole site, which says who writes it, why, and what to read first when new here.</p>` +
			`<h2>Latest</h2><article><h3><a href="/p/x/">A post</a></h3><p>Its summary.</p></article></main>`,
		want: []string{"# Welcome", "long introduction", "## Latest", "Its summary."},
	}, {
		name: "no main: the one article, an article of a comment in it aside",
		page: `<body><header>Site</header><article><h1>Post</h1><p>The text.</p><section class="comments"><article><p>A reader's comment.</p></article></section></article><footer>Site footer</footer></body>`,
		want: []string{"# Post", "The text."}, absent: []string{"reader's comment", "Site"},
	}, {
		name: "an aside among the paragraphs is a note of the text, one beside the article the site's",
		page: `<main><article><p>First paragraph.</p><aside><p>A tip: oil the hinge first.</p></aside><p>Second paragraph.</p></article>` +
			`<aside><h4>About the author</h4><p>Writes about hinges.</p></aside></main>`,
		want: []string{"First paragraph.", "A tip: oil the hinge first.", "Second paragraph."}, absent: []string{"About the author", "Writes about hinges"},
	}, {
		name: "roles, comment sections, share, related and pagination blocks",
		page: `<main><p>Body words.</p><div role="complementary">Complementary box</div><div role="navigation">Navigation box</div>` +
			`<div id="comments">Comment one</div><div class="comments-area">Comment two</div><ol class="Comments"><li>Comment three</li></ol>` +
			`<div class="share-buttons"><a href="https://social.example/share">Share it</a></div><section class="related-posts"><h3>Related</h3><a href="/r/">Other post</a></section>` +
			`<div class="pagination"><a href="/page/2/">2</a></div><div class="post-nav"><a href="/n/">Post navigation</a></div>` +
			`<nav class="breadcrumbs"><a href="/">Home</a></nav><div aria-label="Breadcrumb">Home / Posts</div></main>`,
		want: []string{"Body words."},
		absent: []string{"Complementary", "Navigation box", "Comment one", "Comment two", "Comment three", "Share it", "Related", "Other post",
			"page/2", "Post navigation", "Home"},
	}, {
		name: "the neighbours' links, by rel or by their labels",
		page: `<main><p>Body words.</p><div class="x"><a rel="prev" href="/p/1/">Earlier title</a> · <a rel="next" href="/p/2/">Later title</a></div>` +
			`<hr><ul><li>Next: <a href="/p/3/">Third title</a></li><li>Previous: <a href="/p/4/">Fourth title</a></li></ul></main>`,
		want: []string{"Body words."}, absent: []string{"Earlier", "Later", "Third", "Fourth", "Next", "Previous", "* * *"},
	}, {
		name: "a sentence with a link that says next is text",
		page: `<main><p>Next, read <a href="/guide/">the guide</a> for the details.</p><ul><li><a href="/a/">Newer</a> tools are listed in it.</li></ul></main>`,
		want: []string{"Next, read [the guide]", "tools are listed in it"},
	}, {
		name: "main's own footer is the page's, its header with a heading the page's title",
		page: `<main><header><h1>Guide</h1></header><p>Guide text.</p><footer>Posted in guides</footer></main>`,
		want: []string{"# Guide", "Guide text."}, absent: []string{"Posted in"},
	}, {
		name: "main's own header without a heading is the page's",
		page: `<main><header><a href="/">Home</a> / <a href="/docs/">Docs</a></header><p>Guide text.</p></main>`,
		want: []string{"Guide text."}, absent: []string{"Home", "Docs"},
	}, {
		name: "hidden from assistive technology: decorations",
		page: `<main><p>Rated <span aria-hidden="true">★★★★☆</span><span>four stars of five</span>.</p></main>`,
		want: []string{"Rated four stars of five."}, absent: []string{"★"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			checkText(t, convertText(t, tt.page), tt.want, tt.absent)
		})
	}
}
