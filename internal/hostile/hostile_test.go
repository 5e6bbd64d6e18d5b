package hostile

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T, b Behaviour) *Server {
	t.Helper()
	s, err := Start(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, u := range []string{s.URL, s.GreetingURL, s.Undeclared.URL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("%s is not on the loopback interface", u)
		}
	}
	return s
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, rawURL string) (*http.Response, string) {
	t.Helper()
	resp, err := noRedirect.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, string(body)
}

// authorizeURL is an authorization request of the fixture client.
func authorizeURL(s *Server, scope string) string {
	return s.URL + "/authorize?" + url.Values{"client_id": {ClientID}, "redirect_uri": {RedirectURI}, "scope": {scope},
		"state": {"st"}, "response_type": {"code"}}.Encode()
}

// Done right, a flow through the server brings a token; each behaviour then spoils its part.
func TestAFlowWorksAndEachBehaviourSpoilsItsPart(t *testing.T) {
	s := start(t, Behaviour{GETSignIn: true, Echo: true, Escapes: true, HeaderFlood: 64 << 10})
	resp, page := get(t, authorizeURL(s, "openid fortunes.read"))
	if resp.StatusCode != 200 || !strings.Contains(page, `method="get"`) || !strings.Contains(page, `name="pw"`) {
		t.Fatalf("the sign-in page is %d %s", resp.StatusCode, page)
	}
	n := 0
	for k, v := range resp.Header {
		n += len(k) + len(v[0])
	}
	if n < 64<<10 {
		t.Errorf("the answer carries %d bytes of headers, want 64 KiB", n)
	}
	req := page[strings.Index(page, `name="req" value="`)+18:]
	req = req[:strings.IndexByte(req, '"')]
	_, consent := get(t, s.URL+"/login?"+url.Values{"req": {req}, "user": {User}, "pw": {Password}}.Encode())
	if !strings.Contains(consent, `name="pw_echo" value="`+Password) || !strings.Contains(consent, "with the password "+Password) {
		t.Errorf("the consent page does not echo the password: %s", consent)
	}
	resp, err := noRedirect.PostForm(s.URL+"/consent", url.Values{"req": {req}, "decision": {"allow"}})
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	code := loc.Query().Get("code")
	resp, err = noRedirect.PostForm(s.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"client_id": {ClientID}, "client_secret": {ClientSecret}})
	if err != nil {
		t.Fatal(err)
	}
	var tok map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if tok["access_token"] == nil || tok["scope"] != "openid fortunes.read" {
		t.Fatalf("the token response is %v", tok)
	}
	resp, err = noRedirect.PostForm(s.URL+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)},
		"client_id": {ClientID}, "client_secret": {ClientSecret}})
	if err != nil {
		t.Fatal(err)
	}
	echo, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(echo), ClientSecret) || !strings.Contains(string(echo), Password) {
		t.Errorf("the refresh grant answers %d %s", resp.StatusCode, echo)
	}
	resp, _ = get(t, authorizeURL(s, "openid"))
	if d, _ := url.Parse(resp.Header.Get("Location")); !strings.Contains(d.Query().Get("error_description"), "\x1b]0;") {
		t.Errorf("the error redirect carries no escape sequence: %s", resp.Header.Get("Location"))
	}
	if s.Undeclared.Hits() != 0 {
		t.Errorf("the undeclared server got %v", s.Undeclared.Seen())
	}
}

// The redirects and the discovery document point at the undeclared server, which counts what it gets.
func TestTheUndeclaredServerIsWhereTheServerPoints(t *testing.T) {
	s := start(t, Behaviour{AuthorizeAway: true, DiscoveryAway: true})
	resp, _ := get(t, authorizeURL(s, "openid fortunes.read"))
	if !strings.HasPrefix(resp.Header.Get("Location"), s.Undeclared.URL+"/login?") {
		t.Errorf("the authorization endpoint sends the browser to %s", resp.Header.Get("Location"))
	}
	_, doc := get(t, s.URL+"/.well-known/openid-configuration")
	if !strings.Contains(doc, s.Undeclared.URL+"/latest/meta-data/") {
		t.Errorf("the discovery document is %s", doc)
	}
	if _, body := get(t, s.Undeclared.URL+"/latest/meta-data/iam/security-credentials/"); !strings.Contains(body, MetadataSecret) {
		t.Errorf("the metadata stand-in serves %s", body)
	}
	if s.Undeclared.Hits() != 1 || len(s.Undeclared.Seen()) != 1 {
		t.Errorf("hits %d, seen %v, want the one request of this test", s.Undeclared.Hits(), s.Undeclared.Seen())
	}
}

// The git repositories misbehave each its way, and Close ends every handler at once.
func TestTheRepositoriesMisbehaveAndCloseEndsThem(t *testing.T) {
	s := start(t, Behaviour{})
	refs := func(repo string, timeout time.Duration) (int64, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/"+repo+"/info/refs?service=git-upload-pack", nil)
		req.SetBasicAuth(RepoUser, RepoPassword)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return io.Copy(io.Discard, io.LimitReader(resp.Body, 16<<20))
	}
	if n, err := refs("endless.git", 10*time.Second); err != nil || n != 16<<20 {
		t.Errorf("endless.git gave %d bytes (%v), want 16 MiB and more", n, err)
	}
	if n, err := refs("trickle.git", 700*time.Millisecond); err == nil || n > 40 {
		t.Errorf("trickle.git gave %d bytes in 700 ms (%v)", n, err)
	}
	if _, err := refs("silent.git", 300*time.Millisecond); err == nil {
		t.Error("silent.git answered")
	}
	resp, err := http.Get(s.URL + "/silent.git/info/refs")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without credentials: %v %v", resp, err)
	}
	done := make(chan struct{})
	go func() { _, _ = refs("silent.git", time.Minute); close(done) }()
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	s.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a stalled request outlived Close by 5 s")
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("Close took %s", took)
	}
}
