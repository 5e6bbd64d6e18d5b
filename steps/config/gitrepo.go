package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
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

// workspace is an in-memory clone of the target's configuration repository, through which scenarios commit and
// push their files, branches and tags, as a person would with git. Every operation on the remote runs within
// gitTimeout of the run's context (or of the context of the removal that asks), and over http(s) through the
// steps' own bounded transport (gittransport.go).
type workspace struct {
	mu   sync.Mutex
	run  *core.Run
	uri  string // as the target file gives it
	repo *git.Repository
	fs   billy.Filesystem
	auth transport.AuthMethod
}

// openWorkspace clones the repository. A local repository (a path or a file:// URI) is reached through git's
// own git-upload-pack and git-receive-pack, which go-git's default file transport runs: the steps leave
// go-git's process-wide table of transports as it is (a configuration server in the same process may have
// put its own there), and talk to a local repository as a person's git would.
func openWorkspace(run *core.Run, r target.Repository) (*workspace, error) {
	w := &workspace{run: run, uri: r.URI, fs: memfs.New(), auth: authOf(r)}
	repo, err := git.Init(memory.NewStorage(), w.fs)
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

// commit writes files (a nil content deletes the file) on a branch of the remote and pushes, creating the
// branch from master when it does not exist yet. A push that lost a race is retried on the new head.
func (w *workspace) commit(branch, message string, files map[string]*string) (commitResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var res commitResult
	err := w.retry(func() (err error) {
		res, err = w.tryCommit(branch, message, files)
		return err
	})
	if err != nil {
		return commitResult{}, committing(branch, err)
	}
	return res, nil
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
// that moved (or was locked) between the advertisement and the update.
func lostRace(err error) bool {
	msg := err.Error()
	return errors.Is(err, git.ErrNonFastForwardUpdate) || strings.Contains(msg, "non-fast-forward") ||
		strings.Contains(msg, "failed to lock") || strings.Contains(msg, "cannot lock ref")
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

func (w *workspace) tryCommit(branch, message string, files map[string]*string) (commitResult, error) {
	if err := w.fetch(); err != nil {
		return commitResult{}, err
	}
	res := commitResult{before: map[string]*string{}}
	head, err := w.repo.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
	res.created = err != nil
	for name := range files {
		if !res.created {
			if res.before[name], err = w.fileAt(head.Hash(), name); err != nil {
				return commitResult{}, err
			}
		} else {
			res.before[name] = nil
		}
	}
	base, err := w.resolve(branch)
	if err != nil {
		base, err = w.resolve("master")
	}
	wt, err2 := w.repo.Worktree()
	if err2 != nil {
		return commitResult{}, err2
	}
	if err == nil {
		err = w.checkout(wt, base)
	} else {
		// An empty repository: the first commit starts the branch.
		err = nil
	}
	if err != nil {
		return commitResult{}, err
	}
	if err := writeFiles(w.fs, wt, files); err != nil {
		return commitResult{}, err
	}
	hash, err := wt.Commit(message, &git.CommitOptions{Author: signature(), AllowEmptyCommits: true})
	if err != nil {
		return commitResult{}, err
	}
	if err := w.push(w.run.Context(), hash, plumbing.NewBranchReferenceName(branch)); err != nil {
		return commitResult{}, err
	}
	res.hash = hash.String()
	return res, nil
}

// fileAt is the content of a file in a commit; nil when the commit has no such file.
func (w *workspace) fileAt(commit plumbing.Hash, name string) (*string, error) {
	c, err := w.repo.CommitObject(commit)
	if err != nil {
		return nil, err
	}
	f, err := c.File(name)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	content, err := f.Contents()
	if err != nil {
		return nil, err
	}
	return &content, nil
}

// restore puts files of a branch of the remote back as they were (nil: absent) with one commit, made only
// when one of them differs; a branch that is gone needs nothing.
func (w *workspace) restore(ctx context.Context, branch, message string, files map[string]*string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.retry(func() error { return w.tryRestore(ctx, branch, message, files) })
	if err != nil {
		return committing(branch, err)
	}
	return nil
}

func (w *workspace) tryRestore(ctx context.Context, branch, message string, files map[string]*string) error {
	if err := w.fetchContext(ctx); err != nil {
		return err
	}
	head, err := w.repo.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
	if err != nil {
		return nil
	}
	changes := map[string]*string{}
	for name, want := range files {
		have, err := w.fileAt(head.Hash(), name)
		if err != nil {
			return err
		}
		if (have == nil) != (want == nil) || (have != nil && *have != *want) {
			changes[name] = want
		}
	}
	if len(changes) == 0 {
		return nil
	}
	wt, err := w.repo.Worktree()
	if err != nil {
		return err
	}
	if err := w.checkout(wt, head.Hash()); err != nil {
		return err
	}
	if err := writeFiles(w.fs, wt, changes); err != nil {
		return err
	}
	hash, err := wt.Commit(message, &git.CommitOptions{Author: signature()})
	if err != nil {
		return err
	}
	return w.push(ctx, hash, plumbing.NewBranchReferenceName(branch))
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

// checkout makes the worktree hold a commit's files. The worktree is emptied first: go-git cannot check out a
// commit whose tree is empty (a master whose files were all taken back) over a worktree that holds files.
func (w *workspace) checkout(wt *git.Worktree, commit plumbing.Hash) error {
	entries, err := w.fs.ReadDir("/")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := util.RemoveAll(w.fs, e.Name()); err != nil {
			return err
		}
	}
	return wt.Checkout(&git.CheckoutOptions{Hash: commit, Force: true})
}

func writeFiles(fs billy.Filesystem, wt *git.Worktree, files map[string]*string) error {
	for name, content := range files {
		if content == nil {
			if _, err := wt.Remove(name); err != nil {
				return fmt.Errorf("removing %s: %w", name, err)
			}
			continue
		}
		f, err := fs.Create(name)
		if err != nil {
			return err
		}
		if _, err := f.Write([]byte(*content)); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if _, err := wt.Add(name); err != nil {
			return err
		}
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
