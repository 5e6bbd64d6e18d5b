package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitChecks is how many commits the freshness check makes.
const commitChecks = 10

// config measures GET /{app}/{profile} of the configuration server on an
// unchanged repository against a server sending the same answer from
// memory, then checks that each commit shows in the very next answer.
func config(s *stack, m *meter) {
	const name = "config server, unchanged repository ÷ the same answer from memory"
	repo, err := configRepo(filepath.Join(s.dir, "config-repo"))
	if err != nil {
		m.compare(comparison{name: name, target: ">= 0.50", min: 0.50, subj: started{err: fmt.Errorf("creating the repository: %w", err)}})
		return
	}
	srv, srvProc, err := s.service("configserver", "configserver", "--port", "0", "--uri", "file://"+repo.dir)
	var answer []byte
	if err == nil {
		answer, err = get(srv + "/app/dev")
	}
	var mem string
	if err == nil {
		bodyFile := filepath.Join(s.dir, "answer.json")
		if err = os.WriteFile(bodyFile, answer, 0o644); err == nil {
			mem, err = s.fixedBody("the same answer from memory", bodyFile)
		}
	}
	if err != nil {
		m.compare(comparison{name: name, target: ">= 0.50", min: 0.50, subj: started{err: err}})
		m.note("config server, a commit visible at the very next request", errSkipped)
		return
	}
	m.compare(comparison{
		name: name, target: ">= 0.50", min: 0.50,
		base: started{t: target{url: mem + "/", want: http.StatusOK}},
		subj: started{t: target{url: srv + "/app/dev", want: http.StatusOK, procs: []*proc{srvProc}}},
	})
	m.note(fmt.Sprintf("config server, each of %d commits visible at the very next request", commitChecks), repo.checkCommits(srv))
}

// gitRepo is the configuration repository the run commits to.
type gitRepo struct {
	dir  string
	repo *git.Repository
	n    int
}

// configRepo creates a repository like a small real one: an application
// file, a profile, and a shared file of 200 keys.
func configRepo(dir string) (*gitRepo, error) {
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Master}})
	if err != nil {
		return nil, err
	}
	var shared strings.Builder
	shared.WriteString("logging:\n  level:\n    root: INFO\n")
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&shared, "k%d: v%d\n", i, i)
	}
	g := &gitRepo{dir: dir, repo: repo}
	return g, g.commit(map[string]string{
		"app.yml":         "greeting:\n  message: hello\n  displayFortune: false\nquoteServiceURL: http://localhost:8081/quotes\n",
		"app-dev.yml":     "greeting:\n  message: hello dev\n",
		"application.yml": shared.String(),
	})
}

func (g *gitRepo) commit(files map[string]string) error {
	wt, err := g.repo.Worktree()
	if err != nil {
		return err
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(g.dir, name), []byte(content), 0o644); err != nil {
			return err
		}
		if _, err := wt.Add(name); err != nil {
			return err
		}
	}
	g.n++
	_, err = wt.Commit(fmt.Sprintf("change %d", g.n), &git.CommitOptions{Author: &object.Signature{Name: "load", Email: "load@example.com", When: time.Now()}})
	return err
}

// checkCommits commits a new message several times and asks right after
// each: the answer must already show it.
func (g *gitRepo) checkCommits(srv string) error {
	stale := 0
	for i := range commitChecks {
		msg := fmt.Sprintf("hello again %d", i)
		if err := g.commit(map[string]string{"app-dev.yml": "greeting:\n  message: " + msg + "\n"}); err != nil {
			return err
		}
		b, err := get(srv + "/app/dev")
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), msg) {
			stale++
		}
	}
	if stale > 0 {
		return errors.New(fmt.Sprint(stale, " of ", commitChecks, " answers right after a commit did not show it"))
	}
	return nil
}
