// Package authserver is the reference authorization server: OAuth 2.0 and
// OpenID Connect on fosite, shaped after Cloud Foundry UAA so that UAA's
// clients, resource servers and tooling work against it unchanged.
//
// Endpoints:
//
//	GET  /login, POST /login.do              sign-in page (username, password, CSRF field)
//	GET  /logout.do                          sign out
//	GET  /oauth/authorize                    authorization code flow (PKCE S256), consent page
//	POST /oauth/authorize                    the consent decision (user_oauth_approval)
//	POST /oauth/token                        authorization_code, refresh_token, client_credentials
//	POST /check_token                        UAA's token check (spec 2.2), for clients with authz.resource
//	GET|POST /userinfo                       OpenID Connect user info (bearer token with openid)
//	POST /introspect, POST /oauth/revoke     RFC 7662 and RFC 7009
//	GET  /token_keys, /token_key             the JWKS (with UAA's PEM "value") and its single key
//	GET  /.well-known/openid-configuration   discovery, also under /oauth/token/
//	POST /Users, GET /Users                  UAA's SCIM provisioning (admin token)
//	DELETE /Users/{id}                       the user, with its memberships and approvals
//	POST /Groups, GET /Groups, POST /Groups/{id}/members, DELETE /Groups/{id}
//	POST /oauth/clients, GET /oauth/clients  client registrations
//	GET|DELETE /oauth/clients/{id}
//	GET  /healthz                            "ok"
//
// Where UAA and fosite differ, this package follows UAA (see the anchor
// notes of the project): refresh tokens go to every client that has the
// refresh_token grant, check_token is its own handler with UAA's errors and
// field types, and the access token is a JWT with UAA's claims ("scope" is an
// array). Redirect URIs match exactly, as fosite does (a loopback redirect may
// use any port, RFC 8252); wildcards are refused at registration.
//
// Sign-in follows UAA's lockoutPolicy and users created through POST
// /Users keep UAA's passwordPolicy (package accounts). Users, groups,
// clients, approvals, codes, tokens, revocations and the signing keys live
// in Options.Store (package kv: memory, a bbolt file, or PostgreSQL shared
// by replicas); without one they live in this process's memory and are
// lost at restart.
//
// This package is the wiring: Options and New, the routes, fosite's
// composition (provider.go), and the OAuth and OpenID Connect endpoints on
// it: sign-in and consent (login.go, authorize.go), the token endpoint,
// check_token, introspection and revocation, userinfo, discovery and the
// JWKS, and the demo identities (seed.go). The concerns they use are
// packages of their own, each importing only those below it:
//
//	scim       the provisioning API: /Users, /Groups (SCIM's filter), /oauth/clients
//	tokens     access tokens: UAA's claims, the check in UAA's order, the bearer check
//	accounts   registration rules, password hashing and policy, sign-in and lockout
//	keys       the signing keys, their rotation, fosite's HMAC secret
//	pages      the HTML pages and the browser sessions behind the cookie
//	store      every record in the kv store, fosite's storage, the token tables
//	kv         the key-value stores: memory, bbolt, PostgreSQL
//	httpio     UAA's JSON answers and errors, bounded bodies, bearer tokens
package authserver
