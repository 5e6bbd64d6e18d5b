package pages

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

// CookieName is the cookie that names a browser's session.
const CookieName = "authz_session"

const (
	sessionIdleTTL     = time.Hour
	maxBrowserSessions = 10000
	maxPendingConsents = 8 // per browser session: a few tabs at once
)

// Sessions are the server-side state of browsers: who signed in,
// the CSRF token of the sign-in form, the authorization request to resume
// after signing in, and the authorization requests awaiting consent (keyed
// by the CSRF token of their consent form, so each form is good once).
type Sessions struct {
	mu     sync.Mutex
	byID   map[string]*record
	secure bool // Secure cookies (https external URL or TLS)
}

// record is one browser's session.
type record struct {
	csrf     string
	userID   string
	authTime time.Time
	returnTo string
	consents map[string]pendingConsent
	expires  time.Time
}

// pendingConsent is an authorization request shown on a consent page.
type pendingConsent struct {
	query url.Values
	added time.Time
}

// Session is a copy of a browser session's fields, safe to read without a
// lock.
type Session struct {
	ID       string
	CSRF     string // the sign-in form's token
	UserID   string // "" until the browser signs in
	AuthTime time.Time
	ReturnTo string
}

// NewSessions keeps sessions whose cookies are Secure when secure is set
// (an https external URL) or the request came over TLS.
func NewSessions(secure bool) *Sessions {
	return &Sessions{byID: make(map[string]*record), secure: secure}
}

// Current returns the browser's live session, if it has one.
func (b *Sessions) Current(r *http.Request) (Session, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return Session{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.live(c.Value)
	if !ok {
		return Session{}, false
	}
	return s.view(c.Value), true
}

// Ensure returns the browser's session, starting one (and setting its
// cookie) when it has none.
func (b *Sessions) Ensure(w http.ResponseWriter, r *http.Request) Session {
	if v, ok := b.Current(r); ok {
		return v
	}
	b.mu.Lock()
	id, s := b.start()
	b.mu.Unlock()
	b.setCookie(w, r, id)
	return s.view(id)
}

// SignIn replaces the browser's session with a signed-in one under a new
// id (no session fixation), keeping the request to resume.
func (b *Sessions) SignIn(w http.ResponseWriter, r *http.Request, old Session, userID string) Session {
	b.mu.Lock()
	delete(b.byID, old.ID)
	id, s := b.start()
	s.userID, s.authTime, s.returnTo = userID, time.Now().UTC().Truncate(time.Second), old.ReturnTo
	b.mu.Unlock()
	b.setCookie(w, r, id)
	return s.view(id)
}

// SignOut ends the browser's session.
func (b *Sessions) SignOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		b.mu.Lock()
		delete(b.byID, c.Value)
		b.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: b.secureFor(r)})
}

// SetReturnTo remembers where to go once the browser signed in.
func (b *Sessions) SetReturnTo(id, target string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.live(id); ok {
		s.returnTo = target
	}
}

// TakeReturnTo returns and forgets where to go after signing in.
func (b *Sessions) TakeReturnTo(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.live(id)
	if !ok {
		return ""
	}
	target := s.returnTo
	s.returnTo = ""
	return target
}

// AddConsent keeps an authorization request awaiting consent and returns
// the token its form must send back.
func (b *Sessions) AddConsent(id string, query url.Values) string {
	token := rand.Text()
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.live(id)
	if !ok {
		return token // the session just ended; the form will be refused
	}
	if len(s.consents) >= maxPendingConsents {
		dropOldest(s.consents)
	}
	s.consents[token] = pendingConsent{query: httpio.CloneValues(query), added: time.Now()}
	return token
}

// TakeConsent returns and forgets the request of a consent form.
func (b *Sessions) TakeConsent(id, token string) (url.Values, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.live(id)
	if !ok {
		return nil, false
	}
	p, ok := s.consents[token]
	if !ok {
		return nil, false
	}
	delete(s.consents, token)
	return p.query, true
}

// ValidCSRF reports whether token is the session's sign-in form token.
func (v Session) ValidCSRF(token string) bool {
	return v.CSRF != "" && subtle.ConstantTimeCompare([]byte(v.CSRF), []byte(token)) == 1
}

// live returns an unexpired session and extends it; b.mu is held.
func (b *Sessions) live(id string) (*record, bool) {
	s, ok := b.byID[id]
	if !ok {
		return nil, false
	}
	if time.Now().After(s.expires) {
		delete(b.byID, id)
		return nil, false
	}
	s.expires = time.Now().Add(sessionIdleTTL)
	return s, true
}

// start creates a session; b.mu is held. When the table is full, expired
// sessions go first, then the one idle longest.
func (b *Sessions) start() (string, *record) {
	if len(b.byID) >= maxBrowserSessions {
		b.evict()
	}
	id := rand.Text()
	s := &record{csrf: rand.Text(), consents: make(map[string]pendingConsent), expires: time.Now().Add(sessionIdleTTL)}
	b.byID[id] = s
	return id, s
}

func (b *Sessions) evict() {
	now := time.Now()
	oldestID, oldest := "", time.Time{}
	for id, s := range b.byID {
		if now.After(s.expires) {
			delete(b.byID, id)
		} else if oldestID == "" || s.expires.Before(oldest) {
			oldestID, oldest = id, s.expires
		}
	}
	if len(b.byID) >= maxBrowserSessions {
		delete(b.byID, oldestID)
	}
}

func (b *Sessions) setCookie(w http.ResponseWriter, r *http.Request, id string) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: b.secureFor(r)})
}

func (b *Sessions) secureFor(r *http.Request) bool { return b.secure || r.TLS != nil }

func (s *record) view(id string) Session {
	return Session{ID: id, CSRF: s.csrf, UserID: s.userID, AuthTime: s.authTime, ReturnTo: s.returnTo}
}

func dropOldest(consents map[string]pendingConsent) {
	oldestKey, oldest := "", time.Time{}
	for k, p := range consents {
		if oldestKey == "" || p.added.Before(oldest) {
			oldestKey, oldest = k, p.added
		}
	}
	delete(consents, oldestKey)
}
