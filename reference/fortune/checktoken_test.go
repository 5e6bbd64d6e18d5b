package fortune

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeCheckToken is a check_token endpoint that records what it gets and
// answers 200 with the body it is given.
type fakeCheckToken struct {
	*httptest.Server
	mu     sync.Mutex
	answer string
	got    []*http.Request
	bodies []string
}

func startFakeCheckToken(t *testing.T) *fakeCheckToken {
	t.Helper()
	f := &fakeCheckToken{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.got, f.bodies = append(f.got, r), append(f.bodies, string(body))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, f.answer)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeCheckToken) answerWith(body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = body
}

// The call to check_token is as Spring's RemoteTokenServices makes it: the
// token form-encoded, the credentials in HTTP Basic as they are.
func TestCheckTokenRequest(t *testing.T) {
	fake := startFakeCheckToken(t)
	fake.answerWith(`{"scope":["fortunes.read"]}`)
	f := start(t, nil, Options{CheckTokenURL: fake.URL + "/check_token", ClientID: "fort:une", ClientSecret: "s%c+ret"})
	token := "ab+/c~d-e_f.g=="
	wantFortune(t, f.get(t, "/", token))
	r, body := fake.got[0], fake.bodies[0]
	if body != (url.Values{"token": {token}}).Encode() {
		t.Errorf("form %q", body)
	}
	want, _ := http.NewRequest(http.MethodPost, "/", nil)
	want.SetBasicAuth("fort:une", "s%c+ret")
	if got := r.Header.Get("Authorization"); got != want.Header.Get("Authorization") {
		t.Errorf("Authorization %q, want %q", got, want.Header.Get("Authorization"))
	}
	if r.Method != http.MethodPost || r.URL.Path != "/check_token" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		r.Header.Get("Accept") != "application/json" || r.ContentLength != int64(len(body)) {
		t.Errorf("%s %s %v (length %d)", r.Method, r.URL, r.Header, r.ContentLength)
	}
}

// The answers of check_token the service takes, and those it refuses as
// no answer (503, logged with the reason).
func TestCheckTokenAnswers(t *testing.T) {
	const cannot = "check_token answered 200 with a body that is no token check result: "
	tests := []struct {
		name, answer string
		status       int
		log          string // in the log of a 503
	}{
		{"UAA's", `{"scope":["openid","fortunes.read"],"aud":["fortunes"],"exp":4102444800,"client_id":"c","user_name":"u","jti":"x"}`, 200, ""},
		{"scope as a string", `{"scope":"openid fortunes.read"}`, 200, ""},
		{"scope with spaces around", `{"scope":"  fortunes.read\t"}`, 200, ""},
		{"white space around values", "{ \"scope\" :\n[ \"fortunes.read\" ] , \"aud\" : null }", 200, ""},
		{"escapes", `{"scope":["fortunes\u002eread"]}`, 200, ""},
		{"scope missing", `{"aud":["fortunes"]}`, 403, ""},
		{"scope null", `{"scope":null}`, 403, ""},
		{"scope empty", `{"scope":[]}`, 403, ""},
		{"scope as a number", `{"scope":5}`, 503, cannot + "want a string or an array of strings"},
		{"scope as an object", `{"scope":{"a":1}}`, 503, cannot + "want a string or an array of strings"},
		{"scope with a number", `{"scope":["fortunes.read",1]}`, 503, cannot + "want a string or an array of strings"},
		{"scope true", `{"scope":true}`, 503, cannot + "want a string or an array of strings"},
		{"exp as a string", `{"scope":["fortunes.read"],"exp":"soon"}`, 503, cannot + "json: cannot unmarshal string into Go struct field tokenInfo.exp of type int64"},
		{"not JSON", `fortunes.read`, 503, cannot + "invalid character 'o' in literal false (expecting 'a')"},
		{"cut", `{"scope":["fortunes.read"`, 503, cannot + "unexpected end of JSON input"},
		{"two values", `{"scope":["fortunes.read"]} {}`, 503, cannot + "invalid character '{' after top-level value"},
		{"an array", `[{"scope":["fortunes.read"]}]`, 503, cannot + "json: cannot unmarshal array into Go value of type fortune.tokenInfo"},
		{"empty", ``, 503, cannot + "unexpected end of JSON input"},
	}
	fake := startFakeCheckToken(t)
	f := start(t, nil, Options{CheckTokenURL: fake.URL})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake.answerWith(tt.answer)
			for range 2 { // the same answer again gets the same result
				before := len(f.logs.String())
				r := f.get(t, "/", "tok")
				if r.Status != tt.status {
					t.Fatalf("%d %s, want %d", r.Status, r.Body, tt.status)
				}
				if logs := f.logs.String()[before:]; tt.log != "" && !strings.Contains(logs, tt.log) {
					t.Fatalf("log lacks %q:\n%s", tt.log, logs)
				}
			}
		})
	}
}
