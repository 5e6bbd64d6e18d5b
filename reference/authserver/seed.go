package authserver

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// The demo identities of the reference stack (DESIGN.md).
const (
	DemoUserName          = "marissa"
	DemoUserPassword      = "koala"
	DemoUserEmail         = "marissa@test.org"
	GreetingClientID      = "greeting"
	GreetingClientSecret  = "greeting-secret"
	FortuneClientID       = "fortune"
	FortuneClientSecret   = "fortune-secret"
	DefaultGreetingURL    = "http://localhost:8100/"
	DefaultFortuneURL     = "http://localhost:8787/"
	demoFortunesScope     = "fortunes.read"
	demoFortunesScopeText = "Read fortunes"
	openIDScopeText       = "Access your profile"
)

// Demo asks New to seed the demo identities: user marissa (member of
// fortunes.read), groups fortunes.read and openid, and the greeting and
// fortune clients.
type Demo struct {
	// GreetingURL is the greeting client's root, its redirect URI
	// (DefaultGreetingURL when empty).
	GreetingURL string
	// FortuneURL is the fortune service's root, the fortune client's
	// redirect URI (DefaultFortuneURL when empty).
	FortuneURL string
}

// seed registers the admin client, and the demo identities when asked.
// Records an earlier run (or another replica) stored are kept; the admin
// client is registered again when its secret changed.
func (s *Server) seed(opts Options) error {
	ctx := context.Background()
	admin := accounts.ClientSpec{
		ID:          cmp.Or(opts.AdminClientID, DefaultAdminClientID),
		Name:        "admin",
		Secret:      cmp.Or(opts.AdminClientSecret, DefaultAdminClientSecret),
		GrantTypes:  []string{"client_credentials"},
		Authorities: strings.Fields(adminScopeList),
	}
	old, exists := s.store.Client(admin.ID)
	if exists && s.hasher.Compare(ctx, old.SecretHash, []byte(admin.Secret)) != nil {
		c, err := s.accounts.NewClient(ctx, admin)
		if err == nil {
			err = s.store.PutClient(c)
		}
		if err != nil {
			return fmt.Errorf("authserver: the admin client: %w", err)
		}
	} else if !exists {
		if _, err := s.accounts.AddClient(ctx, admin); err != nil && !store.IsConflict(err) {
			return fmt.Errorf("authserver: the admin client: %w", err)
		}
	}
	if opts.Demo == nil {
		return nil
	}
	if err := s.seedDemo(ctx, *opts.Demo); err != nil {
		return fmt.Errorf("authserver: demo identities: %w", err)
	}
	return nil
}

// seedDemo adds the demo identities that are missing.
func (s *Server) seedDemo(ctx context.Context, d Demo) error {
	fortunes, err := s.ensureGroup(demoFortunesScope, demoFortunesScopeText)
	if err != nil {
		return err
	}
	if _, err := s.ensureGroup("openid", openIDScopeText); err != nil {
		return err
	}
	u, ok := s.store.UserByName(DemoUserName)
	if !ok {
		u, err = s.accounts.AddUser(ctx, accounts.UserSpec{
			UserName: DemoUserName, Password: DemoUserPassword, Email: DemoUserEmail,
			GivenName: "Marissa", FamilyName: "Bloggs", Active: true, Verified: true,
		})
		if store.IsConflict(err) { // another replica added it meanwhile
			if u, ok = s.store.UserByName(DemoUserName); ok {
				err = nil
			}
		}
		if err != nil {
			return err
		}
	}
	if err := s.store.AddMember(fortunes.ID, u.ID); err != nil && !store.IsConflict(err) {
		return err
	}
	for _, c := range []accounts.ClientSpec{{
		ID: GreetingClientID, Name: GreetingClientID, Secret: GreetingClientSecret,
		Scope:      []string{"openid", demoFortunesScope},
		GrantTypes: []string{"authorization_code", "refresh_token"},
		Redirects:  []string{cmp.Or(d.GreetingURL, DefaultGreetingURL)},
	}, {
		ID: FortuneClientID, Name: FortuneClientID, Secret: FortuneClientSecret,
		Authorities: []string{demoFortunesScope, resourceScope},
		GrantTypes:  []string{"authorization_code", "refresh_token"},
		Redirects:   []string{cmp.Or(d.FortuneURL, DefaultFortuneURL)},
	}} {
		if _, err := s.accounts.AddClient(ctx, c); err != nil && !store.IsConflict(err) {
			return err
		}
	}
	return nil
}

// ensureGroup returns the group named name, adding it when missing.
func (s *Server) ensureGroup(name, description string) (*store.Group, error) {
	if g, ok := s.store.GroupByName(name); ok {
		return g, nil
	}
	g, err := s.accounts.AddGroup(name, description)
	if store.IsConflict(err) { // another replica added it meanwhile
		if g, ok := s.store.GroupByName(name); ok {
			return g, nil
		}
	}
	return g, err
}
