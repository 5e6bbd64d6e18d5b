package gittest

import (
	"os/exec"
	"strings"
	"testing"
)

// The repository is bare, and its master holds one commit.
func TestBareRepositoryHasOneCommitOnMaster(t *testing.T) {
	repo := BareRepository(t)
	out, err := exec.Command("git", "-C", repo, "rev-parse", "--is-bare-repository").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "true" {
		t.Fatalf("rev-parse --is-bare-repository: %v %s", err, out)
	}
	out, err = exec.Command("git", "-C", repo, "rev-list", "--count", "master").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Errorf("commits on master: %v %s, want 1", err, out)
	}
}
