package config

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commits from scenarios that run at the same time go through the one clone together (group commit): a scenario
// queues its change and waits for the workspace; whoever holds it next fetches once, builds a commit for each
// change queued by then on top of the one before it on the same branch, in the order they came, and pushes
// each branch's last commit once. Each change still gets a commit of its own, with its own message, parent and
// record of what its files held before, as if the changes had been pushed one after the other; eight
// scenarios writing on master cost one fetch and one push instead of eight of each. The commits are built
// from git objects (a blob per file, the parent's tree with the changed entries, the commit), with no
// worktree to check out.

// change is what one scenario asks of the repository: files written on a branch, or put back as they were.
type change struct {
	ctx     context.Context
	branch  string
	message string
	files   map[string]*string // a nil content removes the file
	// restore: commit only the files that differ from the branch's head, and nothing on a branch that is gone;
	// otherwise always commit, creating the branch from master when it does not exist.
	restore bool

	// What became of it: set by whoever pushed it, with the workspace locked.
	done bool
	res  commitResult
	err  error
}

// pushAttempts bounds how often a change is built again on a head another push moved; the pause between
// attempts starts at firstBackoff, doubles each time, and is jittered so that two runs sharing a repository
// do not collide again.
const (
	pushAttempts = 8
	firstBackoff = 20 * time.Millisecond
)

// commit writes files (a nil content deletes the file) on a branch of the remote and pushes, creating the
// branch from master when it does not exist yet. A push that lost a race is built again on the new head.
func (w *workspace) commit(branch, message string, files map[string]*string) (commitResult, error) {
	c := &change{ctx: w.run.Context(), branch: branch, message: message, files: files}
	if w.submit(c); c.err != nil {
		return commitResult{}, committing(branch, c.err)
	}
	return c.res, nil
}

// restore puts files of a branch of the remote back as they were (nil: absent) with one commit, made only
// when one of them differs; a branch that is gone needs nothing.
func (w *workspace) restore(ctx context.Context, branch, message string, files map[string]*string) error {
	c := &change{ctx: ctx, branch: branch, message: message, files: files, restore: true}
	if w.submit(c); c.err != nil {
		return committing(branch, c.err)
	}
	return nil
}

// submit queues a change and returns once it is pushed or has failed: pushed by this goroutine, with every
// other change queued by then, or by another one that took it with its own.
func (w *workspace) submit(c *change) {
	w.queueMu.Lock()
	w.queue = append(w.queue, c)
	w.queueMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if c.done {
		return
	}
	w.queueMu.Lock()
	batch := w.queue
	w.queue = nil
	w.queueMu.Unlock()
	w.pushChanges(batch)
}

func (c *change) finish(res commitResult, err error) {
	c.done, c.res, c.err = true, res, err
}

// pushChanges fetches, then builds and pushes the changes branch by branch; the changes of a branch whose
// push lost a race with another push are built again on the new head after a pause.
func (w *workspace) pushChanges(batch []*change) {
	ctx, stop := batchContext(batch)
	defer stop()
	pause := firstBackoff
	for attempt := 1; len(batch) > 0; attempt++ {
		if w.repo == nil {
			finishAll(batch, errClosed)
			return
		}
		if err := w.fetchContext(ctx); err != nil {
			finishAll(batch, err)
			return
		}
		var again []*change
		for _, chain := range byBranch(batch) {
			built, err := w.pushChain(ctx, chain)
			if err != nil && lostRace(err) && attempt < pushAttempts {
				again = append(again, built...)
				continue
			}
			for _, c := range built {
				c.finish(c.res, err)
			}
		}
		if batch = again; len(batch) > 0 {
			select {
			case <-time.After(pause/2 + rand.N(pause)):
			case <-ctx.Done():
			}
			pause *= 2
		}
	}
}

func finishAll(batch []*change, err error) {
	for _, c := range batch {
		c.finish(commitResult{}, err)
	}
}

// batchContext ends when the contexts of all the changes have ended: the batch's git operations stop once
// nobody waits for them any more, and not while one of them still does.
func batchContext(batch []*change) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
	var left atomic.Int32
	left.Store(int32(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, c := range batch {
		stops[i] = context.AfterFunc(c.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// byBranch splits changes by branch, each branch's in the order they came.
func byBranch(batch []*change) [][]*change {
	var chains [][]*change
	for _, c := range batch {
		i := slices.IndexFunc(chains, func(chain []*change) bool { return chain[0].branch == c.branch })
		if i < 0 {
			chains = append(chains, []*change{c})
		} else {
			chains[i] = append(chains[i], c)
		}
	}
	return chains
}

// pushChain builds a commit for each change of one branch, each on the one before, on the head just fetched,
// and pushes the last. It finishes the changes that need no push (a restore with nothing to do, a change
// that cannot be built, a context that ended) and returns the others, whose fate is the push's error.
func (w *workspace) pushChain(ctx context.Context, chain []*change) (built []*change, err error) {
	branch := chain[0].branch
	tip, exists := w.remoteHead(branch)
	if !exists {
		tip, _ = w.remoteHead("master") // zero in an empty repository: the first commit starts the branch
	}
	for _, c := range chain {
		if err := c.ctx.Err(); err != nil {
			c.finish(commitResult{}, err)
			continue
		}
		if c.restore && !exists {
			c.finish(commitResult{}, nil)
			continue
		}
		next, res, err := w.build(tip, exists, c)
		if err != nil || next == tip {
			c.finish(res, err)
			continue
		}
		c.res, tip, exists = res, next, true
		built = append(built, c)
	}
	if len(built) == 0 {
		return nil, nil
	}
	return built, w.push(ctx, tip, plumbing.NewBranchReferenceName(branch))
}

// remoteHead is the commit a branch of the remote pointed at when last fetched.
func (w *workspace) remoteHead(branch string) (plumbing.Hash, bool) {
	ref, err := w.repo.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	return ref.Hash(), true
}

// build stores the commit of one change on parent (zero: none), onBranch telling whether parent is the
// branch's own head or master's, for a branch the change creates. It returns parent itself for a restore
// that finds every file as it should be.
func (w *workspace) build(parent plumbing.Hash, onBranch bool, c *change) (plumbing.Hash, commitResult, error) {
	tree, err := w.treeOf(parent)
	if err != nil {
		return parent, commitResult{}, err
	}
	res := commitResult{created: !onBranch, before: map[string]*string{}}
	changes := map[string]*string{}
	for name, want := range c.files {
		if err := checkFileName(name); err != nil {
			return parent, commitResult{}, err
		}
		have, err := fileIn(tree, name)
		if err != nil {
			return parent, commitResult{}, fmt.Errorf("reading %s: %w", name, err)
		}
		if onBranch {
			res.before[name] = have
		} else {
			res.before[name] = nil
		}
		switch {
		case c.restore && (have == nil) == (want == nil) && (have == nil || *have == *want):
		case want == nil && have == nil:
			return parent, commitResult{}, fmt.Errorf("removing %s: %s holds no such file", name, c.branch)
		default:
			changes[name] = want
		}
	}
	if c.restore && len(changes) == 0 {
		return parent, commitResult{}, nil
	}
	treeHash, _, err := w.storeTree(tree, changes)
	if err != nil {
		return parent, commitResult{}, err
	}
	sig := signature()
	commit := &object.Commit{Author: *sig, Committer: *sig, Message: c.message, TreeHash: treeHash}
	if !parent.IsZero() {
		commit.ParentHashes = []plumbing.Hash{parent}
	}
	hash, err := w.store(commit.Encode)
	res.hash = hash.String()
	return hash, res, err
}

// treeOf is the tree of a commit; an empty one for no commit.
func (w *workspace) treeOf(commit plumbing.Hash) (*object.Tree, error) {
	if commit.IsZero() {
		return &object.Tree{}, nil
	}
	c, err := w.repo.CommitObject(commit)
	if err != nil {
		return nil, err
	}
	return c.Tree()
}

// fileIn is the content of a file in a tree; nil when the tree has no such file.
func fileIn(tree *object.Tree, name string) (*string, error) {
	if len(tree.Entries) == 0 {
		return nil, nil
	}
	f, err := tree.File(name)
	if err == object.ErrFileNotFound {
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

// checkFileName refuses a path git cannot hold as written: empty, absolute, or with an empty, "." or ".."
// part.
func checkFileName(name string) error {
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%q is no file name of a repository: give a path such as app.yml or folder/app.yml", name)
		}
	}
	return nil
}

// storeTree stores tree with files written (nil: removed) and returns its hash, and whether it is empty.
// A folder's tree is made when its first file comes and dropped when its last one goes.
func (w *workspace) storeTree(tree *object.Tree, files map[string]*string) (plumbing.Hash, bool, error) {
	entries := map[string]object.TreeEntry{}
	for _, e := range tree.Entries {
		entries[e.Name] = e
	}
	inFolders := map[string]map[string]*string{}
	for path, content := range files {
		if folder, rest, nested := strings.Cut(path, "/"); nested {
			if inFolders[folder] == nil {
				inFolders[folder] = map[string]*string{}
			}
			inFolders[folder][rest] = content
			continue
		}
		if content == nil {
			delete(entries, path)
			continue
		}
		blob, err := w.store(blobOf(*content))
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		entries[path] = object.TreeEntry{Name: path, Mode: filemode.Regular, Hash: blob}
	}
	for folder, files := range inFolders {
		sub := &object.Tree{}
		if e, ok := entries[folder]; ok && e.Mode == filemode.Dir {
			var err error
			if sub, err = w.repo.TreeObject(e.Hash); err != nil {
				return plumbing.ZeroHash, false, err
			}
		}
		hash, empty, err := w.storeTree(sub, files)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if empty {
			delete(entries, folder)
		} else {
			entries[folder] = object.TreeEntry{Name: folder, Mode: filemode.Dir, Hash: hash}
		}
	}
	sorted := &object.Tree{}
	for _, e := range entries {
		sorted.Entries = append(sorted.Entries, e)
	}
	// git orders a tree's entries by name, a folder's name read as if it ended with "/".
	slices.SortFunc(sorted.Entries, func(a, b object.TreeEntry) int { return strings.Compare(gitOrder(a), gitOrder(b)) })
	hash, err := w.store(sorted.Encode)
	return hash, len(sorted.Entries) == 0, err
}

func gitOrder(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// blobOf encodes a file's content as a blob.
func blobOf(content string) func(plumbing.EncodedObject) error {
	return func(o plumbing.EncodedObject) error {
		o.SetType(plumbing.BlobObject)
		wr, err := o.Writer()
		if err != nil {
			return err
		}
		if _, err := wr.Write([]byte(content)); err != nil {
			wr.Close()
			return err
		}
		return wr.Close()
	}
}

// store puts an object into the clone's storage.
func (w *workspace) store(encode func(plumbing.EncodedObject) error) (plumbing.Hash, error) {
	o := w.repo.Storer.NewEncodedObject()
	if err := encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.repo.Storer.SetEncodedObject(o)
}
