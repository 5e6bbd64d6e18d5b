package auth

import (
	"testing"

	"github.com/fortune-tck/fortune-tck/target"
)

// The administration API is the one the target declares, either way it is written, under the server's url, or
// under the issuer's base for a UAA named by its issuer (its token endpoint).
func TestTheAdministrationAPIIsTheTargetsUnderItsBaseURL(t *testing.T) {
	admin := &target.AdminClient{ClientID: "admin", ClientSecret: "s"}
	cases := []struct {
		name    string
		as      *target.AuthServer
		wantURL string
	}{
		{"no auth server", nil, ""},
		{"no administration API", &target.AuthServer{URL: "http://as"}, ""},
		{"provisioning under url", &target.AuthServer{URL: "http://as", Provisioning: &target.Provisioning{API: "uaa", ClientID: "admin"}}, "http://as"},
		{"admin, the earlier spelling", &target.AuthServer{URL: "http://as", Admin: admin}, "http://as"},
		{"a UAA named by its issuer", &target.AuthServer{Issuer: "http://as/uaa/oauth/token", Admin: admin}, "http://as/uaa"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(envOf(target.Services{AuthServer: c.as}))
			switch got := s.adminAPI; {
			case c.wantURL == "" && got != nil:
				t.Errorf("adminAPI = %+v, want none", got)
			case c.wantURL != "" && (got == nil || got.URL != c.wantURL || got.ClientID != "admin" || got.API != "uaa"):
				t.Errorf("adminAPI = %+v, want the admin client's at %s", got, c.wantURL)
			}
		})
	}
	if s := newServer(Env{}); s.services().AuthServer != nil || s.adminAPI != nil {
		t.Error("an Env without a target must be a target that declares nothing")
	}
}
