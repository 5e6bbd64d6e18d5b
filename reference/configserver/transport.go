package configserver

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

var installFileTransport sync.Once

// useInProcessFileTransport makes go-git serve file:// and local-path remotes
// in process, so no git binary is needed. It is process wide and idempotent.
func useInProcessFileTransport() {
	installFileTransport.Do(func() {
		loader := worktreeLoader{server.NewFilesystemLoader(osfs.New(""))}
		client.InstallProtocol("file", server.NewServer(loader))
	})
}

// worktreeLoader lets a non-bare repository be a remote: go-git's filesystem
// loader expects the git directory itself, so a path holding .git is
// redirected there.
type worktreeLoader struct{ base server.Loader }

func (l worktreeLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	gitDir := filepath.Join(ep.Path, ".git")
	if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
		redirected := *ep
		redirected.Path = gitDir
		return l.base.Load(&redirected)
	}
	return l.base.Load(ep)
}
