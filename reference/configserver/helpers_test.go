package configserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// origin is a non-bare repository standing for the remote configuration
// repository; tests commit to it and expect the server to follow.
type origin struct {
	tb   testing.TB
	dir  string
	repo *git.Repository
	n    int
}

func newOrigin(tb testing.TB, files map[string]string) *origin {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "origin")
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.Master},
	})
	if err != nil {
		tb.Fatal(err)
	}
	o := &origin{tb: tb, dir: dir, repo: repo}
	o.commit(files)
	return o
}

// commit writes files (an empty content deletes the file) and commits them
// on the checked-out branch.
func (o *origin) commit(files map[string]string) plumbing.Hash {
	o.tb.Helper()
	wt, err := o.repo.Worktree()
	if err != nil {
		o.tb.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(o.dir, filepath.FromSlash(name))
		if content == "" {
			if _, err := wt.Remove(name); err != nil {
				o.tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			o.tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			o.tb.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			o.tb.Fatal(err)
		}
	}
	o.n++
	h, err := wt.Commit("change", &git.CommitOptions{
		AllowEmptyCommits: true,
		Author:            &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000+int64(o.n), 0)},
	})
	if err != nil {
		o.tb.Fatal(err)
	}
	return h
}

// checkout switches to branch, creating it at HEAD when create is set.
func (o *origin) checkout(branch string, create bool) {
	o.tb.Helper()
	wt, err := o.repo.Worktree()
	if err != nil {
		o.tb.Fatal(err)
	}
	err = wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Create: create})
	if err != nil {
		o.tb.Fatal(err)
	}
}

func (o *origin) tag(name string, annotated bool) {
	o.tb.Helper()
	head, err := o.repo.Head()
	if err != nil {
		o.tb.Fatal(err)
	}
	var opts *git.CreateTagOptions
	if annotated {
		opts = &git.CreateTagOptions{Message: "release " + name, Tagger: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}}
	}
	if _, err := o.repo.CreateTag(name, head.Hash(), opts); err != nil {
		o.tb.Fatal(err)
	}
}

func newServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.BaseDir == "" {
		opts.BaseDir = filepath.Join(tb.TempDir(), "base")
	}
	s, err := New(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func get(h http.Handler, path string) *httptest.ResponseRecorder {
	return do(h, http.MethodGet, path)
}

func do(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, "http://config.test"+path, nil))
	return rec
}

// env is the decoded environment JSON.
type env struct {
	Name            string   `json:"name"`
	Profiles        []string `json:"profiles"`
	Label           string   `json:"label"`
	Version         string   `json:"version"`
	State           *string  `json:"state"`
	PropertySources []struct {
		Name   string         `json:"name"`
		Source map[string]any `json:"source"`
	} `json:"propertySources"`
}

func getEnv(tb testing.TB, h http.Handler, path string) env {
	tb.Helper()
	rec := get(h, path)
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	var e env
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		tb.Fatalf("GET %s: %v in %s", path, err, rec.Body)
	}
	return e
}

func (e env) sourceNames(prefix string) []string {
	var names []string
	for _, ps := range e.PropertySources {
		names = append(names, ps.Name[len(prefix):])
	}
	return names
}

type errBody struct {
	Timestamp string `json:"timestamp"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Message   string `json:"message"`
	Path      string `json:"path"`
}

func decodeError(tb testing.TB, rec *httptest.ResponseRecorder) errBody {
	tb.Helper()
	var b errBody
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		tb.Fatalf("error body %q: %v", rec.Body, err)
	}
	if b.Status != rec.Code || b.Error != http.StatusText(rec.Code) || b.Timestamp == "" || b.Path == "" {
		tb.Errorf("error body %+v does not match status %d", b, rec.Code)
	}
	return b
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func removeAll(dir string) error { return os.RemoveAll(dir) }

func renameDir(from, to string) error { return os.Rename(from, to) }

func openRepo(dir string) (*git.Repository, error) { return git.PlainOpen(dir) }

// settle waits for the background fetches into the mirror started so far
// (a repository on this machine): after it the mirror holds what the
// repository's refs named when they were last read.
func settle(s *Server) {
	if s.background != nil {
		s.background.runs.Wait()
	}
}
