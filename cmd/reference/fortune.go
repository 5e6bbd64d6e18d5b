package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"

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
			"locally with --token-validation=jwt: RS256 signature (keys from /token_keys), exp, iss, scope.\n" +
			"Trade-off: with jwt, or with --cache-size > 0, a token revoked at the authorization server stays\n" +
			"accepted until it expires (jwt), or for up to --cache-ttl (cache).\n\n",
		flags: fortuneFlags,
		demo:  fortuneDemo,
	}
}

func fortuneFlags(fs *flag.FlagSet, getenv func(string) string) buildFunc {
	authURL := fs.String("auth-url", fortune.DefaultAuthURL, "base URL of the authorization server")
	clientID := fs.String("client-id", fortune.DefaultClientID, "the fortune client's id, for check_token (a client with authority authz.resource)")
	secret := fs.String("client-secret", "", "the fortune client's secret (default: $"+fortuneSecretEnv+", else "+fortune.DefaultClientSecret+")")
	validation := fs.String("token-validation", string(fortune.ValidateCheckToken), "how tokens are checked: check_token (a call per request) or jwt (local, no revocation)")
	cacheSize := fs.Int("cache-size", 0, "check_token answers to cache (0: no cache); a revoked token stays accepted for up to --cache-ttl")
	cacheTTL := fs.Duration("cache-ttl", fortune.DefaultCacheTTL, "longest time a cached answer is used (never past the token's expiry)")
	return func(_ context.Context, log *slog.Logger) (*instance, error) {
		v := fortune.Validation(*validation)
		if v != fortune.ValidateCheckToken && v != fortune.ValidateJWT {
			return nil, usageError{fmt.Errorf("invalid --token-validation %q; valid: check_token, jwt", *validation)}
		}
		if *cacheSize < 0 || *cacheTTL <= 0 {
			return nil, usageError{fmt.Errorf("invalid cache: --cache-size must be 0 or more and --cache-ttl positive")}
		}
		s, err := fortune.New(fortune.Options{
			AuthURL: *authURL, ClientID: *clientID, ClientSecret: cmp.Or(*secret, getenv(fortuneSecretEnv)),
			Validation: v, CacheSize: *cacheSize, CacheTTL: *cacheTTL, Logger: log,
		})
		if err != nil {
			return nil, usageError{err}
		}
		return &instance{handler: s}, nil
	}
}

// fortuneDemo runs the fortune service against the stack's authorization
// server, as the demo fortune client.
func fortuneDemo(_ context.Context, st *stack) (*instance, error) {
	s, err := fortune.New(fortune.Options{AuthURL: st.urls["authserver"], Logger: st.log.With("service", "fortune")})
	if err != nil {
		return nil, err
	}
	return &instance{handler: s, hints: fortuneHints(st.urls["fortune"], st.urls["authserver"])}, nil
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
