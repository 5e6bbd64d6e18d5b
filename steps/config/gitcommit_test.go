package config

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/gittest"
)

// Scenarios of two runs (two clones), four at a time in each, commit different files to master at the same
// time: every commit lands with its own message, none is lost, each knows the file was absent before, and
// taking them all back at the same time leaves master as it was.
func TestConcurrentCommitsToOneBranchAllLand(t *testing.T) {
	repo := gittest.BareRepository(t)
	before := masterTree(t, repo)
	const runs, perRun, each = 2, 4, 5
	type written struct {
		file, hash string
	}
	var mu sync.Mutex
	var all []written
	var wg sync.WaitGroup
	clones := make([]*workspace, runs)
	for r := range runs {
		ws, err := areaOf(repo).workspace()
		if err != nil {
			t.Fatal(err)
		}
		clones[r] = ws
		for g := range perRun {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					file := fmt.Sprintf("run%d-scenario%d-%d.yml", r, g, i)
					content := "name: " + file + "\n"
					res, err := ws.commit("master", "tck: write "+file, map[string]*string{file: &content})
					if err != nil {
						t.Error(err)
						return
					}
					if b, ok := res.before[file]; !ok || b != nil || res.created {
						t.Errorf("%s: before %v (known: %v), created %v; want absent before, on a branch that existed", file, b, ok, res.created)
					}
					mu.Lock()
					all = append(all, written{file, res.hash})
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(all) != runs*perRun*each {
		t.Fatalf("%d commits made, want %d", len(all), runs*perRun*each)
	}
	subjects := gitOut(t, repo, "log", "--format=%s", "master")
	for _, w := range all {
		if got := gitOut(t, repo, "show", "master:"+w.file); strings.Join(got, " ") != "name: "+w.file {
			t.Errorf("master's %s holds %q", w.file, got)
		}
		gitOut(t, repo, "merge-base", "--is-ancestor", w.hash, "master") // fails the test when it is not
		if n := strings.Count(" "+strings.Join(subjects, " ")+" ", " "+w.file+" "); n != 1 {
			t.Errorf("master's log has %d commits that write %s, want 1", n, w.file)
		}
	}
	// Each scenario takes back its own files, all at the same time.
	for r := range runs {
		for g := range perRun {
			wg.Add(1)
			go func() {
				defer wg.Done()
				files := map[string]*string{}
				for i := range each {
					files[fmt.Sprintf("run%d-scenario%d-%d.yml", r, g, i)] = nil
				}
				if err := clones[r].restore(context.Background(), "master", "tck: take back", files); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if got := masterTree(t, repo); !slices.Equal(got, before) {
		t.Errorf("master after taking back: %v, want %v", got, before)
	}
	if n := strings.Count(strings.Join(gitOut(t, repo, "log", "--format=%s", "master"), " "), "take back"); n != runs*perRun {
		t.Errorf("%d commits take back, want one per scenario (%d)", n, runs*perRun)
	}
}

// Files in folders get trees of their own, in git's order (git fsck --strict checks it), and a folder goes
// with its last file; removing a file the branch does not hold is an error that changes nothing.
func TestCommitsWriteFilesInFoldersInGitsOrder(t *testing.T) {
	repo := gittest.BareRepository(t)
	ws, err := areaOf(repo).workspace()
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) *string { return &s }
	files := map[string]*string{"conf.yml": text("a"), "conf-dev.yml": text("b"), "conf/app.yml": text("c"),
		"conf/deep/app.yml": text("d"), "conf.d/x.yml": text("e")}
	if _, err := ws.commit("master", "tck: write", files); err != nil {
		t.Fatal(err)
	}
	gitOut(t, repo, "fsck", "--strict", "--no-dangling")
	want := []string{"conf-dev.yml", "conf.d/x.yml", "conf.yml", "conf/app.yml", "conf/deep/app.yml"}
	if got := gitOut(t, repo, "ls-tree", "-r", "--name-only", "master"); !slices.Equal(got, want) {
		t.Errorf("master holds %v, want %v", got, want)
	}
	res, err := ws.commit("master", "tck: remove", map[string]*string{"conf/deep/app.yml": nil, "conf/app.yml": text("f")})
	if err != nil {
		t.Fatal(err)
	}
	if b := res.before["conf/deep/app.yml"]; b == nil || *b != "d" {
		t.Errorf("before: %v, want what the file held", b)
	}
	if got := gitOut(t, repo, "ls-tree", "-d", "--name-only", "master:conf"); len(got) != 0 {
		t.Errorf("master's conf holds the folders %v, want none once its last file in deep went", got)
	}
	head := gitOut(t, repo, "rev-parse", "master")
	for _, bad := range []map[string]*string{{"absent.yml": nil}, {"../x.yml": text("x")}, {"a//b.yml": text("x")}} {
		if _, err := ws.commit("master", "tck: bad", bad); err == nil {
			t.Errorf("commit of %v = nil, want an error", bad)
		}
	}
	if got := gitOut(t, repo, "rev-parse", "master"); !slices.Equal(got, head) {
		t.Errorf("master moved to %v after refused commits", got)
	}
}
