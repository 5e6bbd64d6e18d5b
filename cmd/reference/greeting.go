package main

import (
	"cmp"
	"context"
	"flag"

	"github.com/fortune-tck/fortune-tck/reference/greeting"
)

// greetingSecretEnv holds the greeting client's secret when
// --client-secret is not given.
const greetingSecretEnv = "GREETING_CLIENT_SECRET"

func greetingService() *service {
	return &service{
		name:    "greeting",
		summary: "greeting client (signs in at the authorization server, shows a fortune)",
		port:    8100,
		notes: "Environment:\n  " + greetingSecretEnv + "  the greeting client's secret when --client-secret is not given\n\n" +
			"Register the client at the authorization server with redirect URI URL/ (the demo seed does, see\n" +
			"reference serve authserver --greeting-url). Open URL/ in a browser to sign in.\n\n" +
			"A UAA-shaped server is found with --auth-url (/oauth/authorize, /oauth/token, /userinfo, /oauth/revoke;\n" +
			"ID token issuer AUTH_URL/oauth/token). A standard OpenID Connect server (Keycloak, oidc-provider, Hydra,\n" +
			"Spring Authorization Server) is found with --issuer: the endpoints come from\n" +
			"ISSUER/.well-known/openid-configuration, fetched at start (the server must be up; a document naming\n" +
			"another issuer stops the start), and ID tokens must carry exactly that iss, this client in aud, a\n" +
			"future exp, the sign-in's nonce and a signature by a key of the discovered jwks_uri. The client\n" +
			"authenticates at the token endpoint with form fields (client_secret_post) either way:\n" +
			"  reference serve greeting --issuer http://127.0.0.1:9090 --client-id greeting \\\n" +
			"      --client-secret greeting-secret --fortune-url http://localhost:8787\n" +
			"--discovery-url replaces the well-known address.\n\n",
		flags: greetingFlags,
		args:  greetingArgs,
	}
}

// greetingArgs sign in at the stack's authorization server, as the demo
// greeting client, and show the stack's fortunes.
func greetingArgs(p *plan) []string {
	return []string{"--url", p.urls["greeting"], "--auth-url", p.urls["authserver"], "--fortune-url", p.urls["fortune"]}
}

func greetingFlags(fs *flag.FlagSet, getenv func(string) string) buildFunc {
	self := fs.String("url", "", "external base URL; the redirect URI is URL/ (default http://localhost:PORT)")
	authURL := fs.String("auth-url", greeting.DefaultAuthURL, "base URL of a UAA-shaped authorization server (not with --issuer or --discovery-url)")
	issuer := fs.String("issuer", "", "issuer of a standard OpenID Connect server; endpoints from ISSUER/.well-known/openid-configuration")
	discoveryURL := fs.String("discovery-url", "", "address of the discovery document, when not at the issuer's well-known place")
	fortuneURL := fs.String("fortune-url", greeting.DefaultFortuneURL, "base URL of the fortune service")
	clientID := fs.String("client-id", greeting.DefaultClientID, "the greeting client's id")
	secret := fs.String("client-secret", "", "the greeting client's secret (default: $"+greetingSecretEnv+", else "+greeting.DefaultClientSecret+")")
	return func(ctx context.Context, env buildEnv) (*instance, error) {
		base, err := externalURL(fs, *self, "the redirect URI")
		if err != nil {
			return nil, err
		}
		auth, err := authBase(fs, *authURL, *issuer, *discoveryURL)
		if err != nil {
			return nil, err
		}
		s, err := greeting.New(greeting.Options{
			URL: base, AuthURL: auth, Issuer: *issuer, DiscoveryURL: *discoveryURL, FortuneURL: *fortuneURL,
			ClientID: *clientID, ClientSecret: cmp.Or(*secret, getenv(greetingSecretEnv)), Logger: env.log,
		})
		if err != nil {
			return nil, usageError{err}
		}
		// Fail fast on a wrong issuer, as the fortune service does.
		if err := s.Discover(ctx); err != nil {
			return nil, err
		}
		return &instance{handler: s, hints: []string{
			"open " + base + "/ in a browser and sign in as marissa / koala; allow reading fortunes",
			"the page answers JSON too: {\"user\": ..., \"fortune\": ...} with Accept: application/json",
		}}, nil
	}
}
