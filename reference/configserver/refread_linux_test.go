package configserver

import (
	"encoding/binary"
	"testing"
)

// An unchanged reading allocates nothing: its buffers are kept between
// readings, as it runs for every request.
func TestUnchangedReadingAllocatesNothing(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newRefScanner(o.dir, newRefReader())
	known := scanAndRemember(t, s)
	allocs := testing.AllocsPerRun(100, func() {
		if err := s.scan(); err != nil || !s.unchanged(known) {
			t.Fatalf("scan: %v, unchanged %v", err, s.unchanged(known))
		}
	})
	if allocs != 0 {
		t.Fatalf("an unchanged reading allocates %v times", allocs)
	}
}

// Directory entries the kernel would never write are an error, not a panic.
func TestNextDirentRefusesDamagedEntries(t *testing.T) {
	entry := func(reclen uint16, name string) []byte {
		b := make([]byte, direntMin, direntMin+len(name))
		binary.NativeEndian.PutUint16(b[16:], reclen)
		return append(b, name...)
	}
	for _, b := range [][]byte{
		nil,
		entry(0, "x\x00"),
		entry(200, "x\x00"),
		entry(direntMin+1, "x"),
	} {
		if _, _, _, err := nextDirent(b); err == nil {
			t.Errorf("%q: no error", b)
		}
	}
	if name, _, rest, err := nextDirent(entry(direntMin+4, "ab\x00\x00")); err != nil || string(name) != "ab\x00" || len(rest) != 0 {
		t.Errorf("valid entry: %q %q %v", name, rest, err)
	}
}
