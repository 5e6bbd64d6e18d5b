package store

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

// Client is a client registration, as UAA's /oauth/clients has it.
type Client struct {
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
func (c Client) clone() Client {
	for _, l := range []*[]string{&c.Scope, &c.Authorities, &c.GrantTypes, &c.RedirectURIs, &c.AutoApprove} {
		*l = slices.Clone(*l)
	}
	c.SecretHash = slices.Clone(c.SecretHash)
	return c
}

// Public reports whether c has no secret: PKCE is required of it.
func (c *Client) Public() bool { return len(c.SecretHash) == 0 }

// HasAuthority reports whether c has the authority a.
func (c *Client) HasAuthority(a string) bool { return slices.Contains(c.Authorities, a) }

// AutoApproves reports whether the client needs no consent for scopes.
func (c *Client) AutoApproves(scopes []string) bool {
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

// CreateClient stores a new client; a taken id is a conflict.
func (s *Store) CreateClient(c *Client) error {
	return s.Update(func(tx kv.Tx) error {
		if _, dup, err := tx.Get(bucketClients, c.ID); err != nil || dup {
			return cmp.Or(err, Conflictf("Client already exists: %s", c.ID))
		}
		return PutJSON(tx, bucketClients, c.ID, c)
	})
}

// PutClient stores c, replacing the client of the same id.
func (s *Store) PutClient(c *Client) error {
	return s.Update(func(tx kv.Tx) error { return PutJSON(tx, bucketClients, c.ID, c) })
}

// Client returns a copy of the client that the caller may change.
func (s *Store) Client(id string) (*Client, bool) {
	shared, ok := s.SharedClient(id)
	if !ok {
		return nil, false
	}
	c := shared.clone()
	return &c, true
}

// SharedClient returns the client as the memo of its decoding holds it,
// without client's copy: read it, never change it. check_token
// authenticates its caller with it on every call.
func (s *Store) SharedClient(id string) (*Client, bool) {
	var c *Client
	var ok bool
	err := s.View(func(tx kv.Tx) (err error) {
		c, ok, err = s.clients.get(tx, bucketClients, id)
		return err
	})
	if err != nil {
		s.ReadFailed("client", err)
		return nil, false
	}
	return c, ok
}

// FositeClient is a client as fosite sees it. In UAA a client's scopes are
// what it may request for a user, and its authorities are the scopes of its
// own client_credentials tokens; fosite has one list, so the token endpoint
// asks for the authorities view (WithAuthoritiesAsScopes) for that grant.
type FositeClient struct {
	*Client
	scopes []string
}

var (
	_ fosite.Client                         = (*FositeClient)(nil)
	_ fosite.ClientWithCustomTokenLifespans = (*FositeClient)(nil)
)

func (c *FositeClient) GetID() string                   { return c.ID }
func (c *FositeClient) GetHashedSecret() []byte         { return c.SecretHash }
func (c *FositeClient) GetRedirectURIs() []string       { return c.RedirectURIs }
func (c *FositeClient) GetGrantTypes() fosite.Arguments { return c.GrantTypes }
func (c *FositeClient) GetResponseTypes() fosite.Arguments {
	return fosite.Arguments{"code"}
}
func (c *FositeClient) GetScopes() fosite.Arguments   { return c.scopes }
func (c *FositeClient) IsPublic() bool                { return c.Public() }
func (c *FositeClient) GetAudience() fosite.Arguments { return nil }

// GetEffectiveLifespan applies UAA's per-client access_token_validity and
// refresh_token_validity; ID tokens live as long as access tokens.
func (c *FositeClient) GetEffectiveLifespan(_ fosite.GrantType, tt fosite.TokenType, fallback time.Duration) time.Duration {
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

// WithAuthoritiesAsScopes makes GetClient present the client's authorities
// as its scopes: the client_credentials grant's rule.
func WithAuthoritiesAsScopes(ctx context.Context) context.Context {
	return context.WithValue(ctx, authoritiesAsScopesKey, true)
}

// GetClient is fosite's client lookup.
func (s *Store) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, ok := s.Client(id)
	if !ok {
		return nil, fosite.ErrNotFound
	}
	if ctx.Value(authoritiesAsScopesKey) != nil {
		return &FositeClient{c, c.Authorities}, nil
	}
	return &FositeClient{c, c.Scope}, nil
}

// ClientAssertionJWTValid: JWT client assertions are not supported (clients
// here are never OpenID Connect clients with keys), so no jti is known.
func (s *Store) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT: see ClientAssertionJWTValid.
func (s *Store) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

// ListClients returns every client, by id.
func (s *Store) ListClients() []*Client {
	var cs []*Client
	err := s.View(func(tx kv.Tx) error {
		return tx.Scan(bucketClients, "", func(_ string, v []byte) error {
			c := new(Client)
			cs = append(cs, c)
			return json.Unmarshal(v, c)
		})
	})
	if err != nil {
		s.ReadFailed("listClients", err)
		return nil
	}
	return cs
}

// DeleteClient removes a client with the approvals users gave it, and
// returns it. Its tokens stop being accepted: their rev_sig names a client
// that is gone.
func (s *Store) DeleteClient(id string) (*Client, error) {
	var c *Client
	err := s.Update(func(tx kv.Tx) error {
		c = new(Client)
		if ok, err := GetJSON(tx, bucketClients, id, c); err != nil || !ok {
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
