package authserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
)

// createUserWith posts a user with password (a JSON value) and returns the
// answer.
func createUserWith(t *testing.T, ts *testServer, admin, name, password string) reply {
	t.Helper()
	return api(t, ts, "POST", "/Users", admin,
		`{"userName":"`+name+`","password":`+password+`,"emails":[{"value":"`+name+`@test.org"}]}`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// userCount is how many users named name exist.
func userCount(t *testing.T, ts *testServer, admin, name string) float64 {
	t.Helper()
	r := api(t, ts, "GET", "/Users?filter="+url.QueryEscape(`userName eq "`+name+`"`), admin, "")
	if r.status != http.StatusOK {
		t.Fatalf("list users: %d %s", r.status, r.body)
	}
	n, _ := r.json(t)["totalResults"].(float64)
	return n
}

// wantInvalidPassword checks UAA's answer to a password the policy
// refuses, and that no user was created.
func wantInvalidPassword(t *testing.T, ts *testServer, admin, name string, r reply, message string) {
	t.Helper()
	body := r.json(t)
	if r.status != http.StatusBadRequest || body["error"] != "invalid_password" || body["message"] != message || body["error_description"] != message {
		t.Errorf("%s: %d %s, want 400 invalid_password %q", name, r.status, r.body, message)
	}
	if n := userCount(t, ts, admin, name); n != 0 {
		t.Errorf("%s: the refused user was created (%v found)", name, n)
	}
}

// UAA's default policy: any password of 1 to 255 characters; bcrypt adds
// its limit of 72 bytes.
func TestPasswordPolicyDefaultIsUAAs(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	for i, tt := range []struct{ password, message string }{
		{`""`, "Password must be at least 1 characters in length."},
		{`null`, "Password must be at least 1 characters in length."},
		{jsonString(strings.Repeat("é", 256)), "Password must be no more than 255 characters in length. Password must be no more than 72 bytes in length."},
		{jsonString(strings.Repeat("p", 73)), "Password must be no more than 72 bytes in length."},
	} {
		name := "bad" + string(rune('a'+i))
		wantInvalidPassword(t, ts, admin, name, createUserWith(t, ts, admin, name, tt.password), tt.message)
	}
	for i, ok := range []string{"a", "koala", strings.Repeat("p", 72), "ü"} {
		name := "good" + string(rune('a'+i))
		if r := createUserWith(t, ts, admin, name, jsonString(ok)); r.status != http.StatusCreated {
			t.Errorf("password %q: %d %s", ok, r.status, r.body)
		}
	}
}

// A policy's rules, each named in the error when broken (UAA's own test
// cases of UaaPasswordPolicyValidator: 10 to 23 characters, one of each
// class).
func TestPasswordPolicyNamesEveryRuleBroken(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.PasswordPolicy = accounts.PasswordPolicy{MinLength: 10, MaxLength: 23, RequireUpperCase: 1, RequireLowerCase: 1, RequireDigit: 1, RequireSpecial: 1}
	})
	admin := adminToken(t, ts)
	for i, tt := range []struct{ password, message string }{
		{"Pas1", "Password must be at least 10 characters in length. Password must contain at least 1 special characters."},
		{"Password2&" + strings.Repeat("x", 14), "Password must be no more than 23 characters in length."},
		{"password2&", "Password must contain at least 1 uppercase characters."},
		{"PASSWORD2&", "Password must contain at least 1 lowercase characters."},
		{"Password&&", "Password must contain at least 1 digit characters."},
		{"Password123", "Password must contain at least 1 special characters."},
		{"Password123 ", "Password must contain at least 1 special characters."},
		{"Passsss1\u007f", "Password must be at least 10 characters in length. Password must contain at least 1 special characters."},
		{"", "Password must be at least 10 characters in length. Password must contain at least 1 uppercase characters. " +
			"Password must contain at least 1 lowercase characters. Password must contain at least 1 digit characters. " +
			"Password must contain at least 1 special characters."},
	} {
		name := "rule" + string(rune('a'+i))
		wantInvalidPassword(t, ts, admin, name, createUserWith(t, ts, admin, name, jsonString(tt.password)), tt.message)
	}
	if r := createUserWith(t, ts, admin, "fine", jsonString("Password2&")); r.status != http.StatusCreated {
		t.Fatalf("a password that keeps every rule: %d %s", r.status, r.body)
	}
	// The new user signs in with it.
	if r := newBrowser(t, ts).signIn("fine", "Password2&"); r.status != http.StatusFound {
		t.Fatalf("sign-in with the new password: %d", r.status)
	}
	// The demo seed is not bound by the operator's policy (as UAA's users
	// in uaa.yml are not): marissa/koala still exists.
	if r := newBrowser(t, ts).signIn(DemoUserName, DemoUserPassword); r.status != http.StatusFound {
		t.Fatalf("demo user under a strict policy: %d", r.status)
	}
}

// Other bad input is a precise 400 of its own; a user name that is wrong
// and a password that breaks the policy report the user name first, as UAA
// validates the user before its password.
func TestPasswordPolicyBadInput(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.PasswordPolicy.MinLength = 8 })
	admin := adminToken(t, ts)
	for _, tt := range []struct {
		name, body, error string
	}{
		{"password a number", `{"userName":"n1","password":12345678,"emails":[{"value":"n1@test.org"}]}`, "invalid_scim_resource"},
		{"password an object", `{"userName":"n2","password":{"x":1},"emails":[{"value":"n2@test.org"}]}`, "invalid_scim_resource"},
		{"bad name and short password", `{"userName":"has space","password":"x","emails":[{"value":"n3@test.org"}]}`, "invalid_scim_resource"},
		{"short password", `{"userName":"n4","password":"short","emails":[{"value":"n4@test.org"}]}`, "invalid_password"},
		{"invalid UTF-8 escapes", `{"userName":"n5","password":"\udc00\udc00","emails":[{"value":"n5@test.org"}]}`, "invalid_password"},
	} {
		r := api(t, ts, "POST", "/Users", admin, tt.body)
		if r.status != http.StatusBadRequest || r.json(t)["error"] != tt.error {
			t.Errorf("%s: %d %s, want 400 %s", tt.name, r.status, r.body, tt.error)
		}
	}
	for _, bad := range []accounts.PasswordPolicy{
		{MinLength: -1}, {RequireDigit: -1}, {MinLength: 300}, {MinLength: 10, MaxLength: 8},
		{MaxLength: 3, RequireUpperCase: 2, RequireDigit: 2},
	} {
		if _, err := New(Options{URL: "http://localhost:9000", PasswordPolicy: bad}); err == nil {
			t.Errorf("New accepted the password policy %+v", bad)
		}
	}
}
