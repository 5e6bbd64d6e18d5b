package configserver

import (
	"bufio"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/klauspost/compress/zlib"
)

// Pack entry types of git's pack format.
const (
	packOFSDelta = 6
	// maxDeltaDepth bounds delta chains, as git's pack.depth: reading an
	// object applies at most this many deltas.
	maxDeltaDepth = 50
)

// packWriter writes one pack file and its index into a repository's
// objects/pack, as git's fetch leaves them: whole objects, and trees as
// deltas against a version written before them in the same pack, so that
// the copy takes about the room the repository does. The index is written
// from the ids the writer knows; nothing is read back but the checksum.
type packWriter struct {
	dir  string // objects/pack
	f    *os.File
	bw   *bufio.Writer
	zw   *zlib.Writer
	crc  hash.Hash32
	off  int64
	n    uint32
	idx  idxfile.Writer
	at   map[plumbing.Hash]packedAt
	done bool
}

// packedAt is where an object went in the pack, and its delta depth.
type packedAt struct {
	off   int64
	depth int
}

func newPackWriter(objects string) (*packWriter, error) {
	dir := filepath.Join(objects, "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return nil, err
	}
	p := &packWriter{dir: dir, f: f, crc: crc32.NewIEEE(), at: map[plumbing.Hash]packedAt{}}
	p.bw = bufio.NewWriterSize(f, 64<<10)
	p.zw = zlib.NewWriter(entryWriter{p})
	// The count is filled in by finish.
	if _, err = p.write([]byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}); err != nil {
		p.abort()
		return nil, err
	}
	return p, nil
}

// has reports whether h is in the pack already.
func (p *packWriter) has(h plumbing.Hash) bool {
	_, ok := p.at[h]
	return ok
}

// add writes o whole, or as a delta against base when base is a tree in
// this pack whose chain is not too deep and treeOf gives it.
func (p *packWriter) add(h plumbing.Hash, o *gitObject, tree *gitTree, base plumbing.Hash, treeOf func(plumbing.Hash) *gitTree) error {
	if p.has(h) {
		return nil
	}
	if b, ok := p.at[base]; ok && tree != nil && b.depth < maxDeltaDepth {
		if bt := treeOf(base); bt != nil {
			if d := treeDelta(bt, tree); d != nil {
				return p.entry(h, packOFSDelta, d, b)
			}
		}
	}
	return p.entry(h, o.typ, o.data, packedAt{})
}

// entry writes one entry: its header (type and size), the base's distance
// for a delta, and the zlib-compressed content.
func (p *packWriter) entry(h plumbing.Hash, typ plumbing.ObjectType, data []byte, base packedAt) error {
	p.crc.Reset()
	start := p.off
	var head [32]byte
	size := uint64(len(data))
	c := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	n := 0
	for size != 0 {
		head[n] = c | 0x80
		n++
		c = byte(size & 0x7f)
		size >>= 7
	}
	head[n] = c
	n++
	depth := 0
	if typ == packOFSDelta {
		n += putOffset(head[n:], start-base.off)
		depth = base.depth + 1
	}
	if _, err := p.write(head[:n]); err != nil {
		return err
	}
	p.zw.Reset(entryWriter{p})
	if _, err := p.zw.Write(data); err != nil {
		return err
	}
	if err := p.zw.Close(); err != nil {
		return err
	}
	p.idx.Add(h, uint64(start), p.crc.Sum32())
	p.at[h] = packedAt{off: start, depth: depth}
	p.n++
	return nil
}

// putOffset writes the distance back to a delta's base as git does: seven
// bits a byte, most significant first, each continued byte less one.
func putOffset(b []byte, d int64) int {
	var tmp [10]byte
	i := len(tmp) - 1
	tmp[i] = byte(d & 0x7f)
	for d >>= 7; d != 0; d >>= 7 {
		d--
		i--
		tmp[i] = 0x80 | byte(d&0x7f)
	}
	return copy(b, tmp[i:])
}

// write appends to the pack, counting the offset and the entry's CRC.
func (p *packWriter) write(b []byte) (int, error) {
	n, err := p.bw.Write(b)
	p.crc.Write(b[:n])
	p.off += int64(n)
	return n, err
}

type entryWriter struct{ p *packWriter }

func (w entryWriter) Write(b []byte) (int, error) { return w.p.write(b) }

// finish completes the pack (count, checksum) and its index, and puts both
// in place: the index first, so that a pack is never seen without it.
func (p *packWriter) finish() (plumbing.Hash, error) {
	if err := p.complete(); err != nil {
		p.abort()
		return plumbing.ZeroHash, err
	}
	return p.install()
}

func (p *packWriter) complete() error {
	if err := p.bw.Flush(); err != nil {
		return err
	}
	var count [4]byte
	binary.BigEndian.PutUint32(count[:], p.n)
	if _, err := p.f.WriteAt(count[:], 8); err != nil {
		return err
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	sum := sha1.New()
	if _, err := io.Copy(sum, p.f); err != nil {
		return err
	}
	var h plumbing.Hash
	copy(h[:], sum.Sum(nil))
	if _, err := p.f.Write(h[:]); err != nil {
		return err
	}
	if err := p.f.Close(); err != nil {
		return err
	}
	return p.idx.OnFooter(h)
}

func (p *packWriter) install() (plumbing.Hash, error) {
	p.done = true
	defer os.Remove(p.f.Name())
	idx, err := p.idx.Index()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sum := plumbing.Hash(idx.PackfileChecksum)
	tmp, err := os.CreateTemp(p.dir, "tmp_idx_")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	_, err = idxfile.NewEncoder(bw).Encode(idx)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	name := filepath.Join(p.dir, "pack-"+sum.String())
	for _, step := range []struct{ from, to string }{{tmp.Name(), name + ".idx"}, {p.f.Name(), name + ".pack"}} {
		if err == nil {
			err = os.Chmod(step.from, 0o444)
		}
		if err == nil {
			err = os.Rename(step.from, step.to)
		}
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing pack %s: %w", sum, err)
	}
	return sum, nil
}

// abort removes what was written.
func (p *packWriter) abort() {
	if p.done {
		return
	}
	p.done = true
	_ = p.f.Close()
	_ = os.Remove(p.f.Name())
}
