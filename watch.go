package discovery

import (
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// watchSettle is how long the content must be quiet after a change before
// it is read again: an editor's save or a site generator's build writes
// many files, and one reload follows them all. watchMaxWait bounds the wait
// from the first change: a writer that never pauses for watchSettle (a
// generator rebuilding in a loop, a sync tool) still gets its content
// reloaded that often.
const (
	watchSettle  = 300 * time.Millisecond
	watchMaxWait = 2 * time.Second
)

// contentWatcher re-reads the content folders when their files change.
type contentWatcher struct {
	events *fsnotify.Watcher
	done   chan struct{}
	wg     sync.WaitGroup
	logger *zap.Logger
	// reload is called once the changes have settled.
	reload func()
}

// watchContent watches the content folders, roots (and every folder below
// them), for the life of this handler's config, calling reload after changes.
func watchContent(roots []string, logger *zap.Logger, reload func()) (*contentWatcher, error) {
	events, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	cw := &contentWatcher{events: events, done: make(chan struct{}), logger: logger, reload: reload}
	for _, root := range roots {
		if root == "" {
			continue
		}
		if err := addFolders(events, root); err != nil {
			_ = events.Close()
			return nil, err
		}
	}
	cw.wg.Go(cw.run)
	return cw, nil
}

// addFolders watches root and every folder below it.
func addFolders(events *fsnotify.Watcher, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return events.Add(path)
	})
}

// run reloads the content after each quiet spell that follows changes,
// or watchMaxWait after the first change not yet read, whichever comes
// first, until the watcher stops.
func (cw *contentWatcher) run() {
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var firstChange time.Time // zero while every change has been read
	for {
		select {
		case <-cw.done:
			return
		case err, ok := <-cw.events.Errors:
			if !ok {
				return
			}
			cw.logger.Warn("watching the content", zap.Error(err))
		case ev, ok := <-cw.events.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				_ = addFolders(cw.events, ev.Name) // a new folder of posts
			}
			now := time.Now()
			if firstChange.IsZero() {
				firstChange = now
			}
			settle.Reset(min(watchSettle, firstChange.Add(watchMaxWait).Sub(now)))
		case <-settle.C:
			firstChange = time.Time{}
			cw.reload()
		}
	}
}

// stop ends the watching and waits for a reload in progress.
func (cw *contentWatcher) stop() {
	close(cw.done)
	_ = cw.events.Close()
	cw.wg.Wait()
}
