package content

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// problem is one thing wrong in one file: "insights/x.md:4: date: ...".
type problem struct {
	file  string // as the user knows it, such as "insights/x.md"
	line  int    // 1-based line in the file; 0 when no one line is at fault
	field string // the key at fault, or "" for the file as a whole
	msg   string
}

func (p *problem) Error() string {
	var b strings.Builder
	b.WriteString(p.file)
	if p.line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.line))
	}
	b.WriteString(": ")
	if p.field != "" {
		b.WriteString(p.field)
		b.WriteString(": ")
	}
	b.WriteString(p.msg)
	return b.String()
}

// problems collects every problem of a load, so that one pass reports them
// all instead of one per attempt.
type problems []*problem

func (ps *problems) add(file string, line int, field, format string, args ...any) {
	*ps = append(*ps, &problem{file: file, line: line, field: field, msg: fmt.Sprintf(format, args...)})
}

// err joins the problems sorted by file, then line, keeping the order in
// which each file's problems were found otherwise; nil when there are none.
func (ps problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b *problem) int {
		return cmp.Or(strings.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	errs := make([]error, len(sorted))
	for i, p := range sorted {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// validator checks the values of one file, naming the line of each value's
// key when it is known.
type validator struct {
	file  string
	lines map[string]int // field -> line of its key in the file
	ps    *problems
}

// errorf reports a problem of field, at the line of its key or else of the
// nearest key that holds it: a missing siteStructure[0].desc is reported at
// siteStructure[0].
func (v *validator) errorf(field, format string, args ...any) {
	line := 0
	for f := field; line == 0 && f != ""; f = parentField(f) {
		line = v.lines[f]
	}
	v.ps.add(v.file, line, field, format, args...)
}

// parentField returns the field that holds field: "a[0]" for "a[0].b",
// "a" for "a[0]", and "" for a top-level field.
func parentField(field string) string {
	if i := strings.LastIndexAny(field, ".["); i >= 0 {
		return field[:i]
	}
	return ""
}

// text checks that a required value is present and not blank.
func (v *validator) text(field, s string) bool {
	if strings.TrimSpace(s) == "" {
		v.errorf(field, "is required")
		return false
	}
	return true
}
