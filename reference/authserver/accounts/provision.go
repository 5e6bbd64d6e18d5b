package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// errInvalid is a record that cannot be stored as given: a 400 whose
// message says what to fix.
type errInvalid struct{ msg string }

func (e *errInvalid) Error() string { return e.msg }

// Invalidf is a record that cannot be stored as given: a 400 with this
// message.
func Invalidf(format string, args ...any) error { return &errInvalid{fmt.Sprintf(format, args...)} }

// IsInvalid reports whether err is a record that cannot be stored as given.
func IsInvalid(err error) bool { return errors.As(err, new(*errInvalid)) }

const maxNameBytes = 255

// UserSpec is what it takes to create a user.
type UserSpec struct {
	UserName, GivenName, FamilyName, Email, Password string
	Active, Verified                                 bool
	Policy                                           PasswordPolicy // the seed's is the zero policy
}

// AddUser validates and stores a new user. The duplicate check runs before
// the (slow) bcrypt hash, and again under the store's lock.
func (a *Accounts) AddUser(ctx context.Context, spec UserSpec) (*store.User, error) {
	if err := validName("userName", spec.UserName); err != nil {
		return nil, err
	}
	if strings.ContainsFunc(spec.UserName, unicode.IsSpace) {
		return nil, Invalidf("userName must not contain spaces")
	}
	if _, err := mail.ParseAddress(spec.Email); err != nil || !strings.Contains(spec.Email, "@") {
		return nil, Invalidf("An email must be provided: a valid e-mail address in emails[0].value")
	}
	if err := spec.Policy.check(spec.Password); err != nil {
		return nil, err
	}
	if _, dup := a.store.UserByName(spec.UserName); dup {
		return nil, store.Conflictf("Username already in use: %s", spec.UserName)
	}
	hash, err := a.hasher.Hash(ctx, []byte(spec.Password))
	if err != nil {
		return nil, Invalidf("The password must be at most %d bytes", maxSecretBytes)
	}
	t := store.Now()
	u := &store.User{
		ID: store.NewID(), UserName: spec.UserName, GivenName: spec.GivenName, FamilyName: spec.FamilyName,
		Email: spec.Email, PasswordHash: hash, Active: spec.Active, Verified: spec.Verified,
		Created: t, PasswordModified: t,
	}
	if err := a.store.CreateUser(u); err != nil {
		return nil, err
	}
	return u, nil
}

// AddGroup validates and stores a new group; its name is a scope, so it
// cannot contain spaces.
func (a *Accounts) AddGroup(name, description string) (*store.Group, error) {
	if err := validName("displayName", name); err != nil {
		return nil, err
	}
	if err := validScope(name); err != nil {
		return nil, err
	}
	t := store.Now()
	g := &store.Group{ID: store.NewID(), DisplayName: name, Description: description, Created: t, Modified: t}
	if err := a.store.CreateGroup(g); err != nil {
		return nil, err
	}
	return g, nil
}

// ClientSpec is what it takes to register a client.
type ClientSpec struct {
	ID, Name, Secret                          string
	Scope, Authorities, GrantTypes, Redirects []string
	AutoApproveAll                            bool
	AutoApprove                               []string
	AccessTTL, RefreshTTL                     time.Duration
}

// AddClient validates and stores a new client.
func (a *Accounts) AddClient(ctx context.Context, spec ClientSpec) (*store.Client, error) {
	if err := validateClient(spec); err != nil {
		return nil, err
	}
	if _, dup := a.store.Client(spec.ID); dup {
		return nil, store.Conflictf("Client already exists: %s", spec.ID)
	}
	c, err := a.NewClient(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := a.store.CreateClient(c); err != nil {
		return nil, err
	}
	return c, nil
}

// NewClient is the client of a validated spec, its secret hashed.
func (a *Accounts) NewClient(ctx context.Context, spec ClientSpec) (*store.Client, error) {
	var hash []byte
	if spec.Secret != "" {
		var err error
		if hash, err = a.hasher.Hash(ctx, []byte(spec.Secret)); err != nil {
			return nil, Invalidf("client_secret must be at most %d bytes", maxSecretBytes)
		}
	}
	return &store.Client{
		ID: spec.ID, Name: spec.Name, SecretHash: hash,
		Scope: orEmpty(spec.Scope), Authorities: orEmpty(spec.Authorities),
		GrantTypes: spec.GrantTypes, RedirectURIs: orEmpty(spec.Redirects),
		AutoApproveAll: spec.AutoApproveAll, AutoApprove: orEmpty(spec.AutoApprove),
		AccessTTL: spec.AccessTTL, RefreshTTL: spec.RefreshTTL,
		Modified: store.Now(),
	}, nil
}

func validateClient(spec ClientSpec) error {
	if err := validName("client_id", spec.ID); err != nil {
		return err
	}
	if strings.ContainsAny(spec.ID, ": ") {
		return Invalidf("client_id must not contain ':' or spaces (HTTP Basic could not carry it)")
	}
	if len(spec.GrantTypes) == 0 {
		return Invalidf("An authorized grant type must be provided: one of %s", strings.Join(Grants, ", "))
	}
	for _, g := range spec.GrantTypes {
		if !slices.Contains(Grants, g) {
			return Invalidf("Unsupported grant type: %s; supported: %s", g, strings.Join(Grants, ", "))
		}
	}
	if spec.AccessTTL < 0 || spec.RefreshTTL < 0 {
		return Invalidf("access_token_validity and refresh_token_validity must not be negative")
	}
	if spec.Secret == "" && slices.Contains(spec.GrantTypes, "client_credentials") {
		return Invalidf("Client secret is required for the client_credentials grant")
	}
	for _, list := range [][]string{spec.Scope, spec.Authorities, spec.AutoApprove} {
		for _, sc := range list {
			if err := validScope(sc); err != nil {
				return err
			}
		}
	}
	return validateRedirects(spec)
}

// validateRedirects requires exact http(s) URIs: fosite matches them
// exactly, so a wildcard would only ever fail later, at sign-in.
func validateRedirects(spec ClientSpec) error {
	if slices.Contains(spec.GrantTypes, "authorization_code") && len(spec.Redirects) == 0 {
		return Invalidf("A redirect_uri is required for the authorization_code grant")
	}
	for _, raw := range spec.Redirects {
		u, err := url.Parse(raw)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return Invalidf("Invalid redirect_uri %q: an absolute http or https URI is required", raw)
		case u.Fragment != "" || strings.Contains(raw, "#"):
			return Invalidf("Invalid redirect_uri %q: it must not have a fragment", raw)
		case strings.Contains(raw, "*"):
			return Invalidf("Invalid redirect_uri %q: wildcards are not supported; register each exact URI", raw)
		}
	}
	return nil
}

func validName(field, v string) error {
	switch {
	case v == "":
		return Invalidf("%s is required", field)
	case len(v) > maxNameBytes:
		return Invalidf("%s must be at most %d bytes", field, maxNameBytes)
	case strings.ContainsFunc(v, unicode.IsControl):
		return Invalidf("%s must not contain control characters", field)
	}
	return nil
}

// validScope accepts what can travel in a space-separated scope parameter.
func validScope(sc string) error {
	if sc == "" || len(sc) > maxNameBytes || strings.ContainsFunc(sc, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' || r == '"' || r == '\\'
	}) {
		return Invalidf("Invalid scope %q: no spaces, commas, quotes or backslashes", sc)
	}
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
