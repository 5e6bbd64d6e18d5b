package fortune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// tokenInfo is what the service needs of a valid token: its scopes, its
// expiry (seconds since the epoch; 0 when unknown), its audiences and, for
// the log, whose it is.
type tokenInfo struct {
	Scope    stringList `json:"scope"`
	Exp      int64      `json:"exp"`
	Aud      stringList `json:"aud"`
	ClientID string     `json:"client_id"`
	UserName string     `json:"user_name"`
}

func (t *tokenInfo) hasScope(scope string) bool { return slices.Contains(t.Scope, scope) }

// stringList is a JSON array of strings or one string: UAA writes scope
// and aud as arrays, RFC 7662 and most JWT issuers write scope as one
// space-separated string, and aud may be a single string (RFC 7519 4.1.3).
// A string is split at spaces: no scope or audience holds one.
type stringList []string

// UnmarshalJSON decodes an array as one at once: trying it as a string
// first, to fail, cost as much as decoding it (UAA's scope and aud are
// arrays).
func (l *stringList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = nil
		return nil
	}
	if v := bytes.TrimLeft(b, " \t\r\n"); len(v) == 0 || v[0] != '[' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return errNotStringList
		}
		*l = strings.Fields(s)
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return errNotStringList
	}
	*l = a
	return nil
}

var errNotStringList = errors.New("want a string or an array of strings")

// validator decides whether a token is valid. It returns a *refusal for a
// token it refuses, and an *unavailableError when it cannot tell.
type validator interface {
	validate(ctx context.Context, token string) (*tokenInfo, error)
}
