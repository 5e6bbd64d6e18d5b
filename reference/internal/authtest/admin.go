package authtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Reply is a read response to a request for URL.
type Reply struct {
	URL    *url.URL
	Status int
	Header http.Header
	Body   string
}

// Location is the redirect target, resolved against the request's URL.
func (r Reply) Location(t testing.TB) *url.URL {
	t.Helper()
	loc, err := r.URL.Parse(r.Header.Get("Location"))
	if err != nil || r.Header.Get("Location") == "" {
		t.Fatalf("no redirect (%d): %s", r.Status, r.Body)
	}
	return loc
}

// JSON decodes the body as one JSON object.
func (r Reply) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
		t.Fatalf("not JSON (%d): %q", r.Status, r.Body)
	}
	return m
}

// Tokens is a successful token response.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// PostForm posts form to path; basic, when set, is "id:secret" for HTTP
// Basic.
func (s *Server) PostForm(t testing.TB, path, basic string, form url.Values) Reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id, secret, ok := strings.Cut(basic, ":"); ok {
		req.SetBasicAuth(id, secret)
	}
	return Send(t, req)
}

// Send sends req without cookies and reads the answer.
func Send(t testing.TB, req *http.Request) Reply {
	t.Helper()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Reply{URL: req.URL, Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

func tokensOf(t testing.TB, r Reply) Tokens {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("token endpoint: %d %s", r.Status, r.Body)
	}
	var tk Tokens
	if err := json.Unmarshal([]byte(r.Body), &tk); err != nil {
		t.Fatal(err)
	}
	return tk
}

// ClientToken is a client_credentials access token of a client.
func (s *Server) ClientToken(t testing.TB, id, secret string) string {
	t.Helper()
	return tokensOf(t, s.PostForm(t, "/oauth/token", id+":"+secret, url.Values{"grant_type": {"client_credentials"}})).AccessToken
}

// Revoke revokes a token (and its whole grant) as the client it was issued to.
func (s *Server) Revoke(t testing.TB, id, secret, token string) {
	t.Helper()
	if r := s.PostForm(t, "/oauth/revoke", id+":"+secret, url.Values{"token": {token}}); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
}

// API calls the provisioning API as the admin client, with a JSON body.
func (s *Server) API(t testing.TB, method, path string, body any) Reply {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(string(raw)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.ClientToken(t, "admin", "adminsecret"))
	return Send(t, req)
}

// CreateClient registers a client (UAA's client details, e.g. client_id,
// client_secret, authorized_grant_types, authorities,
// access_token_validity).
func (s *Server) CreateClient(t testing.TB, details map[string]any) {
	t.Helper()
	if r := s.API(t, http.MethodPost, "/oauth/clients", details); r.Status != http.StatusCreated {
		t.Fatalf("create client: %d %s", r.Status, r.Body)
	}
}

// ResourceClient registers a client_credentials client whose tokens carry
// authorities (and live validity seconds; 0 for the server's default), and
// returns one of its tokens.
func (s *Server) ResourceClient(t testing.TB, id string, validity int, authorities ...string) string {
	t.Helper()
	details := map[string]any{
		"client_id": id, "client_secret": id + "-secret",
		"authorized_grant_types": []string{"client_credentials"}, "authorities": authorities,
	}
	if validity > 0 {
		details["access_token_validity"] = validity
	}
	s.CreateClient(t, details)
	return s.ClientToken(t, id, id+"-secret")
}

// CreateUser provisions a user (password "pw", named "Given <name>")
// outside every group.
func (s *Server) CreateUser(t testing.TB, name string) {
	t.Helper()
	body := map[string]any{
		"userName": name, "password": "pw",
		"name":   map[string]string{"givenName": "Given", "familyName": name},
		"emails": []map[string]any{{"value": name + "@test.org", "primary": true}},
	}
	if r := s.API(t, http.MethodPost, "/Users", body); r.Status != http.StatusCreated {
		t.Fatalf("create user %s: %d %s", name, r.Status, r.Body)
	}
}

// UserTokens runs the code flow of the demo greeting client for a user
// (consenting to every scope) and exchanges the code.
func (s *Server) UserTokens(t testing.TB, user, password, scope string) Tokens {
	t.Helper()
	q := url.Values{
		"response_type": {"code"}, "client_id": {GreetingID}, "redirect_uri": {GreetingRedirect},
		"scope": {scope}, "state": {"state-0123456789"},
	}
	back := NewBrowser(t).Authorize(s.URL+"/oauth/authorize?"+q.Encode(), user, password, true)
	code := back.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in %s", back)
	}
	return tokensOf(t, s.PostForm(t, "/oauth/token", "", url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {GreetingRedirect},
		"client_id": {GreetingID}, "client_secret": {GreetingSecret},
	}))
}
