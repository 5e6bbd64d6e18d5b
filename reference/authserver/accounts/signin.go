package accounts

import (
	"context"
	"crypto/rand"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// Sign-in answers. A locked name gets lockedOut whatever the password, so
// the page never tells a right password from a wrong one; an unknown name is
// counted and locked like a user's, so no answer tells whether it exists.
const (
	lockedOut      = "Your account has been locked because of too many failed attempts to login."
	signInDegraded = "Sign-in is unavailable right now. Please try again later."
	badCredentials = "Unable to verify username or password. Please try again."
)

// Refusal is the sign-in page's answer to a refused attempt.
type Refusal struct {
	Status  int
	Message string
}

// Authenticate checks a sign-in under the lockout policy and logs UAA's
// audit events. Whether the name is a user changes neither the answer nor
// the work: one store read, one store write, one bcrypt comparison (against
// a dummy hash for an unknown name), or no comparison at all when locked.
func (a *Accounts) Authenticate(r *http.Request, name, password string) (*store.User, *Refusal) {
	u, known := a.store.UserByName(name)
	if !known {
		u = nil
	}
	sub := a.Lockout.subjectOf(u, name)
	audit := a.auditAttrs(r, name, sub)
	locked, failures, err := a.Lockout.begin(sub)
	switch {
	case err != nil:
		a.log.Error("sign-in: the failure count cannot be read", "store", a.store.String(), "err", err)
		return nil, &Refusal{http.StatusServiceUnavailable, signInDegraded}
	case locked:
		a.log.Info("sign-in refused: locked", append(audit, "failures", failures)...)
		return nil, &Refusal{http.StatusUnauthorized, lockedOut}
	}
	if _, ok := a.checkPassword(r.Context(), u, password); ok {
		if err := a.Lockout.succeeded(sub); err != nil {
			a.log.Error("sign-in: the failure count cannot be reset", "store", a.store.String(), "err", err)
		}
		return u, nil
	}
	event := "UserAuthenticationFailure"
	if u == nil {
		event = "UserNotFound" // UAA's event for a name that is no user
	}
	audit = append(audit, "failures", failures)
	a.log.Info(event, audit...)
	if failures == a.Lockout.policy.AfterFailures {
		a.log.Warn("UserAccountLocked", append(audit, "locked_until", a.Lockout.lockedUntil().UTC().Format(time.RFC3339))...)
	}
	return nil, &Refusal{http.StatusUnauthorized, badCredentials}
}

// auditAttrs name the attempt in the audit events: the name as typed (cut
// to maxNameBytes: a flood of long names must not flood the log), the user
// id when it is a user, the caller's address.
func (a *Accounts) auditAttrs(r *http.Request, name string, sub subject) []any {
	attrs := []any{"username", cutName(name), "remote_addr", r.RemoteAddr}
	if sub.userID != "" {
		attrs = append(attrs, "user_id", sub.userID)
	}
	return attrs
}

// cutName cuts a name to maxNameBytes on a character boundary.
func cutName(name string) string {
	if len(name) <= maxNameBytes {
		return name
	}
	n := maxNameBytes
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n] + "…"
}

// checkPassword returns u when password is its password. Without an active
// user it costs a bcrypt comparison too (against a dummy hash), so timing
// does not tell which user names exist.
func (a *Accounts) checkPassword(ctx context.Context, u *store.User, password string) (*store.User, bool) {
	if u == nil || !u.Active {
		_ = a.hasher.Compare(ctx, a.dummyHash(), []byte(password))
		return nil, false
	}
	if a.hasher.Compare(ctx, u.PasswordHash, []byte(password)) != nil {
		return nil, false
	}
	return u, true
}

// dummyHash is a bcrypt hash nobody knows the secret of, made on first use.
func (a *Accounts) dummyHash() []byte {
	a.dummyOnce.Do(func() {
		a.dummy, _ = a.hasher.Hash(context.Background(), []byte(rand.Text()))
	})
	return a.dummy
}
