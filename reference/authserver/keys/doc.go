// Package keys holds the authorization server's secrets: the RSA keys that
// sign access and ID tokens (RS256; each named by its RFC 7638 thumbprint,
// published in the JWKS with UAA's PEM "value"), their rotation, and
// fosite's HMAC secret, which codes and refresh tokens are made with.
// Keys live in the store's "keys" bucket, so that tokens survive a restart
// and every replica signs and verifies with the same keys; a replaced key
// keeps verifying until what it signed has expired.
//
// It knows nothing of claims: what a token says, and whether it is still
// valid, is package tokens'.
package keys
