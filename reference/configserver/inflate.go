package configserver

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// A commit that changes one file of a flat directory of 10,000 makes a new
// tree of 400 KB that differs from its parent's in 20 bytes, and git writes
// it as a loose object: the whole tree compressed again. Inflating it costs
// more than everything else the commit costs the server, so the parent's
// loose file is indexed aside (where each deflate block starts, indexLoose)
// and the new tree is inflated from it (inflateLike): the new file's
// compressed bytes are the parent's up to the change, so decoding starts at
// the parent's last block before the first byte that differs, with the
// parent's text before it; it stops once the text is the parent's again,
// past the change, and takes the rest from the parent's text. That guess is
// checked against the tree's name, the SHA-1 of its text, before anything
// uses it; when it is wrong (a commit that changes the tree in several
// places) decoding goes on to the end, checked by the file's Adler-32.

// deflateIndex is where each deflate block of a loose object file starts,
// with the file and its text ("<type> <size>\0" content).
type deflateIndex struct {
	comp   []byte // the loose object file: zlib header, deflate stream, Adler-32
	text   []byte
	blocks []blockStart // in order
}

// blockStart is where a deflate block starts: its first bit in the file,
// and the length of the text before it.
type blockStart struct {
	bit uint64
	out int
}

// maxLooseText bounds what this inflater produces.
const maxLooseText = 64 << 20

// rematch is how many bytes past the last change decoded the text must be
// the parent's again before the rest is taken to be the parent's too.
const rematch = 64

var errInflate = errors.New("not a deflate stream this inflater reads")

// indexLoose inflates a whole loose object file, recording its blocks.
func indexLoose(comp []byte) (*deflateIndex, error) {
	if err := zlibHeader(comp); err != nil {
		return nil, err
	}
	d := &inflater{in: comp, pos: 16, limit: maxLooseText}
	for !d.final {
		if err := d.block(); err != nil {
			return nil, err
		}
	}
	if err := d.checkEnd(); err != nil {
		return nil, err
	}
	return &deflateIndex{comp: comp, text: d.out, blocks: d.blocks}, nil
}

// inflateLike inflates the loose object file comp of the object named
// want, likely a version of base's object of the same size (see above),
// and says how many blocks it decoded. An object of another size is
// errInflate: read it whole.
func inflateLike(comp []byte, base *deflateIndex, want plumbing.Hash) (text []byte, decoded int, err error) {
	if err := zlibHeader(comp); err != nil || len(base.blocks) == 0 {
		return nil, 0, errInflate
	}
	// The last block that starts within the common bytes: the blocks before
	// it end before it, so the new file holds them too, and their text.
	same := uint64(commonPrefix(comp, base.comp)) * 8
	k, _ := slices.BinarySearchFunc(base.blocks, same+1, func(b blockStart, bit uint64) int { return cmpU64(b.bit, bit) })
	start := base.blocks[max(k-1, 0)]
	d := &inflater{in: comp, pos: start.bit, limit: len(base.text),
		out: append(make([]byte, 0, len(base.text)), base.text[:start.out]...)}
	guessed := false
	for !d.final {
		if err := d.block(); err != nil {
			return nil, decoded, err
		}
		decoded++
		if n, ok := textSize(d.out); ok && n != len(base.text) {
			return nil, decoded, errInflate
		}
		// Past a change, and the parent's text again for a while: take the
		// rest to be the parent's, once; the tree's name says whether it is.
		u := len(d.out)
		mine, theirs := d.out[start.out:], base.text[start.out:u]
		if !guessed && !d.final && !bytes.Equal(mine, theirs) && commonSuffix(mine, theirs) >= rematch {
			guessed = true
			text := append(d.out, base.text[u:]...)
			if plumbing.Hash(sha1.Sum(text)) == want {
				return text, decoded, nil
			}
			d.out = text[:u]
		}
	}
	if err := d.checkEnd(); err != nil {
		return nil, decoded, err
	}
	return d.out, decoded, nil
}

// checkEnd checks what follows the final block: the Adler-32 of the text,
// and nothing after it; and that the text is as long as its header says.
func (d *inflater) checkEnd() error {
	trailer := (d.pos + 7) / 8
	if n, ok := textSize(d.out); !ok || n != len(d.out) {
		return errInflate
	}
	if trailer+4 != uint64(len(d.in)) || binary.BigEndian.Uint32(d.in[trailer:]) != adler32.Checksum(d.out) {
		return errInflate
	}
	return nil
}

// zlibHeader checks the two bytes before the deflate stream: deflate, no
// preset dictionary.
func zlibHeader(comp []byte) error {
	if len(comp) < 2+4 || comp[0]&0x0f != 8 || comp[0]>>4 > 7 || comp[1]&0x20 != 0 || (uint16(comp[0])<<8|uint16(comp[1]))%31 != 0 {
		return errInflate
	}
	return nil
}

// textSize is the length a loose object's text says it has: its header and
// the size the header gives; false before the header is all there.
func textSize(text []byte) (int, bool) {
	_, size, nul, err := parseHeader(text)
	if err != nil || size > maxLooseText {
		return 0, false
	}
	return nul + 1 + int(size), true
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inflater decodes a deflate stream block by block into out, recording
// where each block starts.
type inflater struct {
	in     []byte
	pos    uint64 // the next bit
	limit  int    // most text
	out    []byte
	blocks []blockStart
	final  bool
}

// word is 57 or more bits of in from bit pos, the first in the lowest bit;
// past the end, zeros.
func word(in []byte, pos uint64) uint64 {
	i := pos >> 3
	var w uint64
	if i+8 <= uint64(len(in)) {
		w = binary.LittleEndian.Uint64(in[i:])
	} else {
		for k := uint64(0); i+k < uint64(len(in)); k++ {
			w |= uint64(in[i+k]) << (8 * k)
		}
	}
	return w >> (pos & 7)
}

// bits reads n (at most 32) bits.
func (d *inflater) bits(n uint) (uint32, error) {
	if d.pos+uint64(n) > uint64(len(d.in))*8 {
		return 0, errInflate
	}
	v := uint32(word(d.in, d.pos) & (1<<n - 1))
	d.pos += uint64(n)
	return v, nil
}

// block decodes one block.
func (d *inflater) block() error {
	d.blocks = append(d.blocks, blockStart{bit: d.pos, out: len(d.out)})
	h, err := d.bits(3)
	if err != nil {
		return err
	}
	d.final = h&1 == 1
	switch h >> 1 {
	case 0:
		return d.stored()
	case 1:
		return d.codes(&fixedLit, &fixedDist)
	case 2:
		lit, dist, err := d.dynamic()
		if err != nil {
			return err
		}
		return d.codes(lit, dist)
	}
	return errInflate
}

func (d *inflater) stored() error {
	d.pos = (d.pos + 7) &^ 7
	n, err := d.bits(16)
	if err != nil {
		return err
	}
	if nn, err := d.bits(16); err != nil || nn != ^n&0xffff {
		return errInflate
	}
	i := d.pos / 8
	if i+uint64(n) > uint64(len(d.in)) || len(d.out)+int(n) > d.limit {
		return errInflate
	}
	d.out = append(d.out, d.in[i:i+uint64(n)]...)
	d.pos += uint64(n) * 8
	return nil
}

// Lengths and distances: base values and extra bits (RFC 1951 3.2.5).
var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase  = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// codes decodes a compressed block's symbols: each literal, or length and
// distance with their extra bits (48 bits at most), from one word read.
func (d *inflater) codes(lit, dist *huffman) error {
	in, pos, out := d.in, d.pos, d.out
	size := uint64(len(in)) * 8
	defer func() { d.pos, d.out = pos, out }()
	for {
		w := word(in, pos)
		sym, n := lit.lookup(w)
		if n == 0 || pos+uint64(n) > size {
			return errInflate
		}
		w >>= n
		pos += uint64(n)
		switch {
		case sym < 256:
			if len(out) >= d.limit {
				return errInflate
			}
			out = append(out, byte(sym))
			continue
		case sym == 256:
			return nil
		case sym > 285:
			return errInflate
		}
		sym -= 257
		le := uint(lenExtra[sym])
		length := int(lenBase[sym]) + int(w&(1<<le-1))
		w >>= le
		ds, dn := dist.lookup(w)
		if dn == 0 || ds > 29 {
			return errInflate
		}
		w >>= dn
		de := uint(dstExtra[ds])
		back := int(dstBase[ds]) + int(w&(1<<de-1))
		pos += uint64(le + dn + de)
		if pos > size || back > len(out) || len(out)+length > d.limit {
			return errInflate
		}
		from := len(out) - back
		for k := range length { // may overlap what it writes
			out = append(out, out[from+k])
		}
	}
}

// codeOrder is the order of the code length code's lengths.
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamic reads a block's own codes.
func (d *inflater) dynamic() (*huffman, *huffman, error) {
	h, err := d.bits(14)
	if err != nil {
		return nil, nil, err
	}
	nlen, ndist, ncode := int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
	if nlen > 286 || ndist > 30 {
		return nil, nil, errInflate
	}
	var lengths [320]uint8
	for i := range ncode {
		v, err := d.bits(3)
		if err != nil {
			return nil, nil, err
		}
		lengths[codeOrder[i]] = uint8(v)
	}
	var lencode huffman
	if !lencode.build(lengths[:19]) {
		return nil, nil, errInflate
	}
	lengths = [320]uint8{}
	for i := 0; i < nlen+ndist; {
		sym, err := lencode.decode(d)
		if err != nil {
			return nil, nil, err
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep uint8
		var n uint32
		switch sym {
		case 16:
			if i == 0 {
				return nil, nil, errInflate
			}
			rep = lengths[i-1]
			n, err = d.bits(2)
			n += 3
		case 17:
			n, err = d.bits(3)
			n += 3
		default:
			n, err = d.bits(7)
			n += 11
		}
		if err != nil || i+int(n) > nlen+ndist {
			return nil, nil, errInflate
		}
		for range n {
			lengths[i] = rep
			i++
		}
	}
	if lengths[256] == 0 {
		return nil, nil, errInflate
	}
	lit, dist := new(huffman), new(huffman)
	if !lit.build(lengths[:nlen]) || !dist.build(lengths[nlen:nlen+ndist]) {
		return nil, nil, errInflate
	}
	return lit, dist, nil
}

// tableBits is how many bits huffman.table decodes at once; longer codes
// are decoded a bit at a time.
const tableBits = 10

// huffman is a canonical code: a table for the codes of up to tableBits
// bits (symbol<<4 | length, 0 for a longer code), and the counts and
// symbols of every length for the others.
type huffman struct {
	table  [1 << tableBits]uint16
	count  [16]uint16
	symbol [288]uint16
}

// build makes the code of lengths; false for a code with more codes than
// lengths allow, or with none. An incomplete code is taken (a distance
// code of one symbol is one).
func (h *huffman) build(lengths []uint8) bool {
	*h = huffman{}
	for _, l := range lengths {
		h.count[l]++
	}
	if int(h.count[0]) == len(lengths) {
		return true // no codes: a block that uses none (only literals), or fails when it does
	}
	left := 1
	for l := 1; l < 16; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return false
		}
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	var next [16]int
	code := 0
	for l := 1; l < 16; l++ {
		code = (code + int(h.count[l-1])) << 1
		if l == 1 {
			code = 0
		}
		next[l] = code
	}
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		h.symbol[offs[l]] = uint16(sym)
		offs[l]++
		c := next[l]
		next[l]++
		if l > tableBits {
			continue
		}
		rev := 0
		for k := 0; k < int(l); k++ {
			rev = rev<<1 | c>>k&1
		}
		for j := rev; j < 1<<tableBits; j += 1 << l {
			h.table[j] = uint16(sym)<<4 | uint16(l)
		}
	}
	return true
}

// decode reads one symbol.
func (h *huffman) decode(d *inflater) (int, error) {
	sym, n := h.lookup(word(d.in, d.pos))
	if n == 0 || d.pos+uint64(n) > uint64(len(d.in))*8 {
		return 0, errInflate
	}
	d.pos += uint64(n)
	return sym, nil
}

// lookup decodes the symbol at the start of w, and its length in bits; 0
// bits for bits that are no code.
func (h *huffman) lookup(w uint64) (sym int, n uint) {
	if e := h.table[w&(1<<tableBits-1)]; e != 0 {
		return int(e >> 4), uint(e & 15)
	}
	code, first, index := 0, 0, 0
	for l := 1; l < 16; l++ {
		code |= int(w >> (l - 1) & 1)
		count := int(h.count[l])
		if code-first < count {
			return int(h.symbol[index+code-first]), uint(l)
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, 0
}

// The fixed codes of a block of type 1.
var fixedLit, fixedDist = func() (huffman, huffman) {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	var lit, dist huffman
	lit.build(l[:])
	var dl [30]uint8
	for i := range dl {
		dl[i] = 5
	}
	dist.build(dl[:])
	return lit, dist
}()
