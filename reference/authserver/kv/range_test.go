package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
)

// TestContractRange: every store reads a key range in byte order, from
// start (included) to end (excluded), at most limit keys; binary keys (NUL,
// 0xff) sort bytewise, and Scan's prefix ends where its keys end.
func TestContractRange(t *testing.T) {
	ctx := context.Background()
	keys := []string{"a", "b\x00", "b\x00\x01", "b\x01", "b\xff", "b\xff\xff", "c", "\x00", "\xff"}
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			must(t, s.Update(ctx, func(tx Tx) error {
				for i, k := range keys {
					if err := tx.Put("r", k, []byte{byte(i + 1)}); err != nil {
						return err
					}
				}
				return tx.Put("other", "b\x00x", []byte("1"))
			}))
			read := func(f func(tx Tx, fn func(string, []byte) error) error) []string {
				t.Helper()
				var got []string
				must(t, s.View(ctx, func(tx Tx) error {
					return f(tx, func(k string, v []byte) error {
						if len(v) != 1 || keys[v[0]-1] != k {
							return fmt.Errorf("key %q has the value %v", k, v)
						}
						got = append(got, k)
						return nil
					})
				}))
				return got
			}
			for _, tt := range []struct {
				start, end string
				limit      int
				want       []string
			}{
				{"", "", 0, []string{"\x00", "a", "b\x00", "b\x00\x01", "b\x01", "b\xff", "b\xff\xff", "c", "\xff"}},
				{"b", "c", 0, []string{"b\x00", "b\x00\x01", "b\x01", "b\xff", "b\xff\xff"}},
				{"b", "c", 2, []string{"b\x00", "b\x00\x01"}},
				{"b\x00\x01", "", 3, []string{"b\x00\x01", "b\x01", "b\xff"}},
				{"b\x02", "b\xff", 0, nil},
				{"d", "", 0, []string{"\xff"}},
				{"\xff\x00", "", 0, nil},
			} {
				got := read(func(tx Tx, fn func(string, []byte) error) error {
					return tx.Range("r", tt.start, tt.end, tt.limit, fn)
				})
				if !slices.Equal(got, tt.want) {
					t.Errorf("Range(%q, %q, %d) = %q, want %q", tt.start, tt.end, tt.limit, got, tt.want)
				}
			}
			for prefix, want := range map[string][]string{
				"b\xff": {"b\xff", "b\xff\xff"},
				"b\x00": {"b\x00", "b\x00\x01"},
				"\xff":  {"\xff"},
				"b":     {"b\x00", "b\x00\x01", "b\x01", "b\xff", "b\xff\xff"},
			} {
				got := read(func(tx Tx, fn func(string, []byte) error) error { return tx.Scan("r", prefix, fn) })
				if !slices.Equal(got, want) {
					t.Errorf("Scan(%q) = %q, want %q", prefix, got, want)
				}
			}
			stop := errors.New("stop")
			n := 0
			err := s.View(ctx, func(tx Tx) error {
				return tx.Range("r", "", "", 0, func(string, []byte) error { n++; return stop })
			})
			if !errors.Is(err, stop) || n != 1 {
				t.Errorf("an error of fn: %v after %d calls, want stop after 1", err, n)
			}
			if got := read(func(tx Tx, fn func(string, []byte) error) error { return tx.Range("missing", "", "", 0, fn) }); got != nil {
				t.Errorf("Range of a missing bucket: %q", got)
			}
		})
	}
}

func TestPrefixEnd(t *testing.T) {
	for prefix, want := range map[string]string{"": "", "a": "b", "a\xff": "b", "\xff\xff": "", "ab\x00": "ab\x01"} {
		if got := PrefixEnd(prefix); got != want {
			t.Errorf("PrefixEnd(%q) = %q, want %q", prefix, got, want)
		}
	}
}

// TestMemoryKeepsKeysInOrder runs random puts, deletes and rolled-back
// transactions on a Memory (enough keys to split and empty its chunks many
// times) and compares every range it reads with a sorted copy of a map.
func TestMemoryKeepsKeysInOrder(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	want := map[string]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() string { return fmt.Sprintf("%05d", rng.IntN(6000)) }
	check := func() {
		t.Helper()
		sorted := slices.Sorted(func(yield func(string) bool) {
			for k := range want {
				if !yield(k) {
					return
				}
			}
		})
		start, end := key(), key()
		if end < start {
			start, end = end, start
		}
		limit := rng.IntN(3 * maxChunk)
		var expect []string
		for _, k := range sorted {
			if k >= start && k < end && (limit == 0 || len(expect) < limit) {
				expect = append(expect, k)
			}
		}
		var got []string
		must(t, m.View(ctx, func(tx Tx) error {
			return tx.Range("b", start, end, limit, func(k string, _ []byte) error { got = append(got, k); return nil })
		}))
		if !slices.Equal(got, expect) {
			t.Fatalf("Range(%q, %q, %d): %d keys, want %d", start, end, limit, len(got), len(expect))
		}
		var all []string
		must(t, m.View(ctx, func(tx Tx) error {
			return tx.Scan("b", "", func(k string, _ []byte) error { all = append(all, k); return nil })
		}))
		if !slices.Equal(all, sorted) {
			t.Fatalf("Scan: %d keys, want %d", len(all), len(sorted))
		}
	}
	boom := errors.New("rolled back")
	for round := range 60 {
		deleting := round%3 == 2
		rollback := round%5 == 4
		err := m.Update(ctx, func(tx Tx) error {
			for range 400 {
				k := key()
				if deleting {
					must(t, tx.Delete("b", k))
					if !rollback {
						delete(want, k)
					}
				} else {
					must(t, tx.Put("b", k, []byte("v")))
					if !rollback {
						want[k] = true
					}
				}
			}
			if rollback {
				return boom
			}
			return nil
		})
		if rollback != errors.Is(err, boom) {
			t.Fatalf("round %d: %v", round, err)
		}
		check()
	}
	if n := len(m.buckets["b"].keys.chunks); n < 4 {
		t.Fatalf("%d chunks: the keys never split", n)
	}
	// Every key deleted, in order: every chunk empties; then the bucket
	// fills again.
	must(t, m.Update(ctx, func(tx Tx) error {
		for k := range want {
			if err := tx.Delete("b", k); err != nil {
				return err
			}
			delete(want, k)
		}
		return nil
	}))
	check()
	must(t, m.Update(ctx, func(tx Tx) error {
		for range 3 * maxChunk {
			k := key()
			want[k] = true
			if err := tx.Put("b", k, []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}))
	check()
}

// TestContractDeleteMany: Delete takes many keys (absent ones and none are
// no error), and a failed Update brings them all back.
func TestContractDeleteMany(t *testing.T) {
	ctx := context.Background()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			keys := func() string {
				var got []string
				must(t, s.View(ctx, func(tx Tx) error {
					return tx.Scan("d", "", func(k string, _ []byte) error { got = append(got, k); return nil })
				}))
				return strings.Join(got, ",")
			}
			must(t, s.Update(ctx, func(tx Tx) error {
				for _, k := range []string{"a", "b", "c", "d", "e"} {
					if err := tx.Put("d", k, []byte("v")); err != nil {
						return err
					}
				}
				return tx.Delete("d")
			}))
			boom := errors.New("boom")
			if err := s.Update(ctx, func(tx Tx) error {
				if err := tx.Delete("d", "a", "b", "c", "d", "e"); err != nil {
					return err
				}
				return boom
			}); !errors.Is(err, boom) {
				t.Fatalf("Update = %v, want boom", err)
			}
			if got := keys(); got != "a,b,c,d,e" {
				t.Fatalf("after a failed Update: %s", got)
			}
			must(t, s.Update(ctx, func(tx Tx) error { return tx.Delete("d", "a", "c", "zz", "e") }))
			must(t, s.Update(ctx, func(tx Tx) error { return tx.Delete("missing", "a", "b") }))
			if got := keys(); got != "b,d" {
				t.Fatalf("after Delete(a, c, zz, e): %s", got)
			}
			if err := s.View(ctx, func(tx Tx) error { return tx.Delete("d", "b", "d") }); err == nil {
				t.Fatal("a Delete in View passed")
			}
		})
	}
}

// A Range in PostgreSQL walks the primary key's index in order and stops
// at its limit, even when the statistics are from when the bucket was
// small: the store's connections do without bitmap scans, which a planner
// misled by such statistics chose in BenchmarkScaleSweep, reading every
// expired token of the range and sorting them to keep a batch.
func TestPostgresRangeWalksTheIndex(t *testing.T) {
	pg := openPostgresDB(t, pgtest.Start(t), "ranges")
	ctx := context.Background()
	must(t, pg.View(ctx, func(tx Tx) error {
		var v string
		if err := tx.(*pgTx).tx.QueryRow(ctx, "SHOW enable_bitmapscan").Scan(&v); err != nil || v != "off" {
			return fmt.Errorf("enable_bitmapscan = %q (%v), want off", v, err)
		}
		return nil
	}))
	for _, q := range []string{
		"ALTER TABLE authserver_kv SET (autovacuum_enabled = false)",
		"INSERT INTO authserver_kv SELECT 'b', int8send(i), 'v' FROM generate_series(1, 100) i",
		"ANALYZE authserver_kv",
		"INSERT INTO authserver_kv SELECT 'b', int8send(i), 'v' FROM generate_series(101, 200000) i",
	} {
		if _, err := pg.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	end := string([]byte{0, 0, 0, 0, 0, 2, 0x49, 0xf0}) // 150,000
	q, args := rangeQuery("b", "", end, 257)
	rows, err := pg.pool.Query(ctx, "EXPLAIN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	rows.Close()
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "Index Scan using authserver_kv_pkey") || strings.Contains(p, "Sort") {
		t.Fatalf("Range's plan does not walk the index:\n%s", p)
	}
}
