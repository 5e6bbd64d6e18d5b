package configserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// BenchmarkEnvironment compares the cost of answering GET /{app}/{profile}
// with a handler that only writes a fixed body of similar size:
//
//	Baseline     fixed JSON body, no work
//	Unchanged    full request on an unchanged repository (fetch + cache hit)
//	AfterCommit  a commit lands before each request (fetch + parse + build)
func BenchmarkEnvironment(b *testing.B) {
	o := newOrigin(b, map[string]string{"greeting-config.yml": appYML, "application.yml": "shared: 1\n"})
	s := newServer(b, Options{URI: o.dir})
	path := "/greeting-config/default"
	body := get(s, path).Body.Bytes()

	b.Run("Baseline", func(b *testing.B) {
		fixed := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			httpx.WriteBody(w, http.StatusOK, "application/json", body)
		})
		benchGet(b, fixed, path, nil)
	})
	b.Run("Unchanged", func(b *testing.B) {
		benchGet(b, s, path, nil)
	})
	b.Run("AfterCommit", func(b *testing.B) {
		i := 0
		benchGet(b, s, path, func() {
			i++
			o.commit(map[string]string{"greeting-config.yml": appYML + "counter: " + strconv.Itoa(i) + "\n"})
		})
	})
}

// benchGet serves path through h b.N times; before, if set, runs untimed
// ahead of each request.
func benchGet(b *testing.B, h http.Handler, path string, before func()) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before()
			b.StartTimer()
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// BenchmarkFirstRequestAfterCommit measures the first request after a
// commit that changes one file (the copy of the commit and the answer),
// the commit made untimed before each request, as git makes it (loose
// objects):
//
//	Baseline     a repository of 10 files
//	Files10000   10,000 files: issue 30 wants it within 2x of Baseline
func BenchmarkFirstRequestAfterCommit(b *testing.B) {
	b.Run("Baseline", func(b *testing.B) { benchFirstRequest(b, 10) })
	b.Run("Files10000", func(b *testing.B) { benchFirstRequest(b, 10_000) })
}

func benchFirstRequest(b *testing.B, files int) {
	o := newOrigin(b, map[string]string{"app00000.yml": "k: 0\n"})
	all := map[string]string{}
	for i := range files {
		all[fmt.Sprintf("app%05d.yml", i)] = fmt.Sprintf("greeting:\n  message: hello %d\n", i)
	}
	head := importCommits(b, o, all)
	s := newServer(b, Options{URI: o.dir})
	path := "/app00001/default"
	get(s, path)
	objects := filepath.Join(o.dir, ".git", "objects")
	k := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		k++
		s.mirror.background.Wait() // what the last commit's request left to do aside (indexing its tree, packing)
		head = commitOneFile(b, objects, head, "app00001.yml", fmt.Sprintf("greeting:\n  message: round %d\n", k))
		setBranch(b, o, "master", head)
		b.StartTimer()
		if rec := get(s, path); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), fmt.Sprintf("round %d", k)) {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// commitOneFile commits, on parent, a new content of the file name at the
// top of its tree, writing loose objects as git commit does.
func commitOneFile(tb testing.TB, objects string, parent plumbing.Hash, name, content string) plumbing.Hash {
	tb.Helper()
	store := &objectStore{objects: objects, open: func() (storer.EncodedObjectStorer, func(), error) {
		repo, err := git.PlainOpen(filepath.Dir(filepath.Dir(objects)))
		if err != nil {
			return nil, nil, err
		}
		return repo.Storer, func() {}, nil
	}}
	pc, err := store.read(parent)
	if err != nil {
		tb.Fatal(err)
	}
	treeID, _, err := commitLinks(pc.data)
	if err != nil {
		tb.Fatal(err)
	}
	to, err := store.read(treeID)
	if err != nil {
		tb.Fatal(err)
	}
	tree, err := parseTree(treeID, to.data)
	if err != nil {
		tb.Fatal(err)
	}
	blob := write(tb, objects, plumbing.BlobObject, []byte(content))
	i, ok := tree.find([]byte(name))
	if !ok {
		tb.Fatalf("no %s in the tree", name)
	}
	data := slices.Clone(tree.data)
	copy(data[tree.ents[i].end-20:tree.ents[i].end], blob[:])
	newTree := write(tb, objects, plumbing.TreeObject, data)
	commit := fmt.Sprintf("tree %s\nparent %s\nauthor t <t@example.com> 1700000000 +0000\ncommitter t <t@example.com> 1700000000 +0000\n\n%s\n", newTree, parent, content)
	return write(tb, objects, plumbing.CommitObject, []byte(commit))
}

func write(tb testing.TB, objects string, typ plumbing.ObjectType, data []byte) plumbing.Hash {
	tb.Helper()
	h := plumbing.ComputeHash(typ, data)
	if _, err := writeLoose(objects, h, &gitObject{typ: typ, data: data}); err != nil {
		tb.Fatal(err)
	}
	return h
}
