package authserver

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// clientRecord is a client registration, as UAA's /oauth/clients has it.
type clientRecord struct {
	ID             string
	Name           string
	SecretHash     []byte // empty for a public client (PKCE required)
	Scope          []string
	Authorities    []string
	GrantTypes     []string
	RedirectURIs   []string
	AutoApproveAll bool
	AutoApprove    []string      // scopes approved without asking
	AccessTTL      time.Duration // access_token_validity; 0: the server's
	RefreshTTL     time.Duration // refresh_token_validity; 0: the server's
	Modified       time.Time
}

// clone is a copy of c that shares no slice with it.
func (c clientRecord) clone() clientRecord {
	for _, l := range []*[]string{&c.Scope, &c.Authorities, &c.GrantTypes, &c.RedirectURIs, &c.AutoApprove} {
		*l = slices.Clone(*l)
	}
	c.SecretHash = slices.Clone(c.SecretHash)
	return c
}

func (c *clientRecord) public() bool { return len(c.SecretHash) == 0 }

func (c *clientRecord) hasAuthority(a string) bool { return slices.Contains(c.Authorities, a) }

// autoApproves reports whether the client needs no consent for scopes.
func (c *clientRecord) autoApproves(scopes []string) bool {
	if c.AutoApproveAll {
		return true
	}
	for _, sc := range scopes {
		if !slices.Contains(c.AutoApprove, sc) {
			return false
		}
	}
	return true
}

func (s *store) createClient(c *clientRecord) error {
	return s.update(func(tx kv.Tx) error {
		if _, dup, err := tx.Get(bucketClients, c.ID); err != nil || dup {
			return cmp.Or(err, conflictf("Client already exists: %s", c.ID))
		}
		return putJSON(tx, bucketClients, c.ID, c)
	})
}

// putClient stores c, replacing the client of the same id.
func (s *store) putClient(c *clientRecord) error {
	return s.update(func(tx kv.Tx) error { return putJSON(tx, bucketClients, c.ID, c) })
}

// client returns a copy of the client that the caller may change.
func (s *store) client(id string) (*clientRecord, bool) {
	shared, ok := s.sharedClient(id)
	if !ok {
		return nil, false
	}
	c := shared.clone()
	return &c, true
}

// sharedClient returns the client as the memo of its decoding holds it,
// without client's copy: read it, never change it. check_token
// authenticates its caller with it on every call.
func (s *store) sharedClient(id string) (*clientRecord, bool) {
	var c *clientRecord
	var ok bool
	err := s.view(func(tx kv.Tx) (err error) {
		c, ok, err = s.clients.get(tx, bucketClients, id)
		return err
	})
	if err != nil {
		s.readFailed("client", err)
		return nil, false
	}
	return c, ok
}

// fositeClient is a client as fosite sees it. In UAA a client's scopes are
// what it may request for a user, and its authorities are the scopes of its
// own client_credentials tokens; fosite has one list, so the token endpoint
// asks for the authorities view (withAuthoritiesAsScopes) for that grant.
type fositeClient struct {
	*clientRecord
	scopes []string
}

var (
	_ fosite.Client                         = (*fositeClient)(nil)
	_ fosite.ClientWithCustomTokenLifespans = (*fositeClient)(nil)
)

func (c *fositeClient) GetID() string                   { return c.ID }
func (c *fositeClient) GetHashedSecret() []byte         { return c.SecretHash }
func (c *fositeClient) GetRedirectURIs() []string       { return c.RedirectURIs }
func (c *fositeClient) GetGrantTypes() fosite.Arguments { return c.GrantTypes }
func (c *fositeClient) GetResponseTypes() fosite.Arguments {
	return fosite.Arguments{"code"}
}
func (c *fositeClient) GetScopes() fosite.Arguments   { return c.scopes }
func (c *fositeClient) IsPublic() bool                { return c.public() }
func (c *fositeClient) GetAudience() fosite.Arguments { return nil }

// GetEffectiveLifespan applies UAA's per-client access_token_validity and
// refresh_token_validity; ID tokens live as long as access tokens.
func (c *fositeClient) GetEffectiveLifespan(_ fosite.GrantType, tt fosite.TokenType, fallback time.Duration) time.Duration {
	switch {
	case (tt == fosite.AccessToken || tt == fosite.IDToken) && c.AccessTTL > 0:
		return c.AccessTTL
	case tt == fosite.RefreshToken && c.RefreshTTL > 0:
		return c.RefreshTTL
	}
	return fallback
}

type ctxKey int

const authoritiesAsScopesKey ctxKey = iota

// withAuthoritiesAsScopes makes GetClient present the client's authorities
// as its scopes: the client_credentials grant's rule.
func withAuthoritiesAsScopes(ctx context.Context) context.Context {
	return context.WithValue(ctx, authoritiesAsScopesKey, true)
}

// GetClient is fosite's client lookup.
func (s *store) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, ok := s.client(id)
	if !ok {
		return nil, fosite.ErrNotFound
	}
	if ctx.Value(authoritiesAsScopesKey) != nil {
		return &fositeClient{c, c.Authorities}, nil
	}
	return &fositeClient{c, c.Scope}, nil
}

// ClientAssertionJWTValid: JWT client assertions are not supported (clients
// here are never OpenID Connect clients with keys), so no jti is known.
func (s *store) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT: see ClientAssertionJWTValid.
func (s *store) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

// listClients returns every client, by id.
func (s *store) listClients() []*clientRecord {
	var cs []*clientRecord
	err := s.view(func(tx kv.Tx) error {
		return tx.Scan(bucketClients, "", func(_ string, v []byte) error {
			c := new(clientRecord)
			cs = append(cs, c)
			return json.Unmarshal(v, c)
		})
	})
	if err != nil {
		s.readFailed("listClients", err)
		return nil
	}
	return cs
}

// deleteClient removes a client with the approvals users gave it, and
// returns it. Its tokens stop being accepted: their rev_sig names a client
// that is gone.
func (s *store) deleteClient(id string) (*clientRecord, error) {
	var c *clientRecord
	err := s.update(func(tx kv.Tx) error {
		c = new(clientRecord)
		if ok, err := getJSON(tx, bucketClients, id, c); err != nil || !ok {
			return cmp.Or(err, notFoundf("No client with requested id: %s", id))
		}
		err := deleteApprovals(tx, "", func(k string) bool {
			_, client, _ := strings.Cut(k, "\x00")
			return client == id
		})
		if err != nil {
			return err
		}
		return tx.Delete(bucketClients, id)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}
