package gateway

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// watcher follows the configuration directory: fsnotify events, plus a
// periodic re-read in case a change was missed (file systems without
// notifications, a replaced directory).
type watcher struct {
	fs *fsnotify.Watcher // nil when notifications are unavailable
}

// watchDir starts watching dir. It runs before the first load, so that no
// change made after the load can go unnoticed.
func (g *Gateway) watchDir() *watcher {
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(g.o.Dir); err != nil {
			_ = w.Close()
		}
	}
	if err != nil {
		g.log.Warn("cannot watch the configuration directory; re-reading it periodically", "every", g.o.Rescan, "err", err)
		return &watcher{}
	}
	return &watcher{fs: w}
}

func (w *watcher) close() {
	if w.fs != nil {
		_ = w.fs.Close()
	}
}

// follow reloads the directory when a manifest in it changes (after
// Options.Debounce without further change, so an editor's burst of writes
// is one reload) and every Options.Rescan, until ctx ends. A reload after
// notifications reads only the files they named; one about the directory
// itself, or notifications lost, read it all, as the re-scan does.
func (g *Gateway) follow(ctx context.Context, w *watcher) {
	defer w.close()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fs != nil {
		events, errs = w.fs.Events, w.fs.Errors
	}
	rescan := time.NewTicker(g.o.Rescan)
	defer rescan.Stop()
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	changed, all := map[string]bool{}, false
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			switch name := filepath.Base(ev.Name); {
			case !ok:
				events = nil
			case ev.Name == g.o.Dir:
				all = true
				debounce.Reset(g.o.Debounce)
			case manifest.IsManifest(name):
				changed[name] = true
				debounce.Reset(g.o.Debounce)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
			} else {
				g.log.Warn("watching the configuration directory", "err", err)
				all = true // a notification may be lost
				debounce.Reset(g.o.Debounce)
			}
		case <-debounce.C:
			if all {
				_ = g.Reload()
			} else {
				_ = g.reloadFiles(slices.Collect(maps.Keys(changed)))
			}
			changed, all = map[string]bool{}, false
		case <-rescan.C:
			_ = g.Reload()
		}
	}
}
