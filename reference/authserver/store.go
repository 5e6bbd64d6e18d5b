package authserver

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ory/fosite"
)

// store holds every record of the server in memory, behind fosite's storage
// interfaces (store_fosite.go) and the provisioning API's needs. Each table
// has its own lock and no method holds two at once. Records are never
// changed in place: an update stores a new copy, so a record handed out
// stays valid without a lock.
type store struct {
	idMu       sync.RWMutex
	users      map[string]*userRecord  // by id
	userNames  map[string]string       // folded user name -> id
	groups     map[string]*groupRecord // by id
	groupNames map[string]string       // folded display name -> id

	clientMu sync.RWMutex
	clients  map[string]*clientRecord

	approvalMu sync.Mutex
	approvals  map[approvalKey]map[string]bool // approved scopes

	codes   *tokenTable // authorization codes, by HMAC signature
	pkce    *tokenTable // PKCE challenges, by code signature
	oidc    *tokenTable // OpenID Connect requests, by code
	access  *tokenTable // access tokens, by JWT signature
	refresh *tokenTable // refresh tokens, by HMAC signature
}

type approvalKey struct{ userID, clientID string }

func newStore() *store {
	return &store{
		users:      make(map[string]*userRecord),
		userNames:  make(map[string]string),
		groups:     make(map[string]*groupRecord),
		groupNames: make(map[string]string),
		clients:    make(map[string]*clientRecord),
		approvals:  make(map[approvalKey]map[string]bool),
		codes:      newTokenTable(fosite.AuthorizeCode),
		pkce:       newTokenTable(fosite.AuthorizeCode),
		oidc:       newTokenTable(fosite.AuthorizeCode),
		access:     newTokenTable(fosite.AccessToken),
		refresh:    newTokenTable(fosite.RefreshToken),
	}
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
