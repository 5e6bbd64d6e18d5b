package configserver

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// A push rewrites a ref file in place (go-git truncates it, then writes the
// new hash), so a reader can find it empty for a moment. While another
// branch is written over and over, as the suite's scenarios push to their own
// branches side by side, every request made after a commit on master must
// still serve that commit, never the last copy kept for outages.
func TestCommitVisibleWhileAnotherBranchIsRewritten(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	s := newServer(t, Options{URI: o.dir})
	first := o.commit(map[string]string{"other.yml": "k: 1\n"})
	second := o.commit(map[string]string{"other.yml": "k: 2\n"})
	busy := plumbing.NewBranchReferenceName("busy")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			h := first
			if i%2 == 1 {
				h = second
			}
			if err := o.repo.Storer.SetReference(plumbing.NewHashReference(busy, h)); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond) // a push every millisecond, faster than any the suite makes
		}
	})
	defer wg.Wait()
	defer stop()
	for i := range 60 {
		h := o.commit(map[string]string{"app.yml": "k: " + string(rune('a'+i%26)) + "\n"})
		if e := getEnv(t, s, "/app/default"); e.Version != h.String() {
			t.Fatalf("commit %d: served %s, want %s", i, e.Version, h)
		}
	}
}

// git moves a ref by writing a lock file beside it and renaming it over the
// ref, and go-git (through go-billy) reads none of a folder's refs when one
// of its files goes while it lists them: once in 18 runs of the suite, the
// server answered "No such label: master". While lock files come and go
// beside master and another branch moves (each move has the refs read
// again), every request for master must find it.
func TestMasterIsFoundWhileLockFilesComeAndGo(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	s := newServer(t, Options{URI: o.dir})
	first := o.commit(map[string]string{"other.yml": "k: 1\n"})
	second := o.commit(map[string]string{"other.yml": "k: 2\n"})
	heads := filepath.Join(o.dir, ".git", "refs", "heads")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		lock := filepath.Join(heads, "busy.lock")
		for ctx.Err() == nil {
			if err := os.WriteFile(lock, []byte(first.String()+"\n"), 0o644); err != nil {
				t.Error(err)
				return
			}
			_ = os.Remove(lock)
		}
	})
	wg.Go(func() {
		busy := plumbing.NewBranchReferenceName("busy")
		for i := 0; ctx.Err() == nil; i++ {
			h := []plumbing.Hash{first, second}[i%2]
			if err := o.repo.Storer.SetReference(plumbing.NewHashReference(busy, h)); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	defer wg.Wait()
	defer stop()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		if rec := get(s, "/app/default"); rec.Code != http.StatusOK {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
