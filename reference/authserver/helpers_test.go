package authserver

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// testKey is one RSA key for every test server: generating 2048-bit keys
// is slow.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

const greetingRedirect = "http://localhost:8100/"

// testServer is a Server behind a real HTTP listener.
type testServer struct {
	*Server
	url   string
	users int // the users fillUsers stored (the Scale benchmarks)
}

// newTestServer starts a server with the demo identities and a cheap bcrypt
// cost; change adjusts the options.
func newTestServer(t testing.TB, change ...func(*Options)) *testServer {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	opts := Options{URL: base, SigningKey: testKey(), HashCost: bcrypt.MinCost, Demo: &Demo{}}
	for _, c := range change {
		c(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = s
	hs.Start()
	t.Cleanup(hs.Close)
	return &testServer{Server: s, url: base}
}

// reply is a read response.
type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("not JSON (%d): %q", r.status, r.body)
	}
	return m
}

func (r reply) location(t testing.TB) *url.URL {
	t.Helper()
	loc := r.header.Get("Location")
	if loc == "" {
		t.Fatalf("no redirect (%d): %s", r.status, r.body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// browser is an HTTP client with cookies that does not follow redirects,
// so tests see every step.
type browser struct {
	t      testing.TB
	client *http.Client
	base   string
}

func newBrowser(t testing.TB, ts *testServer) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: ts.url, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (b *browser) do(req *http.Request) reply {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

// get fetches a path (or an absolute URL).
func (b *browser) get(target string) reply {
	b.t.Helper()
	if strings.HasPrefix(target, "/") {
		target = b.base + target
	}
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) reply {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfPattern = regexp.MustCompile(`name="X-Uaa-Csrf" value="([^"]+)"`)

func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfPattern.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in page:\n%s", page)
	}
	return m[1]
}

// signIn signs the browser in through the login form.
func (b *browser) signIn(user, password string) reply {
	b.t.Helper()
	page := b.get("/login")
	return b.post("/login.do", url.Values{"username": {user}, "password": {password}, csrfField: {csrfOf(b.t, page.body)}})
}

// authParams is a typical request of the greeting client.
func authParams(scope string) url.Values {
	return url.Values{
		"response_type": {"code"},
		"client_id":     {"greeting"},
		"redirect_uri":  {greetingRedirect},
		"scope":         {scope},
		"state":         {"state-0123456789"},
		"nonce":         {"nonce-0123456789"},
	}
}

// authorizeURL is the authorization request path for params.
func authorizeURL(params url.Values) string { return "/oauth/authorize?" + params.Encode() }

// approve follows an authorization request through sign-in (when needed)
// and the consent page (approving every scope); it returns the redirect to
// the client.
func (b *browser) approve(params url.Values, user, password string) *url.URL {
	b.t.Helper()
	r := b.get(authorizeURL(params))
	if r.status == http.StatusFound && r.location(b.t).Path == "/login" {
		r = b.signIn(user, password)
		if r.status != http.StatusFound {
			b.t.Fatalf("sign-in: %d %s", r.status, r.body)
		}
		r = b.get(r.header.Get("Location"))
	}
	if r.status == http.StatusOK {
		r = b.post("/oauth/authorize", consentForm(b.t, r.body, true))
	}
	if r.status != http.StatusSeeOther {
		b.t.Fatalf("authorization did not redirect to the client: %d %s", r.status, r.body)
	}
	return r.location(b.t)
}

var checkboxPattern = regexp.MustCompile(`name="(scope\.\d+)" value="(scope\.[^"]+)"`)

// consentForm fills the consent form of page: every box checked.
func consentForm(t testing.TB, page string, approve bool) url.Values {
	t.Helper()
	form := url.Values{csrfField: {csrfOf(t, page)}, approvalField: {map[bool]string{true: "true", false: "false"}[approve]}}
	for _, m := range checkboxPattern.FindAllStringSubmatch(page, -1) {
		form.Set(m[1], m[2])
	}
	return form
}

// codeOf returns the code of a redirect to the client, failing on an error.
func codeOf(t testing.TB, u *url.URL) string {
	t.Helper()
	q := u.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		t.Fatalf("no code in %s", u)
	}
	return q.Get("code")
}

// post sends a form to the server without cookies; basic, when set, is
// "id:secret" for HTTP Basic.
func post(t testing.TB, ts *testServer, path, basic string, form url.Values) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id, secret, ok := strings.Cut(basic, ":"); ok {
		req.SetBasicAuth(id, secret)
	}
	return send(t, req)
}

func send(t testing.TB, req *http.Request) reply {
	t.Helper()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

// exchange trades a code for tokens with form client authentication, as the
// greeting client does.
func exchange(t testing.TB, ts *testServer, code string, extra url.Values) reply {
	t.Helper()
	form := url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {greetingRedirect},
		"client_id": {"greeting"}, "client_secret": {"greeting-secret"},
	}
	for k, v := range extra {
		form[k] = v
	}
	return post(t, ts, "/oauth/token", "", form)
}

// issued is a successful token response.
type issued struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	JTI          string `json:"jti"`
}

func tokensOf(t testing.TB, r reply) issued {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("token endpoint: %d %s", r.status, r.body)
	}
	var tk issued
	if err := json.Unmarshal([]byte(r.body), &tk); err != nil {
		t.Fatal(err)
	}
	return tk
}

// userTokens runs the whole flow for marissa and returns her tokens.
func userTokens(t testing.TB, ts *testServer, scope string) issued {
	t.Helper()
	b := newBrowser(t, ts)
	code := codeOf(t, b.approve(authParams(scope), DemoUserName, DemoUserPassword))
	return tokensOf(t, exchange(t, ts, code, nil))
}

// adminToken is a client_credentials token of the admin client.
func adminToken(t testing.TB, ts *testServer) string {
	t.Helper()
	r := post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}})
	return tokensOf(t, r).AccessToken
}

// checkToken calls check_token as the fortune client.
func checkToken(t testing.TB, ts *testServer, token string) reply {
	t.Helper()
	return post(t, ts, "/check_token", "fortune:fortune-secret", url.Values{"token": {token}})
}

// api calls the provisioning API with a bearer token and a JSON body.
func api(t testing.TB, ts *testServer, method, path, token, body string) reply {
	t.Helper()
	req, _ := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

// pkcePair returns a verifier and its S256 challenge.
func pkcePair() (verifier, challenge string) {
	verifier = rand.Text() + rand.Text() // 52 characters of [A-Z2-7]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// claimsOf decodes a JWT's payload without verifying it.
func claimsOf(t testing.TB, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
