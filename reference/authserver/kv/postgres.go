package kv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is a Store in one table of a PostgreSQL database, shared by every
// process that opens the same database.
type Postgres struct {
	pool *pgxpool.Pool
	name string // the URL without its password
}

const pgSchema = `CREATE TABLE IF NOT EXISTS authserver_kv (
	bucket text COLLATE "C" NOT NULL,
	key    bytea NOT NULL,
	value  bytea NOT NULL,
	PRIMARY KEY (bucket, key)
)`

// OpenPostgres connects to the database at rawURL (postgres://...) and
// creates the table when missing. It fails, naming the URL, when the
// database cannot be reached within the context's deadline (10s without
// one).
func OpenPostgres(ctx context.Context, rawURL string) (*Postgres, error) {
	name := redact(rawURL)
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store %s: invalid PostgreSQL URL: %w", name, err)
	}
	// Every query reads the primary key's index (bucket, key); a Range must
	// walk it in order and stop at its limit. Statistics that lag behind a
	// bucket's growth (100,000 expiry index entries written since the last
	// ANALYZE) made the planner read every row of the range in a bitmap
	// scan and sort them to keep 257: a sweep of expired tokens read them
	// all. Without bitmap scans it walks the index.
	cfg.ConnConfig.RuntimeParams["enable_bitmapscan"] = "off"
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", name, err)
	}
	p := &Postgres{pool: pool, name: name}
	// Two replicas starting together both create the table: serialize.
	err = p.Update(ctx, func(Tx) error { return nil })
	if err == nil {
		_, err = pool.Exec(ctx, "SELECT pg_advisory_lock(7170001); "+pgSchema+"; SELECT pg_advisory_unlock(7170001)")
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("store %s: cannot reach PostgreSQL: %w", name, err)
	}
	return p, nil
}

// redact drops the password from a URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func (p *Postgres) String() string { return p.name }
func (p *Postgres) Close() error   { p.pool.Close(); return nil }

func (p *Postgres) View(ctx context.Context, fn func(Tx) error) error {
	return p.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn, false)
}

func (p *Postgres) Update(ctx context.Context, fn func(Tx) error) error {
	return p.run(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, fn, true)
}

// run retries a transaction that lost a conflict with a concurrent one
// (serialization failure or deadlock), as PostgreSQL asks.
func (p *Postgres) run(ctx context.Context, opts pgx.TxOptions, fn func(Tx) error, writable bool) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginTxFunc(ctx, p.pool, opts, func(tx pgx.Tx) error {
			return fn(&pgTx{ctx: ctx, tx: tx, writable: writable})
		})
		var pe *pgconn.PgError
		if errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01") && attempt < 20 {
			time.Sleep(time.Duration(attempt+1) * time.Millisecond)
			continue
		}
		return err
	}
}

type pgTx struct {
	ctx      context.Context
	tx       pgx.Tx
	writable bool
}

func (t *pgTx) Get(bucket, key string) ([]byte, bool, error) {
	var v []byte
	err := t.tx.QueryRow(t.ctx, "SELECT value FROM authserver_kv WHERE bucket = $1 AND key = $2", bucket, []byte(key)).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// Borrow is Get: every value read is a fresh copy anyway.
func (t *pgTx) Borrow(bucket, key string) ([]byte, bool, error) { return t.Get(bucket, key) }

func (t *pgTx) Put(bucket, key string, value []byte) error {
	if !t.writable {
		return ErrReadOnly
	}
	if len(value) == 0 {
		return errEmptyValue
	}
	_, err := t.tx.Exec(t.ctx, `INSERT INTO authserver_kv (bucket, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, bucket, []byte(key), value)
	return err
}

func (t *pgTx) Delete(bucket string, keys ...string) error {
	if !t.writable {
		return ErrReadOnly
	}
	var err error
	switch len(keys) {
	case 0:
	case 1:
		_, err = t.tx.Exec(t.ctx, "DELETE FROM authserver_kv WHERE bucket = $1 AND key = $2", bucket, []byte(keys[0]))
	default:
		bs := make([][]byte, len(keys))
		for i, k := range keys {
			bs[i] = []byte(k)
		}
		_, err = t.tx.Exec(t.ctx, "DELETE FROM authserver_kv WHERE bucket = $1 AND key = ANY($2)", bucket, bs)
	}
	return err
}

// Scan is a Range over the prefix's keys: with an upper bound the primary
// key's index stops at the prefix's last key instead of reading on to the
// end of the bucket.
func (t *pgTx) Scan(bucket, prefix string, fn func(string, []byte) error) error {
	return t.Range(bucket, prefix, PrefixEnd(prefix), 0, fn)
}

// rangeQuery is Range's query and its arguments.
func rangeQuery(bucket, start, end string, limit int) (string, []any) {
	q := "SELECT key, value FROM authserver_kv WHERE bucket = $1 AND key >= $2"
	args := []any{bucket, []byte(start)}
	if end != "" {
		args = append(args, []byte(end))
		q += fmt.Sprintf(" AND key < $%d", len(args))
	}
	q += " ORDER BY key"
	if limit > 0 {
		args = append(args, limit)
		q += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	return q, args
}

// Range is one query on the primary key's index (bucket, key).
func (t *pgTx) Range(bucket, start, end string, limit int, fn func(string, []byte) error) error {
	q, args := rangeQuery(bucket, start, end, limit)
	rows, err := t.tx.Query(t.ctx, q, args...)
	if err != nil {
		return err
	}
	type kv struct {
		k []byte
		v []byte
	}
	var all []kv // read every row first: fn may run queries
	for rows.Next() {
		var e kv
		if err := rows.Scan(&e.k, &e.v); err != nil {
			rows.Close()
			return err
		}
		all = append(all, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range all {
		if err := fn(string(e.k), e.v); err != nil {
			return err
		}
	}
	return nil
}
