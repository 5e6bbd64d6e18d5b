package main

import (
	"errors"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"
)

const suiteReadme = "# Configuration repository of a fortune-tck run\n\n" +
	"The harness commits each scenario's files here, under names of that scenario.\n"

// initSuiteRepository creates the configuration repository of a conformance run (reference up --processes): a
// bare repository whose master holds one commit with a README, written straight into the object store. A
// configuration server cannot clone an empty repository, and the harness pushes to a bare one. One that exists
// already is kept, so that a stack restarted on its data finds its commits.
func initSuiteRepository(dir string) error {
	repo, err := git.PlainInit(dir, true)
	if errors.Is(err, git.ErrRepositoryAlreadyExists) {
		return nil
	}
	if err != nil {
		return err
	}
	s := repo.Storer
	blob, err := storeBlob(s, []byte(suiteReadme))
	if err != nil {
		return err
	}
	tree, err := storeObject(s, &object.Tree{Entries: []object.TreeEntry{{Name: "README.md", Mode: filemode.Regular, Hash: blob}}})
	if err != nil {
		return err
	}
	sig := object.Signature{Name: "fortune-tck", Email: "tck@fortune-tck.invalid", When: time.Now()}
	commit, err := storeObject(s, &object.Commit{Author: sig, Committer: sig, Message: "Start the configuration repository\n", TreeHash: tree})
	if err != nil {
		return err
	}
	if err := s.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("master"), commit)); err != nil {
		return err
	}
	return s.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("master")))
}

func storeBlob(s storage.Storer, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func storeObject(s storage.Storer, o encoder) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}
