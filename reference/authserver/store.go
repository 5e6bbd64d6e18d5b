package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// store holds every record of the server in a kv.Store (memory, a bbolt file
// or PostgreSQL), behind fosite's storage interfaces (store_fosite.go) and
// the provisioning API's needs. Nothing is cached in the process: replicas
// sharing one PostgreSQL see each other's writes at once. Records are JSON;
// every read returns a fresh copy, so callers may change what they get,
// except the shared reads of check_token's hot path (sharedClient, the
// memos of memo.go), which are read only.
type store struct {
	db      kv.Store
	local   bool // kv.InProcess(db): transactions need no deadline
	log     *slog.Logger
	clients *decodeMemo[clientRecord]

	codes   *tokenTable // authorization codes, by HMAC signature
	pkce    *tokenTable // PKCE challenges, by code signature
	oidc    *tokenTable // OpenID Connect requests, by code
	access  *tokenTable // access tokens, by JWT signature
	refresh *tokenTable // refresh tokens, by HMAC signature
}

// The buckets of the store. A name index maps a folded name to an id.
const (
	bucketUsers      = "users"
	bucketUserNames  = "user-names"
	bucketGroups     = "groups"
	bucketGroupNames = "group-names"
	bucketClients    = "clients"
	bucketApprovals  = "approvals" // user id NUL client id -> approved scopes
	bucketKeys       = "keys"      // signing keys and fosite's HMAC secret
)

func newStore(db kv.Store, log *slog.Logger) *store {
	s := &store{db: db, local: kv.InProcess(db), log: orDiscard(log), clients: newDecodeMemo[clientRecord]()}
	s.codes = newTokenTable(s, "codes", fosite.AuthorizeCode, false)
	s.pkce = newTokenTable(s, "pkce", fosite.AuthorizeCode, false)
	s.oidc = newTokenTable(s, "oidc", fosite.AuthorizeCode, false)
	s.access = newTokenTable(s, bucketAccessTokens, fosite.AccessToken, true)
	s.refresh = newTokenTable(s, "refresh", fosite.RefreshToken, false)
	return s
}

// update and view run a transaction; store operations are short and not
// tied to a request's lifetime (a client that goes away must not leave a
// half-done grant).
func (s *store) update(fn func(kv.Tx) error) error {
	ctx, cancel := s.txContext()
	defer cancel()
	return s.db.Update(ctx, fn)
}

func (s *store) view(fn func(kv.Tx) error) error {
	ctx, cancel := s.txContext()
	defer cancel()
	return s.db.View(ctx, fn)
}

// txContext bounds a transaction of a database by storeTimeout. A store in
// this process ignores the context: the deadline's timer would be a third
// of the allocations of a view, and check_token makes several.
func (s *store) txContext() (context.Context, context.CancelFunc) {
	if s.local {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), storeTimeout)
}

const storeTimeout = 10 * time.Second

// readFailed logs a read the store could not answer; the caller answers as
// if the record were absent (the request fails, nothing is granted).
func (s *store) readFailed(op string, err error) {
	s.log.Error("store read failed", "op", op, "store", s.db.String(), "err", err)
}

// getJSON decodes key of bucket into out; false when absent.
func getJSON(tx kv.Tx, bucket, key string, out any) (bool, error) {
	v, ok, err := tx.Get(bucket, key)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(v, out); err != nil {
		return false, fmt.Errorf("%s %q: %w", bucket, key, err)
	}
	return true, nil
}

func putJSON(tx kv.Tx, bucket, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Put(bucket, key, b)
}

// errNotFound and errConflict are the store's answers the API turns into
// 404 and 409; their messages are shown to the caller.
type (
	errNotFound struct{ msg string }
	errConflict struct{ msg string }
)

func (e *errNotFound) Error() string { return e.msg }
func (e *errConflict) Error() string { return e.msg }

func notFoundf(format string, args ...any) error { return &errNotFound{fmt.Sprintf(format, args...)} }
func conflictf(format string, args ...any) error { return &errConflict{fmt.Sprintf(format, args...)} }

func isNotFound(err error) bool { return errors.As(err, new(*errNotFound)) }
func isConflict(err error) bool { return errors.As(err, new(*errConflict)) }

// now is the store's clock, in UTC with millisecond precision (SCIM meta).
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
