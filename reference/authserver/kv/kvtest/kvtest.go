// Package kvtest gives the tests of the authorization server's packages a
// fresh kv.Store of every kind: memory, a bbolt file, and a database of a
// real PostgreSQL server (internal/pgtest: a test fails, never skips, when
// PostgreSQL is not installed). Only tests import it.
package kvtest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// EachStore runs fn on a fresh store of every kind, each in a subtest:
// memory, bbolt and a database of one real PostgreSQL server per test.
func EachStore(t *testing.T, fn func(t *testing.T, db kv.Store)) {
	var (
		once sync.Once
		pg   *pgtest.Server
		dbs  int
	)
	for _, name := range []string{"memory", "bolt", "postgres"} {
		t.Run(name, func(t *testing.T) {
			var db kv.Store
			switch name {
			case "memory":
				db = kv.NewMemory()
			case "bolt":
				b, err := kv.OpenBolt(filepath.Join(t.TempDir(), "auth.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = b.Close() })
				db = b
			case "postgres":
				once.Do(func() { pg = pgtest.Start(t) })
				dbs++
				db = OpenPostgresDatabase(t, pg, fmt.Sprintf("db%d", dbs))
			}
			fn(t, db)
		})
	}
}

// OpenPostgresDatabase creates database name on pg and opens a store on it
// until the test ends.
func OpenPostgresDatabase(tb testing.TB, pg *pgtest.Server, name string) kv.Store {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL())
	if err != nil {
		tb.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+name)
	_ = conn.Close(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := kv.OpenPostgres(ctx, strings.Replace(pg.URL(), "/postgres?", "/"+name+"?", 1))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
