// Package gittest makes the git repositories tests hand to a configuration server, with the git program (which
// the fast tier has, as it has Go): the repository is what a user's would be, made as a user makes one.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BareRepository makes a bare repository with one commit on master, an empty one, for a configuration server to
// serve, in a temporary folder of the test, and returns its path.
func BareRepository(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	repo, work := filepath.Join(dir, "repo.git"), filepath.Join(dir, "work")
	for _, args := range [][]string{
		{"init", "-q", "--bare", "-b", "master", repo},
		{"clone", "-q", repo, work},
		{"-C", work, "commit", "-q", "--allow-empty", "-m", "start"},
		{"-C", work, "push", "-q", "origin", "HEAD:master"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}
