package configserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// counted is an await for readRefs that counts its calls, runs then at
// the first and answers whole.
func counted(then func(), whole bool) (func() bool, *int) {
	n := new(int)
	return func() bool {
		if *n++; *n == 1 && then != nil {
			then()
		}
		return whole
	}, n
}

// A ref file found empty is being written: once the ref files are whole it
// is read again, and the ref written meanwhile is listed.
func TestAnEmptyRefFileIsReadAgain(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	h := o.commit(map[string]string{"app.yml": "k: 1\n"})
	ref := filepath.Join(o.dir, ".git", "refs", "heads", "master")
	writeFile(t, ref, "")
	await, n := counted(func() { writeFile(t, ref, h.String()+"\n") }, true)
	refs, err := readRefs(o.repo, await)
	if err != nil || *n != 1 {
		t.Fatalf("read after %d waits: %v", *n, err)
	}
	if got := refs[plumbing.ReferenceName("refs/remotes/"+remoteName+"/master")]; got != h {
		t.Errorf("master = %s, want %s (all: %v)", got, h, refs)
	}
}

// A ref file that stays empty is read a bounded number of times, and not
// again once the wait says it is still empty; a repository broken
// otherwise (here, without a HEAD) is read once.
func TestABrokenRepositoryIsNotReadAgainAndAgain(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	h := o.commit(map[string]string{"app.yml": "k: 1\n"})
	ref := filepath.Join(o.dir, ".git", "refs", "heads", "master")
	writeFile(t, ref, "")
	await, n := counted(nil, true)
	if _, err := readRefs(o.repo, await); !errors.Is(err, dotgit.ErrEmptyRefFile) || *n != maxRefReadings-1 {
		t.Errorf("whole, yet empty again: %v after %d waits, want %q after %d", err, *n, dotgit.ErrEmptyRefFile, maxRefReadings-1)
	}
	await, n = counted(nil, false)
	if _, err := readRefs(o.repo, await); !errors.Is(err, dotgit.ErrEmptyRefFile) || *n != 1 {
		t.Errorf("never whole: %v after %d waits, want %q after 1", err, *n, dotgit.ErrEmptyRefFile)
	}
	writeFile(t, ref, h.String()+"\n")
	if err := os.Remove(filepath.Join(o.dir, ".git", "HEAD")); err != nil {
		t.Fatal(err)
	}
	await, n = counted(nil, true)
	if _, err := readRefs(o.repo, await); !errors.Is(err, transport.ErrRepositoryNotFound) || *n != 0 {
		t.Errorf("no HEAD: %v after %d waits, want %q at once", err, *n, transport.ErrRepositoryNotFound)
	}
}
