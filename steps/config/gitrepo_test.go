package config

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// gitOut runs git in a bare repository and returns its output's lines.
func gitOut(t *testing.T, repo string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", repo}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// refNames are the branches and tags of a bare repository.
func refNames(t *testing.T, repo string) []string {
	return gitOut(t, repo, "for-each-ref", "--format=%(refname)")
}

// masterTree is every file of master with its blob.
func masterTree(t *testing.T, repo string) []string {
	return gitOut(t, repo, "ls-tree", "-r", "--format=%(path)=%(objectname)", "master")
}

func doc(content string) *godog.DocString { return &messages.PickleDocString{Content: content} }

// A scenario's branches and tags are deleted when it ends, and the files it wrote on master are put back as
// they were, by one commit made on master as it is then: another run's file written meanwhile stays.
func TestAScenarioTakesBackWhatItPushed(t *testing.T) {
	repo := configRepo(t, map[string][]string{"master": {"kept.yml"}})
	refs, tree := refNames(t, repo), masterTree(t, repo)
	s := areaOf(repo)
	srv := &configServerSteps{Scenario: core.NewScenario(s.run), area: s}
	for _, err := range []error{
		srv.repositoryHolds("master", "{app}.yml", doc("greeting: one")),
		srv.repositoryHolds("master", "{app}-dev.yml", doc("greeting: dev")),
		srv.repositoryHolds("master", "{app}.yml", doc("greeting: two")),
		srv.fileRemoved("{app}-dev.yml", "master"),
		srv.repositoryHolds("master", "kept.yml", doc("shared: false")), // a file that was there
		srv.repositoryHolds("{branch}", "application.yml", doc("greeting: branch")),
		srv.repositoryHolds("{branch}", "{app}.yml", doc("greeting: branch")),
		srv.repositoryHolds("feature/{branch}", "{app}.yml", doc("greeting: feature")),
		srv.tagHead("master", "{tag}"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Another run, with a clone of its own, writes on master after the scenario.
	otherArea := areaOf(repo)
	other := &configServerSteps{Scenario: core.NewScenario(otherArea.run), area: otherArea}
	if err := other.repositoryHolds("master", "{app}.yml", doc("greeting: other")); err != nil {
		t.Fatal(err)
	}
	if got := refNames(t, repo); len(got) != len(refs)+3 {
		t.Fatalf("refs during the scenario: %v, want its two branches and its tag besides %v", got, refs)
	}

	if err := srv.RemoveCreated(context.Background()); err != nil {
		t.Fatalf("removeCreated = %v", err)
	}
	if got := refNames(t, repo); !slices.Equal(got, refs) {
		t.Errorf("refs after the scenario: %v, want %v", got, refs)
	}
	want := append(slices.Clone(tree), other.Vars["app"]+".yml="+gitOut(t, repo, "rev-parse", "master:"+other.Vars["app"]+".yml")[0])
	slices.Sort(want)
	if got := masterTree(t, repo); !slices.Equal(got, want) {
		t.Errorf("master after the scenario: %v, want %v: its own files put back, the other run's kept", got, want)
	}
	if err := other.RemoveCreated(context.Background()); err != nil {
		t.Fatalf("removeCreated = %v", err)
	}
	if got := masterTree(t, repo); !slices.Equal(got, tree) {
		t.Errorf("master after both: %v, want %v", got, tree)
	}
	if log := gitOut(t, repo, "log", "--format=%s", "master"); strings.Count(strings.Join(log, " "), "take back") != 2 {
		t.Errorf("master's log %v, want one commit that takes back each scenario's files", log)
	}
	if left := s.run.LeftBehind(); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A branch the repository refuses to delete is named as left behind, with the reason.
func TestABranchTheRepositoryKeepsIsNamedAsLeftBehind(t *testing.T) {
	repo := configRepo(t, map[string][]string{"master": nil})
	gitRun(t, repo, "config", "receive.denyDeletes", "true")
	s := areaOf(repo)
	srv := &configServerSteps{Scenario: core.NewScenario(s.run), area: s}
	if err := srv.repositoryHolds("{branch}", "{app}.yml", doc("greeting: branch")); err != nil {
		t.Fatal(err)
	}
	if err := srv.RemoveCreated(context.Background()); err == nil {
		t.Error("removeCreated = nil, want the refused delete")
	}
	if left := s.run.LeftBehind(); len(left) != 1 || !strings.Contains(left[0], "the branch "+srv.Vars["branch"]+" of "+repo) {
		t.Errorf("left behind: %v, want the branch named", left)
	}
}

// A repository whose master starts with no file (an empty first commit, as a fresh repository has it) ends each
// scenario so again, after a scenario's branch was checked out: the next scenario still writes on master.
func TestAMasterLeftWithoutFilesTakesTheNextScenariosFiles(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "config-repo.git")
	gitRun(t, root, "init", "-q", "--bare", repo)
	work := filepath.Join(root, "work")
	gitRun(t, root, "clone", "-q", repo, work)
	gitRun(t, work, "commit", "-q", "--allow-empty", "-m", "start")
	gitRun(t, work, "push", "-q", "origin", "HEAD:master")
	s := areaOf(repo)
	for range 2 {
		srv := &configServerSteps{Scenario: core.NewScenario(s.run), area: s}
		for _, err := range []error{
			srv.repositoryHolds("{branch}", "application.yml", doc("greeting: branch")),
			srv.repositoryHolds("master", "{app}.yml", doc("greeting: master")),
			srv.RemoveCreated(context.Background()),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if files := gitOut(t, repo, "ls-tree", "-r", "master"); len(files) != 0 {
			t.Fatalf("master after the scenario holds %v, want no file", files)
		}
	}
}
