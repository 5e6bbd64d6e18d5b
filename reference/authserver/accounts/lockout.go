package accounts

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// UAA's lockoutPolicy defaults (authentication.policy.* in uaa.yml).
const (
	DefaultLockoutAfterFailures = 5
	DefaultLockoutCountWithin   = time.Hour       // countFailuresWithin: 3600 s
	DefaultLockoutPeriod        = 5 * time.Minute // lockoutPeriodSeconds: 300
)

// maxLockoutAfterFailures bounds a count's record: it keeps that many times.
const maxLockoutAfterFailures = 1000

// LockoutPolicy is UAA's lockoutPolicy for the sign-in form: a user name
// with AfterFailures failed sign-ins within CountWithin, none of them
// followed by a success, is refused for Period after the latest failure,
// whatever the password. Zero fields take UAA's defaults; a negative
// AfterFailures turns lockout off.
type LockoutPolicy struct {
	AfterFailures int
	CountWithin   time.Duration
	Period        time.Duration
}

// WithDefaults is p with UAA's defaults for its zero fields, or an error
// naming what is out of range.
func (p LockoutPolicy) WithDefaults() (LockoutPolicy, error) {
	if p.CountWithin < 0 || p.Period < 0 {
		return p, errors.New("authserver: the lockout's counting window and period must not be negative")
	}
	if p.AfterFailures > maxLockoutAfterFailures {
		return p, fmt.Errorf("authserver: the lockout's number of failures must be at most %d", maxLockoutAfterFailures)
	}
	p.AfterFailures = cmp.Or(p.AfterFailures, DefaultLockoutAfterFailures)
	p.CountWithin = cmp.Or(p.CountWithin, DefaultLockoutCountWithin)
	p.Period = cmp.Or(p.Period, DefaultLockoutPeriod)
	return p, nil
}

// bucketLockout holds the failure counts: "user:"+id for users, and
// "name:"+slot for names that are no user.
const bucketLockout = "lockout"

// lockoutSlots bounds the counts of unknown names. They live in the store,
// like users' counts, so that replicas and restarts see them (a count kept
// per process would let an attacker tell unknown names from users by
// spreading attempts over replicas). The kv store has no expiry and no
// range delete, so instead of records that would need a sweeper, an unknown
// name is counted in one of lockoutSlots slots chosen by a keyed hash: a
// flood of fresh names overwrites slots and never adds records past this
// bound (about 130 bytes each). A name whose slot another name
// took starts counting again; finding such a pair takes about lockoutSlots
// attempts, each one a bcrypt comparison. Users' counts are never evicted.
const lockoutSlots = 1 << 16

// Lockout counts failed sign-ins in the store.
type Lockout struct {
	// Now is the clock of the counts (time.Now); tests move it.
	Now func() time.Time

	policy LockoutPolicy
	store  *store.Store
	key    []byte // keys the hash that picks a name's slot and tag
	slots  uint32
}

// NewLockout counts under p (WithDefaults applied); the slots' key derives
// from the store's HMAC secret, so every replica picks the same slots.
func NewLockout(st *store.Store, secret []byte, p LockoutPolicy) *Lockout {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("lockout slots"))
	return &Lockout{Now: time.Now, policy: p, store: st, key: mac.Sum(nil), slots: lockoutSlots}
}

func (l *Lockout) enabled() bool { return l.policy.AfterFailures > 0 }

// failureRecord is what the store keeps of a subject: the times (Unix ms)
// of its latest failures since its last success, oldest first, at most
// AfterFailures of them.
type failureRecord struct {
	Tag      string  `json:"tag,omitempty"` // the name a slot counts for
	Failures []int64 `json:"failures"`
}

// subject is whom a sign-in counts against: a user, or the slot of a name
// that is no user.
type subject struct {
	key, tag string
	userID   string
}

func (l *Lockout) subjectOf(u *store.User, name string) subject {
	if u != nil {
		return subject{key: "user:" + u.ID, userID: u.ID}
	}
	mac := hmac.New(sha256.New, l.key)
	mac.Write([]byte(store.Fold(name)))
	sum := mac.Sum(nil)
	slot := binary.BigEndian.Uint32(sum) % l.slots
	return subject{key: fmt.Sprintf("name:%08x", slot), tag: hex.EncodeToString(sum[4:20])}
}

// begin counts an attempt as a failure before its password is checked,
// unless the subject is locked, in which case it writes nothing. Counting
// first makes the check and the count one transaction: of many attempts at
// once, at most AfterFailures get their password checked. A success undoes
// the count (succeeded).
func (l *Lockout) begin(sub subject) (locked bool, failures int, err error) {
	if !l.enabled() {
		return false, 0, nil
	}
	err = l.store.Update(func(tx kv.Tx) error {
		rec, err := l.read(tx, sub)
		if err != nil {
			return err
		}
		now := l.Now()
		if locked = l.isLocked(rec, now); locked {
			failures = len(rec.Failures)
			return nil
		}
		rec.Failures = append(rec.Failures, now.UnixMilli())
		rec.Failures = rec.Failures[max(0, len(rec.Failures)-l.policy.AfterFailures):]
		failures = len(rec.Failures)
		return store.PutJSON(tx, bucketLockout, sub.key, rec)
	})
	return locked, failures, err
}

// read returns the subject's failures within the counting window; a slot
// that counts for another name is read as empty.
func (l *Lockout) read(tx kv.Tx, sub subject) (*failureRecord, error) {
	rec := new(failureRecord)
	if _, err := store.GetJSON(tx, bucketLockout, sub.key, rec); err != nil {
		return nil, err
	}
	if rec.Tag != sub.tag {
		rec = &failureRecord{Tag: sub.tag}
	}
	since := l.Now().Add(-l.policy.CountWithin).UnixMilli()
	i := 0
	for i < len(rec.Failures) && rec.Failures[i] <= since {
		i++
	}
	rec.Failures = rec.Failures[i:]
	return rec, nil
}

// isLocked is UAA's rule: AfterFailures failures within the window, the
// latest within the period.
func (l *Lockout) isLocked(rec *failureRecord, now time.Time) bool {
	n := len(rec.Failures)
	return n >= l.policy.AfterFailures && now.Sub(time.UnixMilli(rec.Failures[n-1])) < l.policy.Period
}

// lockedUntil is when a subject that just reached AfterFailures failures
// may try again.
func (l *Lockout) lockedUntil() time.Time { return l.Now().Add(l.policy.Period) }

// succeeded resets a user's count.
func (l *Lockout) succeeded(sub subject) error {
	if !l.enabled() {
		return nil
	}
	return l.store.Update(func(tx kv.Tx) error { return tx.Delete(bucketLockout, sub.key) })
}

// forget drops a deleted user's count.
func (l *Lockout) forget(userID string) error {
	return l.store.Update(func(tx kv.Tx) error { return tx.Delete(bucketLockout, "user:"+userID) })
}
