package configserver

import (
	"context"
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
