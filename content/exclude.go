package content

import (
	"path"
	"strings"
)

// excludedBy returns the first of the patterns of Options.Exclude that
// matches the file or folder at rel, its slash-separated path under the
// insights folder; isDir says whether it may be a folder.
func excludedBy(patterns []string, rel string, isDir bool) (string, bool) {
	base := path.Base(rel)
	for _, written := range patterns {
		if strings.HasSuffix(written, "/") && !isDir {
			continue
		}
		pattern := trimPattern(written)
		if matched, _ := path.Match(pattern, rel); matched {
			return written, true
		}
		if anchored := strings.HasPrefix(written, "/"); !anchored {
			if matched, _ := path.Match(pattern, base); matched {
				return written, true
			}
		}
	}
	return "", false
}

// trimPattern drops the slash that anchors a pattern at the insights folder
// and the one that makes it match folders only, leaving what path.Match
// reads.
func trimPattern(pattern string) string {
	return strings.TrimSuffix(strings.TrimPrefix(pattern, "/"), "/")
}
