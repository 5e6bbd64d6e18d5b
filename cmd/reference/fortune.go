package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/fortune-tck/fortune-tck/reference/fortune"
)

// fortuneSecretEnv holds the fortune client's secret when --client-secret
// is not given, so that it need not show in the process list.
const fortuneSecretEnv = "FORTUNE_CLIENT_SECRET"

func fortuneService() *service {
	return &service{
		name:    "fortune",
		summary: "fortune service (a fortune for a bearer token with fortunes.read)",
		port:    8787,
		notes: "Environment:\n  " + fortuneSecretEnv + "  the fortune client's secret when --client-secret is not given\n\n" +
			"Tokens are checked at the authorization server's /check_token on every request (the spec's way), or\n" +
			"with --token-validation=introspection at its RFC 7662 introspection endpoint (active, scope, exp), or\n" +
			"locally with --token-validation=jwt: RS256 signature (keys from the JWKS), exp, iss, scope.\n" +
			"Trade-off: with jwt, or with --cache-size > 0, a token revoked at the authorization server stays\n" +
			"accepted until it expires (jwt), or for up to --cache-ttl (cache).\n\n" +
			"A UAA-shaped server is found with --auth-url (/check_token, /introspect, /token_keys, issuer\n" +
			"AUTH_URL/oauth/token). A standard OpenID Connect server (Keycloak, oidc-provider, Hydra, Spring\n" +
			"Authorization Server) is found with --issuer: its endpoints come from ISSUER/.well-known/openid-configuration,\n" +
			"fetched at start (the server must be up; a document naming another issuer stops the start), and JWTs\n" +
			"must carry exactly that iss. Such servers have no check_token: use introspection (opaque tokens; the\n" +
			"fortune client must be allowed to introspect) or jwt (JWT access tokens; scope, a scope string or scp).\n" +
			"  reference serve fortune --issuer http://127.0.0.1:9090 --token-validation introspection \\\n" +
			"      --client-id fortune --client-secret fortune-secret\n" +
			"  reference serve fortune --issuer http://127.0.0.1:9090 --token-validation jwt --audience fortunes\n" +
			"--discovery-url replaces the well-known address; --introspection-url, --check-token-url and --jwks-url\n" +
			"replace one endpoint each, for servers without discovery.\n\n",
		flags: fortuneFlags,
		args:  fortuneArgs,
	}
}

// fortuneArgs check tokens at the stack's authorization server, as the demo
// fortune client (the flags' default credentials, which the demo seed
// registers).
func fortuneArgs(p *plan) []string { return []string{"--auth-url", p.urls["authserver"]} }

func fortuneFlags(fs *flag.FlagSet, getenv func(string) string) buildFunc {
	authURL := fs.String("auth-url", fortune.DefaultAuthURL, "base URL of a UAA-shaped authorization server (not with --issuer or --discovery-url)")
	issuer := fs.String("issuer", "", "issuer of a standard OpenID Connect server; endpoints from ISSUER/.well-known/openid-configuration")
	discoveryURL := fs.String("discovery-url", "", "address of the discovery document, when not at the issuer's well-known place")
	checkTokenURL := fs.String("check-token-url", "", "check_token endpoint (default: AUTH_URL/check_token)")
	introspectionURL := fs.String("introspection-url", "", "RFC 7662 introspection endpoint (default: discovered, or AUTH_URL/introspect)")
	jwksURL := fs.String("jwks-url", "", "JWKS of the signing keys (default: discovered jwks_uri, or AUTH_URL/token_keys)")
	audience := fs.String("audience", "", "when set, a token's aud (string or array) must contain it")
	clientID := fs.String("client-id", fortune.DefaultClientID, "the fortune client's id, for check_token (a client with authority authz.resource) or introspection")
	secret := fs.String("client-secret", "", "the fortune client's secret (default: $"+fortuneSecretEnv+", else "+fortune.DefaultClientSecret+")")
	validation := fs.String("token-validation", string(fortune.ValidateCheckToken), "how tokens are checked: check_token (a call per request), introspection (RFC 7662, a call per request) or jwt (local, no revocation)")
	cacheSize := fs.Int("cache-size", 0, "check_token or introspection answers to cache (0: no cache); a revoked token stays accepted for up to --cache-ttl")
	cacheTTL := fs.Duration("cache-ttl", fortune.DefaultCacheTTL, "longest time a cached answer is used (never past the token's expiry)")
	return func(ctx context.Context, env buildEnv) (*instance, error) {
		v := fortune.Validation(*validation)
		if !slices.Contains(fortune.Validations, v) {
			return nil, usageError{fmt.Errorf("invalid --token-validation %q; valid: check_token, introspection, jwt", *validation)}
		}
		if *cacheSize < 0 || *cacheTTL <= 0 {
			return nil, usageError{fmt.Errorf("invalid cache: --cache-size must be 0 or more and --cache-ttl positive")}
		}
		base, err := authBase(fs, *authURL, *issuer, *discoveryURL)
		if err != nil {
			return nil, err
		}
		s, err := fortune.New(fortune.Options{
			AuthURL: base, Issuer: *issuer, DiscoveryURL: *discoveryURL,
			CheckTokenURL: *checkTokenURL, IntrospectionURL: *introspectionURL, JWKSURL: *jwksURL, Audience: *audience,
			ClientID: *clientID, ClientSecret: cmp.Or(*secret, getenv(fortuneSecretEnv)),
			Validation: v, CacheSize: *cacheSize, CacheTTL: *cacheTTL, Logger: env.log,
		})
		if err != nil {
			return nil, usageError{err}
		}
		// Fail fast: a mistyped issuer or a server without the endpoint
		// needed stops the start with the document's URL and the fault,
		// rather than turning every request into a 503.
		if err := s.Discover(ctx); err != nil {
			return nil, err
		}
		return &instance{handler: s, hints: fortuneHints(ownURL(fs), *authURL)}, nil
	}
}

// authBase is --auth-url, or "" when the server is found by --issuer or
// --discovery-url; giving --auth-url too is a usage error.
func authBase(fs *flag.FlagSet, authURL, issuer, discoveryURL string) (string, error) {
	if issuer == "" && discoveryURL == "" {
		return authURL, nil
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "auth-url" })
	if explicit {
		return "", usageError{errors.New("--auth-url (a UAA-shaped server) and --issuer/--discovery-url (a standard one) exclude each other")}
	}
	return "", nil
}

// fortuneHints show how to get a token with fortunes.read from the shell:
// register a client_credentials client with that authority, as an admin.
func fortuneHints(self, auth string) []string {
	token := func(creds string) string {
		return "$(curl -s -u " + creds + " -d grant_type=client_credentials " + auth + "/oauth/token" +
			` | sed -E 's/.*"access_token":"([^"]+)".*/\1/')`
	}
	return []string{
		"try:  ADMIN=" + token("admin:adminsecret"),
		`      curl -s -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' ` + auth + "/oauth/clients" +
			` -d '{"client_id":"reader","client_secret":"reader-secret","authorized_grant_types":["client_credentials"],"authorities":["fortunes.read"]}'`,
		"      TOKEN=" + token("reader:reader-secret"),
		`      curl -H "Authorization: Bearer $TOKEN" ` + self + "/",
		"      curl -i " + self + "/   (401: no token)",
	}
}
