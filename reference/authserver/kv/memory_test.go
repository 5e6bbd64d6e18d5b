package kv

import (
	"context"
	"path/filepath"
	"testing"
)

// A borrowed value of a Memory is the stored slice: a later write replaces
// it and leaves the borrowed one as it was.
func TestMemoryBorrowedValueOutlivesAWrite(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	must(t, m.Update(ctx, func(tx Tx) error { return tx.Put("b", "k", []byte("v1")) }))
	var borrowed []byte
	must(t, m.View(ctx, func(tx Tx) error {
		borrowed, _, _ = tx.Borrow("b", "k")
		return nil
	}))
	must(t, m.Update(ctx, func(tx Tx) error {
		if b, ok, _ := tx.Borrow("b", "k"); !ok || string(b) != "v1" {
			t.Errorf("borrow in Update: %q %v", b, ok)
		}
		return tx.Put("b", "k", []byte("v2"))
	}))
	if string(borrowed) != "v1" {
		t.Fatalf("a write changed a borrowed value: %q", borrowed)
	}
}

// check_token reads a Memory several times a request: a read transaction
// and a borrowed read allocate nothing.
func TestMemoryViewAndBorrowAllocateNothing(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	must(t, m.Update(ctx, func(tx Tx) error { return tx.Put("b", "k", []byte("v")) }))
	read := func(tx Tx) error {
		_, _, err := tx.Borrow("b", "k")
		return err
	}
	if n := testing.AllocsPerRun(100, func() { _ = m.View(ctx, read) }); n != 0 {
		t.Fatalf("%v allocations per View and Borrow, want 0", n)
	}
}

func TestInProcess(t *testing.T) {
	b, err := OpenBolt(filepath.Join(t.TempDir(), "auth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	type wrapped struct{ Store }
	for s, want := range map[Store]bool{NewMemory(): true, b: true, &Postgres{}: false, wrapped{NewMemory()}: false} {
		if got := InProcess(s); got != want {
			t.Errorf("InProcess(%T) = %v, want %v", s, got, want)
		}
	}
}
