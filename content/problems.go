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
