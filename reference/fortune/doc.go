// Package fortune is the reference fortune service (spec sections 1.2, 2.3,
// 4.2, 5.3): a resource server that answers a GET to any path with a plain
// text fortune, and only to a caller whose bearer token carries the scope
// fortunes.read. Its resource id is "fortunes".
//
// # Requests
//
//	GET|HEAD /**   200, text/plain; charset=utf-8: one fortune of a built-in
//	               collection of public-domain sayings, a different one on
//	               each request until the collection has gone round
//
// The token travels in the Authorization header only (RFC 6750 section
// 2.1); form and query tokens are not read. Every request, whatever its
// method, is authenticated and authorized before anything else is looked
// at, so that an anonymous caller learns nothing about the service but that
// it wants a token. A caller with a good token that uses another method than
// GET or HEAD then gets 405 with "Allow: GET, HEAD".
//
// # Refusals (RFC 6750)
//
// Every refusal carries a Bearer challenge in realm "fortunes" and the same
// error as JSON, {"error": ..., "error_description": ...}:
//
//	401  no Authorization header, or another scheme than Bearer:
//	     WWW-Authenticate: Bearer realm="fortunes" (no error attributes,
//	     RFC 6750 section 3.1), body error "unauthorized"
//	400  a Bearer header that is not one token (empty, characters outside
//	     RFC 6750's b64token, two Authorization headers): error="invalid_request"
//	401  a token the authorization server does not accept (unknown, expired,
//	     revoked, forged): error="invalid_token", with its reason
//	403  a valid token without fortunes.read: error="insufficient_scope",
//	     scope="fortunes.read"
//	503  the token cannot be checked: the authorization server is unreachable,
//	     or answers 5xx, or refuses the fortune client's own credentials
//	     (401, 403), or anything else than a token check result. The service
//	     logs why; it never lets a request through that it could not check.
//
// # Validation
//
// By default (ValidateCheckToken) every request's token is POSTed to
// {auth_url}/check_token as the form field "token", with the fortune
// client's id and secret in HTTP Basic, as spec section 5.3 says. A 200
// answer is a valid token whose "scope" array is then looked at; a 400 with
// error invalid_token is a refused token; anything else is a 503.
//
// ValidateJWT is the alternative spec section 5.3 allows: the token is an
// RS256 JWT checked locally against the keys of {auth_url}/token_keys
// (looked up by kid), its exp, its iss ({auth_url}/oauth/token) and its
// "scope" array. No request goes to the authorization server per token. The
// keys are fetched on first use and again when a token names an unknown
// kid, at most once per Options.KeyRefetchInterval (30s), so tokens with
// made-up kids cannot make the service hammer the authorization server.
// The trade-off: a revoked token, or one whose user changed their password,
// stays accepted until it expires. A verified token is kept (by its SHA-256,
// in a bounded cache of 4096) until its exp and never past it, so a client
// calling again with it costs no signature check; a token verified with a
// key the authorization server later drops from token_keys stays accepted
// until its exp too.
//
// ValidateIntrospection is RFC 7662, the standard counterpart of
// check_token: the token is POSTed as "token" (with token_type_hint
// access_token) to the introspection endpoint, with the fortune client's
// id and secret in HTTP Basic. "active": false is a refused token
// (invalid_token); "scope" is a space-separated string (an array is read
// too); an "exp" in the past is refused; an answer that says it is a
// refresh token (token_type, Hydra's token_use, Keycloak's typ) is refused.
//
// Options.Audience, when set, must be in the token's aud (a string or an
// array), with every validation.
//
// # Where the endpoints come from
//
// Without Options.Issuer and Options.DiscoveryURL the server is UAA-shaped:
// {auth_url}/check_token, /introspect and /token_keys, issuer
// {auth_url}/oauth/token. With Issuer (a standard OpenID Connect server)
// the endpoints and, without Issuer, the issuer come from the discovery
// document {issuer}/.well-known/openid-configuration (or DiscoveryURL),
// whose issuer must be exactly Issuer; JWTs then need that iss and may
// carry their scopes as a "scope" array, a space-separated "scope" string
// or an "scp" array. CheckTokenURL, IntrospectionURL and JWKSURL replace
// one endpoint each, for servers without discovery. The document is
// fetched on the first request that needs it (New makes no call, so a
// stack may start in any order); Server.Discover fetches it at once.
//
// # Cache
//
// Options.CacheSize > 0 keeps check_token's or introspection's positive answers in a
// least-recently-used cache of that many entries, each for at most
// Options.CacheTTL (30s) and never past the token's exp. Refusals are not
// cached. The trade-off: a token revoked at the authorization server stays
// accepted for up to CacheTTL. The cache is off by default.
package fortune
