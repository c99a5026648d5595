package discovery

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPackageDocsNameTheirImports: every package of the module says, in
// its doc comment, what it owns and which of the module's packages it
// imports ("Imports from the module: ..."), and the list is exactly what
// its files import, so that a contributor reads the layout's rules in the
// code and a new import between packages is a decision the doc records.
func TestPackageDocsNameTheirImports(t *testing.T) {
	const module = "github.com/caddy-discovery/caddy-discovery"
	dirs := []string{".", "content"}
	internal, err := filepath.Glob("internal/*")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, internal...)
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		var imports []string
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil {
				docs = append(docs, f.Doc.Text())
			}
			for _, spec := range f.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				if rel, ok := strings.CutPrefix(path, module+"/"); ok && !slices.Contains(imports, rel) {
					imports = append(imports, rel)
				}
			}
		}
		if len(docs) != 1 {
			t.Errorf("%s: %d files with a package doc comment, want one", dir, len(docs))
			continue
		}
		doc := docs[0]
		if !strings.HasPrefix(doc, "Package ") {
			t.Errorf("%s: the package doc does not begin with \"Package\"", dir)
		}
		_, declared, ok := strings.Cut(doc, "Imports from the module: ")
		if !ok {
			t.Errorf("%s: the package doc does not say which of the module's packages it imports", dir)
			continue
		}
		declared, _, _ = strings.Cut(declared, "\n")
		var want []string
		if declared = strings.TrimSuffix(declared, "."); declared != "none" {
			want = strings.Split(declared, ", ")
		}
		slices.Sort(imports)
		if !slices.Equal(imports, want) {
			t.Errorf("%s imports %v from the module; its doc says %v", dir, imports, want)
		}
	}
}

// TestLayoutNamesEveryFile: the Layout table of CONTRIBUTING.md names
// every Go file of the root, internal/handlers, internal/mcp, internal/view, internal/catalog, internal/portal, internal/pages,
// internal/wire, internal/site and internal/sitefacts (by name, or by a pattern such as portal*.go), the
// packages whose rows list their files,
// and every Go file it names exists, so that the table follows the code
// as files come and go.
func TestLayoutNamesEveryFile(t *testing.T) {
	guide, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, _ := strings.Cut(string(guide), "\n## Layout\n")
	layout, _, _ = strings.Cut(layout, "\n## ")
	var named []string
	for _, field := range strings.Split(layout, "`")[1:] {
		if strings.HasSuffix(field, ".go") && !strings.ContainsAny(field, " /") {
			named = append(named, field)
		}
	}
	if len(named) < 20 {
		t.Fatalf("the Layout section names %d Go files: %v", len(named), named)
	}
	var files []string
	for _, dir := range []string{".", "internal/handlers", "internal/mcp", "internal/view", "internal/catalog", "internal/portal", "internal/pages", "internal/wire", "internal/site", "internal/sitefacts"} {
		all, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range all {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, filepath.Base(f))
			}
		}
	}
	for _, f := range files {
		if !slices.ContainsFunc(named, func(n string) bool { ok, _ := filepath.Match(n, f); return ok }) {
			t.Errorf("the Layout table does not name %s", f)
		}
	}
	for _, n := range named {
		matches, err := filepath.Glob(filepath.Join("*", n))
		more, _ := filepath.Glob(filepath.Join("*", "*", n))
		root, _ := filepath.Glob(n)
		if err != nil || len(matches)+len(more)+len(root) == 0 {
			t.Errorf("the Layout table names %s, which no directory holds", n)
		}
	}
}

// TestLayoutImportsRunDown: in the Layout table of CONTRIBUTING.md, every
// package the module's Go code imports sits below the package importing
// it, so that the imports run one way, down the table, as it says.
func TestLayoutImportsRunDown(t *testing.T) {
	const module = "github.com/caddy-discovery/caddy-discovery"
	guide, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, _ := strings.Cut(string(guide), "\n## Layout\n")
	layout, _, _ = strings.Cut(layout, "\n## ")
	row := make(map[string]int) // a package's directory, "." for the root
	for _, line := range strings.Split(layout, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		dir := strings.Trim(strings.TrimSpace(cells[1]), "`")
		dir = strings.TrimSuffix(strings.TrimSuffix(dir, " (root)"), "/")
		dir = strings.Trim(dir, "`")
		row[dir] = len(row)
	}
	dirs := []string{".", "cmd/caddy", "content"}
	internal, err := filepath.Glob("internal/*")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, internal...)
	for _, dir := range dirs {
		at, ok := row[dir]
		if !ok {
			t.Errorf("the Layout table has no row for %s", dir)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				imported, ok := strings.CutPrefix(path, module)
				if !ok {
					continue
				}
				imported = strings.TrimPrefix(imported, "/")
				if imported == "" {
					imported = "."
				}
				if below, ok := row[imported]; !ok || below <= at {
					t.Errorf("%s imports %s, which the Layout table does not list below it", file, imported)
				}
			}
		}
	}
}

// TestNoPackageHoldsAFifth: no package of the module holds more than a
// fifth of its Go code (the lines of its files but tests, caddy_test/ and
// tools/ being modules of their own), so that each is one concept a
// reader can hold, and a package that grows past it is split along its
// concepts rather than left to grow.
func TestNoPackageHoldsAFifth(t *testing.T) {
	lines := make(map[string]int) // a package's directory, "." for the root
	total := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path == ".":
			case path == "caddy_test", path == "tools", name == "testdata", name == "node_modules", strings.HasPrefix(name, "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := bytes.Count(src, []byte("\n"))
		lines[filepath.Dir(path)] += n
		total += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 20 {
		t.Fatalf("%d packages found: %v", len(lines), lines)
	}
	for dir, n := range lines {
		if n*5 > total {
			t.Errorf("%s holds %d of the module's %d lines of Go, more than a fifth (%d)", dir, n, total, total/5)
		}
	}
}
