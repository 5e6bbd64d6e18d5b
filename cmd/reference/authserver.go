package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

func authServerService() *service {
	return &service{
		name:    "authserver",
		summary: "authorization server (OAuth 2.0 and OpenID Connect, UAA compatible)",
		port:    9000,
		notes: "State: users, groups and memberships, clients, approvals, codes, refresh and access tokens\n" +
			"and their revocations, and the signing keys are kept in the store: memory by default (lost at\n" +
			"exit); --data DIR keeps them in DIR/authserver.db (bbolt; one process at a time); --store\n" +
			"postgres://... keeps them in PostgreSQL, shared by every replica behind a load balancer.\n" +
			"Browser sign-in sessions stay in each process's memory.\n\n" +
			"Provision with the UAA API (POST /Users, /Groups, /oauth/clients) using an admin token:\n" +
			"  curl -u admin:adminsecret -d grant_type=client_credentials http://localhost:9000/oauth/token\n\n",
		flags: authServerFlags,
		args:  authServerArgs,
	}
}

// authServerArgs seed the demo identities, with the stack's greeting client
// and fortune service as the redirect URIs of their clients. The demo keeps
// its state in DATA, with UAA's lockout and code lifetime; a conformance
// run's scenarios provision their own users and clients, in memory, and the
// lockout period, counting window and code lifetime are the short ones of
// conformancePeriods, which the stack's target file declares, so that the
// scenarios can wait them out.
func authServerArgs(p *plan) []string {
	args := []string{"--url", p.urls["authserver"], "--seed-demo",
		"--greeting-url", rootURL(p.urls["greeting"], authserver.DefaultGreetingURL),
		"--fortune-url", rootURL(p.urls["fortune"], authserver.DefaultFortuneURL)}
	if p.demo {
		return append(args, "--data", p.dataDir)
	}
	// A conformance run's users and client secrets live in memory for one run: hashed at bcrypt's cost 10 they
	// were four fifths of the stack's CPU in a run of the suite (23 of 29 s), which made the run CPU-bound on two
	// cores; no scenario can see the cost.
	args = append(args, "--hash-cost", strconv.Itoa(bcrypt.MinCost))
	c := conformancePeriods
	return append(args, "--lockout-after-failures", strconv.Itoa(c.failures), "--lockout-period", c.lockout.String(),
		"--lockout-count-within", c.window.String(), "--code-ttl", c.code.String())
}

// conformancePeriods are the lockout (failures, period, counting window) and
// the code lifetime of the authorization server in a conformance run's stack.
// The scenarios wait the periods out, so they are short; but every scenario
// that locks an account must sign in again within the period, and every one
// that exchanges a code must do so within its lifetime, on a machine that may
// be busy: a few seconds each. The window is longer than the period by more
// than the sign-ins that lock an account take, so that the end of the period,
// not of the window, is what lets the user in again; two failures (UAA: 5)
// keep those sign-ins short.
var conformancePeriods = struct {
	failures              int
	lockout, window, code time.Duration
}{failures: 2, lockout: 3 * time.Second, window: 10 * time.Second, code: 5 * time.Second}

func authServerFlags(fs *flag.FlagSet, _ func(string) string) buildFunc {
	baseURL := fs.String("url", "", "external base URL; the token issuer is URL/oauth/token (default http://localhost:PORT)")
	adminID := fs.String("admin-client", authserver.DefaultAdminClientID, "client id of the administrator client (client_credentials; scim.* and clients.* authorities)")
	adminSecret := fs.String("admin-secret", authserver.DefaultAdminClientSecret, "secret of the administrator client")
	hashCost := fs.Int("hash-cost", bcrypt.DefaultCost, "bcrypt cost of stored passwords and client secrets, 4 to 31")
	seedDemo := fs.Bool("seed-demo", false, "seed the demo identities: user marissa/koala, groups fortunes.read and openid, clients greeting and fortune")
	greetingURL := fs.String("greeting-url", authserver.DefaultGreetingURL, "with --seed-demo: the greeting client's root, its redirect URI")
	fortuneURL := fs.String("fortune-url", authserver.DefaultFortuneURL, "with --seed-demo: the fortune service's root, the fortune client's redirect URI")
	accessTTL := fs.Duration("access-token-ttl", authserver.DefaultAccessTokenTTL, "lifetime of access and ID tokens")
	refreshTTL := fs.Duration("refresh-token-ttl", authserver.DefaultRefreshTokenTTL, "lifetime of refresh tokens")
	codeTTL := fs.Duration("code-ttl", authserver.DefaultCodeTTL, "lifetime of authorization codes (UAA's is 300 s)")
	data := fs.String("data", "", "data directory: keep the state in DIR/authserver.db (default: memory, lost at exit)")
	storeURL := fs.String("store", "", "PostgreSQL URL (postgres://user:password@host:port/db) keeping the state, shared by replicas (default: memory)")
	rotation := fs.Duration("key-rotation", 0, "replace the signing key when older than this, e.g. 720h; earlier keys stay in /token_keys until their tokens expire (default: never)")
	policies := authPolicyFlags(fs)
	return func(ctx context.Context, env buildEnv) (*instance, error) {
		if *accessTTL <= 0 || *refreshTTL <= 0 || *codeTTL <= 0 {
			return nil, usageError{errors.New("--access-token-ttl, --refresh-token-ttl and --code-ttl must be positive")}
		}
		if *data != "" && *storeURL != "" {
			return nil, usageError{errors.New("--data and --store exclude each other")}
		}
		if *rotation < 0 {
			return nil, usageError{errors.New("--key-rotation must not be negative")}
		}
		lockout, passwords, err := policies()
		if err != nil {
			return nil, usageError{err}
		}
		self, err := externalURL(fs, *baseURL, "the token issuer")
		if err != nil {
			return nil, err
		}
		db, err := openAuthStore(ctx, *data, *storeURL)
		if err != nil {
			return nil, err
		}
		opts := authserver.Options{
			Store:             db,
			KeyRotation:       *rotation,
			URL:               self,
			AdminClientID:     *adminID,
			AdminClientSecret: *adminSecret,
			AccessTokenTTL:    *accessTTL,
			RefreshTokenTTL:   *refreshTTL,
			CodeTTL:           *codeTTL,
			Logger:            env.log,
			Lockout:           lockout,
			PasswordPolicy:    passwords,
			HashCost:          *hashCost,
		}
		if *seedDemo {
			opts.Demo = &authserver.Demo{GreetingURL: *greetingURL, FortuneURL: *fortuneURL}
		}
		s, err := authserver.New(opts)
		if err != nil {
			_ = db.Close()
			return nil, usageError{err}
		}
		env.log.Info("authorization server state", "store", db.String())
		hints := append(authServerHints(self, s.Issuer()), "state:   "+db.String()+"   (users, clients, approvals, tokens, signing keys)")
		return &instance{handler: s, close: db.Close, hints: hints}, nil
	}
}

// openAuthStore opens the store the flags name: a bbolt file in the data
// directory, PostgreSQL, or memory. A store that cannot be opened is an
// error naming its path or URL, never a fall-back to memory.
func openAuthStore(ctx context.Context, dataDir, pgURL string) (kv.Store, error) {
	switch {
	case pgURL != "":
		return kv.OpenPostgres(ctx, pgURL)
	case dataDir != "":
		return kv.OpenBolt(filepath.Join(dataDir, authStoreFile))
	}
	return kv.NewMemory(), nil
}

// authStoreFile is the authorization server's store in a data directory.
const authStoreFile = "authserver.db"

// rootURL is a service's root, the redirect URI of its client; fallback
// when the stack does not run that service.
func rootURL(serviceURL, fallback string) string {
	if serviceURL == "" {
		return fallback
	}
	return strings.TrimSuffix(serviceURL, "/") + "/"
}

func authServerHints(self, issuer string) []string {
	return []string{
		"issuer:  " + issuer + "   (discovery: " + self + "/.well-known/openid-configuration)",
		fmt.Sprintf("admin client:  %s / %s   (client_credentials; scim.read scim.write clients.read clients.write)",
			authserver.DefaultAdminClientID, authserver.DefaultAdminClientSecret),
		fmt.Sprintf("user:          %s / %s   (%s, member of fortunes.read)",
			authserver.DemoUserName, authserver.DemoUserPassword, authserver.DemoUserEmail),
		fmt.Sprintf("clients:       %s / %s   (authorization_code, refresh_token; scope openid fortunes.read)",
			authserver.GreetingClientID, authserver.GreetingClientSecret),
		fmt.Sprintf("               %s / %s   (authorities fortunes.read authz.resource: calls check_token)",
			authserver.FortuneClientID, authserver.FortuneClientSecret),
		"try:  curl -s -u admin:adminsecret -d grant_type=client_credentials " + self + "/oauth/token",
		"      TOKEN=$(curl -s -u admin:adminsecret -d grant_type=client_credentials " + self + "/oauth/token" +
			` | sed -E 's/.*"access_token":"([^"]+)".*/\1/')`,
		"      curl -s -u " + authserver.FortuneClientID + ":" + authserver.FortuneClientSecret +
			" -d token=$TOKEN " + self + "/check_token",
	}
}
