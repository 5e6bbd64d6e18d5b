package configserver

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// TestMirrorFollowsEveryKindOfChange commits changes of every kind and
// checks after each that the mirror holds what the repository does: the
// tip of every branch and tag has the same files, modes and contents as in
// the repository, git fsck finds every object of the history, and the
// answers are those of a server started afresh.
func TestMirrorFollowsEveryKindOfChange(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"application.yml":      "shared: 1\n",
		"app.yml":              "k: 1\n",
		"app-dev.yml":          "k: dev\n",
		"config/app.yml":       "nested: 1\n",
		"config/deep/app.yml":  "deeper: 1\n",
		"other/one.yml":        "one: 1\n",
		"other/two/three.yml":  "three: 3\n",
		"executable/run.yml":   "run: 1\n",
		"renamed/original.yml": "moved: 1\n",
	})
	s := newServer(t, Options{URI: o.dir, BaseDir: filepath.Join(t.TempDir(), "base")})
	check := func(step string) {
		t.Helper()
		assertCopyMatches(t, step, s, o)
	}
	check("start")

	o.commit(map[string]string{"app-prod.yml": "k: prod\n", "config/new/app.yml": "fresh: 1\n"})
	check("files added")
	o.commit(map[string]string{"app.yml": "k: 2\n", "config/deep/app.yml": "deeper: 2\n"})
	check("files changed")
	o.commit(map[string]string{"app-dev.yml": "", "config/app.yml": ""})
	check("files deleted")
	o.commit(map[string]string{"renamed/original.yml": "", "renamed/again/moved.yml": "moved: 1\n"})
	check("a file renamed")
	o.commit(map[string]string{"other/one.yml": "", "other/two/three.yml": ""})
	check("a directory removed")
	o.commit(map[string]string{"app.yml": "k: 1\n"})
	check("a file back to an earlier content")
	o.checkout("feature", true)
	o.commit(map[string]string{"app.yml": "k: feature\n"})
	o.tag("v1", true)
	o.checkout("master", false)
	o.commit(map[string]string{"app.yml": "k: 3\n"})
	check("a branch and an annotated tag")

	// A commit rewriting every file, then the repository packed by git.
	all := map[string]string{}
	for i := range 120 {
		all[fmt.Sprintf("many/f%03d.yml", i)] = fmt.Sprintf("v: %d\n", i)
	}
	o.commit(all)
	for name := range all {
		all[name] += "rewritten: true\n"
	}
	all["app.yml"] = "k: rewritten\n"
	o.commit(all)
	check("a commit rewriting every file")
	o.git("gc", "-q")
	o.commit(map[string]string{"app.yml": "k: after gc\n"})
	check("a repository packed by git gc")

	// A force-push to an unrelated history: master now names a commit that
	// shares nothing with the one before.
	orphan := orphanCommit(t, o, map[string]string{"app.yml": "k: unrelated\n", "dir/x.yml": "x: 1\n"})
	setBranch(t, o, "master", orphan)
	check("a force-push to an unrelated history")
}

// assertCopyMatches compares the local copy with the repository and the
// server's answers with those of a server started afresh.
func assertCopyMatches(t *testing.T, step string, s *Server, o *origin) {
	t.Helper()
	paths := []string{"/app/default", "/app/dev", "/app/prod", "/app/default/feature", "/app/default/v1",
		"/config(_)deep(_)app/default", "/config(_)new(_)app/default", "/other(_)two(_)three/default",
		"/renamed(_)again(_)moved/default", "/many(_)f007/default", "/dir(_)x/default", "/app-default.properties"}
	answer := func(h http.Handler, p string) string {
		rec := get(h, p)
		return fmt.Sprint(rec.Code, " ", timestamp.ReplaceAllString(rec.Body.String(), ""))
	}
	fresh := newServer(t, Options{URI: o.dir, BaseDir: filepath.Join(t.TempDir(), "fresh")})
	for _, p := range paths {
		if got, want := answer(s, p), answer(fresh, p); got != want {
			t.Errorf("%s: GET %s\n got %s\nwant %s", step, p, got, want)
		}
	}

	settle(s)
	mirror, err := git.PlainOpen(s.mirror.dir)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainOpen(o.dir) // afresh: go-git reads the list of packs once
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]plumbing.Hash{}
	iter, _ := repo.References()
	_ = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && (r.Name().IsBranch() || r.Name().IsTag()) {
			refs[r.Name().String()] = r.Hash()
		}
		return nil
	})
	for name, h := range refs {
		mirrored := plumbing.ReferenceName(strings.Replace(name, "refs/heads/", "refs/remotes/origin/", 1))
		r, err := mirror.Reference(mirrored, false)
		if err != nil || r.Hash() != h {
			t.Errorf("%s: %s is %v (%v) in the copy, %s in the repository", step, mirrored, r, err, h)
			continue
		}
		if want, got := files(t, repo, h), files(t, mirror, h); !maps.Equal(want, got) {
			t.Errorf("%s: the files of %s differ:\n got %v\nwant %v", step, name, got, want)
		}
	}
	fsck(t, step, s.mirror.dir)
}

var timestamp = regexp.MustCompile(`"timestamp":"[^"]*"`)

// files lists every file of the commit (or tag) h with its mode and
// content, read by go-git.
func files(t *testing.T, repo *git.Repository, h plumbing.Hash) map[string]string {
	t.Helper()
	if tag, err := repo.TagObject(h); err == nil {
		h = tag.Target
	}
	c, err := repo.CommitObject(h)
	if err != nil {
		t.Fatalf("commit %s: %v", h, err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatalf("tree of %s: %v", h, err)
	}
	out := map[string]string{}
	err = tree.Files().ForEach(func(f *object.File) error {
		content, err := f.Contents()
		out[f.Name] = fmt.Sprint(f.Mode, " ", content)
		return err
	})
	if err != nil {
		t.Fatalf("files of %s: %v", h, err)
	}
	return out
}

// fsck has git check every object the copy's refs reach, and its packs.
func fsck(t *testing.T, step, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--full", "--strict", "--no-dangling").CombinedOutput()
	if err != nil {
		t.Errorf("%s: git fsck of the copy: %v\n%s", step, err, out)
	}
}

// orphanCommit commits files as a root commit, sharing nothing with the
// repository's history, and returns it; no branch moves.
func orphanCommit(t *testing.T, o *origin, files map[string]string) plumbing.Hash {
	t.Helper()
	tree := storeTree(t, o.repo, files)
	c := &object.Commit{
		Author:   object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1800000000, 0)},
		Message:  "unrelated",
		TreeHash: tree,
	}
	c.Committer = c.Author
	return storeObject(t, o.repo, c)
}

// blobsStored are the blobs storeTree wrote, by repository and content.
var blobsStored = map[*git.Repository]map[string]plumbing.Hash{}

// storeTree stores files (nested by their paths) and returns the root tree.
func storeTree(t *testing.T, repo *git.Repository, files map[string]string) plumbing.Hash {
	t.Helper()
	type dir struct {
		files map[string]string
		dirs  map[string]map[string]string
	}
	d := dir{files: map[string]string{}, dirs: map[string]map[string]string{}}
	for name, content := range files {
		if first, rest, ok := strings.Cut(name, "/"); ok {
			if d.dirs[first] == nil {
				d.dirs[first] = map[string]string{}
			}
			d.dirs[first][rest] = content
		} else {
			d.files[name] = content
		}
	}
	tree := &object.Tree{}
	if blobsStored[repo] == nil {
		blobsStored[repo] = map[string]plumbing.Hash{}
	}
	for _, name := range slices.Sorted(maps.Keys(d.files)) {
		h, ok := blobsStored[repo][d.files[name]]
		if !ok {
			h = storeBlob(t, repo, d.files[name])
			blobsStored[repo][d.files[name]] = h
		}
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, sub := range d.dirs {
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: storeTree(t, repo, sub)})
	}
	// git's order: a directory sorts as if its name ended with a slash.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(tree.Entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	return storeObject(t, repo, tree)
}

func storeBlob(t testing.TB, repo *git.Repository, content string) plumbing.Hash {
	t.Helper()
	blob := repo.Storer.NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	w, _ := blob.Writer()
	_, _ = io.WriteString(w, content)
	_ = w.Close()
	h, err := repo.Storer.SetEncodedObject(blob)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func storeObject(t testing.TB, repo *git.Repository, o interface {
	Encode(plumbing.EncodedObject) error
}) plumbing.Hash {
	t.Helper()
	obj := repo.Storer.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func setBranch(t testing.TB, o *origin, branch string, h plumbing.Hash) {
	t.Helper()
	if err := o.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), h)); err != nil {
		t.Fatal(err)
	}
}

// importCommits commits on master with git fast-import, which writes a
// history far faster than one object file at a time: each map is what a
// commit changes ("" deletes a file). It returns the last commit.
func importCommits(t testing.TB, o *origin, changes ...map[string]string) plumbing.Hash {
	t.Helper()
	head, err := o.repo.Reference(plumbing.NewBranchReferenceName("master"), true)
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i, files := range changes {
		o.n++
		fmt.Fprintf(&in, "commit refs/heads/master\ncommitter t <t@example.com> %d +0000\ndata 6\nchange\n", 1700000000+o.n)
		if i == 0 {
			fmt.Fprintf(&in, "from %s\n", head.Hash())
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if files[name] == "" {
				fmt.Fprintf(&in, "D %s\n", name)
				continue
			}
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", name, len(files[name]), files[name])
		}
		in.WriteString("\n")
	}
	cmd := exec.Command("git", "-C", o.dir, "fast-import", "--quiet", "--force")
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v %s", err, out)
	}
	head, err = o.repo.Reference(plumbing.NewBranchReferenceName("master"), true)
	if err != nil {
		t.Fatal(err)
	}
	return head.Hash()
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// git runs git in the repository, then opens it afresh: go-git reads the
// list of packs once.
func (o *origin) git(args ...string) {
	o.tb.Helper()
	if out, err := exec.Command("git", append([]string{"-C", o.dir}, args...)...).CombinedOutput(); err != nil {
		o.tb.Fatalf("git %s: %v %s", args[0], err, out)
	}
	repo, err := git.PlainOpen(o.dir)
	if err != nil {
		o.tb.Fatal(err)
	}
	o.repo = repo
}

// objectFilesOf lists the object files of a git directory, by path
// below it.
func objectFilesOf(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.Walk(filepath.Join(dir, "objects"), func(path string, info os.FileInfo, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if err == nil && info.Mode().IsRegular() && !strings.HasPrefix(rel, filepath.Join("objects", "info")) &&
			(strings.HasSuffix(rel, ".pack") || strings.HasSuffix(rel, ".idx") || !strings.Contains(rel, "pack")) {
			names = append(names, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestMirrorIsFetchedAndServedWhenTheRepositoryVanishes: the mirror of a
// repository on this machine is fetched by go-git in the background (it
// holds packs only, where the repository holds a commit's loose objects),
// holds every commit the refs name once the fetch settles, and is what
// answers come from once the repository is gone, also after a restart.
func TestMirrorIsFetchedAndServedWhenTheRepositoryVanishes(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	history := []map[string]string{}
	for i := range 120 {
		history = append(history, map[string]string{fmt.Sprintf("app%02d.yml", i%30): fmt.Sprintf("k: %d\n", i)})
	}
	importCommits(t, o, history...)
	o.git("gc", "-q")
	base := filepath.Join(t.TempDir(), "base")
	var logs syncbuf.Buffer
	s := newServer(t, Options{URI: o.dir, BaseDir: base, Logger: logs.Logger()})
	h := o.commit(map[string]string{"app00.yml": "k: new\n"})
	if e := getEnv(t, s, "/app00/default"); e.Version != h.String() {
		t.Fatalf("served %s, want %s", e.Version, h)
	}
	assertCopyMatches(t, "after a commit", s, o)
	loose := func(dir string) (n int) {
		for _, f := range objectFilesOf(t, dir) {
			if !strings.Contains(f, "pack") {
				n++
			}
		}
		return n
	}
	if mine, theirs := loose(s.mirror.dir), loose(filepath.Join(o.dir, ".git")); mine != 0 || theirs == 0 {
		t.Errorf("loose objects: %d in the mirror, %d in the repository; a fetch writes packs only", mine, theirs)
	}

	if err := os.RemoveAll(o.dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/app00/default", "/app/default/" + h.String()[:8]} {
		if e := getEnv(t, s, p); e.Version != h.String() || len(e.PropertySources) == 0 {
			t.Fatalf("GET %s with the repository gone: %+v", p, e)
		}
	}
	if out := logs.String(); strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "serving the last fetched copy") {
		t.Errorf("want one warning with the repository gone, got:\n%s", out)
	}
	s.Close()
	again := newServer(t, Options{URI: o.dir, BaseDir: base})
	if e := getEnv(t, again, "/app00/default"); e.Version != h.String() || e.PropertySources[0].Source["k"] != "new" {
		t.Fatalf("restarted with the repository gone: %+v", e)
	}
}

// Without the git binary (the reference's image has none), go-git cannot
// fetch a local path: the mirror is fetched through go-git's in-process
// server instead (localfetch), and serves once the repository is gone.
func TestMirrorFetchedWithoutGit(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	o.checkout("feature", true)
	o.commit(map[string]string{"app.yml": "k: feature\n"})
	o.tag("v1", true)
	o.checkout("master", false)
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	var logs syncbuf.Buffer
	s := newServer(t, Options{URI: o.dir, Logger: logs.Logger()})
	var h plumbing.Hash
	for i := range 3 {
		h = o.commit(map[string]string{"app.yml": fmt.Sprintf("k: %d\n", i+1)})
		if e := getEnv(t, s, "/app/default"); e.Version != h.String() {
			t.Fatalf("commit %d: served %s, want %s", i, e.Version, h)
		}
		settle(s)
	}
	if err := o.repo.Storer.RemoveReference(plumbing.NewBranchReferenceName("feature")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", path) // for git fsck
	assertCopyMatches(t, "fetched without git", s, o)
	if out := logs.String(); strings.Contains(out, "level=WARN") {
		t.Errorf("warnings:\n%s", out)
	}
	if err := os.RemoveAll(o.dir); err != nil {
		t.Fatal(err)
	}
	if e := getEnv(t, s, "/app/default"); e.Version != h.String() || fmt.Sprint(e.PropertySources[0].Source["k"]) != "3" {
		t.Fatalf("with the repository gone: %+v", e)
	}
}

// TestServingWhileTheRepositoryIsRepacked commits while requests run, for
// the newest commit and for earlier ones by id, and has git repack the
// repository every few commits: every answer after a commit shows it,
// every request is answered, and the mirror ends whole.
func TestServingWhileTheRepositoryIsRepacked(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: 0\n"})
	s := newServer(t, Options{URI: o.dir})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	halt := func() { once.Do(func() { close(stop); wg.Wait() }) }
	defer halt() // also when the test fails: readers must not outlive the repository
	var mu sync.Mutex
	var commits []string // committed so far, to ask for by id
	for r := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				path := "/app00/default"
				mu.Lock()
				if len(commits) > 0 && (n+r)%2 == 0 {
					path += "/" + commits[(n*7+r)%len(commits)]
				}
				mu.Unlock()
				if rec := get(s, path); rec.Code != http.StatusOK {
					t.Errorf("GET %s: %d %s", path, rec.Code, rec.Body)
					return
				}
			}
		})
	}
	for i := range 24 {
		small := map[string]string{}
		for k := range 8 {
			small[fmt.Sprintf("app%02d.yml", k)] = fmt.Sprintf("k: %d\nfile: %d\n", i, k)
		}
		h := importCommits(t, o, small)
		if i%6 == 5 {
			o.git("repack", "-a", "-d", "-q")
		}
		if e := getEnv(t, s, "/app00/default"); e.Version != h.String() || fmt.Sprint(e.PropertySources[0].Source["k"]) != fmt.Sprint(i) {
			t.Fatalf("commit %d: served %s %v, want %s", i, e.Version, e.PropertySources, h)
		}
		mu.Lock()
		commits = append(commits, h.String())
		mu.Unlock()
	}
	halt()
	assertCopyMatches(t, "after repacking while serving", s, o)
}

// A repository whose branch names an object it does not hold is broken:
// the mirror keeps its last good copy, serves it, and says so once.
func TestBrokenRepositoryKeepsTheLastGoodCopy(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: good\n"})
	var logs syncbuf.Buffer
	s := newServer(t, Options{URI: o.dir, Logger: logs.Logger()})
	good := getEnv(t, s, "/app/default").Version
	settle(s)
	setBranch(t, o, "master", plumbing.NewHash(strings.Repeat("ab", 20)))
	for range 2 {
		if e := getEnv(t, s, "/app/default"); e.Version != good || e.PropertySources[0].Source["k"] != "good" {
			t.Fatalf("a broken repository: %+v", e)
		}
	}
	if out := logs.String(); strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "does not hold") {
		t.Fatalf("want one warning saying what is broken, got:\n%s", out)
	}
}

// A repository that borrows objects from another (git clone --shared
// writes objects/info/alternates) is served, and mirrored whole: once the
// fetch settles the mirror holds the borrowed objects too, and answers
// need none of the other repository once it is gone.
func TestRepositoryWithAlternates(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: borrowed\n", "other.yml": "o: 1\n"})
	shared := filepath.Join(t.TempDir(), "shared")
	if out, err := exec.Command("git", "clone", "-q", "--shared", o.dir, shared).CombinedOutput(); err != nil {
		t.Fatalf("git clone --shared: %v %s", err, out)
	}
	s := newServer(t, Options{URI: shared})
	if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "borrowed" {
		t.Fatalf("a repository with alternates: %+v", e)
	}
	if err := os.WriteFile(filepath.Join(shared, "app.yml"), []byte("k: own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit := exec.Command("git", "-C", shared, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "own")
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v %s", err, out)
	}
	if e := getEnv(t, s, "/app/default"); e.PropertySources[0].Source["k"] != "own" {
		t.Fatalf("after a commit: %+v", e)
	}
	settle(s)
	if err := os.RemoveAll(o.dir); err != nil {
		t.Fatal(err)
	}
	fsck(t, "with the other repository gone", s.mirror.dir)
	if e := getEnv(t, s, "/other/default"); e.PropertySources[0].Source["o"] != float64(1) {
		t.Fatalf("a borrowed file, with the other repository gone: %+v", e)
	}
}
