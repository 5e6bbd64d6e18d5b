package configapp

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/fortune-tck/fortune-tck/reference/configserver"
)

// origin is the configuration repository: a non-bare go-git repository the
// tests commit to, served by a real configuration server.
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

// commit writes files (an empty content deletes one) and commits them.
func (o *origin) commit(files map[string]string) {
	o.tb.Helper()
	wt, err := o.repo.Worktree()
	if err != nil {
		o.tb.Fatal(err)
	}
	for name, content := range files {
		if content == "" {
			if _, err := wt.Remove(name); err != nil {
				o.tb.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(o.dir, name), []byte(content), 0o644); err != nil {
			o.tb.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			o.tb.Fatal(err)
		}
	}
	o.n++
	_, err = wt.Commit("change", &git.CommitOptions{
		AllowEmptyCommits: true,
		Author:            &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000+int64(o.n), 0)},
	})
	if err != nil {
		o.tb.Fatal(err)
	}
}

// configServer is a real configuration server on the origin, behind a
// switch that makes it unreachable (connections are dropped unanswered).
type configServer struct {
	*httptest.Server
	down atomic.Bool
}

func startConfigServer(tb testing.TB, o *origin) *configServer {
	tb.Helper()
	s, err := configserver.New(context.Background(), configserver.Options{URI: o.dir, BaseDir: filepath.Join(tb.TempDir(), "base")})
	if err != nil {
		tb.Fatal(err)
	}
	cs := &configServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cs.down.Load() {
			dropConnection(w)
			return
		}
		s.ServeHTTP(w, r)
	}))
	tb.Cleanup(func() { cs.Close(); s.Close() })
	return cs
}

func dropConnection(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// instance is an App served over real HTTP, with its log captured.
type instance struct {
	tb   testing.TB
	app  *App
	srv  *httptest.Server
	logs *syncbuf.Buffer
}

// fastStart keeps failing starts short.
func fastStart(o Options) Options {
	o.RetryInitial = cmp.Or(o.RetryInitial, 10*time.Millisecond)
	o.RetryMax = cmp.Or(o.RetryMax, 20*time.Millisecond)
	o.FetchTimeout = cmp.Or(o.FetchTimeout, 5*time.Second)
	return o
}

func startApp(tb testing.TB, opts Options) *instance {
	tb.Helper()
	logs := &syncbuf.Buffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	app, err := New(context.Background(), fastStart(opts))
	if err != nil {
		tb.Fatal(err)
	}
	in := &instance{tb: tb, app: app, srv: httptest.NewServer(app), logs: logs}
	tb.Cleanup(func() { in.srv.Close(); app.Close() })
	return in
}

// request is one exchange's outcome.
type request struct {
	method, path, accept string
	user, password       string
	anonymous            bool
	body                 io.Reader
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		tb.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
}

// do sends r; it authenticates as user with the generated password unless
// r says otherwise.
func (in *instance) do(r request) answer {
	in.tb.Helper()
	req, err := http.NewRequest(r.method, in.srv.URL+r.path, r.body)
	if err != nil {
		in.tb.Fatal(err)
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if !r.anonymous {
		req.SetBasicAuth(cmp.Or(r.user, "user"), cmp.Or(r.password, in.app.GeneratedPassword()))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}

func (in *instance) get(path string) answer {
	in.tb.Helper()
	return in.do(request{method: http.MethodGet, path: path, accept: "application/json"})
}

func (in *instance) post(path string) answer {
	in.tb.Helper()
	return in.do(request{method: http.MethodPost, path: path})
}

// greeting is the greeting page's model.
func (in *instance) greeting() map[string]string {
	in.tb.Helper()
	a := in.get("/")
	if a.status != http.StatusOK {
		in.tb.Fatalf("GET /: %d %s", a.status, a.body)
	}
	var m map[string]string
	a.json(in.tb, &m)
	return m
}

// refresh posts /refresh and returns the changed keys.
func (in *instance) refresh() []string {
	in.tb.Helper()
	a := in.post("/refresh")
	if a.status != http.StatusOK {
		in.tb.Fatalf("POST /refresh: %d %s", a.status, a.body)
	}
	var keys []string
	a.json(in.tb, &keys)
	return keys
}

// waitFor polls cond until it holds or 10s pass.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var passwordLine = regexp.MustCompile(`Using default security password: ([0-9a-f-]{36})`)

// unreachable is a loopback address where connections are refused: nothing
// binds port 1, and unlike a released free port no other test can take it.
const unreachable = "127.0.0.1:1"

// open is a configuration that turns security off, for tests about
// something else.
const open = "security:\n  basic:\n    enabled: false\nmanagement:\n  security:\n    enabled: false\n"

func newTextLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

func decodeJSON(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
