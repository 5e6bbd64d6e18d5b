package fortune

import (
	"context"
	"slices"
)

// tokenInfo is what the service needs of a valid token: its scopes, its
// expiry (seconds since the epoch; 0 when unknown) and, for the log, whose
// it is.
type tokenInfo struct {
	Scope    []string `json:"scope"`
	Exp      int64    `json:"exp"`
	ClientID string   `json:"client_id"`
	UserName string   `json:"user_name"`
}

func (t *tokenInfo) hasScope(scope string) bool { return slices.Contains(t.Scope, scope) }

// validator decides whether a token is valid. It returns a *refusal for a
// token it refuses, and an *unavailableError when it cannot tell.
type validator interface {
	validate(ctx context.Context, token string) (*tokenInfo, error)
}
