package configserver

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// gitHTTP serves the repositories under root over git's smart HTTP
// protocol, with git's own git-http-backend, on loopback.
func gitHTTP(t *testing.T, root string) *httptest.Server {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, serr := os.Stat(backend); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git-http-backend not found (%v %v): install git", err, serr)
		}
		t.Skip("git-http-backend not found: install git")
	}
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(srv.Close)
	return srv
}

// A repository over HTTP is fetched with go-git: a commit is visible at
// the next request, the packs of many fetches are merged, a history
// replaced by an unrelated one is followed, and the last copy is served
// once the server is gone.
func TestRemoteRepositoryOverHTTP(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	srv := gitHTTP(t, filepath.Dir(o.dir))
	var logs syncbuf.Buffer
	s := newServer(t, Options{URI: srv.URL + "/origin/.git", Logger: logs.Logger()})
	if e := getEnv(t, s, "/app/default"); fmt.Sprint(e.PropertySources[0].Source["k"]) != "0" {
		t.Fatalf("first answer: %+v", e)
	}
	for i := range maxPacks + 3 {
		h := o.commit(map[string]string{"app.yml": "k: " + strings.Repeat("x", i+1) + "\n"})
		if e := getEnv(t, s, "/app/default"); e.Version != h.String() {
			t.Fatalf("commit %d: served %s, want %s", i, e.Version, h)
		}
	}
	packs, err := s.mirror.repo.Storer.(storer.PackedObjectStorer).ObjectPacks()
	if err != nil || len(packs) > maxPacks {
		t.Fatalf("%d packs (%v), want at most %d", len(packs), err, maxPacks)
	}
	orphan := orphanCommit(t, o, map[string]string{"app.yml": "k: unrelated\n"})
	setBranch(t, o, "master", orphan)
	if e := getEnv(t, s, "/app/default"); e.Version != orphan.String() || e.PropertySources[0].Source["k"] != "unrelated" {
		t.Fatalf("after an unrelated history: %+v", e)
	}
	fsck(t, "after an unrelated history", s.mirror.dir)
	srv.Close()
	if rec := get(s, "/app/default"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "unrelated") {
		t.Fatalf("with the server gone: %d %s", rec.Code, rec.Body)
	}
	if out := logs.String(); !strings.Contains(out, "serving the last fetched copy") {
		t.Errorf("no warning with the server gone:\n%s", out)
	}
}
