package content

import (
	"errors"
	"io/fs"
)

// problemsOf joins err with the problems of every post skipped for them,
// as the loader reported them before a post's problems stopped being
// errors of the whole load: the tests of the messages use it.
func problemsOf(site *Site, err error) (*Site, error) {
	if err != nil || site == nil {
		return site, err
	}
	var errs []error
	for _, skip := range site.Skipped {
		if skip.Err != nil {
			errs = append(errs, skip.Err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return site, nil
}

// loadStrict is Load, failing on any post skipped for its problems.
func loadStrict(fsys fs.FS) (*Site, error) { return problemsOf(Load(fsys)) }
