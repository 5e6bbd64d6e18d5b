package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// workspace is an in-memory clone of the target's configuration repository (a bare one: commits are built
// from objects, gitcommit.go), through which scenarios commit and push their files, branches and tags, as a
// person would with git. Every operation on the remote runs within gitTimeout of the run's context (or of the
// context of the removal that asks), and over http(s) through the steps' own bounded transport
// (gittransport.go).
type workspace struct {
	mu   sync.Mutex // held by the one goroutine that uses the clone
	run  *core.Run
	uri  string // as the target file gives it
	repo *git.Repository
	auth transport.AuthMethod

	queueMu sync.Mutex
	queue   []*change // changes waiting for the clone (submit)
}

// openWorkspace clones the repository. A local repository (a path or a file:// URI) is reached through git's
// own git-upload-pack and git-receive-pack, which go-git's default file transport runs: the steps leave
// go-git's process-wide table of transports as it is (a configuration server in the same process may have
// put its own there), and talk to a local repository as a person's git would.
func openWorkspace(run *core.Run, r target.Repository) (*workspace, error) {
	w := &workspace{run: run, uri: r.URI, auth: authOf(r)}
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return nil, err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{gitURL(r.URI)}}); err != nil {
		return nil, err
	}
	w.repo = repo
	if err := w.fetch(); err != nil {
		return nil, fmt.Errorf("cloning the configuration repository %s: %w", redactedURI(r.URI), err)
	}
	return w, nil
}

// authOf gives http(s) repositories basic authentication; nil lets ssh use its agent.
func authOf(r target.Repository) transport.AuthMethod {
	if r.Username == "" && r.Password == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: r.Username, Password: r.Password}
}

func (w *workspace) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.repo = nil
}

// errClosed is what a removal finds after the end of the suite: nothing can be pushed any more.
var errClosed = errors.New("the clone of the configuration repository is closed")

func (w *workspace) fetch() error { return w.fetchContext(w.run.Context()) }

func (w *workspace) fetchContext(ctx context.Context) error {
	return gitOp(ctx, w.run, "git fetch from", w.uri, func(ctx context.Context) error {
		err := w.repo.FetchContext(ctx, &git.FetchOptions{
			RemoteName: "origin", Auth: w.auth, Force: true, Tags: git.NoTags,
			RefSpecs: []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"},
		})
		if errors.Is(err, git.NoErrAlreadyUpToDate) {
			return nil
		}
		return err
	})
}

// head returns the commit a branch of the remote points at, or a tag's commit, fetched now.
func (w *workspace) head(label string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.fetch(); err != nil {
		return "", err
	}
	h, err := w.resolve(label)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// isAncestor tells whether commit a is b or one of b's ancestors, in what the workspace last fetched.
func (w *workspace) isAncestor(a, b string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ca, err := w.repo.CommitObject(plumbing.NewHash(a))
	if err != nil {
		return false, err
	}
	cb, err := w.repo.CommitObject(plumbing.NewHash(b))
	if err != nil {
		return false, err
	}
	return ca.IsAncestor(cb)
}

// rootFiles lists the files at the root of a branch of the remote, fetched now; ok is false when the repository
// has no such branch.
func (w *workspace) rootFiles(branch string) (names []string, ok bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.fetch(); err != nil {
		return nil, false, err
	}
	ref, err := w.repo.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
	if err != nil {
		return nil, false, nil
	}
	c, err := w.repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, false, fmt.Errorf("reading the head of %s: %w", branch, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, false, fmt.Errorf("reading the tree of %s: %w", branch, err)
	}
	for _, e := range tree.Entries {
		if e.Mode.IsFile() {
			names = append(names, e.Name)
		}
	}
	return names, true, nil
}

func (w *workspace) resolve(label string) (plumbing.Hash, error) {
	if ref, err := w.repo.Reference(plumbing.NewRemoteReferenceName("origin", label), true); err == nil {
		return ref.Hash(), nil
	}
	ref, err := w.repo.Reference(plumbing.NewTagReferenceName(label), true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("the repository has no branch or tag %q", label)
	}
	if tag, err := w.repo.TagObject(ref.Hash()); err == nil {
		return tag.Target, nil
	}
	return ref.Hash(), nil
}

// commitResult is what a commit changed on the remote, for taking it back: whether its push created the
// branch, and what each file it wrote held on the branch before (nil: absent).
type commitResult struct {
	hash    string
	created bool
	before  map[string]*string
}

// retry runs an attempt to push until it does not lose a race with another push (5 attempts), with the
// workspace locked.
func (w *workspace) retry(attempt func() error) error {
	var err error
	for range 5 {
		if w.repo == nil {
			return errClosed
		}
		if err = attempt(); err == nil || !lostRace(err) {
			return err
		}
	}
	return err
}

// lostRace tells a push that another push to the same ref overtook: refused as not a fast-forward, or a ref
// that moved (or was locked) between the advertisement and the update: git's receive-pack answers "failed to
// update ref" when the ref no longer holds the commit the push expected (older versions "failed to lock").
// A ref that fails to update for another reason is retried as well, a bounded number of times.
func lostRace(err error) bool {
	msg := err.Error()
	return errors.Is(err, git.ErrNonFastForwardUpdate) || strings.Contains(msg, "non-fast-forward") ||
		strings.Contains(msg, "failed to lock") || strings.Contains(msg, "cannot lock ref") ||
		strings.Contains(msg, "failed to update ref")
}

// committing explains a failed push to a branch.
func committing(branch string, err error) error {
	if strings.Contains(err.Error(), "branch is currently checked out") {
		// A local repository goes through git's own receive-pack, which will not move a checked-out branch.
		return fmt.Errorf("committing to %q: %w\nThe repository is not bare and has %q checked out: use a bare "+
			"repository, or let pushes move it with git config receive.denyCurrentBranch updateInstead in it", branch, err, branch)
	}
	return fmt.Errorf("committing to %q: %w", branch, err)
}

// deleteRef removes a branch or a tag from the remote (nothing to do when it is gone already), and forgets it
// here.
func (w *workspace) deleteRef(ctx context.Context, ref plumbing.ReferenceName) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.retry(func() error {
		return gitOp(ctx, w.run, "git push to", w.uri, func(ctx context.Context) error {
			err := w.repo.PushContext(ctx, &git.PushOptions{
				RemoteName: "origin", Auth: w.auth, RefSpecs: []config.RefSpec{config.RefSpec(":" + ref.String())},
			})
			if errors.Is(err, git.NoErrAlreadyUpToDate) {
				return nil
			}
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("deleting %s: %w", ref, err)
	}
	local := []plumbing.ReferenceName{ref, plumbing.ReferenceName("refs/tck/" + ref.String())}
	if ref.IsBranch() {
		local = append(local, plumbing.NewRemoteReferenceName("origin", ref.Short()))
	}
	for _, r := range local {
		_ = w.repo.Storer.RemoveReference(r)
	}
	return nil
}

// push sends a commit to a ref of the remote through a local ref of the same name.
func (w *workspace) push(ctx context.Context, hash plumbing.Hash, ref plumbing.ReferenceName) error {
	local := plumbing.ReferenceName("refs/tck/" + ref.String())
	if err := w.repo.Storer.SetReference(plumbing.NewHashReference(local, hash)); err != nil {
		return err
	}
	return gitOp(ctx, w.run, "git push to", w.uri, func(ctx context.Context) error {
		return w.repo.PushContext(ctx, &git.PushOptions{
			RemoteName: "origin", Auth: w.auth,
			RefSpecs: []config.RefSpec{config.RefSpec(local.String() + ":" + ref.String())},
		})
	})
}

// tag creates an annotated tag on the head of a branch and pushes it.
func (w *workspace) tag(name, branch string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.fetch(); err != nil {
		return err
	}
	target, err := w.resolve(branch)
	if err != nil {
		return err
	}
	ref, err := w.repo.CreateTag(name, target, &git.CreateTagOptions{Tagger: signature(), Message: "tck: " + name})
	if err != nil {
		return err
	}
	return gitOp(w.run.Context(), w.run, "git push to", w.uri, func(ctx context.Context) error {
		return w.repo.PushContext(ctx, &git.PushOptions{
			RemoteName: "origin", Auth: w.auth,
			RefSpecs: []config.RefSpec{config.RefSpec(ref.Name().String() + ":" + ref.Name().String())},
		})
	})
}

func signature() *object.Signature {
	return &object.Signature{Name: "fortune-tck", Email: "tck@fortune-tck.invalid", When: time.Now()}
}
