package content

import (
	"encoding/json"
	"path"
	"strings"
)

// Tags that only group files are no topic. Eleventy builds a collection of
// every tag, and a site puts a whole folder in one with a directory data
// file (posts/posts.json holding {"tags": ["posts"]}, notes/notes.11tydata.js
// exporting {tags: "notes"}): the site's lists are made of it, and the
// tag, often repeated in each post's own front matter, says what kind of
// file the post is, not what it is about. So a tag that a directory data
// file sets, for the post's folder or a folder above it in the posts
// folder, is never the topic; nor is one of the names Eleventy's starter
// blogs give their posts collection (collectionTags), for the sites whose
// data files are elsewhere.

// collectionTags are the tags that Eleventy's starter blogs use to put a
// page in the posts collection.
var collectionTags = map[string]bool{"post": true, "posts": true, "blog": true, "article": true, "articles": true}

// dataFileSuffixes make the names of a folder's directory data files, as
// Eleventy looks for them: posts/posts.json, posts/posts.11tydata.json,
// posts/posts.11tydata.js (and .cjs, .mjs).
var dataFileSuffixes = []string{".json", ".11tydata.json", ".11tydata.js", ".11tydata.cjs", ".11tydata.mjs"}

// isDataFile reports whether file is a directory data file of the folder
// named folder.
func isDataFile(folder, file string) bool {
	for _, suffix := range dataFileSuffixes {
		if file == folder+suffix {
			return true
		}
	}
	return false
}

// dataFileTags are the tags a directory data file sets: JSON's "tags", a
// text or a list of texts; in JavaScript, a tags property written as a
// literal (a string, or an array of strings). A tags value computed by
// code is not read.
func dataFileTags(name string, data []byte) []string {
	if path.Ext(name) == ".json" {
		var file struct {
			Tags json.RawMessage `json:"tags"`
		}
		if json.Unmarshal(data, &file) != nil || len(file.Tags) == 0 {
			return nil
		}
		var one string
		if json.Unmarshal(file.Tags, &one) == nil {
			return []string{one}
		}
		var list []string
		_ = json.Unmarshal(file.Tags, &list)
		return list
	}
	return scriptTags(string(data))
}

// scriptTags reads the literal value of the first tags property of a
// JavaScript data file: tags: "notes", "tags": ['posts', 'notes'].
func scriptTags(src string) []string {
	for i := 0; i < len(src); {
		j := strings.Index(src[i:], "tags")
		if j < 0 {
			return nil
		}
		at := i + j
		i = at + len("tags")
		before := byte(' ')
		if at > 0 {
			before = src[at-1]
		}
		if isIdentByte(before) || before == '.' {
			continue // part of another name, or a property read
		}
		rest := src[i:]
		if (before == '"' || before == '\'') && strings.HasPrefix(rest, string(before)) {
			rest = rest[1:]
		} else if before == '"' || before == '\'' || len(rest) > 0 && isIdentByte(rest[0]) {
			continue
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\r\n")
		if s, _, ok := stringLiteral(rest); ok {
			return []string{s}
		}
		if !strings.HasPrefix(rest, "[") {
			return nil
		}
		var tags []string
		rest = rest[1:]
		for {
			rest = strings.TrimLeft(rest, " \t\r\n")
			if strings.HasPrefix(rest, "]") {
				return tags
			}
			s, n, ok := stringLiteral(rest)
			if !ok {
				return nil // not a literal list
			}
			tags = append(tags, s)
			rest = strings.TrimLeft(rest[n:], " \t\r\n")
			rest = strings.TrimPrefix(rest, ",")
		}
	}
	return nil
}

// stringLiteral reads the JavaScript string literal s begins with, quoted
// with ', " or ` (without a ${} in it), and no escapes: its text and its
// length.
func stringLiteral(s string) (text string, n int, ok bool) {
	if s == "" || !strings.ContainsRune("'\"`", rune(s[0])) {
		return "", 0, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", 0, false
	}
	text = s[1 : 1+end]
	if strings.ContainsAny(text, "\\\n") || strings.Contains(text, "${") {
		return "", 0, false
	}
	return text, end + 2, true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
