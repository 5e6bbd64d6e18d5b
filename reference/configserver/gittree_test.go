package configserver

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// testEntry is one entry of a tree built by encodeTree.
type testEntry struct {
	name string
	mode filemode.FileMode
	id   byte // the entry's object id is 20 times this byte
}

// encodeTree encodes entries with go-git's own encoder, which sorts them
// as git does.
func encodeTree(t testing.TB, entries []testEntry) *gitTree {
	t.Helper()
	tree := &object.Tree{}
	for _, e := range entries {
		var h plumbing.Hash
		for i := range h {
			h[i] = e.id
		}
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: e.name, Mode: e.mode, Hash: h})
	}
	slices.SortFunc(tree.Entries, func(a, b object.TreeEntry) int {
		return compareNames([]byte(a.Name), a.Mode == filemode.Dir, []byte(b.Name), b.Mode == filemode.Dir)
	})
	obj := &plumbing.MemoryObject{}
	if err := tree.Encode(obj); err != nil {
		t.Fatal(err)
	}
	rd, _ := obj.Reader()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(rd)
	gt, err := parseTree(plumbing.Hash(sha1.Sum(buf.Bytes())), buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return gt
}

// TestTreeOrderAndLookups: git sorts a directory as if its name ended in
// "/", so "a.b" comes between the file "a" and the directory "a"; lookups
// find each by name, as go-git's FindEntry does.
func TestTreeOrderAndLookups(t *testing.T) {
	tree := encodeTree(t, []testEntry{
		{"a", filemode.Dir, 1}, {"a.b", filemode.Regular, 2}, {"a-b", filemode.Regular, 3},
		{"b", filemode.Executable, 4}, {"c", filemode.Symlink, 5}, {"d", filemode.Submodule, 6},
	})
	if !tree.sorted {
		t.Fatal("git's own order read as unsorted")
	}
	var names []string
	for i := range tree.ents {
		names = append(names, string(tree.name(i)))
	}
	if want := []string{"a-b", "a.b", "a", "b", "c", "d"}; !slices.Equal(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}
	for _, c := range []struct {
		name    string
		found   bool
		dir     bool
		regular bool
	}{{"a", true, true, false}, {"a.b", true, false, true}, {"b", true, false, true}, {"c", true, false, false},
		{"d", true, false, false}, {"e", false, false, false}, {"", false, false, false}, {"a/", false, false, false}} {
		i, ok := tree.find([]byte(c.name))
		if ok != c.found || ok && (tree.isDir(i) != c.dir || regularFile(tree.mode(i)) != c.regular) {
			t.Errorf("find(%q) = %d %v", c.name, i, ok)
		}
	}
	// Entries out of order: still read, compared and found, by scanning.
	raw := slices.Concat(tree.data[tree.ents[3].start:tree.ents[3].end], tree.data[:tree.ents[3].start], tree.data[tree.ents[3].end:])
	unsorted, err := parseTree(plumbing.ZeroHash, raw)
	if err != nil || unsorted.sorted {
		t.Fatalf("unsorted tree: %v sorted=%v", err, unsorted.sorted)
	}
	if i, ok := unsorted.find([]byte("a.b")); !ok || unsorted.hashAt(i) != tree.hashAt(1) {
		t.Fatalf("find in an unsorted tree: %d %v", i, ok)
	}
	for _, bad := range []string{"100644 x", "100644 x\x00short", "10a644 x\x00" + string(make([]byte, 20)), " x\x00" + string(make([]byte, 20))} {
		if _, err := parseTree(plumbing.ZeroHash, []byte(bad)); err == nil {
			t.Errorf("malformed tree %q accepted", bad)
		}
	}
}

// TestChangedAndTreeDelta mutates random trees and checks that changed
// names exactly the entries no base holds, that reading a tree like
// another reads it as reading it afresh does, and that the delta applied
// to the base (by go-git) gives the tree back, byte for byte.
func TestChangedAndTreeDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		base := randomEntries(rng, rng.IntN(60))
		next := mutate(rng, base)
		other := mutate(rng, base)
		bt, nt, ot := encodeTree(t, base), encodeTree(t, next), encodeTree(t, other)

		for _, bases := range [][]*gitTree{nil, {bt}, {bt, ot}, {ot, bt}} {
			var got []string
			err := nt.changed(bases, func(i, j int) error {
				got = append(got, string(nt.name(i)))
				if j >= 0 && (!bytes.Equal(bases[0].name(j), nt.name(i)) || bases[0].isDir(j) != nt.isDir(i)) {
					t.Fatalf("round %d: base entry %d is not %q", round, j, nt.name(i))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range nt.ents {
				held := false
				for _, b := range bases {
					for j := range b.ents {
						held = held || bytes.Equal(b.name(j), nt.name(i)) && b.hashAt(j) == nt.hashAt(i)
					}
				}
				if !held {
					want = append(want, string(nt.name(i)))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, %d bases: changed %v, want %v", round, len(bases), got, want)
			}
		}

		for _, like := range []*gitTree{bt, ot, nil} {
			lt, err := parseTreeLike(nt.hash, nt.data, like)
			if err != nil || lt.sorted != nt.sorted || !slices.Equal(lt.ents, nt.ents) {
				t.Fatalf("round %d: read like another tree: %v %+v, want %+v", round, err, lt, nt)
			}
		}

		if d := treeDelta(bt, nt); d != nil {
			out, err := packfile.PatchDelta(bt.data, d)
			if err != nil || !bytes.Equal(out, nt.data) {
				t.Fatalf("round %d: delta gives %d bytes (%v), want the %d of the tree", round, len(out), err, len(nt.data))
			}
		} else if len(base) > 20 && len(next) > 20 && sameMost(base, next) {
			t.Fatalf("round %d: no delta between trees that differ in a few entries", round)
		}
	}
}

// TestTreeDeltaOfALargeTree: copies longer than one instruction allows
// are split.
func TestTreeDeltaOfALargeTree(t *testing.T) {
	var entries []testEntry
	for i := range 10_000 {
		entries = append(entries, testEntry{fmt.Sprintf("app%05d.yml", i), filemode.Regular, byte(i)})
	}
	base := encodeTree(t, entries)
	entries[5000].id++
	next := encodeTree(t, entries)
	if like, err := parseTreeLike(next.hash, next.data, base); err != nil || !slices.Equal(like.ents, next.ents) {
		t.Fatalf("read like its earlier version: %v", err)
	}
	d := treeDelta(base, next)
	if d == nil || len(d) > 200 {
		t.Fatalf("delta of one changed entry in 10,000: %d bytes", len(d))
	}
	if out, err := packfile.PatchDelta(base.data, d); err != nil || !bytes.Equal(out, next.data) {
		t.Fatalf("delta does not give the tree back: %v", err)
	}
}

func randomEntries(rng *rand.Rand, n int) []testEntry {
	seen := map[string]bool{}
	var out []testEntry
	for range n {
		name := randomName(rng)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, testEntry{name, randomMode(rng), byte(rng.IntN(256))})
	}
	return out
}

func randomName(rng *rand.Rand) string {
	const letters = "ab.-_/"
	n := 1 + rng.IntN(4)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters)-1)] // no "/" in a name
	}
	return string(b)
}

func randomMode(rng *rand.Rand) filemode.FileMode {
	return []filemode.FileMode{filemode.Regular, filemode.Regular, filemode.Dir, filemode.Executable, filemode.Symlink, filemode.Submodule}[rng.IntN(6)]
}

// mutate changes, adds, removes and renames a few entries.
func mutate(rng *rand.Rand, entries []testEntry) []testEntry {
	out := slices.Clone(entries)
	for range rng.IntN(4) {
		switch k := rng.IntN(4); {
		case k == 0 && len(out) > 0:
			out[rng.IntN(len(out))].id++
		case k == 1 && len(out) > 0:
			i := rng.IntN(len(out))
			out = slices.Delete(out, i, i+1)
		case k == 2 && len(out) > 0:
			i := rng.IntN(len(out))
			name := randomName(rng) + "x"
			if !slices.ContainsFunc(out, func(e testEntry) bool { return e.name == name }) {
				out[i].name = name
			}
		default:
			name := randomName(rng) + "y"
			if !slices.ContainsFunc(out, func(e testEntry) bool { return e.name == name }) {
				out = append(out, testEntry{name, randomMode(rng), byte(rng.IntN(256))})
			}
		}
	}
	return out
}

func sameMost(a, b []testEntry) bool {
	same := 0
	for _, e := range a {
		if slices.Contains(b, e) {
			same++
		}
	}
	return same > len(a)-4
}

// TestCommonEnds checks commonPrefix and commonSuffix against a byte at a
// time, for a difference at every place around the chunks they compare
// whole, and for slices of different lengths.
func TestCommonEnds(t *testing.T) {
	base := make([]byte, 3*compareChunk+17)
	for i := range base {
		base[i] = byte(i * 7)
	}
	slow := func(a, b []byte, fromEnd bool) int {
		n := 0
		for n < min(len(a), len(b)) {
			x, y := a[n], b[n]
			if fromEnd {
				x, y = a[len(a)-1-n], b[len(b)-1-n]
			}
			if x != y {
				break
			}
			n++
		}
		return n
	}
	for cut := 0; cut <= len(base); cut += 5 {
		for at := 0; at < len(base); at++ {
			other := slices.Clone(base)
			other[at]++
			a, b := base, other[:len(other)-cut]
			if got, want := commonPrefix(a, b), slow(a, b, false); got != want {
				t.Fatalf("commonPrefix, difference at %d, %d bytes shorter: %d, want %d", at, cut, got, want)
			}
			b = other[cut:]
			if got, want := commonSuffix(a, b), slow(a, b, true); got != want {
				t.Fatalf("commonSuffix, difference at %d, %d bytes shorter: %d, want %d", at, cut, got, want)
			}
		}
	}
}
