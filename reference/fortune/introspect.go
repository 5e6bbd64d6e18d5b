package fortune

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// introspectionValidator asks the authorization server about every token
// by RFC 7662 token introspection: POST token=<token> (with the hint
// access_token) to the introspection endpoint, the fortune client's
// credentials in HTTP Basic, form-encoded first as RFC 6749 2.3.1 says.
// "active": false is a refused token; a "scope" string is split at spaces;
// an "exp" in the past is refused too, should a server answer active for
// an expired token.
type introspectionValidator struct {
	endpoint      endpoint
	clientID      string
	authorization string // the Basic credentials, form-encoded then encoded, once
	client        *http.Client
	timeout       time.Duration
	now           func() time.Time
}

func newIntrospectionValidator(opts Options, endpoint endpoint, now func() time.Time) *introspectionValidator {
	// RFC 6749 2.3.1: a client's id and secret are form-encoded before Basic.
	return &introspectionValidator{
		endpoint: endpoint, clientID: opts.ClientID,
		authorization: basicAuthorization(url.QueryEscape(opts.ClientID), url.QueryEscape(opts.ClientSecret)),
		client:        opts.HTTPClient, timeout: opts.Timeout, now: now,
	}
}

// introspection is the part of an RFC 7662 answer looked at. UserName is
// RFC 7662's "username"; TokenUse is Hydra's way of saying which token it
// is, Typ Keycloak's ("Refresh"), TokenType RFC 7662's.
type introspection struct {
	Active    *bool      `json:"active"`
	Scope     stringList `json:"scope"`
	Exp       int64      `json:"exp"`
	Aud       stringList `json:"aud"`
	ClientID  string     `json:"client_id"`
	UserName  string     `json:"username"`
	TokenType string     `json:"token_type"`
	TokenUse  string     `json:"token_use"`
	Typ       string     `json:"typ"`
}

func (v *introspectionValidator) validate(ctx context.Context, token string) (*tokenInfo, error) {
	target, err := v.endpoint(ctx)
	if err != nil {
		return nil, &unavailableError{err}
	}
	status, body, err := v.post(ctx, target, token)
	if err != nil {
		return nil, &unavailableError{err}
	}
	switch status {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, &unavailableError{fmt.Errorf("the introspection endpoint %s refused the fortune client %q (%d): check its id and secret, and that it may introspect", target, v.clientID, status)}
	case http.StatusBadRequest:
		// Some servers refuse to introspect a token they cannot have issued instead of answering active false:
		// oidc-provider answers 400 unsupported_token_type for a JWT of another issuer.
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && (e.Error == "unsupported_token_type" || e.Error == "invalid_token") {
			return nil, invalidToken("Token was not recognised: the authorization server cannot introspect it (" + e.Error + ")")
		}
		return nil, &unavailableError{fmt.Errorf("the introspection endpoint %s answered 400", target)}
	default:
		return nil, &unavailableError{fmt.Errorf("the introspection endpoint %s answered %d", target, status)}
	}
	var in introspection
	if err := json.Unmarshal(body, &in); err != nil || in.Active == nil {
		return nil, &unavailableError{fmt.Errorf("the introspection endpoint %s answered 200 with a body that is no RFC 7662 answer (no \"active\")", target)}
	}
	switch {
	case !*in.Active:
		return nil, invalidToken("Token was not recognised: it is not active (unknown, expired or revoked)")
	case in.Exp != 0 && v.now().Unix() >= in.Exp:
		return nil, invalidToken("Token has expired")
	case strings.EqualFold(in.TokenType, "refresh_token") || in.TokenUse == "refresh_token" || strings.EqualFold(in.Typ, "Refresh"):
		return nil, invalidToken("Token was not recognised: a refresh token is no access token")
	}
	return &tokenInfo{Scope: in.Scope, Exp: in.Exp, Aud: in.Aud, ClientID: in.ClientID, UserName: in.UserName}, nil
}

func (v *introspectionValidator) post(ctx context.Context, target, token string) (int, []byte, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	return postForm(ctx, v.client, v.timeout, target, form.Encode(), v.authorization)
}
