package convert

import (
	"net/url"
	"path"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What a page embeds from elsewhere (a video player, a gist, a map, an
// audio file) is part of what it says, shown by a frame or a script that
// Markdown cannot hold: each becomes a link to what it shows, at the
// address a reader would open (the video's page, not its player).

// embeds replaces, in root, each embed with a link to what it shows: an
// <iframe> (a YouTube or Vimeo player: the video's page), a <video> or
// <audio> with a source, and a gist's <script>.
func embeds(root *html.Node) {
	type swap struct{ old, new *html.Node }
	var swaps []swap
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			var link *html.Node
			switch c.DataAtom {
			case atom.Pre:
				continue // code is text
			case atom.Iframe:
				link = frameLink(c)
			case atom.Video, atom.Audio:
				link = mediaLink(c)
			case atom.Script:
				link = gistLink(attr(c, "src"))
			}
			if link != nil {
				swaps = append(swaps, swap{c, link})
				continue
			}
			walk(c)
		}
	}
	walk(root)
	for _, s := range swaps {
		s.old.Parent.InsertBefore(s.new, s.old)
		s.old.Parent.RemoveChild(s.old)
	}
}

// newLink is <a href="href">text</a>.
func newLink(href, text string) *html.Node {
	a := &html.Node{Type: html.ElementNode, Data: "a", DataAtom: atom.A, Attr: []html.Attribute{{Key: "href", Val: href}}}
	a.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	return a
}

// embedURL is src as an address a link may hold: http(s), relative or
// scheme-relative, not about:blank, javascript: or data:.
func embedURL(src string) (*url.URL, bool) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, false
	}
	u, err := url.Parse(src)
	if err != nil || u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" {
		return nil, false
	}
	return u, true
}

// playerTitles are the titles the embed codes of video sites give every
// player: they say nothing of the video.
var playerTitles = map[string]bool{"youtube video player": true, "vimeo-player": true, "youtube": true, "vimeo": true}

// frameLink is the link an <iframe> becomes: a video player's video page,
// else the frame's address; nil for a frame with none.
func frameLink(n *html.Node) *html.Node {
	src := attr(n, "src")
	if strings.TrimSpace(src) == "" {
		src = attr(n, "data-src") // loaded lazily by a script
	}
	u, ok := embedURL(src)
	if !ok {
		return nil
	}
	title := strings.Join(strings.Fields(attr(n, "title")), " ")
	if watch := videoPage(u); watch != nil {
		if title == "" || playerTitles[strings.ToLower(title)] {
			title = watch.Host
		}
		return newLink(watch.String(), "Video: "+title)
	}
	if title == "" {
		title = u.Host
	}
	if title == "" {
		title = "Embedded page"
	}
	return newLink(u.String(), title)
}

// videoID is a YouTube video's or playlist's id.
var videoID = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// videoPage is the page of the video a YouTube or Vimeo player at u
// plays, or nil.
func videoPage(u *url.URL) *url.URL {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	switch host {
	case "youtube.com", "m.youtube.com", "youtube-nocookie.com":
		id, ok := strings.CutPrefix(u.Path, "/embed/")
		if !ok || !videoID.MatchString(id) {
			return nil
		}
		q := u.Query()
		if id == "videoseries" {
			if list := q.Get("list"); videoID.MatchString(list) {
				return &url.URL{Scheme: "https", Host: "www.youtube.com", Path: "/playlist", RawQuery: "list=" + list}
			}
			return nil
		}
		watch := url.Values{"v": {id}}
		if start := q.Get("start"); start != "" && strings.Trim(start, "0123456789") == "" {
			watch.Set("t", start+"s")
		}
		return &url.URL{Scheme: "https", Host: "www.youtube.com", Path: "/watch", RawQuery: watch.Encode()}
	case "player.vimeo.com":
		id, ok := strings.CutPrefix(u.Path, "/video/")
		if !ok || id == "" || strings.Trim(id, "0123456789") != "" {
			return nil
		}
		// An unlisted video's page is at its id and hash.
		if h := u.Query().Get("h"); h != "" && videoID.MatchString(h) {
			id += "/" + h
		}
		return &url.URL{Scheme: "https", Host: "vimeo.com", Path: "/" + id}
	}
	return nil
}

// mediaLink is the link a <video> or <audio> becomes: its source (its
// src, else its first <source>), named by its title or file name; nil
// when it has none.
func mediaLink(n *html.Node) *html.Node {
	src := attr(n, "src")
	for c := n.FirstChild; strings.TrimSpace(src) == "" && c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Source {
			src = attr(c, "src")
		}
	}
	u, ok := embedURL(src)
	if !ok {
		return nil
	}
	kind := "Video"
	if n.DataAtom == atom.Audio {
		kind = "Audio"
	}
	name := strings.Join(strings.Fields(attr(n, "title")), " ")
	if name == "" {
		name = strings.Join(strings.Fields(attr(n, "aria-label")), " ")
	}
	if name == "" {
		name = path.Base(u.Path)
	}
	if name == "" || name == "." || name == "/" {
		name = u.Host
	}
	return newLink(u.String(), kind+": "+name)
}

// gistLink is the link a gist's <script src> becomes, the gist's page;
// nil for any other script.
func gistLink(src string) *html.Node {
	u, ok := embedURL(src)
	if !ok || !strings.EqualFold(u.Hostname(), "gist.github.com") || !strings.HasSuffix(u.Path, ".js") {
		return nil
	}
	page := strings.TrimSuffix(u.Path, ".js")
	if strings.Trim(page, "/") == "" {
		return nil
	}
	return newLink((&url.URL{Scheme: "https", Host: "gist.github.com", Path: page}).String(), "Gist: "+strings.Trim(page, "/"))
}
