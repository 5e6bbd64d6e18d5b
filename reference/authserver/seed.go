package authserver

import (
	"cmp"
	"context"
	"fmt"
	"strings"
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
func (s *Server) seed(opts Options) error {
	ctx := context.Background()
	_, err := s.addClient(ctx, clientSpec{
		ID:          cmp.Or(opts.AdminClientID, DefaultAdminClientID),
		Name:        "admin",
		Secret:      cmp.Or(opts.AdminClientSecret, DefaultAdminClientSecret),
		GrantTypes:  []string{"client_credentials"},
		Authorities: strings.Fields(adminScopeList),
	})
	if err != nil {
		return fmt.Errorf("authserver: the admin client: %w", err)
	}
	if opts.Demo == nil {
		return nil
	}
	if err := s.seedDemo(ctx, *opts.Demo); err != nil {
		return fmt.Errorf("authserver: demo identities: %w", err)
	}
	return nil
}

func (s *Server) seedDemo(ctx context.Context, d Demo) error {
	fortunes, err := s.addGroup(demoFortunesScope, demoFortunesScopeText)
	if err != nil {
		return err
	}
	if _, err := s.addGroup("openid", openIDScopeText); err != nil {
		return err
	}
	u, err := s.addUser(ctx, userSpec{
		UserName: DemoUserName, Password: DemoUserPassword, Email: DemoUserEmail,
		GivenName: "Marissa", FamilyName: "Bloggs", Active: true, Verified: true,
	})
	if err != nil {
		return err
	}
	if err := s.store.addMember(fortunes.ID, u.ID); err != nil {
		return err
	}
	if _, err := s.addClient(ctx, clientSpec{
		ID: GreetingClientID, Name: GreetingClientID, Secret: GreetingClientSecret,
		Scope:      []string{"openid", demoFortunesScope},
		GrantTypes: []string{"authorization_code", "refresh_token"},
		Redirects:  []string{cmp.Or(d.GreetingURL, DefaultGreetingURL)},
	}); err != nil {
		return err
	}
	_, err = s.addClient(ctx, clientSpec{
		ID: FortuneClientID, Name: FortuneClientID, Secret: FortuneClientSecret,
		Authorities: []string{demoFortunesScope, resourceScope},
		GrantTypes:  []string{"authorization_code", "refresh_token"},
		Redirects:   []string{cmp.Or(d.FortuneURL, DefaultFortuneURL)},
	})
	return err
}
