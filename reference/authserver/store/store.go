package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// Store holds every record of the server in a kv.Store (memory, a bbolt
// file or PostgreSQL), behind fosite's storage interfaces (fosite.go) and
// the provisioning API's needs. Nothing is cached in the process: replicas
// sharing one PostgreSQL see each other's writes at once. Records are JSON;
// every read returns a fresh copy, so callers may change what they get,
// except the shared reads of check_token's hot path (SharedClient, the
// memos of memo.go and revsig.go), which are read only.
type Store struct {
	db      kv.Store
	local   bool // kv.InProcess(db): transactions need no deadline
	log     *slog.Logger
	clients *decodeMemo[Client]
	revSigs *revSigMemo

	codes   *tokenTable // authorization codes, by HMAC signature
	pkce    *tokenTable // PKCE challenges, by code signature
	oidc    *tokenTable // OpenID Connect requests, by code
	access  *tokenTable // access tokens, by JWT signature
	refresh *tokenTable // refresh tokens, by HMAC signature
}

// The buckets of the store. A name index maps a folded name to an id.
// Other packages keep buckets of their own in the same kv.Store through
// Update and View: the signing keys ("keys"), the sign-in failure counts
// ("lockout").
const (
	bucketUsers      = "users"
	bucketUserNames  = "user-names"
	bucketGroups     = "groups"
	bucketGroupNames = "group-names"
	bucketClients    = "clients"
	bucketApprovals  = "approvals" // user id NUL client id -> approved scopes
)

// The identity zone and the origin of every user and token: UAA's default
// zone, and users authenticated by this server itself.
const (
	ZoneID    = "uaa"
	OriginUAA = "uaa"
)

// New keeps the records in db; log receives the reads that failed and
// the migrations (nil discards them). A store written by an earlier version
// needs Migrate before it serves.
func New(db kv.Store, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{db: db, local: kv.InProcess(db), log: log, clients: newDecodeMemo[Client](), revSigs: newRevSigMemo()}
	s.codes = newTokenTable(s, "codes", fosite.AuthorizeCode, false)
	s.pkce = newTokenTable(s, "pkce", fosite.AuthorizeCode, false)
	s.oidc = newTokenTable(s, "oidc", fosite.AuthorizeCode, false)
	s.access = newTokenTable(s, bucketAccessTokens, fosite.AccessToken, true)
	s.refresh = newTokenTable(s, "refresh", fosite.RefreshToken, false)
	return s
}

// String names the kv store, for messages.
func (s *Store) String() string { return s.db.String() }

// Update and View run a transaction; store operations are short and not
// tied to a request's lifetime (a client that goes away must not leave a
// half-done grant).
func (s *Store) Update(fn func(kv.Tx) error) error {
	ctx, cancel := s.txContext()
	defer cancel()
	return s.db.Update(ctx, fn)
}

func (s *Store) View(fn func(kv.Tx) error) error {
	ctx, cancel := s.txContext()
	defer cancel()
	return s.db.View(ctx, fn)
}

// txContext bounds a transaction of a database by storeTimeout. A store in
// this process ignores the context: the deadline's timer would be a third
// of the allocations of a view, and check_token makes several.
func (s *Store) txContext() (context.Context, context.CancelFunc) {
	if s.local {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), storeTimeout)
}

const storeTimeout = 10 * time.Second

// ReadFailed logs a read the store could not answer; the caller answers as
// if the record were absent (the request fails, nothing is granted).
func (s *Store) ReadFailed(op string, err error) {
	s.log.Error("store read failed", "op", op, "store", s.db.String(), "err", err)
}

// GetJSON decodes key of bucket into out; false when absent.
func GetJSON(tx kv.Tx, bucket, key string, out any) (bool, error) {
	v, ok, err := tx.Get(bucket, key)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(v, out); err != nil {
		return false, fmt.Errorf("%s %q: %w", bucket, key, err)
	}
	return true, nil
}

// PutJSON encodes v as key of bucket.
func PutJSON(tx kv.Tx, bucket, key string, v any) error {
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

// Conflictf is a record that already exists: a 409 with this message.
func Conflictf(format string, args ...any) error { return &errConflict{fmt.Sprintf(format, args...)} }

// IsNotFound reports whether err is a record the store does not have.
func IsNotFound(err error) bool { return errors.As(err, new(*errNotFound)) }

// IsConflict reports whether err is a record that already exists.
func IsConflict(err error) bool { return errors.As(err, new(*errConflict)) }

// Now is the store's clock, in UTC with millisecond precision (SCIM meta).
func Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// NewID returns a random (version 4) UUID, the form of UAA's ids.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
