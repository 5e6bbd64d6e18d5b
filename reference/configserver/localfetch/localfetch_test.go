package localfetch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

var specs = []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}

// commit writes name with content in repo's work tree and commits it.
func commit(t *testing.T, repo *git.Repository, dir, name, content string) plumbing.Hash {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(name); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	h, err := wt.Commit(content, &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func initRepo(t *testing.T, dir string) *git.Repository {
	t.Helper()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Master}})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// refsOf lists dst's refs under refs/remotes and refs/tags.
func refsOf(t *testing.T, dst *git.Repository) map[string]plumbing.Hash {
	t.Helper()
	got := map[string]plumbing.Hash{}
	iter, err := dst.References()
	if err != nil {
		t.Fatal(err)
	}
	_ = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Name().IsRemote() || r.Name().IsTag() {
			got[r.Name().String()] = r.Hash()
		}
		return nil
	})
	return got
}

// A first fetch brings every branch and tag with what they need; later
// ones what changed, a deleted branch pruned; a repository replaced by an
// unrelated history is fetched whole (its new history shares nothing
// with what dst holds); a missing one is an error, and prunes nothing.
func TestFetch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "src")
	src := initRepo(t, dir)
	first := commit(t, src, dir, "a.yml", "a: 1\n")
	if err := src.Storer.SetReference(plumbing.NewHashReference("refs/heads/gone", first)); err != nil {
		t.Fatal(err)
	}
	tag, err := src.CreateTag("v1", first, &git.CreateTagOptions{Message: "v1", Tagger: &object.Signature{Name: "t", Email: "t@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	dst, err := git.PlainInit(filepath.Join(t.TempDir(), "dst"), true)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, want map[string]plumbing.Hash) {
		t.Helper()
		if err := Fetch(context.Background(), dst.Storer, dir, specs); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		got := refsOf(t, dst)
		if len(got) != len(want) {
			t.Errorf("%s: refs %v, want %v", step, got, want)
		}
		for name, h := range want {
			if got[name] != h {
				t.Errorf("%s: %s is %s, want %s", step, name, got[name], h)
			}
			if c, err := dst.CommitObject(h); err == nil {
				if _, err := c.Tree(); err != nil {
					t.Errorf("%s: the tree of %s: %v", step, name, err)
				}
			} else if _, err := dst.TagObject(h); err != nil {
				t.Errorf("%s: %s names %s, which dst lacks: %v", step, name, h, err)
			}
		}
	}
	check("first", map[string]plumbing.Hash{"refs/remotes/origin/master": first, "refs/remotes/origin/gone": first, "refs/tags/v1": tag.Hash()})

	second := commit(t, src, dir, "a.yml", "a: 2\n")
	if err := src.Storer.RemoveReference("refs/heads/gone"); err != nil {
		t.Fatal(err)
	}
	check("a commit, a branch deleted", map[string]plumbing.Hash{"refs/remotes/origin/master": second, "refs/tags/v1": tag.Hash()})

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	src = initRepo(t, dir)
	unrelated := commit(t, src, dir, "b.yml", "b: 1\n")
	check("an unrelated history", map[string]plumbing.Hash{"refs/remotes/origin/master": unrelated})

	if err := Fetch(context.Background(), dst.Storer, filepath.Join(t.TempDir(), "missing"), specs); err == nil {
		t.Error("a missing repository: no error")
	}
	if got := refsOf(t, dst); len(got) != 1 || got["refs/remotes/origin/master"] != unrelated {
		t.Errorf("a missing repository changed the refs: %v", got)
	}
}
