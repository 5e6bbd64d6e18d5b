package configserver

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/fortune-tck/fortune-tck/reference/configserver/localfetch"
)

// maxPacks is how many packs the mirror gathers, remote or local alike
// (one per fetch that brought something) before go-git repacks them into
// one: go-git searches packs one by one.
const maxPacks = 32

// remote is a repository fetched into the mirror with go-git: one reached
// over a network (http, https, ssh, git) before each request, or one on
// this machine in the background (background.go).
type remote struct {
	ctx       context.Context // nil: context.Background()
	url       string
	display   string
	auth      transport.AuthMethod
	timeout   time.Duration
	log       *slog.Logger
	mirror    *mirror
	inProcess bool // fetch a repository on this machine without git (fetchInProcess)
}

// update runs one fetch; the coalescer runs one at a time. It first lists
// the remote's refs: when they match the mirror's, which is the common
// case, it skips go-git's fetch, which rewrites every ref file even when
// nothing changed.
func (r *remote) update() error {
	ctx, cancel := context.WithTimeout(cmp.Or(r.ctx, context.Background()), r.timeout)
	defer cancel()
	if r.inProcess {
		return r.fetchInProcess(ctx)
	}
	remoteRefs, err := r.list(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	}
	if err != nil {
		return err
	}
	m := r.mirror
	m.mu.Lock()
	defer m.mu.Unlock()
	if maps.Equal(remoteRefs, *m.known.Load()) {
		return nil
	}
	repack := false
	err = r.fetch(ctx)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// The remote was replaced by a repository with an unrelated history
		// (re-created or migrated): go-git offers the mirror's commits as
		// common ground and the fetch fails on them. Fetch it from scratch.
		r.log.Warn("the configuration repository's history changed; fetching it again", "uri", r.display)
		err, repack = r.refetch(ctx), true
	}
	switch {
	case err == nil:
		r.repackIfNeeded(repack)
		return m.reload()
	case errors.Is(err, git.NoErrAlreadyUpToDate), errors.Is(err, transport.ErrEmptyRemoteRepository):
		return nil
	}
	return err
}

// fetchInProcess fetches a repository on this machine through go-git's
// in-process server (localfetch): go-git's fetch of a local path runs
// git-upload-pack, and the reference's image has no git.
func (r *remote) fetchInProcess(ctx context.Context) error {
	m := r.mirror
	m.mu.Lock()
	defer m.mu.Unlock()
	err := localfetch.Fetch(ctx, m.repo.Storer, r.url, refSpecs)
	m.reindex()
	r.repackIfNeeded(false)
	return cmp.Or(err, m.reload())
}

func (r *remote) fetch(ctx context.Context) error {
	return r.mirror.repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: remoteName,
		RefSpecs:   refSpecs,
		Auth:       r.auth,
		Tags:       git.NoTags, // the refspecs already name every tag
		Prune:      true,
		Force:      true,
	})
}

// refetch fetches with no branches or tags in the mirror, so that nothing
// of the old history is offered to the remote; the caller holds mu. When
// the fetch fails, the old references are put back and the old copy is
// served.
func (r *remote) refetch(ctx context.Context) error {
	m := r.mirror
	old := *m.known.Load()
	for name := range old {
		if err := m.repo.Storer.RemoveReference(name); err != nil {
			return err
		}
	}
	err := r.fetch(ctx)
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return err
	}
	if stored, serr := m.storedRefs(); serr == nil {
		for name := range stored {
			_ = m.repo.Storer.RemoveReference(name)
		}
	}
	for name, h := range old {
		_ = m.repo.Storer.SetReference(plumbing.NewHashReference(name, h))
	}
	return err
}

// repackIfNeeded has go-git write what the refs reach into one pack once
// there are many, and after a refetch, whose old history then goes; the
// caller holds mu.
func (r *remote) repackIfNeeded(force bool) {
	packs, err := r.mirror.repo.Storer.(storer.PackedObjectStorer).ObjectPacks()
	if err != nil || !force && len(packs) <= maxPacks {
		return
	}
	if err := r.mirror.repo.RepackObjects(&git.RepackConfig{}); err != nil {
		r.log.Warn("repacking the local copy failed", "err", err)
	}
	r.mirror.reindex()
}

// list returns the remote's branches and tags under the mirror's names. It
// does not touch the mirror, so it runs without the lock.
func (r *remote) list(ctx context.Context) (refMap, error) {
	rem := git.NewRemote(nil, &config.RemoteConfig{Name: remoteName, URLs: []string{r.url}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: r.auth})
	if err != nil {
		return nil, err
	}
	mapped := make(refMap, len(refs))
	for _, ref := range refs {
		if ref.Type() == plumbing.HashReference {
			addRef(mapped, ref.Name(), ref.Hash())
		}
	}
	return mapped, nil
}

// addRef records a branch or tag under the name the mirror gives it.
func addRef(refs refMap, name plumbing.ReferenceName, h plumbing.Hash) {
	switch {
	case name.IsBranch():
		// Not NewRemoteReferenceName and Short, which format and parse with
		// fmt: a local repository's refs are read for every request.
		refs[plumbing.ReferenceName("refs/remotes/"+remoteName+"/"+strings.TrimPrefix(string(name), "refs/heads/"))] = h
	case name.IsTag():
		refs[name] = h
	}
}
