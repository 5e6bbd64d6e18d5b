package greeting

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

const (
	cookieName = "greeting_session"
	// sessionIdle is how long an unused session is kept.
	sessionIdle = 12 * time.Hour
	// maxSessions bounds the store: every anonymous visit makes a session
	// (to bind its state), so a flood of them must push out the oldest,
	// not exhaust memory.
	maxSessions = 10000
)

// session is one browser's state, kept on the server; the browser holds
// only a random id in an HttpOnly, SameSite=Lax cookie. Tokens never reach
// the browser.
type session struct {
	id   string
	csrf string // the sign-out form's token

	// mu serializes what one browser does with its tokens: two page loads
	// must not both spend the refresh token (a rotated refresh token used
	// twice revokes the grant).
	mu      sync.Mutex
	pending *pendingLogin // the authorization request under way
	tokens  *tokenSet     // nil until signed in
	user    string        // the signed-in user's name, for the page
}

// pendingLogin is what the callback checks and needs: the state sent, the
// PKCE verifier of the challenge sent, and the nonce the ID token must
// carry.
type pendingLogin struct {
	state, verifier, nonce string
}

// tokenSet is what the token endpoint gave the session.
type tokenSet struct {
	access, refresh string
	expiry          time.Time // zero when the server gave no expires_in
}

func (t *tokenSet) expired(now time.Time) bool {
	return !t.expiry.IsZero() && !now.Before(t.expiry)
}

// signedIn reports whether the session holds tokens; s.mu is held.
func (s *session) signedIn() bool { return s.tokens != nil }

// takePending returns the pending sign-in whose state is state, and
// forgets it so that it serves once. Another state leaves it in place: a
// forged callback must not cancel the user's own sign-in.
func (s *session) takePending(state string) *pendingLogin {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending
	if p == nil || !equalSecrets(p.state, state) {
		return nil
	}
	s.pending = nil
	return p
}

func equalSecrets(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// sessionStore keeps sessions by id, least recently used first out.
type sessionStore struct {
	cache  *lru.Cache[string, *session]
	now    func() time.Time
	secure bool // the cookie is Secure when the client's URL is https
}

func newSessionStore(secure bool, now func() time.Time) *sessionStore {
	return &sessionStore{cache: lru.New[string, *session](maxSessions), now: now, secure: secure}
}

// get returns the request's session, if the cookie names a live one, and
// keeps it alive for another sessionIdle.
func (st *sessionStore) get(r *http.Request) *session {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil
	}
	now := st.now()
	s, _ := st.cache.Touch(c.Value, now, now.Add(sessionIdle))
	return s
}

// create starts a session and sets its cookie.
func (st *sessionStore) create(w http.ResponseWriter) *session {
	s := &session{id: rand.Text() + rand.Text(), csrf: rand.Text()}
	st.cache.Add(s.id, s, st.now().Add(sessionIdle))
	http.SetCookie(w, st.cookie(s.id, 0))
	return s
}

// remove forgets s; its cookie names nothing from then on.
func (st *sessionStore) remove(s *session) { st.cache.Remove(s.id) }

// delete forgets s and expires its cookie.
func (st *sessionStore) delete(w http.ResponseWriter, s *session) {
	st.remove(s)
	http.SetCookie(w, st.cookie("", -1))
}

// cookie is a session cookie for the whole client; maxAge < 0 deletes it.
func (st *sessionStore) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: cookieName, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: st.secure,
	}
}
