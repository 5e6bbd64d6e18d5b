package configserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

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
// commit that changes one file (the mirror brought up to date, then the
// answer), the commit made untimed before each request, loose, as git
// commit writes it:
//
//	Baseline     a repository of 10 files
//	Files10000   10,000 files in one directory (make scale's budget: 50 ms)
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
	o.git("gc", "-q")
	s := newServer(b, Options{URI: o.dir})
	path := "/app00001/default"
	get(s, path)
	k := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		k++
		head = commitOneFile(b, o, head, "app00001.yml", fmt.Sprintf("greeting:\n  message: round %d\n", k))
		b.StartTimer()
		if rec := get(s, path); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), fmt.Sprintf("round %d", k)) {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// commitOneFile commits on parent, and moves master to, a new content of
// the file name at the top of the tree, written loose by go-git.
func commitOneFile(tb testing.TB, o *origin, parent plumbing.Hash, name, content string) plumbing.Hash {
	tb.Helper()
	pc, err := o.repo.CommitObject(parent)
	if err != nil {
		tb.Fatal(err)
	}
	tree, err := pc.Tree()
	if err != nil {
		tb.Fatal(err)
	}
	i := slices.IndexFunc(tree.Entries, func(e object.TreeEntry) bool { return e.Name == name })
	if i < 0 {
		tb.Fatalf("no %s in the tree", name)
	}
	entries := slices.Clone(tree.Entries)
	entries[i].Hash = storeBlob(tb, o.repo, content)
	sig := object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	h := storeObject(tb, o.repo, &object.Commit{Author: sig, Committer: sig, Message: content,
		TreeHash: storeObject(tb, o.repo, &object.Tree{Entries: entries}), ParentHashes: []plumbing.Hash{parent}})
	setBranch(tb, o, "master", h)
	return h
}
