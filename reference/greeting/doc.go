// Package greeting is the reference greeting client (spec sections 1.3,
// 3.1, 4.3, 5.1): a web application that signs its user in at the
// authorization server with the OAuth 2.0 authorization code flow, then
// calls the fortune service with the access token and shows the fortune.
//
// # Pages
//
//	GET /          no session: 302 to {auth_url}/oauth/authorize with
//	               response_type=code, client_id, redirect_uri={url}/,
//	               scope="openid fortunes.read", a random state bound to the
//	               session, a nonce and a PKCE S256 code_challenge
//	GET /?code=..&state=..
//	               the way back: the state must be the session's pending one
//	               (else 400 and no token request); the code is exchanged at
//	               {auth_url}/oauth/token with the PKCE verifier and the
//	               client's id and secret as form fields; the ID token's
//	               issuer, audience and nonce are checked; the user's name
//	               comes from /userinfo (or the ID token). Then a new session
//	               id and 302 to / so that a reload does not replay the code
//	GET /?error=access_denied&state=..
//	               403, a page that says the user denied access, with a link
//	               to try again; another error from the authorization server
//	               is a 502 page
//	GET /          signed in: 200, the page with the user's name and a fortune
//	               fetched from {fortune_url}/ with the access token, or 502
//	               and a page that says why there is none (the fortune
//	               service unreachable, failing, or refusing the token)
//	POST /logout   the page's sign-out button (with its CSRF token, else 403):
//	               the session is forgotten, its refresh token revoked, and
//	               the browser sent to / (303)
//
// Every page is HTML, or JSON when the request prefers application/json:
// {"user": ..., "fortune": ...} on success and {"error": ...} (plus "user"
// when signed in) on an error page, with the same status. Other paths are
// 404, other methods 405 with Allow.
//
// # Authorization server
//
// By default (Options.AuthURL) the server is UAA-shaped: the paths above,
// /userinfo and /oauth/revoke under {auth_url}, and the ID token's issuer
// {auth_url}/oauth/token. With Options.Issuer (a standard OpenID Connect
// server: Keycloak, oidc-provider, Hydra, Spring Authorization Server) the
// authorization, token, userinfo and revocation endpoints come from the
// discovery document {issuer}/.well-known/openid-configuration (or
// Options.DiscoveryURL), which must name exactly that issuer; the ID token
// must then carry it as iss and be signed (RS256, PS256 or ES256) by a key
// of the document's jwks_uri. The document is fetched on the first
// sign-in; Server.Discover fetches it at once. The client authenticates at
// the token endpoint with form fields (client_secret_post) either way.
//
// # Tokens
//
// Tokens stay on the server, in a session found by a random id in an
// HttpOnly, SameSite=Lax cookie (Secure when the client's URL is https).
// Sessions are kept for 12 hours after their last use, at most 10000 of
// them (the least recently used go first). An access token whose expiry
// (expires_in) has passed, or that the fortune service answers 401 to, is
// renewed with the refresh token, once per page load; a refresh token the
// authorization server no longer accepts (invalid_grant) starts a new
// sign-in. Page loads of one session are served one at a time, so a rotated
// refresh token is never spent twice.
//
// Signing out here does not sign the user out of the authorization server:
// the next sign-in may pass without a password, as consent is remembered
// there.
package greeting
