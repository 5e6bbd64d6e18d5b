package core

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"html"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/fortune-tck/fortune-tck/target"
)

// Secrets masks secrets by value: whatever a field is called, wherever a target echoes it (a password field
// named pw, a sign-in form sent with GET, a hidden field, an error page that repeats the request), a secret the
// harness knows is replaced by Mask. It knows the fixtures' passwords and client secrets, the provisioning
// client's secret and the repository's password from the target file, and every token a token response
// brought (Learn). Each is masked as written and as the encodings it travels in: form and path escaping, JSON,
// HTML and XML escaping, and HTTP Basic credentials in base64.
//
// Values shorter than MinSecret are not masked: masking "pw" would mask every word that holds it.
type Secrets struct {
	mu       sync.RWMutex
	values   map[string]bool
	replacer *strings.Replacer // nil: rebuilt on the next use
	longest  int
}

// MinSecret is the length below which a value is not masked.
const MinSecret = 4

// minToken is the length below which a value a target sent as a token is not taken for one: a target could
// otherwise have every "the" of the reports masked.
const minToken = 8

// Mask replaces a secret.
const Mask = "***"

// NewSecrets knows the secrets of a target file.
func NewSecrets(t *target.Target) *Secrets {
	s := &Secrets{values: map[string]bool{}}
	if t == nil {
		return s
	}
	if as := t.Services.AuthServer; as != nil {
		if fx := as.Fixtures; fx != nil {
			for _, u := range []*target.User{fx.Users.Reader, fx.Users.Outsider} {
				if u != nil {
					s.AddCredentials(u.Username, u.Password)
				}
			}
			for _, c := range []*target.Client{fx.Clients.Web, fx.Clients.Resource, fx.Clients.ShortLived} {
				if c != nil {
					s.AddCredentials(c.ClientID, c.ClientSecret)
				}
			}
		}
		if p := as.ProvisioningAPI(); p != nil {
			s.AddCredentials(p.ClientID, p.ClientSecret)
		}
	}
	if cs := t.Services.ConfigServer; cs != nil {
		s.AddCredentials(cs.Repository.Username, cs.Repository.Password)
	}
	return s
}

// Add makes values secrets.
func (s *Secrets) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if len(v) >= MinSecret && !s.values[v] {
			s.values[v] = true
			s.replacer = nil
		}
	}
}

// AddCredentials makes a password a secret, and the HTTP Basic credentials of the name with it (in base64, as
// written and form-encoded as RFC 6749 2.3.1 asks of clients): an answer that echoes an Authorization header
// shows them.
func (s *Secrets) AddCredentials(name, password string) {
	if len(password) < MinSecret {
		return
	}
	b64 := base64.StdEncoding.EncodeToString
	s.Add(password, b64([]byte(name+":"+password)), b64([]byte(url.QueryEscape(name)+":"+url.QueryEscape(password))))
}

// Learn takes the tokens of a token response as secrets: the members access_token, refresh_token and id_token
// of a JSON object, at its top level.
func (s *Secrets) Learn(body []byte) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return
	}
	for _, k := range []string{"access_token", "refresh_token", "id_token"} {
		if v, _ := obj[k].(string); len(v) >= minToken {
			s.Add(v)
		}
	}
}

// Mask replaces every secret in text, in each of its encodings.
func (s *Secrets) Mask(text string) string {
	r := s.current()
	if r == nil {
		return text
	}
	return r.Replace(text)
}

// MaskBytes is Mask for bytes.
func (s *Secrets) MaskBytes(b []byte) []byte {
	r := s.current()
	if r == nil {
		return b
	}
	return []byte(r.Replace(string(b)))
}

// Longest is the length of the longest encoding of a secret: a stream masked in pieces must keep that many
// bytes back to find a secret cut between two pieces.
func (s *Secrets) Longest() int {
	s.current()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.longest
}

func (s *Secrets) current() *strings.Replacer {
	s.mu.RLock()
	r, n := s.replacer, len(s.values)
	s.mu.RUnlock()
	if r != nil || n == 0 {
		return r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var forms []string
	for v := range s.values {
		for _, f := range encodings(v) {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	// At one position the replacer takes the first pair that matches: the longest form first, so that a
	// secret's escaped form is not cut by another secret that is its prefix.
	slices.SortFunc(forms, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(forms))
	s.longest = 0
	for _, f := range forms {
		pairs = append(pairs, f, Mask)
		s.longest = max(s.longest, len(f))
	}
	s.replacer = strings.NewReplacer(pairs...)
	return s.replacer
}

// encodings are the forms a value travels in through HTTP and the reports.
func encodings(v string) []string {
	var jsonForm bytes.Buffer
	enc := json.NewEncoder(&jsonForm)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	plainJSON := strings.TrimSuffix(strings.TrimSpace(jsonForm.String()), `"`)[1:]
	htmlJSON, _ := json.Marshal(v)
	var xmlForm strings.Builder
	_ = xml.EscapeText(&xmlForm, []byte(v))
	out := []string{v, url.QueryEscape(v), url.PathEscape(v), plainJSON, string(htmlJSON[1 : len(htmlJSON)-1]),
		html.EscapeString(v), template.HTMLEscapeString(v), xmlForm.String()}
	return slices.DeleteFunc(out, func(f string) bool { return len(f) < MinSecret })
}
