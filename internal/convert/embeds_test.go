package convert

import "testing"

// TestPageEmbeds: what a page embeds from elsewhere is a link to what it
// shows, at the address a reader opens: a video player's video page, a
// gist's page, the media file; a figure keeps its image and caption.
func TestPageEmbeds(t *testing.T) {
	for _, tt := range []struct {
		name, html   string
		want, absent []string
	}{
		{"a YouTube player, privacy-enhanced, with a title", `<p>My talk:</p><iframe src="https://www.youtube-nocookie.com/embed/Ab_3-xY9zQw" title="Reading the tides aloud"></iframe>`,
			[]string{"My talk:", "[Video: Reading the tides aloud](https://www.youtube.com/watch?v=Ab_3-xY9zQw)"}, nil},
		{"a YouTube player from a time, with the embed code's title", `<iframe width="560" src="https://www.youtube.com/embed/Ab_3-xY9zQw?start=1030" title="YouTube video player" allowfullscreen></iframe>`,
			[]string{"[Video: www.youtube.com](https://www.youtube.com/watch?t=1030s&v=Ab_3-xY9zQw)"}, []string{"player"}},
		{"a YouTube playlist", `<iframe src="https://www.youtube.com/embed/videoseries?list=PLx1_y"></iframe>`,
			[]string{"[Video: www.youtube.com](https://www.youtube.com/playlist?list=PLx1_y)"}, nil},
		{"a scheme-relative YouTube player", `<iframe src="//www.youtube.com/embed/Ab_3-xY9zQw"></iframe>`,
			[]string{"(https://www.youtube.com/watch?v=Ab_3-xY9zQw)"}, nil},
		{"an unlisted Vimeo player", `<iframe title="vimeo-player" src="https://player.vimeo.com/video/7081935?h=33ab9e"></iframe>`,
			[]string{"[Video: vimeo.com](https://vimeo.com/7081935/33ab9e)"}, nil},
		{"a Vimeo player", `<iframe src="https://player.vimeo.com/video/7081935" title="Tide pools at dawn"></iframe>`,
			[]string{"[Video: Tide pools at dawn](https://vimeo.com/7081935)"}, nil},
		{"another frame", `<iframe src="https://maps.example.org/embed?route=4" title="The route along the shore"></iframe>`,
			[]string{"[The route along the shore](https://maps.example.org/embed?route=4)"}, nil},
		{"a frame loaded later, without a title", `<iframe data-src="https://social.example/@ilse/1234/embed"></iframe>`,
			[]string{"[social.example](https://social.example/@ilse/1234/embed)"}, nil},
		{"a relative frame", `<iframe src="demo/index.html" title="The demo"></iframe>`,
			[]string{"[The demo](https://example.com/posts/a/demo/index.html)"}, nil},
		{"frames with nothing to link", `<iframe></iframe><iframe src="about:blank"></iframe><iframe src="javascript:alert(1)"></iframe>`,
			nil, []string{"[", "javascript"}},
		{"a gist", `<p>The whole script:</p><script src="https://gist.github.com/ilse/8c0ffee.js"></script>`,
			[]string{"The whole script:", "[Gist: ilse/8c0ffee](https://gist.github.com/ilse/8c0ffee)"}, []string{".js"}},
		{"a gist's file", `<script src="https://gist.github.com/8c0ffee.js?file=tides.py"></script>`,
			[]string{"[Gist: 8c0ffee](https://gist.github.com/8c0ffee)"}, nil},
		{"any other script", `<p>Text.</p><script src="https://cdn.example.org/widget.js"></script>`, nil, []string{"widget", "["}},
		{"a video with its source", `<video controls src="media/low-tide.mp4">Your browser cannot play it.</video>`,
			[]string{"[Video: low-tide.mp4](https://example.com/posts/a/media/low-tide.mp4)"}, []string{"browser"}},
		{"a video with a title and sources", `<video controls title="The pool at low tide"><source src="/m/pool.webm" type="video/webm"><source src="/m/pool.mp4"></video>`,
			[]string{"[Video: The pool at low tide](https://example.com/m/pool.webm)"}, nil},
		{"an audio with a source", `<audio controls><source src="https://cdn.example.org/gulls.ogg"></audio>`,
			[]string{"[Audio: gulls.ogg](https://cdn.example.org/gulls.ogg)"}, nil},
		{"a video without a source", `<video controls></video>`, nil, []string{"["}},
		{"a figure", `<figure><img src="img/crab.jpg" alt="A shore crab"><figcaption>A shore crab under the <em>weed</em></figcaption></figure>`,
			[]string{"![A shore crab](https://example.com/posts/a/img/crab.jpg)", "A shore crab under the *weed*"}, nil},
		{"an embed in code is code", `<pre><code>&lt;iframe src="https://www.youtube.com/embed/x"&gt;&lt;/iframe&gt;</code></pre>`,
			[]string{`<iframe src="https://www.youtube.com/embed/x"></iframe>`}, []string{"watch"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkText(t, convertText(t, "<main><p>Before.</p>"+tt.html+"</main>"), tt.want, tt.absent)
		})
	}
}
