package configserver

import (
	"bytes"
	"container/list"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// gitTree is a tree object as stored, with the place of each entry: the
// copy compares two versions of a tree entry by entry without decoding
// either (a tree of 10,000 files is one object), and a lookup finds a name
// by binary search.
type gitTree struct {
	hash plumbing.Hash
	data []byte
	ents []treeEnt
	// sorted is true when the entries are in git's order, each once, as git
	// always writes them; otherwise diffs treat every entry as changed and
	// lookups scan.
	sorted bool
	// index is the tree's loose object file with where its deflate blocks
	// start, once indexed aside, from which its next version is inflated
	// (inflate.go).
	index atomic.Pointer[deflateIndex]
}

// treeEnt locates one entry, "<mode> <name>\0<20-byte id>", in data.
type treeEnt struct {
	start, name, end uint32
	mode             uint32
}

const (
	modeDir       = 0o40000
	modeSubmodule = 0o160000
)

var errMalformedTree = errors.New("malformed tree object")

func parseTree(h plumbing.Hash, data []byte) (*gitTree, error) {
	// An entry takes 30 bytes or more: "100644 " and a short name, the id.
	t := &gitTree{hash: h, data: data, sorted: true, ents: make([]treeEnt, 0, len(data)/30+1)}
	for off := 0; off < len(data); {
		sp := bytes.IndexByte(data[off:], ' ')
		if sp <= 0 {
			return nil, errMalformedTree
		}
		name := off + sp + 1
		nul := bytes.IndexByte(data[name:], 0)
		if nul <= 0 || name+nul+1+20 > len(data) {
			return nil, errMalformedTree
		}
		end := name + nul + 1 + 20
		mode, ok := parseMode(data[off : name-1])
		if !ok {
			return nil, errMalformedTree
		}
		e := treeEnt{start: uint32(off), name: uint32(name), end: uint32(end), mode: mode}
		if n := len(t.ents); n > 0 && t.sorted && t.compare(n-1, t, e) >= 0 {
			t.sorted = false
		}
		t.ents = append(t.ents, e)
		off = end
	}
	return t, nil
}

// parseTreeLike is parseTree for a tree that is likely a new version of
// base: the entries in the bytes both share at their start and end are
// base's (shifted), only the rest is parsed. It reads the same as
// parseTree, in a pass over the bytes rather than over the entries.
func parseTreeLike(h plumbing.Hash, data []byte, base *gitTree) (*gitTree, error) {
	if base == nil || !base.sorted {
		return parseTree(h, data)
	}
	n := min(len(data), len(base.data))
	prefix := commonPrefix(data[:n], base.data[:n])
	// base's entries that end within the prefix are t's too.
	k, _ := slices.BinarySearchFunc(base.ents, uint32(prefix)+1, func(e treeEnt, end uint32) int { return int(e.end) - int(end) })
	start := i0Start(base, k)
	suffix := commonSuffix(data[start:], base.data[start:])
	// base's entries that start within the suffix, at a boundary, are t's
	// too, shifted; the bytes between are parsed.
	shift := len(data) - len(base.data)
	k2 := len(base.ents)
	for k2 > k && int(base.ents[k2-1].start) >= len(base.data)-suffix {
		k2--
	}
	middleEnd := len(data)
	if k2 < len(base.ents) {
		middleEnd = int(base.ents[k2].start) + shift
	}
	mid, err := parseTree(h, data[start:middleEnd])
	if err != nil || !mid.sorted {
		return parseTree(h, data)
	}
	t := &gitTree{hash: h, data: data, sorted: true, ents: make([]treeEnt, 0, k+len(mid.ents)+len(base.ents)-k2)}
	t.ents = append(t.ents, base.ents[:k]...)
	for _, e := range mid.ents {
		e.start, e.name, e.end = e.start+uint32(start), e.name+uint32(start), e.end+uint32(start)
		t.ents = append(t.ents, e)
	}
	for _, e := range base.ents[k2:] {
		e.start, e.name, e.end = uint32(int(e.start)+shift), uint32(int(e.name)+shift), uint32(int(e.end)+shift)
		t.ents = append(t.ents, e)
	}
	// The joins must be in order too.
	for _, at := range []int{k, k + len(mid.ents)} {
		if at > 0 && at < len(t.ents) && t.compare(at-1, t, t.ents[at]) >= 0 {
			return parseTree(h, data)
		}
	}
	return t, nil
}

func parseMode(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 7 {
		return 0, false
	}
	var m uint32
	for _, c := range b {
		if c < '0' || c > '7' {
			return 0, false
		}
		m = m<<3 | uint32(c-'0')
	}
	return m, true
}

func (t *gitTree) nameOf(e treeEnt) []byte { return t.data[e.name : e.end-21] }

func (t *gitTree) name(i int) []byte { return t.nameOf(t.ents[i]) }

func (t *gitTree) mode(i int) uint32 { return t.ents[i].mode }

func (t *gitTree) isDir(i int) bool { return t.ents[i].mode == modeDir }

func (t *gitTree) hashAt(i int) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], t.data[t.ents[i].end-20:t.ents[i].end])
	return h
}

// sameEntry tells whether entry i of t and entry j of o are the same bytes:
// same mode, name and id.
func (t *gitTree) sameEntry(i int, o *gitTree, j int) bool {
	a, b := t.ents[i], o.ents[j]
	return bytes.Equal(t.data[a.start:a.end], o.data[b.start:b.end])
}

func (t *gitTree) sameHash(i int, o *gitTree, j int) bool {
	return bytes.Equal(t.data[t.ents[i].end-20:t.ents[i].end], o.data[o.ents[j].end-20:o.ents[j].end])
}

// compare orders entry i of t against entry e of o as git sorts a tree: by
// name, a directory's name read as if it ended in "/".
func (t *gitTree) compare(i int, o *gitTree, e treeEnt) int {
	a, b := t.name(i), o.nameOf(e)
	return compareNames(a, t.isDir(i), b, e.mode == modeDir)
}

func compareNames(a []byte, aDir bool, b []byte, bDir bool) int {
	n := min(len(a), len(b))
	if c := bytes.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	next := func(s []byte, dir bool) byte {
		switch {
		case len(s) > n:
			return s[n]
		case dir:
			return '/'
		}
		return 0
	}
	return int(next(a, aDir)) - int(next(b, bDir))
}

// find returns the entry named name; as go-git's lookup, the last of
// several so named (a directory sorts after a file of its name).
func (t *gitTree) find(name []byte) (int, bool) {
	if !t.sorted {
		found := -1
		for i := range t.ents {
			if bytes.Equal(t.name(i), name) {
				found = i
			}
		}
		return found, found >= 0
	}
	for _, dir := range []bool{true, false} {
		lo, hi := 0, len(t.ents)
		for lo < hi {
			mid := (lo + hi) / 2
			if compareNames(t.name(mid), t.isDir(mid), name, dir) < 0 {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(t.ents) && t.isDir(lo) == dir && bytes.Equal(t.name(lo), name) {
			return lo, true
		}
	}
	return -1, false
}

// changed calls fn for every entry of t that no base holds under the same
// name with the same id, with the index of the base's entry of that name
// and kind in bases[0] (-1 when none): a commit's objects that its parents
// do not already hold. Entries are compared in place, by a merge of the
// two sorted lists when they are sorted.
func (t *gitTree) changed(bases []*gitTree, fn func(i, base int) error) error {
	inOthers := func(i int) bool {
		for _, b := range bases[min(1, len(bases)):] {
			if j, ok := b.find(t.name(i)); ok && b.sameHash(j, t, i) {
				return true
			}
		}
		return false
	}
	if len(bases) == 0 {
		for i := range t.ents {
			if err := fn(i, -1); err != nil {
				return err
			}
		}
		return nil
	}
	b := bases[0]
	if len(bases) == 1 && t.sorted && b.sorted {
		// A commit that changes a file leaves most of a tree's bytes as they
		// were: entries in the common prefix and suffix are the same.
		i0, i1, j0, j1 := t.sameEnds(b)
		return t.changedBetween(b, i0, i1, j0, j1, nil, fn)
	}
	if !t.sorted || !b.sorted {
		for i := range t.ents {
			j, ok := b.find(t.name(i))
			if ok && b.isDir(j) != t.isDir(i) {
				j, ok = -1, false
			}
			if ok && b.sameHash(j, t, i) || inOthers(i) {
				continue
			}
			if err := fn(i, j); err != nil {
				return err
			}
		}
		return nil
	}
	return t.changedBetween(b, 0, len(t.ents), 0, len(b.ents), inOthers, fn)
}

// changedBetween is changed for the entries [i0, i1) of t against [j0, j1)
// of b, both sorted; inOthers, when set, tells an entry held by another
// base.
func (t *gitTree) changedBetween(b *gitTree, i0, i1, j0, j1 int, inOthers func(int) bool, fn func(i, base int) error) error {
	j := j0
	for i := i0; i < i1; i++ {
		if j < j1 && t.sameEntry(i, b, j) { // most entries: no comparison of names
			j++
			continue
		}
		for j < j1 && t.compare(i, b, b.ents[j]) > 0 {
			j++
		}
		base := -1
		if j < j1 && t.compare(i, b, b.ents[j]) == 0 {
			if t.sameHash(i, b, j) {
				continue
			}
			base = j
		}
		if inOthers != nil && inOthers(i) {
			continue
		}
		if err := fn(i, base); err != nil {
			return err
		}
	}
	return nil
}

// sameEnds finds the entries t and b share at their start and at their
// end, by comparing bytes: t's entries [i0, i1) and b's [j0, j1) are the
// rest. Entries at the end are shared only where b has an entry starting
// at the same distance from its end (the same bytes then read the same).
func (t *gitTree) sameEnds(b *gitTree) (i0, i1, j0, j1 int) {
	n := min(len(t.data), len(b.data))
	prefix := commonPrefix(t.data[:n], b.data[:n])
	i0, _ = slices.BinarySearchFunc(t.ents, uint32(prefix)+1, func(e treeEnt, end uint32) int { return int(e.end) - int(end) })
	i0 = min(i0, len(b.ents))
	suffix := commonSuffix(t.data[i0Start(t, i0):], b.data[i0Start(b, i0):])
	i1 = len(t.ents)
	for i1 > i0 && int(t.ents[i1-1].start) >= len(t.data)-suffix {
		i1--
	}
	j1 = len(b.ents)
	if i1 < len(t.ents) {
		start := int(t.ents[i1].start) - len(t.data) + len(b.data)
		k, found := slices.BinarySearchFunc(b.ents, uint32(start), func(e treeEnt, s uint32) int { return int(e.start) - int(s) })
		if found && k >= i0 {
			j1 = k
		} else {
			i1 = len(t.ents)
		}
	}
	return i0, i1, i0, j1
}

// i0Start is where entry i starts, or the end.
func i0Start(t *gitTree, i int) int {
	if i < len(t.ents) {
		return int(t.ents[i].start)
	}
	return len(t.data)
}

// commonPrefix is how many bytes a and b share at their start: whole
// chunks compared by bytes.Equal (vectorised; a tree of 10,000 entries is
// 400 KB), then the bytes of the first chunk that differs.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+compareChunk <= n && bytes.Equal(a[i:i+compareChunk], b[i:i+compareChunk]) {
		i += compareChunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is how many bytes a and b share at their end.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[len(a)-n:], b[len(b)-n:]
	i := 0
	for i+compareChunk <= n && bytes.Equal(a[n-i-compareChunk:n-i], b[n-i-compareChunk:n-i]) {
		i += compareChunk
	}
	for i < n && a[n-i-1] == b[n-i-1] {
		i++
	}
	return i
}

// compareChunk is what commonPrefix and commonSuffix compare at once.
const compareChunk = 256

// Delta instructions of git's pack format.
const (
	maxInsert = 0x7f
	maxCopy   = 0xffff
)

// treeDelta encodes t as a git delta against base: runs of entries that
// are the same bytes in both are copied from base, the others inserted.
// Built from the entry lists, it costs a pass over both trees rather than
// the generic search of a delta window. Nil when either is not sorted or
// the delta would save little.
func treeDelta(base, t *gitTree) []byte {
	if !base.sorted || !t.sorted {
		return nil
	}
	d := appendVarint(appendVarint(nil, uint64(len(base.data))), uint64(len(t.data)))
	var insert []byte       // pending bytes to insert
	copyAt, copyLen := 0, 0 // pending copy from base
	flushCopy := func() {
		for copyLen > 0 {
			n := min(copyLen, maxCopy)
			d = appendCopy(d, copyAt, n)
			copyAt, copyLen = copyAt+n, copyLen-n
		}
	}
	flushInsert := func() {
		for len(insert) > 0 {
			n := min(len(insert), maxInsert)
			d = append(append(d, byte(n)), insert[:n]...)
			insert = insert[n:]
		}
	}
	j := 0
	for i, e := range t.ents {
		if j >= len(base.ents) || !t.sameEntry(i, base, j) {
			for j < len(base.ents) && t.compare(i, base, base.ents[j]) > 0 {
				j++
			}
		}
		if j < len(base.ents) && t.sameEntry(i, base, j) {
			flushInsert()
			be := base.ents[j]
			j++
			if copyLen > 0 && copyAt+copyLen == int(be.start) {
				copyLen += int(be.end - be.start)
			} else {
				flushCopy()
				copyAt, copyLen = int(be.start), int(be.end-be.start)
			}
			continue
		}
		flushCopy()
		insert = append(insert, t.data[e.start:e.end]...)
	}
	flushCopy()
	flushInsert()
	if len(d) > len(t.data)/2 {
		return nil
	}
	return d
}

func appendVarint(b []byte, n uint64) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

// appendCopy encodes "copy n bytes at off of the base": the bytes of off
// and n that are not zero, flagged in the first byte.
func appendCopy(b []byte, off, n int) []byte {
	at := len(b)
	b = append(b, 0x80)
	for k := range 4 {
		if v := byte(off >> (8 * k)); v != 0 {
			b[at] |= 1 << k
			b = append(b, v)
		}
	}
	for k := range 2 {
		if v := byte(n >> (8 * k)); v != 0 {
			b[at] |= 0x10 << k
			b = append(b, v)
		}
	}
	return b
}

// regularFile tells whether mode is a file the server reads, as go-git's
// IsRegular or Executable.
func regularFile(mode uint32) bool {
	m := filemode.FileMode(mode)
	return m.IsRegular() || m == filemode.Executable
}

// treeCache keeps recently read trees, bounded by their size: the copy of
// a commit reads its parent's tree, which the copy of the parent read, and
// the first request after a commit reads the tree the copy just read.
// Not safe for concurrent use: the mirror's lock guards it.
type treeCache struct {
	budget, size int
	order        *list.List // of *gitTree, most recently used first
	items        map[plumbing.Hash]*list.Element
}

// treeCacheBytes bounds the trees kept: 14 trees of 10,000 entries, for
// the tips of as many branches and a copy's current and parent trees.
const treeCacheBytes = 8 << 20

func newTreeCache(budget int) *treeCache {
	return &treeCache{budget: budget, order: list.New(), items: map[plumbing.Hash]*list.Element{}}
}

func (c *treeCache) get(h plumbing.Hash) *gitTree {
	el, ok := c.items[h]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*gitTree)
}

func (c *treeCache) add(t *gitTree) {
	cost := treeCost(t)
	if _, ok := c.items[t.hash]; ok || cost > c.budget {
		return
	}
	c.items[t.hash] = c.order.PushFront(t)
	c.size += cost
	for c.size > c.budget {
		el := c.order.Back()
		old := el.Value.(*gitTree)
		c.order.Remove(el)
		delete(c.items, old.hash)
		c.size -= treeCost(old)
	}
}

func treeCost(t *gitTree) int { return len(t.data) + 16*len(t.ents) }
