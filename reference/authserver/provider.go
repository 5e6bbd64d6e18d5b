package authserver

import (
	"cmp"
	"context"
	"net/url"

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/token/jwt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/tokens"
)

// buildProvider composes fosite with the handlers this server offers. The
// order matters: PKCE comes after the code handler it checks, so a replayed
// code is reported (and its tokens revoked) before PKCE could object.
func (s *Server) buildProvider(opts Options, secret []byte) {
	cfg := &fosite.Config{
		AccessTokenLifespan:   cmp.Or(opts.AccessTokenTTL, DefaultAccessTokenTTL),
		RefreshTokenLifespan:  cmp.Or(opts.RefreshTokenTTL, DefaultRefreshTokenTTL),
		AuthorizeCodeLifespan: cmp.Or(opts.CodeTTL, DefaultCodeTTL),
		IDTokenLifespan:       cmp.Or(opts.AccessTokenTTL, DefaultAccessTokenTTL),
		IDTokenIssuer:         s.issuer,
		AccessTokenIssuer:     s.issuer,
		TokenURL:              s.issuer,
		GlobalSecret:          secret,
		ScopeStrategy:         fosite.ExactScopeStrategy,
		// PKCE: S256 only; required of public clients.
		EnforcePKCEForPublicClients:    true,
		EnablePKCEPlainChallengeMethod: false,
		// UAA gives refresh tokens to every client with the refresh_token
		// grant, not only when "offline" is granted.
		RefreshTokenScopes: []string{},
		// Redirect URIs are checked against the registered ones, exactly;
		// registration allows http and https, as UAA does.
		RedirectSecureChecker: func(_ context.Context, u *url.URL) bool {
			return u.Scheme == "https" || u.Scheme == "http"
		},
		ClientSecretsHasher: s.hasher,
	}
	hmac := compose.NewOAuth2HMACStrategy(cfg)
	s.tokens = tokens.New(hmac, s.keys, s.store, s.issuer, cfg.AccessTokenLifespan)
	signer := &jwt.DefaultSigner{GetPrivateKey: func(context.Context) (any, error) { return s.keys.Current().JWK(), nil }}
	strategy := &compose.CommonStrategy{
		CoreStrategy:               s.tokens,
		OpenIDConnectTokenStrategy: &openid.DefaultStrategy{Signer: signer, Config: cfg},
		Signer:                     signer,
	}
	s.oauth = compose.Compose(cfg, s.store, strategy,
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2ClientCredentialsGrantFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OpenIDConnectExplicitFactory,
		compose.OpenIDConnectRefreshFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2PKCEFactory,
	)
}
