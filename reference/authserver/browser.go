package authserver

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

const (
	sessionCookie      = "authz_session"
	sessionIdleTTL     = time.Hour
	maxBrowserSessions = 10000
	maxPendingConsents = 8 // per browser session: a few tabs at once
)

// browserSessions are the server-side state of browsers: who signed in,
// the CSRF token of the sign-in form, the authorization request to resume
// after signing in, and the authorization requests awaiting consent (keyed
// by the CSRF token of their consent form, so each form is good once).
type browserSessions struct {
	mu     sync.Mutex
	byID   map[string]*browserSession
	secure bool // Secure cookies (https external URL or TLS)
}

type browserSession struct {
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

// browserView is a copy of a session's fields, safe to read without a lock.
type browserView struct {
	id       string
	csrf     string
	userID   string
	authTime time.Time
	returnTo string
}

func newBrowserSessions(secure bool) *browserSessions {
	return &browserSessions{byID: make(map[string]*browserSession), secure: secure}
}

// current returns the browser's live session, if it has one.
func (b *browserSessions) current(r *http.Request) (browserView, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return browserView{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.live(c.Value)
	if !ok {
		return browserView{}, false
	}
	return s.view(c.Value), true
}

// ensure returns the browser's session, starting one (and setting its
// cookie) when it has none.
func (b *browserSessions) ensure(w http.ResponseWriter, r *http.Request) browserView {
	if v, ok := b.current(r); ok {
		return v
	}
	b.mu.Lock()
	id, s := b.start()
	b.mu.Unlock()
	b.setCookie(w, r, id)
	return s.view(id)
}

// signIn replaces the browser's session with a signed-in one under a new
// id (no session fixation), keeping the request to resume.
func (b *browserSessions) signIn(w http.ResponseWriter, r *http.Request, old browserView, userID string) browserView {
	b.mu.Lock()
	delete(b.byID, old.id)
	id, s := b.start()
	s.userID, s.authTime, s.returnTo = userID, time.Now().UTC().Truncate(time.Second), old.returnTo
	b.mu.Unlock()
	b.setCookie(w, r, id)
	return s.view(id)
}

// signOut ends the browser's session.
func (b *browserSessions) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		b.mu.Lock()
		delete(b.byID, c.Value)
		b.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: b.secureFor(r)})
}

// setReturnTo remembers where to go once the browser signed in.
func (b *browserSessions) setReturnTo(id, target string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.live(id); ok {
		s.returnTo = target
	}
}

// takeReturnTo returns and forgets where to go after signing in.
func (b *browserSessions) takeReturnTo(id string) string {
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

// addConsent keeps an authorization request awaiting consent and returns
// the token its form must send back.
func (b *browserSessions) addConsent(id string, query url.Values) string {
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

// takeConsent returns and forgets the request of a consent form.
func (b *browserSessions) takeConsent(id, token string) (url.Values, bool) {
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

// validCSRF reports whether token is the session's sign-in form token.
func (v browserView) validCSRF(token string) bool {
	return v.csrf != "" && subtle.ConstantTimeCompare([]byte(v.csrf), []byte(token)) == 1
}

// live returns an unexpired session and extends it; b.mu is held.
func (b *browserSessions) live(id string) (*browserSession, bool) {
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
func (b *browserSessions) start() (string, *browserSession) {
	if len(b.byID) >= maxBrowserSessions {
		b.evict()
	}
	id := rand.Text()
	s := &browserSession{csrf: rand.Text(), consents: make(map[string]pendingConsent), expires: time.Now().Add(sessionIdleTTL)}
	b.byID[id] = s
	return id, s
}

func (b *browserSessions) evict() {
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

func (b *browserSessions) setCookie(w http.ResponseWriter, r *http.Request, id string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: b.secureFor(r)})
}

func (b *browserSessions) secureFor(r *http.Request) bool { return b.secure || r.TLS != nil }

func (s *browserSession) view(id string) browserView {
	return browserView{id: id, csrf: s.csrf, userID: s.userID, authTime: s.authTime, returnTo: s.returnTo}
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
