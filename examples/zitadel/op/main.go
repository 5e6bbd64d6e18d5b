// Command op runs zitadel/oidc's example OpenID Provider (github.com/zitadel/oidc/v3/example/server, v3.51.17)
// as its own main.go does, with one difference: every client of the example may also be granted the scope
// fortunes.read, the scope of the API the fortune-tck suite checks tokens for. The stock example grants no API
// scope at all: op.ValidateAuthReqScopes drops each scope outside OpenID Connect's own that the client's
// IsScopeAllowed refuses, and the example's clients allow only custom_scope (RFC 6749 3.3 lets a server grant
// less than asked). A real deployment registers its resource servers' scopes; this one registers the API's.
// Users, clients, lifetimes, pages and endpoints are the example's; the only other change is the address it
// listens on, 127.0.0.1 instead of every interface.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/zitadel/oidc/v3/example/server/config"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// apiScope is the scope of the fortune service's API.
const apiScope = "fortunes.read"

// apiStorage is the example's storage; only the clients it hands out differ.
type apiStorage struct{ *storage.Storage }

// GetClientByClientID returns the example's client, allowed apiScope besides what it allows itself. A client
// with redirect URI globs (the example's dev-mode clients) keeps them.
func (s apiStorage) GetClientByClientID(ctx context.Context, clientID string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, clientID)
	if err != nil {
		return nil, err
	}
	if g, ok := c.(op.HasRedirectGlobs); ok {
		return apiGlobClient{g}, nil
	}
	return apiClient{c}, nil
}

type apiClient struct{ op.Client }

func (c apiClient) IsScopeAllowed(scope string) bool {
	return scope == apiScope || c.Client.IsScopeAllowed(scope)
}

type apiGlobClient struct{ op.HasRedirectGlobs }

func (c apiGlobClient) IsScopeAllowed(scope string) bool {
	return scope == apiScope || c.HasRedirectGlobs.IsScopeAllowed(scope)
}

func main() {
	cfg := config.FromEnvVars(&config.Config{Port: "9998"})
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{AddSource: true, Level: slog.LevelDebug}))
	issuer := fmt.Sprintf("http://localhost:%s/", cfg.Port)

	storage.RegisterClients(
		storage.NativeClient("native", cfg.RedirectURI...),
		storage.WebClient("web", "secret", cfg.RedirectURI...),
		storage.WebClient("api", "secret", cfg.RedirectURI...),
	)
	users := storage.NewUserStore(issuer)
	if cfg.UsersFile != "" {
		var err error
		if users, err = storage.StoreFromFile(cfg.UsersFile); err != nil {
			logger.Error("cannot create UserStore", "error", err)
			os.Exit(1)
		}
	}
	router := exampleop.SetupServer(issuer, apiStorage{storage.NewStorage(users)}, logger, false)

	server := &http.Server{Addr: "127.0.0.1:" + cfg.Port, Handler: router}
	logger.Info("server listening, press ctrl+c to stop", "addr", issuer, "scope", apiScope)
	if err := server.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		logger.Error("server terminated", "error", err)
		os.Exit(1)
	}
}
