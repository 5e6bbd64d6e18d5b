package configserver

import (
	"bytes"
	stdzlib "compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	kzlib "github.com/klauspost/compress/zlib"
)

// flatTree is the text of a loose tree object of n files with random ids,
// and where each entry's id starts.
func flatTree(rng *rand.Rand, n int) (text []byte, ids []int) {
	var body bytes.Buffer
	for i := range n {
		fmt.Fprintf(&body, "100644 app%05d.yml\x00", i)
		ids = append(ids, body.Len())
		for range 20 {
			body.WriteByte(byte(rng.IntN(256)))
		}
	}
	head := fmt.Sprintf("tree %d\x00", body.Len())
	for i := range ids {
		ids[i] += len(head)
	}
	return append([]byte(head), body.Bytes()...), ids
}

// compressors are the zlib writers trees are compressed with here: git's
// loose objects are zlib at level 1 by default (core.looseCompression),
// and any level or writer must read back the same.
var compressors = []struct {
	name string
	do   func([]byte) []byte
}{
	{"std-1", stdLevel(1)}, {"std-6", stdLevel(6)}, {"std-9", stdLevel(9)},
	{"std-huffman-only", stdLevel(stdzlib.HuffmanOnly)}, {"std-stored", stdLevel(stdzlib.NoCompression)},
	{"klauspost-1", func(b []byte) []byte {
		var out bytes.Buffer
		w, _ := kzlib.NewWriterLevel(&out, 1)
		_, _ = w.Write(b)
		_ = w.Close()
		return out.Bytes()
	}},
}

func stdLevel(level int) func([]byte) []byte {
	return func(b []byte) []byte {
		var out bytes.Buffer
		w, _ := stdzlib.NewWriterLevel(&out, level)
		_, _ = w.Write(b)
		_ = w.Close()
		return out.Bytes()
	}
}

// TestInflateLike checks indexLoose and inflateLike against the standard
// library's inflate, for every compressor, over versions of a tree that
// change one id (anywhere: first, last, random), several ids, add an entry
// or take one away, each version inflated from the one before; and that a
// one-id change of a large tree decodes few of its blocks.
func TestInflateLike(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range compressors {
		t.Run(c.name, func(t *testing.T) {
			text, ids := flatTree(rng, 5_000)
			base, err := indexLoose(c.do(text))
			if err != nil || !bytes.Equal(base.text, text) {
				t.Fatalf("indexLoose: %v, equal %v", err, err == nil && bytes.Equal(base.text, text))
			}
			few := 0
			for round := range 24 {
				next, what := change(rng, text, ids, round)
				comp := c.do(next)
				got, decoded, err := inflateLike(comp, base, plumbing.Hash(sha1.Sum(next)))
				switch {
				case len(next) != len(text):
					if !errors.Is(err, errInflate) {
						t.Fatalf("round %d (%s): %v, want errInflate (read it whole)", round, what, err)
					}
				case err != nil || !bytes.Equal(got, next):
					t.Fatalf("round %d (%s): %v, equal %v", round, what, err, err == nil && bytes.Equal(got, next))
				case what == "one id" && decoded <= 2:
					few++
				}
				if base, err = indexLoose(comp); err != nil || !bytes.Equal(base.text, next) {
					t.Fatalf("round %d (%s): indexLoose: %v", round, what, err)
				}
				text, ids = reparse(next)
			}
			// A compressor of many blocks (not one block stored whole) needs
			// few of them for most one-id changes.
			if len(base.blocks) > 4 && few < 6 {
				t.Errorf("%d of 9 one-id changes decoded at most 2 of %d blocks", few, len(base.blocks))
			}
		})
	}
}

// TestInflateLikeRefusesDamage flips bytes of a file and checks that
// inflateLike and indexLoose either fail or give the object the file
// names: what the standard library's inflate gives, or, for inflateLike,
// a text whose SHA-1 is the object's name (the parent's text in place of a
// damaged part it did not need to read).
func TestInflateLikeRefusesDamage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text, ids := flatTree(rng, 2000)
	base, err := indexLoose(stdLevel(6)(text))
	if err != nil {
		t.Fatal(err)
	}
	next, _ := change(rng, text, ids, 2)
	name := plumbing.Hash(sha1.Sum(next))
	comp := stdLevel(6)(next)
	for range 500 {
		bad := slices.Clone(comp)
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		want, werr := stdInflate(bad)
		if got, _, err := inflateLike(bad, base, name); err == nil && !bytes.Equal(got, next) && (werr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("inflateLike took a damaged file the standard library refuses (%v) or reads otherwise", werr)
		}
		if got, err := indexLoose(bad); err == nil && (werr != nil || !bytes.Equal(got.text, want)) {
			t.Fatalf("indexLoose took a damaged file the standard library refuses (%v) or reads otherwise", werr)
		}
	}
	if _, _, err := inflateLike(comp[:len(comp)-1], base, plumbing.ZeroHash); err == nil {
		t.Error("a file without its last byte was taken")
	}
}

// change makes a new version of text.
func change(rng *rand.Rand, text []byte, ids []int, round int) ([]byte, string) {
	next := slices.Clone(text)
	setID := func(i int) {
		for k := range 20 {
			next[ids[i]+k] = byte(rng.IntN(256))
		}
	}
	switch round % 8 {
	case 0:
		setID(0)
	case 1:
		setID(len(ids) - 1)
	case 2, 3, 4:
		setID(rng.IntN(len(ids)))
		return next, "one id"
	case 5:
		for range 5 {
			setID(rng.IntN(len(ids)))
		}
		return next, "five ids"
	case 6: // an entry more, with the size in the header
		body := next[bytes.IndexByte(next, 0)+1:]
		i := rng.IntN(len(ids))
		at := ids[i] + 20 - (len(text) - len(body))
		entry := append([]byte(fmt.Sprintf("100644 app%05d-x.yml\x00", i)), bytes.Repeat([]byte{byte(round)}, 20)...)
		body = slices.Insert(slices.Clone(body), at, entry...)
		return append([]byte(fmt.Sprintf("tree %d\x00", len(body))), body...), "an entry more"
	case 7: // an entry fewer
		body := next[bytes.IndexByte(next, 0)+1:]
		head := len(text) - len(body)
		i := 1 + rng.IntN(len(ids)-1)
		from, to := ids[i-1]+20-head, ids[i]+20-head
		body = slices.Delete(slices.Clone(body), from, to)
		return append([]byte(fmt.Sprintf("tree %d\x00", len(body))), body...), "an entry fewer"
	}
	return next, "an end id"
}

// reparse finds where each id of a tree's text starts.
func reparse(text []byte) ([]byte, []int) {
	var ids []int
	for off := bytes.IndexByte(text, 0) + 1; off < len(text); {
		nul := bytes.IndexByte(text[off:], 0)
		ids = append(ids, off+nul+1)
		off += nul + 1 + 20
	}
	return text, ids
}

func stdInflate(comp []byte) ([]byte, error) {
	r, err := stdzlib.NewReader(bytes.NewReader(comp))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// BenchmarkInflateTree compares ways of inflating the 400 KB tree of
// 10,000 files a one-file commit makes:
//
//	Baseline    whole, with klauspost's zlib, as a loose object is read otherwise
//	FromParent  from its parent's index (inflateLike)
//	Index       indexing it aside (indexLoose), for the next commit
func BenchmarkInflateTree(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	text, ids := flatTree(rng, 10_000)
	base, err := indexLoose(stdLevel(6)(text))
	if err != nil {
		b.Fatal(err)
	}
	next, _ := change(rng, text, ids, 2)
	comp, name := stdLevel(6)(next), plumbing.Hash(sha1.Sum(next))
	b.Run("Baseline", func(b *testing.B) {
		for b.Loop() {
			if _, err := inflateLoose(comp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("FromParent", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := inflateLike(comp, base, name); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Index", func(b *testing.B) {
		for b.Loop() {
			if _, err := indexLoose(comp); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestATreeIsInflatedFromItsParent checks the server end to end: in a flat
// repository of 3,000 files, each one-file commit after the first (loose
// objects, as git commit writes them) has its tree inflated from its
// parent's index, and every answer shows the commit.
func TestATreeIsInflatedFromItsParent(t *testing.T) {
	o := newOrigin(t, map[string]string{"app00000.yml": "k: 0\n"})
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("app%05d.yml", i)] = fmt.Sprintf("greeting:\n  message: hello %d\n", i)
	}
	head := importCommits(t, o, files)
	s := newServer(t, Options{URI: o.dir})
	objects := filepath.Join(o.dir, ".git", "objects")
	before := inflatedFromParent.Load()
	for round := range 5 {
		name := fmt.Sprintf("app%05d", 1+round*700)
		head = commitOneFile(t, objects, head, name+".yml", fmt.Sprintf("greeting:\n  message: round %d\n", round))
		setBranch(t, o, "master", head)
		if rec := get(s, "/"+name+"/default"); rec.Code != 200 || !strings.Contains(rec.Body.String(), fmt.Sprintf("round %d", round)) {
			t.Fatalf("round %d: %d %s, want the change", round, rec.Code, rec.Body)
		}
		s.mirror.background.Wait()
	}
	if n := inflatedFromParent.Load() - before; n < 4 {
		t.Errorf("%d of the 4 trees after the first inflated from their parent's", n)
	}
}

// FuzzIndexLoose feeds indexLoose any bytes: it must not panic, and what it
// takes must read as the standard library's inflate reads it.
func FuzzIndexLoose(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	text, _ := flatTree(rng, 20)
	for _, c := range compressors {
		f.Add(c.do(text))
	}
	f.Add([]byte{0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	f.Fuzz(func(t *testing.T, comp []byte) {
		idx, err := indexLoose(comp)
		if err != nil {
			return
		}
		want, werr := stdInflate(comp)
		if werr != nil || !bytes.Equal(idx.text, want) {
			t.Fatalf("indexLoose read %q, the standard library %q (%v)", idx.text, want, werr)
		}
	})
}
