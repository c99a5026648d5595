package content

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// tree is a folder tree the loader reads, and how messages name its files.
type tree struct {
	fsys fs.FS
	// display turns a path in fsys into the name messages use.
	display func(name string) string
	// scope names the tree in messages: "the content directory".
	scope string
}

// rootDir is a directory opened as an os.Root, so no path can leave it,
// whose files are opened without blocking: opening a FIFO for reading would
// otherwise wait for a writer, and the loader with it.
type rootDir struct{ root *os.Root }

func (d rootDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return d.root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
}

func (d rootDir) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(d.root.FS(), name)
}

func (d rootDir) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(d.root.FS(), name) }

func (d rootDir) ReadLink(name string) (string, error) { return fs.ReadLink(d.root.FS(), name) }

// errOutside is the error of resolve for a symbolic link that leads out of
// the tree.
var errOutside = errors.New("symbolic link leads outside")

// resolve follows every symbolic link in name, refusing any that leads
// outside the tree. It returns the path of the file itself.
func (t tree) resolve(name string) (string, error) {
	resolved, err := resolve(t.fsys, name)
	if errors.Is(err, errOutside) {
		return "", fmt.Errorf("is a symbolic link that leads outside %s", t.scope)
	}
	return resolved, err
}

// maxLinks is how many symbolic links resolving one path may follow, as on
// Linux.
const maxLinks = 40

// resolve follows every symbolic link in name, refusing any that leads
// outside fsys. A file system that cannot read links is taken at its word.
func resolve(fsys fs.FS, name string) (string, error) {
	if _, ok := fsys.(fs.ReadLinkFS); !ok {
		return name, nil
	}
	pending := strings.Split(name, "/")
	resolved := "."
	for links := 0; len(pending) > 0; {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if resolved == "." {
				return "", errOutside
			}
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, part)
		info, err := fs.Lstat(fsys, next)
		if err != nil {
			return "", unwrapPathError(err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("is a symbolic link that resolves through more than %d links", maxLinks)
		}
		target, err := fs.ReadLink(fsys, next)
		if err != nil {
			return "", unwrapPathError(err)
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
			return "", errOutside
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	return resolved, nil
}

// irregular says what a file that is not a regular file is, for messages.
func irregular(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "not a regular file (named pipe)"
	case mode&fs.ModeSocket != 0:
		return "not a regular file (socket)"
	case mode&fs.ModeDevice != 0:
		return "not a regular file (device)"
	}
	return "not a regular file"
}

// errNotRegular is the error of readRegular for anything but a regular file.
type errNotRegular struct{ mode fs.FileMode }

func (e errNotRegular) Error() string { return "is " + irregular(e.mode) }

// readRegular reads the regular file name, of at most MaxFileSize bytes,
// where name has no symbolic link in it. Anything else is refused before
// it is opened; and, for a rootDir, opened without blocking and checked
// again once open, so a file swapped for a FIFO meanwhile is refused rather
// than waited on.
func readRegular(fsys fs.FS, name string) ([]byte, fs.FileInfo, error) {
	info, err := fs.Lstat(fsys, name)
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errNotRegular{info.Mode()}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, nil, unwrapPathError(err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errNotRegular{info.Mode()}
	}
	// Read in one allocation when the size is known.
	buf := bytes.NewBuffer(nil)
	if info.Size() <= MaxFileSize {
		buf.Grow(int(info.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, nil, unwrapPathError(err)
	}
	if buf.Len() > MaxFileSize {
		return nil, nil, fmt.Errorf("larger than %d bytes", MaxFileSize)
	}
	return buf.Bytes(), info, nil
}

// unwrapPathError drops the operation and path from a file system error,
// which messages name their own way, and words the common errors alike
// on every file system.
func unwrapPathError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fs.ErrNotExist
	case errors.Is(err, fs.ErrPermission):
		return fs.ErrPermission
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// postFile is a Markdown file found under the insights folder.
type postFile struct {
	path string // in the file system, with every symbolic link resolved
	name string // as messages name it: the path as found
	// base is the name the slug comes from: the file's name without its
	// extension, or a page bundle's folder.
	base   string
	bundle bool
	// groups are the tags the directory data files of its folders set,
	// which only group files (see collections.go).
	groups []string
	// wholeTerms: a single text given to tags or categories is one term,
	// as Hugo and Eleventy take it (see splitTerms).
	wholeTerms bool
}

// isMarkdown reports whether a file name has a Markdown extension the
// loader reads.
func isMarkdown(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// walker finds the posts under the insights folder.
type walker struct {
	tree
	root    string   // the insights folder
	exclude []string // patterns of Options.Exclude
	files   []postFile
	skipped []Skip
	visited map[string]string // resolved folder -> name it was read as
	ps      *problems
	// hugo and eleventy are set when the folder holds what only that
	// generator writes: a section page (_index.md), a directory data file.
	hugo, eleventy bool
}

// wholeTerms reports whether the folder is a Hugo or an Eleventy site's,
// whose single text given to tags or categories is one term.
func (w *walker) wholeTerms() bool { return w.hugo || w.eleventy }

func (w *walker) skip(name, reason string) {
	w.skipped = append(w.skipped, Skip{Path: w.display(name), Reason: reason})
}

// entry is a directory entry with its symbolic links resolved.
type entry struct {
	name, path string // as found; resolved
	mode       fs.FileMode
}

// walk reads the folder found as name, resolved to dir, whose folders'
// data files set groups. A folder below the insights folder that holds an
// index.md is a page bundle, as in Hugo: the index is the post, and
// everything else in it belongs to the post.
func (w *walker) walk(name, dir string, depth int, groups []string) {
	w.visited[dir] = name
	list, err := fs.ReadDir(w.fsys, dir)
	if err != nil {
		w.ps.add(w.display(name), 0, "", "%s", unwrapPathError(err))
		return
	}
	entries := make([]entry, 0, len(list))
	bundleIndex, excludedIndex := "", ""
	for _, e := range list {
		entryName := path.Join(name, e.Name())
		// A link may lead to a folder: a folder's pattern keeps it out
		// before it is followed.
		if pattern, ok := excludedBy(w.exclude, w.relative(entryName), e.IsDir() || e.Type()&fs.ModeSymlink != 0); ok {
			w.skip(entryName, "excluded ("+pattern+")")
			if !e.IsDir() && isMarkdown(e.Name()) {
				// An excluded post stays off every surface, its page too.
				s := &w.skipped[len(w.skipped)-1]
				s.Slug, s.dateISO = NameSlug(strings.TrimSuffix(e.Name(), path.Ext(e.Name())))
				if !ValidSlug(s.Slug) {
					s.Slug, s.dateISO = "", ""
				}
			}
			if depth > 0 && isIndexFile(e.Name()) && !e.IsDir() {
				excludedIndex = entryName
			}
			continue
		}
		en, ok := w.entry(name, dir, e)
		if !ok {
			continue
		}
		entries = append(entries, en)
		if depth > 0 && en.mode.IsRegular() && bundleIndex == "" && isIndexFile(e.Name()) {
			bundleIndex = en.name
		}
	}
	if bundleIndex == "" {
		// A bundle whose post is excluded is still a bundle: its other
		// files are not posts.
		bundleIndex = excludedIndex
	}
	folder := path.Base(name)
	if depth == 0 {
		folder = filepath.Base(w.display(name)) // the posts folder's own name
	}
	for _, en := range entries {
		if en.mode.IsRegular() && isDataFile(folder, path.Base(en.name)) {
			if data, _, err := readRegular(w.fsys, en.path); err == nil {
				groups = append(slices.Clip(groups), dataFileTags(en.name, data)...)
				w.eleventy = true
			}
		}
	}
	for _, en := range entries {
		base := path.Base(en.name)
		switch {
		case bundleIndex == en.name:
			w.files = append(w.files, postFile{path: en.path, name: w.display(en.name), base: path.Base(name), bundle: true, groups: groups})
		case bundleIndex != "":
			w.skip(en.name, "belongs to the page bundle "+w.display(bundleIndex))
		case en.mode.IsDir():
			if seen, ok := w.visited[en.path]; ok {
				w.skip(en.name, "same folder as "+w.display(seen))
				continue
			}
			w.walk(en.name, en.path, depth+1, groups)
		case !en.mode.IsRegular():
			w.skip(en.name, irregular(en.mode))
		case !isMarkdown(base):
			if strings.EqualFold(path.Ext(base), ".mdx") {
				w.skip(en.name, "MDX is not read, only .md and .markdown")
			} else {
				w.skip(en.name, "not Markdown")
			}
		case depth == 0 && strings.EqualFold(strings.TrimSuffix(base, path.Ext(base)), "index"):
			w.skip(en.name, "index page of the insights folder, not a post")
		default:
			w.files = append(w.files, postFile{path: en.path, name: w.display(en.name), base: strings.TrimSuffix(base, path.Ext(base)), groups: groups})
		}
	}
}

// isIndexFile reports whether a file is named as the post of a page bundle.
func isIndexFile(name string) bool {
	name = strings.ToLower(name)
	return name == "index.md" || name == "index.markdown"
}

// relative returns the path of name under the insights folder.
func (w *walker) relative(name string) string {
	if w.root == "." {
		return name
	}
	return strings.TrimPrefix(name, w.root+"/")
}

// entry resolves one directory entry. Hidden files, files whose name
// begins with "_", and links that cannot be followed are reported and
// passed over.
func (w *walker) entry(dirName, dir string, e fs.DirEntry) (entry, bool) {
	name := path.Join(dirName, e.Name())
	switch base := e.Name(); {
	case strings.HasPrefix(base, "."):
		w.skip(name, "hidden")
		return entry{}, false
	case strings.EqualFold(base, "_index.md"), strings.EqualFold(base, "_index.markdown"):
		w.skip(name, "section page (_index), not a post")
		w.hugo = true
		return entry{}, false
	case strings.HasPrefix(base, "_"):
		w.skip(name, "name begins with _")
		return entry{}, false
	}
	en := entry{name: name, path: path.Join(dir, e.Name()), mode: e.Type()}
	if en.mode&fs.ModeSymlink == 0 {
		return en, true
	}
	resolved, err := w.resolve(en.path)
	if err != nil {
		w.ps.add(w.display(name), 0, "", "%s", err)
		return entry{}, false
	}
	info, err := fs.Lstat(w.fsys, resolved)
	if err != nil {
		w.ps.add(w.display(name), 0, "", "%s", unwrapPathError(err))
		return entry{}, false
	}
	en.path, en.mode = resolved, info.Mode().Type()
	return en, true
}

// exists reports whether the folder name of t exists.
func (t tree) exists(name string) bool {
	resolved, err := t.resolve(name)
	if err != nil {
		return false
	}
	info, err := fs.Stat(t.fsys, resolved)
	return err == nil && info.IsDir()
}
