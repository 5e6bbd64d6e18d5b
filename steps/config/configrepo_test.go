package config

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// gitRun runs git in dir with a fixed identity and no user or system configuration.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=tck", "-c", "user.email=tck@test.invalid",
		"-c", "init.defaultBranch=master"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// configRepo makes a bare repository whose branches hold the given files, pushed with git as a person would,
// and returns its path.
func configRepo(t *testing.T, branches map[string][]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (apt-get install git)")
	}
	root := t.TempDir()
	bare := filepath.Join(root, "config-repo.git")
	gitRun(t, root, "init", "-q", "--bare", bare)
	if len(branches) == 0 {
		return bare
	}
	work := filepath.Join(root, "work")
	gitRun(t, root, "init", "-q", work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("suite repository\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", ".")
	gitRun(t, work, "commit", "-q", "-m", "start")
	for branch, files := range branches {
		gitRun(t, work, "checkout", "-q", "-B", branch, "master")
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(work, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, f), []byte("shared: true\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitRun(t, work, "add", ".")
		gitRun(t, work, "commit", "-q", "--allow-empty", "-m", "files of "+branch)
		gitRun(t, work, "push", "-q", bare, branch)
		gitRun(t, work, "checkout", "-q", "master")
	}
	return bare
}

func preflightOf(uri string) error {
	return areaOf(uri).preflightSharedFiles()
}

func TestPreflightConfigRepoNamesTheSharedFilesOnMaster(t *testing.T) {
	uri := configRepo(t, map[string][]string{"master": {"application.yml", "application-dev.yaml", "greeting-config.yml"}})
	err := preflightOf(uri)
	if err == nil {
		t.Fatal("PreflightConfigRepo accepted a master holding application.yml")
	}
	msg := err.Error()
	for _, want := range []string{"master", uri, "application-dev.yaml and application.yml", "assume absent",
		"dedicated to the suite", "git rm application-dev.yaml application.yml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "greeting-config.yml") {
		t.Errorf("the error names a file of one application, which no scenario shares:\n%s", msg)
	}
}

func TestPreflightConfigRepoAcceptsARepositoryWithoutSharedFilesOnMaster(t *testing.T) {
	cases := map[string]map[string][]string{
		"no branch at all":          nil,
		"master with other files":   {"master": {"greeting-config.yml", "application-notes.txt", "application", "config/application.yml"}},
		"shared files on a branch":  {"master": nil, "tck-branch-1": {"application.yml", "application-dev.yml"}},
		"a name that starts alike":  {"master": {"applications.yml", "my-application.yml"}},
		"application- with no name": {"master": {"application-.yml"}},
	}
	for name, branches := range cases {
		t.Run(name, func(t *testing.T) {
			if err := preflightOf(configRepo(t, branches)); err != nil {
				t.Errorf("PreflightConfigRepo = %v, want nil", err)
			}
		})
	}
}

func TestPreflightConfigRepoWithoutAConfigServerChecksNothing(t *testing.T) {
	if err := New(core.NewRun(nil), nil).Preflight(context.Background()); err != nil {
		t.Errorf("PreflightConfigRepo = %v, want nil", err)
	}
}

func TestIsSharedConfigFile(t *testing.T) {
	for name, want := range map[string]bool{
		"application.yml": true, "application.yaml": true, "application.properties": true, "application.json": true,
		"application-dev.yml": true, "application-db-east.yaml": true,
		"application.txt": false, "application-.yml": false, "applications.yml": false, "tck-1-dev.yml": false,
		"application": false,
	} {
		if got := isSharedConfigFile(name); got != want {
			t.Errorf("isSharedConfigFile(%q) = %v, want %v", name, got, want)
		}
	}
}

// An empty repository is one set-up error that says what to do, not a hint about credentials.
func TestAnEmptyRepositoryIsASetUpErrorThatSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "--bare", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	err := listable(context.Background(), core.NewRun(nil), target.Repository{URI: dir})
	if err == nil || !strings.Contains(err.Error(), "no commit yet") || strings.Contains(err.Error(), "password") {
		t.Errorf("err = %v, want one that says the repository has no commit and what to do", err)
	}
}

// areaOf is the configuration area of a target whose configuration server reads the repository at uri and
// is not reached.
func areaOf(uri string) *Area {
	return New(core.NewRun(&target.Target{Services: target.Services{ConfigServer: &target.ConfigServer{
		URL: "http://127.0.0.1:1", Repository: target.Repository{URI: uri}}}}), nil)
}
