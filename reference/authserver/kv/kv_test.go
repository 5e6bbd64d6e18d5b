package kv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/pgtest"
)

// stores are the implementations the contract runs against; each opens a
// fresh, empty store.
func stores(outer *testing.T) map[string]func(t *testing.T) Store {
	var (
		pgOnce sync.Once
		pg     *pgtest.Server
		dbs    int
	)
	return map[string]func(t *testing.T) Store{
		"memory": func(*testing.T) Store { return NewMemory() },
		"bolt": func(t *testing.T) Store {
			s, err := OpenBolt(filepath.Join(t.TempDir(), "auth.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
		"postgres": func(t *testing.T) Store {
			needs.Program(t, "PostgreSQL (postgres)") // here: pgtest skips the test it is given, the outer one
			pgOnce.Do(func() { pg = pgtest.Start(outer) })
			dbs++
			return openPostgresDB(t, pg, fmt.Sprintf("contract%d", dbs))
		},
	}
}

// openPostgresDB creates database name on pg and opens a store on it.
func openPostgresDB(t *testing.T, pg *pgtest.Server, name string) *Postgres {
	t.Helper()
	admin, err := OpenPostgres(context.Background(), pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.pool.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	s, err := OpenPostgres(context.Background(), strings.Replace(pg.URL(), "/postgres?", "/"+name+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestContract(t *testing.T) {
	ctx := context.Background()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Run("put get delete", func(t *testing.T) {
				s := open(t)
				must(t, s.Update(ctx, func(tx Tx) error {
					if _, ok, _ := tx.Get("b", "k"); ok {
						return errors.New("absent key found")
					}
					return tx.Put("b", "k", []byte("v1"))
				}))
				must(t, s.View(ctx, func(tx Tx) error {
					v, ok, err := tx.Get("b", "k")
					if err != nil || !ok || string(v) != "v1" {
						return fmt.Errorf("get: %q %v %v", v, ok, err)
					}
					if _, ok, _ := tx.Get("other", "k"); ok {
						return errors.New("buckets are not separate")
					}
					if b, ok, err := tx.Borrow("b", "k"); err != nil || !ok || string(b) != "v1" {
						return fmt.Errorf("borrow: %q %v %v", b, ok, err)
					}
					if b, ok, err := tx.Borrow("b", "absent"); err != nil || ok || b != nil {
						return fmt.Errorf("borrow of an absent key: %q %v %v", b, ok, err)
					}
					if _, ok, _ := tx.Borrow("other", "k"); ok {
						return errors.New("borrow: buckets are not separate")
					}
					if err := tx.Put("b", "x", []byte("y")); err == nil {
						return errors.New("a write in View passed")
					}
					return nil
				}))
				must(t, s.Update(ctx, func(tx Tx) error { return tx.Delete("b", "k") }))
				must(t, s.Update(ctx, func(tx Tx) error { return tx.Delete("b", "never") }))
				must(t, s.View(ctx, func(tx Tx) error {
					if _, ok, _ := tx.Get("b", "k"); ok {
						return errors.New("deleted key found")
					}
					return nil
				}))
			})
			t.Run("failed update rolls back", func(t *testing.T) {
				s := open(t)
				must(t, s.Update(ctx, func(tx Tx) error { return tx.Put("b", "k", []byte("old")) }))
				boom := errors.New("boom")
				err := s.Update(ctx, func(tx Tx) error {
					_ = tx.Put("b", "k", []byte("new"))
					_ = tx.Put("b", "k2", []byte("new"))
					_ = tx.Delete("b", "k")
					return boom
				})
				if !errors.Is(err, boom) {
					t.Fatalf("Update = %v, want boom", err)
				}
				must(t, s.View(ctx, func(tx Tx) error {
					v, _, _ := tx.Get("b", "k")
					_, ok2, _ := tx.Get("b", "k2")
					if string(v) != "old" || ok2 {
						return fmt.Errorf("after rollback: k=%q k2 present %v", v, ok2)
					}
					return nil
				}))
			})
			t.Run("scan by prefix in key order", func(t *testing.T) {
				s := open(t)
				must(t, s.Update(ctx, func(tx Tx) error {
					for _, k := range []string{"r2\x00b", "r1\x00z", "r1\x00a", "r10\x00c", "r", "s"} {
						if err := tx.Put("idx", k, []byte("1")); err != nil {
							return err
						}
					}
					return nil
				}))
				var got []string
				must(t, s.View(ctx, func(tx Tx) error {
					return tx.Scan("idx", "r1\x00", func(k string, v []byte) error {
						got = append(got, k)
						return nil
					})
				}))
				if strings.Join(got, ",") != "r1\x00a,r1\x00z" {
					t.Fatalf("scan: %q", got)
				}
				if err := s.View(ctx, func(tx Tx) error {
					return tx.Scan("missing", "", func(string, []byte) error { return errors.New("x") })
				}); err != nil {
					t.Fatalf("scan of a missing bucket: %v", err)
				}
			})
			t.Run("empty values are refused", func(t *testing.T) {
				s := open(t)
				if err := s.Update(ctx, func(tx Tx) error { return tx.Put("b", "k", nil) }); err == nil {
					t.Fatal("empty value stored")
				}
			})
			t.Run("concurrent read-modify-write loses nothing", func(t *testing.T) {
				s := open(t)
				var wg sync.WaitGroup
				for range 8 {
					wg.Go(func() {
						for range 10 {
							if err := s.Update(ctx, incr); err != nil {
								t.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				must(t, s.View(ctx, func(tx Tx) error {
					if n := counter(tx); n != 80 {
						return fmt.Errorf("counter %d, want 80", n)
					}
					return nil
				}))
			})
		})
	}
}

func incr(tx Tx) error {
	return tx.Put("c", "n", []byte(strconv.Itoa(counter(tx)+1)))
}

func counter(tx Tx) int {
	v, _, _ := tx.Get("c", "n")
	n, _ := strconv.Atoi(string(v))
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Two stores on one PostgreSQL database see each other's writes: replicas.
// Compare-and-set holds across them.
func TestPostgresSharedBetweenProcesses(t *testing.T) {
	pg := pgtest.Start(t)
	a := openPostgresDB(t, pg, "shared")
	b, err := OpenPostgres(context.Background(), strings.Replace(pg.URL(), "/postgres?", "/shared?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	must(t, a.Update(ctx, func(tx Tx) error { return tx.Put("b", "k", []byte("from a")) }))
	must(t, b.View(ctx, func(tx Tx) error {
		if v, _, _ := tx.Get("b", "k"); string(v) != "from a" {
			return fmt.Errorf("b sees %q", v)
		}
		return nil
	}))

	// A read then a write in one Update is a compare-and-set across the
	// two: of many racing to take one key (as replicas race to use one
	// authorization code), exactly one sees it free.
	for round := range 5 {
		key := fmt.Sprintf("code%d", round)
		var taken sync.WaitGroup
		var mu sync.Mutex
		winners := 0
		for i := range 16 {
			s := []*Postgres{a, b}[i%2]
			taken.Go(func() {
				won := false
				err := s.Update(ctx, func(tx Tx) error {
					won = false // fn may run again after a conflict
					if _, used, err := tx.Get("codes", key); err != nil || used {
						return err
					}
					won = true
					return tx.Put("codes", key, []byte("used"))
				})
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if won {
					winners++
				}
			})
		}
		taken.Wait()
		if winners != 1 {
			t.Fatalf("round %d: %d updates took the key, want 1", round, winners)
		}
	}
}

func TestOpenErrorsNameThePlace(t *testing.T) {
	dir := t.TempDir()
	t.Run("directory not writable", func(t *testing.T) {
		ro := filepath.Join(dir, "ro")
		must(t, os.Mkdir(ro, 0o500))
		path := filepath.Join(ro, "sub", "auth.db")
		if os.Geteuid() == 0 {
			// root writes anywhere; a file in the way of the directory fails alike
			must(t, os.WriteFile(filepath.Join(ro, "sub"), []byte("x"), 0o600))
		}
		_, err := OpenBolt(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("err %v, want one naming %s", err, path)
		}
	})
	t.Run("corrupt file", func(t *testing.T) {
		path := filepath.Join(dir, "corrupt.db")
		s, err := OpenBolt(path)
		must(t, err)
		must(t, s.Update(context.Background(), func(tx Tx) error { return tx.Put("b", "k", []byte("v")) }))
		must(t, s.Close())
		data, err := os.ReadFile(path)
		must(t, err)
		for i := range 8192 { // both meta pages
			data[i] ^= 0x5a
		}
		must(t, os.WriteFile(path, data, 0o600))
		_, err = OpenBolt(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("err %v, want one naming %s as damaged", err, path)
		}
	})
	t.Run("not a store", func(t *testing.T) {
		path := filepath.Join(dir, "text.db")
		must(t, os.WriteFile(path, []byte(strings.Repeat("hello\n", 2000)), 0o600))
		_, err := OpenBolt(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("err %v, want one naming %s", err, path)
		}
	})
	t.Run("file held by another process", func(t *testing.T) {
		path := filepath.Join(dir, "held.db")
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldStore$")
		cmd.Env = append(os.Environ(), "KV_HELPER_PATH="+path)
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		buf := make([]byte, 5)
		if _, err := stdout.Read(buf); err != nil {
			t.Fatal(err)
		}
		_, err = OpenBolt(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "in use") {
			t.Fatalf("err %v, want one naming %s as in use", err, path)
		}
	})
	t.Run("postgres unreachable", func(t *testing.T) {
		url := "postgres://u:secretpw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := OpenPostgres(ctx, url)
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/db") || strings.Contains(err.Error(), "secretpw") {
			t.Fatalf("err %v, want one naming the URL without its password", err)
		}
	})
}

// TestHelperHoldStore is run by other tests as a child process; alone it
// does nothing.
func TestHelperHoldStore(t *testing.T) {
	path := os.Getenv("KV_HELPER_PATH")
	if path == "" {
		return
	}
	s, err := OpenBolt(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	defer s.Close()
	fmt.Println("ready")
	if os.Getenv("KV_HELPER_WRITE") != "" {
		// Write as fast as possible until killed: each transaction bumps
		// the counter and writes a batch of filler that makes pages split.
		for i := 0; ; i++ {
			_ = s.Update(context.Background(), func(tx Tx) error {
				n := counter(tx) + 1
				for j := range 50 {
					if err := tx.Put("filler", fmt.Sprintf("%08d-%02d", n, j), []byte(strings.Repeat("x", 200+j))); err != nil {
						return err
					}
				}
				if n > 20 {
					_ = tx.Delete("filler", fmt.Sprintf("%08d-%02d", n-20, i%50))
				}
				return tx.Put("c", "n", []byte(strconv.Itoa(n)))
			})
		}
	}
	time.Sleep(time.Minute)
}

// A process killed (SIGKILL) in the middle of writes leaves a store that
// opens, passes bbolt's consistency check and holds every transaction
// committed before the kill, each one whole.
func TestBoltSurvivesAKillDuringWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.db")
	last := 0
	for round := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldStore$")
		cmd.Env = append(os.Environ(), "KV_HELPER_PATH="+path, "KV_HELPER_WRITE=1")
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		buf := make([]byte, 6)
		if _, err := stdout.Read(buf); err != nil || string(buf) != "ready\n" {
			t.Fatalf("helper: %q %v", buf, err)
		}
		time.Sleep(time.Duration(100+round*37) * time.Millisecond)
		must(t, cmd.Process.Kill())
		_ = cmd.Wait()

		s, err := OpenBolt(path) // runs the consistency check
		if err != nil {
			t.Fatalf("round %d: after the kill: %v", round, err)
		}
		must(t, s.View(context.Background(), func(tx Tx) error {
			n := counter(tx)
			if n < last {
				return fmt.Errorf("counter went back from %d to %d", last, n)
			}
			last = n
			for j := range 50 { // the last transaction is whole
				if _, ok, _ := tx.Get("filler", fmt.Sprintf("%08d-%02d", n, j)); !ok && n > 0 {
					return fmt.Errorf("transaction %d is partly missing (%d)", n, j)
				}
			}
			return nil
		}))
		must(t, s.Close())
	}
	if last == 0 {
		t.Fatal("the writer committed nothing")
	}
	t.Logf("%d transactions committed across 5 kills", last)
}
