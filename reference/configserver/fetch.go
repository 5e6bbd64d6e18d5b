package configserver

import (
	"context"
	"errors"
	"maps"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// sync brings the mirror up to date with a fetch (or, for a repository on
// this machine, a read of its refs) that starts after the call: concurrent
// requests share one, and none is answered from a check older than itself.
// A failed fetch is not an error while an older copy exists.
func (m *mirror) sync(ctx context.Context) error {
	err := m.fetches.do(ctx)
	if err == nil {
		if m.failing.Swap(false) {
			m.log.Info("configuration repository reachable again", "uri", m.display)
		}
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if !m.hasCopy.Load() {
		return &unavailableError{uri: m.display, err: err}
	}
	if !m.failing.Swap(true) {
		m.log.Warn("cannot fetch the configuration repository; serving the last fetched copy", "uri", m.display, "err", err)
	} else {
		m.log.Debug("fetch still failing; serving the last fetched copy", "uri", m.display, "err", err)
	}
	return nil
}

// fetch runs one fetch; the coalescer guarantees there is only one at a
// time. It first lists the remote's refs: when they match the local copy,
// which is the common case, it skips go-git's fetch, which rewrites every
// ref file even when nothing changed.
func (m *mirror) fetch() error {
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	defer cancel()
	remoteRefs, err := m.listRemote(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		m.hasCopy.Store(true)
		return nil
	}
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if maps.Equal(remoteRefs, m.localRefs()) {
		m.hasCopy.Store(true)
		return nil
	}
	err = m.fetchRefs(ctx)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// The remote was replaced by a repository with an unrelated history
		// (re-created or migrated): go-git offers the local commits as
		// common ground and the fetch fails on them. Fetch it from scratch.
		m.log.Warn("the configuration repository's history changed; fetching it again", "uri", m.display)
		err = m.refetch(ctx)
	}
	switch {
	case err == nil:
		m.repackIfNeeded()
		refs := m.localRefs()
		m.known.Store(&refs)
	case errors.Is(err, git.NoErrAlreadyUpToDate), errors.Is(err, transport.ErrEmptyRemoteRepository):
	default:
		return err
	}
	m.hasCopy.Store(true)
	return nil
}

func (m *mirror) fetchRefs(ctx context.Context) error {
	return m.repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: remoteName,
		RefSpecs:   refSpecs,
		Auth:       m.auth,
		Tags:       git.NoTags, // the refspecs already name every tag
		Prune:      true,
		Force:      true,
	})
}

// refetch fetches with no local branches or tags, so that nothing of the old
// history is offered to the remote; the caller holds mu. When the fetch
// fails, the old references are put back and the old copy is served. The
// objects of the old history go at the next repack.
func (m *mirror) refetch(ctx context.Context) error {
	old := m.localRefs()
	for name := range old {
		if err := m.repo.Storer.RemoveReference(name); err != nil {
			return err
		}
	}
	err := m.fetchRefs(ctx)
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		m.forceRepack = true
		return err
	}
	for name := range m.localRefs() {
		_ = m.repo.Storer.RemoveReference(name)
	}
	for name, h := range old {
		_ = m.repo.Storer.SetReference(plumbing.NewHashReference(name, h))
	}
	return err
}

// listRemote returns the remote's branches and tags under the local names
// the refspecs map them to. It does not touch the local copy, so it runs
// without the lock.
func (m *mirror) listRemote(ctx context.Context) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	rem := git.NewRemote(nil, &config.RemoteConfig{Name: remoteName, URLs: []string{m.remote}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: m.auth})
	if err != nil {
		return nil, err
	}
	mapped := make(map[plumbing.ReferenceName]plumbing.Hash, len(refs))
	for _, r := range refs {
		switch {
		case r.Type() != plumbing.HashReference:
		case r.Name().IsBranch():
			mapped[plumbing.NewRemoteReferenceName(remoteName, r.Name().Short())] = r.Hash()
		case r.Name().IsTag():
			mapped[r.Name()] = r.Hash()
		}
	}
	return mapped, nil
}

// localRefs returns the fetched branches and tags; the caller holds mu.
func (m *mirror) localRefs() map[plumbing.ReferenceName]plumbing.Hash {
	local := make(map[plumbing.ReferenceName]plumbing.Hash)
	refs, err := m.repo.References()
	if err != nil {
		return nil
	}
	_ = refs.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && (r.Name().IsRemote() || r.Name().IsTag()) {
			local[r.Name()] = r.Hash()
		}
		return nil
	})
	return local
}
