package discovery

import (
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/handlers"
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
}

// startWatching watches the content folders (and every folder below them)
// for the life of this handler's config.
func (h *Handler) startWatching() error {
	events, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	cw := &contentWatcher{events: events, done: make(chan struct{})}
	for _, root := range []string{h.Content, h.Insights} {
		if root == "" {
			continue
		}
		if err := addFolders(events, root); err != nil {
			_ = events.Close()
			return err
		}
	}
	h.watcher = cw
	cw.wg.Go(func() { h.watch(cw) })
	return nil
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

// watch reloads the content after each quiet spell that follows changes,
// or watchMaxWait after the first change not yet read, whichever comes
// first, until the watcher stops.
func (h *Handler) watch(cw *contentWatcher) {
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
			h.logger.Warn("watching the content", zap.Error(err))
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
			h.reloadContent()
		}
	}
}

// reloadContent reads the content again and, when it is valid, swaps in a
// service built from it; in-flight requests finish on the old one.
func (h *Handler) reloadContent() {
	site, err := h.loadContent()
	if err != nil {
		h.logger.Warn("content changed but does not load; the previous content keeps serving", zap.Error(err))
		return
	}
	cfg := h.serviceConfig
	cfg.Site = h.matchedToSitemap(site)
	service, err := handlers.New(cfg)
	if err != nil {
		h.logger.Warn("content changed but does not render; the previous content keeps serving", zap.Error(err))
		return
	}
	h.service.Store(service)
	h.logger.Info("content reloaded", zap.String("content", h.Content), zap.Int("insights", len(site.Insights)))
}

// stop ends the watching and waits for a reload in progress.
func (cw *contentWatcher) stop() {
	close(cw.done)
	_ = cw.events.Close()
	cw.wg.Wait()
}
