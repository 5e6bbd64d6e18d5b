// Package tokens makes and checks the authorization server's tokens as
// fosite's CoreStrategy: authorization codes and refresh tokens are
// fosite's opaque HMAC tokens; an access token is an RS256 JWT (package
// keys) with UAA's claims ("scope" an array, the rev_sig of its client and
// user), stored by its signature (package store).
//
// Inspect decides whether a string is a valid access token in UAA's order
// and words: not one of ours, expired, revoked (by revocation, or because
// its client's or user's credentials changed since). A verified token's
// claims and check_token's answer for them are kept by the token, so that a
// resource server checking one token on every request pays the RSA
// verification and the encoding once. RequireScope is the bearer check of
// the APIs that take an access token (RFC 6750).
//
// It grants nothing itself: which scopes a request gets is decided by the
// server's endpoints before fosite asks for a token.
package tokens
