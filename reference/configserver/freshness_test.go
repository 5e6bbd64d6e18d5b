package configserver

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
	"github.com/fortune-tck/fortune-tck/reference/internal/lru"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

func TestCommitVisibleOnNextRequest(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: one\n"})
	s := newServer(t, Options{URI: o.dir})
	if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "one" {
		t.Fatalf("before: %+v", e)
	}
	h := o.commit(map[string]string{"app.yml": "k: two\n", "app-dev.yml": "k: dev\n"})
	e := getEnv(t, s, "/app/dev")
	if e.Version != h.String() || e.PropertySources[0].Source["k"] != "dev" || e.PropertySources[1].Source["k"] != "two" {
		t.Fatalf("after commit: %+v", e)
	}
	o.commit(map[string]string{"app-dev.yml": ""})
	if e := getEnv(t, s, "/app/dev"); len(e.PropertySources) != 1 {
		t.Fatalf("after deleting a file: %+v", e)
	}
}

// The harness pushes to a bare repository given as a file:// URL.
func TestPushToBareOriginVisibleOnNextRequest(t *testing.T) {
	work := newOrigin(t, map[string]string{"app.yml": "k: one\n"})
	bare := filepath.Join(t.TempDir(), "repo.git")
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: work.dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := work.repo.CreateRemote(&config.RemoteConfig{Name: "tck", URLs: []string{bare}}); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, Options{URI: "file://" + bare})
	getEnv(t, s, "/app/default")

	h := work.commit(map[string]string{"app.yml": "k: pushed\n"})
	if err := work.repo.Push(&git.PushOptions{RemoteName: "tck"}); err != nil {
		t.Fatal(err)
	}
	if e := getEnv(t, s, "/app/default"); e.Version != h.String() || e.PropertySources[0].Source["k"] != "pushed" {
		t.Fatalf("after push: %+v", e)
	}
}

func TestUnchangedRepositoryServedFromCache(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n", "application.yml": "shared: 1\n"})
	s := newServer(t, Options{URI: o.dir})
	getEnv(t, s, "/app/default")
	if n := s.parses.Load(); n != 2 {
		t.Fatalf("first request parsed %d files, want 2", n)
	}
	for range 5 {
		getEnv(t, s, "/app/default")
		get(s, "/app-default.yml")
		get(s, "/app-default.properties")
	}
	if n := s.parses.Load(); n != 2 {
		t.Fatalf("unchanged repository re-parsed: %d parses", n)
	}
	// Only the changed file is parsed again; the other is cached by blob.
	o.commit(map[string]string{"app.yml": "k: w\n"})
	getEnv(t, s, "/app/default")
	if n := s.parses.Load(); n != 3 {
		t.Fatalf("after changing one file: %d parses, want 3", n)
	}
}

// An answer already encoded is served without collecting the environment
// again: with the other caches emptied, nothing is parsed.
func TestCachedAnswerIsServedWithoutItsEnvironment(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	first := get(s, "/app/default").Body.String()
	s.environments = lru.New[environmentKey, []propertySource](environmentCacheSize)
	s.files = lru.New[plumbing.Hash, parsedFile](fileCacheSize)
	parses := s.parses.Load()
	if again := get(s, "/app/default").Body.String(); again != first || s.parses.Load() != parses {
		t.Fatalf("the cached answer was rebuilt: %d parses, %q then %q", s.parses.Load()-parses, first, again)
	}
}

func TestLabels(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: first\n"})
	first, _ := o.repo.Head()
	o.tag("v1", true)
	o.tag("light", false)
	o.checkout("feature/x", true)
	o.commit(map[string]string{"app.yml": "k: feature\n"})
	o.checkout("master", false)
	last := o.commit(map[string]string{"app.yml": "k: master\n"})
	s := newServer(t, Options{URI: o.dir})

	tests := []struct{ path, label, version, k string }{
		{"/app/default", "master", last.String(), "master"},
		{"/app/default/master", "master", last.String(), "master"},
		{"/app/default/feature(_)x", "feature/x", "", "feature"},
		{"/app/default/v1", "v1", first.Hash().String(), "first"},
		{"/app/default/light", "light", first.Hash().String(), "first"},
		{"/app/default/" + first.Hash().String(), first.Hash().String(), first.Hash().String(), "first"},
		{"/app/default/" + first.Hash().String()[:7], first.Hash().String()[:7], first.Hash().String(), "first"},
		{"/app/default/" + strings.ToUpper(first.Hash().String()[:9]), strings.ToUpper(first.Hash().String()[:9]), first.Hash().String(), "first"},
	}
	for _, tt := range tests {
		e := getEnv(t, s, tt.path)
		if e.Label != tt.label || (tt.version != "" && e.Version != tt.version) || e.PropertySources[0].Source["k"] != tt.k {
			t.Errorf("GET %s: label %q version %s k %v", tt.path, e.Label, e.Version, e.PropertySources[0].Source["k"])
		}
	}
}

func TestDefaultLabelOption(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: master\n"})
	o.checkout("main", true)
	o.commit(map[string]string{"app.yml": "k: main\n"})
	s := newServer(t, Options{URI: o.dir, DefaultLabel: "main"})
	if e := getEnv(t, s, "/app/default"); e.Label != "main" || e.PropertySources[0].Source["k"] != "main" {
		t.Fatalf("environment %+v", e)
	}
}

func TestDeletedBranchIsPruned(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	o.checkout("gone", true)
	o.checkout("master", false)
	s := newServer(t, Options{URI: o.dir})
	getEnv(t, s, "/app/default/gone")
	if err := o.repo.Storer.RemoveReference(plumbing.NewBranchReferenceName("gone")); err != nil {
		t.Fatal(err)
	}
	if rec := get(s, "/app/default/gone"); rec.Code != http.StatusNotFound {
		t.Fatalf("deleted branch: %d %s", rec.Code, rec.Body)
	}
}

func TestRemoteGoneServesLastCopy(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	var logs syncbuf.Buffer
	s := newServer(t, Options{URI: o.dir, Logger: logs.Logger()})
	getEnv(t, s, "/app/default")
	settle(s)
	if err := removeAll(o.dir); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "v" {
			t.Fatalf("last copy not served: %+v", e)
		}
	}
	out := logs.String()
	if strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "serving the last fetched copy") || !strings.Contains(out, o.dir) {
		t.Fatalf("want one warning naming the repository, got:\n%s", out)
	}
}

func TestRestartReusesCopyWhileRemoteIsDown(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	base := filepath.Join(t.TempDir(), "base")
	first := newServer(t, Options{URI: o.dir, BaseDir: base})
	getEnv(t, first, "/app/default")
	settle(first)
	if err := removeAll(o.dir); err != nil {
		t.Fatal(err)
	}
	second := newServer(t, Options{URI: o.dir, BaseDir: base})
	if e := getEnv(t, second, "/app/default"); e.PropertySources[0].Source["k"] != "v" {
		t.Fatalf("restarted server: %+v", e)
	}
	if _, err := New(context.Background(), Options{URI: t.TempDir(), BaseDir: base}); err == nil || !strings.Contains(err.Error(), "different repository") {
		t.Fatalf("base directory of another repository: %v", err)
	}
}

func TestUnavailableRepository(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.git")
	_, err := New(context.Background(), Options{URI: missing, BaseDir: t.TempDir() + "/b"})
	if err == nil || !strings.Contains(err.Error(), "cannot clone "+missing) {
		t.Fatalf("New on a missing repository: %v", err)
	}

	s := newServer(t, Options{URI: missing, LazyClone: true})
	rec := get(s, "/app/default")
	if b := decodeError(t, rec); rec.Code != http.StatusNotFound || !strings.Contains(b.Message, missing) {
		t.Fatalf("missing repository: %d %+v", rec.Code, b)
	}
	// The lazy server retries on every request: once the repository exists it serves.
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	if err := renameDir(o.dir, missing); err != nil {
		t.Fatal(err)
	}
	if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "v" {
		t.Fatalf("after the repository appeared: %+v", e)
	}

	unreachable := "http://127.0.0.1:1/config.git"
	s = newServer(t, Options{URI: unreachable, LazyClone: true})
	rec = get(s, "/app/default")
	if b := decodeError(t, rec); rec.Code != http.StatusServiceUnavailable || !strings.Contains(b.Message, unreachable) {
		t.Fatalf("unreachable repository: %d %+v", rec.Code, b)
	}
}

func TestRedactedPasswordInSourceNames(t *testing.T) {
	if got := redact("https://bob:secret@git.example.com/config.git"); strings.Contains(got, "secret") || !strings.Contains(got, "bob") {
		t.Fatalf("redact = %s", got)
	}
	if got := redact("/srv/config"); got != "/srv/config" {
		t.Fatalf("redact(path) = %s", got)
	}
}

func TestConcurrentRequestsWhileCommitting(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	s := newServer(t, Options{URI: o.dir})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if rec := get(s, "/app/default"); rec.Code != http.StatusOK {
					t.Errorf("GET: %d %s", rec.Code, rec.Body)
					return
				}
			}
		})
	}
	for i := range 10 {
		h := o.commit(map[string]string{"app.yml": "k: " + string(rune('a'+i)) + "\n"})
		// Every request that starts after the commit sees it.
		if e := getEnv(t, s, "/app/default"); e.Version != h.String() {
			t.Errorf("commit %d: served %s, want %s", i, e.Version, h)
		}
	}
	wg.Wait()
}

// A mirror fetched once per commit (with git, and through go-git's
// in-process server without it) is repacked once it holds maxPacks packs.
func TestManyFetchesAreRepacked(t *testing.T) {
	for _, withGit := range []bool{true, false} {
		t.Run(fmt.Sprint("git installed: ", withGit), func(t *testing.T) {
			o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
			if !withGit {
				t.Setenv("PATH", t.TempDir())
			}
			s := newServer(t, Options{URI: o.dir})
			for i := range maxPacks + 5 {
				o.commit(map[string]string{"app.yml": "k: " + string(rune('a'+i%26)) + "\n"})
				getEnv(t, s, "/app/default")
				settle(s) // a fetch per commit
			}
			packs, err := s.mirror.repo.Storer.(storer.PackedObjectStorer).ObjectPacks()
			if err != nil || len(packs) > maxPacks {
				t.Fatalf("%d packs (%v), want at most %d", len(packs), err, maxPacks)
			}
			if e := getEnv(t, s, "/app/default/"+mustHead(t, o).String()[:8]); e.PropertySources[0].Source["k"] == nil {
				t.Fatalf("after repack: %+v", e)
			}
		})
	}
}

func mustHead(t *testing.T, o *origin) plumbing.Hash {
	t.Helper()
	c, err := o.repo.CommitObjects()
	if err != nil {
		t.Fatal(err)
	}
	var latest *object.Commit
	_ = c.ForEach(func(c *object.Commit) error {
		if latest == nil || c.Author.When.After(latest.Author.When) {
			latest = c
		}
		return nil
	})
	return latest.Hash
}

// A commit that reaches the repository in a pack (a push, a repack) is
// visible at the next request: the server must not keep the list of packs
// it saw first.
func TestCommitArrivingInANewPackIsVisible(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: one\n"})
	s := newServer(t, Options{URI: o.dir})
	getEnv(t, s, "/app/default")
	h := o.commit(map[string]string{"app.yml": "k: two\n"})
	if out, err := exec.Command("git", "-C", o.dir, "repack", "-q", "-a", "-d").CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v %s", err, out)
	}
	if e := getEnv(t, s, "/app/default"); e.Version != h.String() || e.PropertySources[0].Source["k"] != "two" {
		t.Fatalf("a commit that arrived packed: %+v", e)
	}
}
