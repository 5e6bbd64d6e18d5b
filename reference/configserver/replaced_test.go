package configserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A repository re-created (or migrated) at the same URI has a history
// unrelated to the local copy's: the server must follow it, both while
// running and when restarted on the same base directory.
func TestRepositoryReplacedByUnrelatedHistory(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: old\n"})
	o.commit(map[string]string{"app.yml": "k: older\n"})
	base := filepath.Join(t.TempDir(), "base")
	s := newServer(t, Options{URI: o.dir, BaseDir: base})
	if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "older" {
		t.Fatalf("before: %+v", e)
	}

	recreate := func(content string) string {
		t.Helper()
		if err := os.RemoveAll(o.dir); err != nil {
			t.Fatal(err)
		}
		fresh := newOrigin(t, map[string]string{"app.yml": content})
		head, err := fresh.repo.Head()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(fresh.dir, o.dir); err != nil {
			t.Fatal(err)
		}
		return head.Hash().String()
	}

	h := recreate("k: new\n")
	if e := getEnv(t, s, "/app/default"); e.Version != h || e.PropertySources[0].Source["k"] != "new" {
		t.Fatalf("after re-creating the repository: %+v", e)
	}

	// Restarted on the same base directory, after another re-creation.
	s.Close()
	h = recreate("k: newer\n")
	s2 := newServer(t, Options{URI: o.dir, BaseDir: base})
	if e := getEnv(t, s2, "/app/default"); e.Version != h || e.PropertySources[0].Source["k"] != "newer" {
		t.Fatalf("after a restart on the same base directory: %+v", e)
	}
}

// A linked work tree (git worktree add: a .git file naming a git directory
// whose refs and objects are the main one's) is served as its repository.
func TestLinkedWorkTree(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: one\n"})
	linked := filepath.Join(t.TempDir(), "linked")
	if out, err := exec.Command("git", "-C", o.dir, "worktree", "add", "-q", "-b", "other", linked).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v %s", err, out)
	}
	s := newServer(t, Options{URI: linked})
	if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "one" {
		t.Fatalf("first answer: %+v", e)
	}
	h := o.commit(map[string]string{"app.yml": "k: two\n"})
	if e := getEnv(t, s, "/app/default"); e.Version != h.String() || e.PropertySources[0].Source["k"] != "two" {
		t.Fatalf("after a commit: %+v", e)
	}
}
