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
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fortune-tck/fortune-tck/target"
)

// Secrets masks secrets by value: whatever a field is called, wherever a target echoes it (a password field
// named pw, a sign-in form sent with GET, a hidden field, an error page that repeats the request), a secret the
// harness knows is replaced by Mask. It knows the fixtures' passwords and client secrets, the provisioning
// client's secret, the repository's and the broker's passwords from the target file, and every token a token response
// brought (Learn). Each is masked as written and as the encodings it travels in: form and path escaping, JSON,
// HTML and XML escaping, and HTTP Basic credentials in base64.
//
// Values shorter than MinSecret are not masked: masking "pw" would mask every word that holds it. A secret that
// is a word of the suite's own text (SetVocabulary: a demo's client secret "secret" is in a scenario's name) is
// weak: masked where the target's own bytes are shown (MaskEvidence: the evidence of a scenario), not in
// messages, on the terminal or across the report files, where masking it would cut the suite's own words.
type Secrets struct {
	mu         sync.RWMutex
	values     map[string]bool
	vocabulary string
	strong     *strings.Replacer // the secrets that are no word of the vocabulary; nil: rebuilt on the next use
	all        *strings.Replacer // every secret
	longest    int
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
	if ca := t.Services.ConfigApp; ca != nil && ca.Broker != "" {
		if u, err := url.Parse(ca.Broker); err == nil && u.User != nil {
			password, _ := u.User.Password()
			s.AddCredentials(u.User.Username(), password)
		}
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
			s.strong, s.all = nil, nil
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

// SetVocabulary gives the suite's own text (its features, its scenarios' names): a secret found in it is weak.
func (s *Secrets) SetVocabulary(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vocabulary = text
	s.strong, s.all = nil, nil
}

// Mask replaces every secret but the weak ones in text, in each of their encodings.
func (s *Secrets) Mask(text string) string {
	strong, _ := s.current()
	if strong == nil {
		return text
	}
	return strong.Replace(text)
}

// MaskBytes is Mask for bytes.
func (s *Secrets) MaskBytes(b []byte) []byte {
	strong, _ := s.current()
	if strong == nil {
		return b
	}
	return []byte(strong.Replace(string(b)))
}

// MaskEvidence replaces every secret in text, the weak ones too: for the target's own bytes.
func (s *Secrets) MaskEvidence(text string) string {
	_, all := s.current()
	if all == nil {
		return text
	}
	return all.Replace(text)
}

// Longest is the length of the longest encoding of a secret Mask replaces: a stream masked in pieces must keep
// that many bytes back to find a secret cut between two pieces.
func (s *Secrets) Longest() int {
	s.current()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.longest
}

// current are the replacers of the strong secrets and of all of them, nil where there is none.
func (s *Secrets) current() (strong, all *strings.Replacer) {
	s.mu.RLock()
	strong, all, n := s.strong, s.all, len(s.values)
	s.mu.RUnlock()
	if all != nil || n == 0 {
		return strong, all
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var strongForms, allForms []string
	for v := range s.values {
		weak := s.vocabulary != "" && strings.Contains(s.vocabulary, v)
		for _, f := range encodings(v) {
			allForms = appendNew(allForms, f)
			if !weak {
				strongForms = appendNew(strongForms, f)
			}
		}
	}
	s.longest = 0
	for _, f := range strongForms {
		s.longest = max(s.longest, len(f))
	}
	s.strong, s.all = replacer(strongForms), replacer(allForms)
	return s.strong, s.all
}

func appendNew(forms []string, f string) []string {
	if slices.Contains(forms, f) {
		return forms
	}
	return append(forms, f)
}

// replacer replaces each form by Mask; nil for none. At one position a strings.Replacer takes the first pair
// that matches: the longest form first, so that a secret's escaped form is not cut by another secret that is
// its prefix.
func replacer(forms []string) *strings.Replacer {
	if len(forms) == 0 {
		return nil
	}
	slices.SortFunc(forms, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mask)
	}
	return strings.NewReplacer(pairs...)
}

// namedParam is a query or form parameter whose value is a secret whatever it is (secretFields).
var namedParam = regexp.MustCompile(`([?&](?:` + strings.Join(secretFields, "|") + `)=)[^&#\s"'<>)]+`)

// MaskParams masks the values of the secret parameters (code, password, ...) of every URL and form in a
// text, by their names: a message that shows a redirect shows its code as ***.
func MaskParams(text string) string { return namedParam.ReplaceAllString(text, "${1}"+Mask) }

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
