package auth

import (
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// Consent and sign-in pages of several servers, as they serve them (trimmed to the parts that matter): the
// rules by meaning must find the same controls a person would.
var (
	// The reference's and UAA's consent page.
	uaaConsent = `<h1>Application Authorization</h1><form method="post" action="/oauth/authorize">
	<input type="hidden" name="X-Uaa-Csrf" value="csrf1">
	<label><input type="checkbox" name="scope.0" value="scope.openid" checked> openid</label>
	<label><input type="checkbox" name="scope.1" value="scope.fortunes.read" checked> Read fortunes</label>
	<button type="submit" name="user_oauth_approval" value="true">Authorize</button>
	<button type="submit" name="user_oauth_approval" value="false">Deny</button></form>`
	// oidc-provider's (the example's interaction pages, after its own dev interactions).
	oidcProviderConsent = `<h1>Authorize</h1><p>tck-web is asking for access with the scopes: openid fortunes.read</p>
	<ul><li>openid</li><li>fortunes.read</li></ul>
	<form method="post" action="/interaction/UID/confirm"><button type="submit" name="consent" value="approve">Continue</button></form>
	<form method="post" action="/interaction/UID/abort"><button type="submit" name="cancel" value="cancel">Cancel</button></form>`
	oidcProviderLogin = `<form method="post" action="/interaction/UID/login">
	<label>Username <input type="text" name="login" required></label>
	<label>Password <input type="password" name="password" required></label>
	<button type="submit">Sign-in</button></form>
	<form method="post" action="/interaction/UID/abort"><button type="submit" name="cancel" value="cancel">Cancel</button></form>`
	// Spring Authorization Server's default consent page: unticked scope boxes named "scope", and a Cancel
	// button that a script handles (it resets the form and submits it).
	springConsent = `<form name="consent_form" method="post" action="/oauth2/authorize">
	<input type="hidden" name="client_id" value="web"><input type="hidden" name="state" value="st">
	<div><input type="checkbox" name="scope" value="fortunes.read" id="fortunes.read"><label for="fortunes.read">fortunes.read</label></div>
	<button type="submit" id="submit-consent">Submit Consent</button>
	<button type="button" id="cancel-consent" onclick="cancelConsent();">Cancel</button></form>`
	// Keycloak's consent page: Yes and No buttons of one form.
	keycloakConsent = `<form action="/realms/r/login-actions/consent?code=c" method="POST">
	<input type="hidden" name="code" value="c"><ul><li>fortunes.read</li></ul>
	<input name="accept" id="kc-login" type="submit" value="Yes"/>
	<input name="cancel" id="kc-cancel" type="submit" value="No"/></form>`
	// A page these rules cannot read: the target describes its controls.
	oddConsent = `<form method="post" action="/decide"><button type="submit" name="d" value="1">OK</button>
	<button type="submit" name="d" value="0">Back</button></form>`
)

func pageOf(t *testing.T, body, at string, rules ...target.PageRule) *page {
	t.Helper()
	u, _ := url.Parse(at)
	b := &browser{page: &core.Exchange{Body: []byte(body)}, pageURL: u}
	p, err := b.parse(rules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConsentPagesAreFoundByMeaning(t *testing.T) {
	cases := []struct {
		name, body        string
		rules             []target.PageRule
		approve, deny     url.Values // the fields each decision sends
		approveAt, denyAt string
		offers            []string
		denyMethod        string
	}{
		{name: "UAA and the reference", body: uaaConsent,
			approve:   url.Values{"X-Uaa-Csrf": {"csrf1"}, "scope.0": {"scope.openid"}, "scope.1": {"scope.fortunes.read"}, "user_oauth_approval": {"true"}},
			deny:      url.Values{"X-Uaa-Csrf": {"csrf1"}, "scope.0": {"scope.openid"}, "scope.1": {"scope.fortunes.read"}, "user_oauth_approval": {"false"}},
			approveAt: "https://as.test/oauth/authorize", denyAt: "https://as.test/oauth/authorize", offers: []string{"openid", "fortunes.read"}},
		{name: "oidc-provider", body: oidcProviderConsent,
			approve: url.Values{"consent": {"approve"}}, deny: url.Values{"cancel": {"cancel"}},
			approveAt: "https://as.test/interaction/UID/confirm", denyAt: "https://as.test/interaction/UID/abort", offers: []string{"openid", "fortunes.read"}},
		{name: "Spring Authorization Server", body: springConsent,
			approve:   url.Values{"client_id": {"web"}, "state": {"st"}, "scope": {"fortunes.read"}},
			deny:      url.Values{"client_id": {"web"}, "state": {"st"}},
			approveAt: "https://as.test/oauth2/authorize", denyAt: "https://as.test/oauth2/authorize", offers: []string{"fortunes.read"}},
		{name: "Keycloak", body: keycloakConsent,
			approve:   url.Values{"code": {"c"}, "accept": {"Yes"}},
			deny:      url.Values{"code": {"c"}, "cancel": {"No"}},
			approveAt: "https://as.test/realms/r/login-actions/consent?code=c", denyAt: "https://as.test/realms/r/login-actions/consent?code=c", offers: []string{"fortunes.read"}},
		{name: "described by the target", body: oddConsent,
			rules:   []target.PageRule{{URL: `/consent$`, Approve: &target.Control{Name: "d", Value: "1"}, Deny: &target.Control{Text: "back"}}},
			approve: url.Values{"d": {"1"}}, deny: url.Values{"d": {"0"}},
			approveAt: "https://as.test/decide", denyAt: "https://as.test/decide"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := pageOf(t, c.body, "https://as.test/consent", c.rules...)
			con, err := p.consentPage()
			if err != nil || con == nil {
				t.Fatalf("no consent page found: %v", err)
			}
			for _, s := range c.offers {
				if !con.offers(s) {
					t.Errorf("the page does not offer %s", s)
				}
			}
			if con.offers("fortunes.write") {
				t.Errorf("the page offers a scope it does not name")
			}
			if f := con.approval(); f.action != c.approveAt || f.fields.Encode() != c.approve.Encode() {
				t.Errorf("approve sends %s %s, want %s %s", f.action, f.fields.Encode(), c.approveAt, c.approve.Encode())
			}
			// A fresh parse: approval() ticks the boxes of its form.
			con, _ = pageOf(t, c.body, "https://as.test/consent", c.rules...).consentPage()
			f, err := con.refusal()
			if err != nil {
				t.Fatal(err)
			}
			if f.action != c.denyAt || f.fields.Encode() != c.deny.Encode() {
				t.Errorf("deny sends %s %s, want %s %s", f.action, f.fields.Encode(), c.denyAt, c.deny.Encode())
			}
		})
	}
}

func TestSignInFormsAreNotConsentPages(t *testing.T) {
	p := pageOf(t, oidcProviderLogin, "https://as.test/interaction/UID")
	f, pw, err := p.signInForm()
	if err != nil || f == nil {
		t.Fatalf("no sign-in form: %v", err)
	}
	if f.action != "https://as.test/interaction/UID/login" || attr(pw, "name") != "password" || attr(p.userField(f), "name") != "login" {
		t.Errorf("sign-in form %s, password %q, user %q", f.action, attr(pw, "name"), attr(p.userField(f), "name"))
	}
	if c, _ := p.consentPage(); c != nil {
		t.Errorf("a sign-in page was taken for a consent page")
	}
	if c, _ := pageOf(t, `<p>Signed in.</p><a href="/logout">Sign out</a>`, "https://as.test/").consentPage(); c != nil {
		t.Errorf("a page without an approve control was taken for a consent page")
	}
}

func TestMeaningReadsTextThenValueThenName(t *testing.T) {
	for body, want := range map[string]int{
		`<button>Allow access</button>`:                                  1,
		`<button name="user_oauth_approval" value="false">Deny</button>`: -1,
		`<input type="submit" value="Yes">`:                              1,
		`<input type="submit" name="cancel" value="Abbrechen">`:          -1,
		`<button>Sign in</button>`:                                       0,
		`<button>Submit Consent</button>`:                                1,
		`<a href="/abort">Cancel</a>`:                                    -1,
	} {
		p := pageOf(t, body, "https://as.test/")
		n := first(filterTree(p.doc, isButton), func(*html.Node) bool { return true })
		if n == nil {
			t.Fatalf("%s: no button", body)
		}
		if got := meaning(n); got != want {
			t.Errorf("%s: meaning %d, want %d", body, got, want)
		}
	}
}

// check_token's times are JSON numbers: a numeric string is refused.
func TestCheckFieldWantsJSONTypes(t *testing.T) {
	now := json.Number(strconv.FormatInt(time.Now().Unix()+60, 10))
	if p := checkField(now, "integer", "later than now"); p != "" {
		t.Errorf("a JSON number was refused: %s", p)
	}
	if p := checkField(string(now), "integer", "later than now"); p == "" {
		t.Errorf("a numeric string passed as an integer")
	}
	if p := checkField("true", "boolean", "any"); p == "" {
		t.Errorf("a string passed as a boolean")
	}
}
