// Package store keeps every record of the authorization server in a
// kv.Store (package kv: memory, a bbolt file, or PostgreSQL shared by
// replicas), as JSON by key in named buckets:
//
//   - the users, groups and client registrations, with their indexes by
//     name (and the users' by e-mail, UserReader) and the approvals users
//     gave clients (users.go, clients.go);
//   - the requests fosite keeps, behind its storage interfaces (fosite.go):
//     authorization codes, PKCE and OpenID Connect requests, access and
//     refresh tokens, each a token table with an index by grant (revocation)
//     and one by expiry (a bounded sweep every few writes, tokentable.go),
//     and the Session fosite carries with each (session.go);
//   - the migrations of a store written by an earlier version (migrate.go).
//
// Nothing is cached in the process beyond memos of the last decoding of a
// record, checked against its stored bytes on every read (memo.go,
// revsig.go): a write by another replica is read at once.
//
// It checks no input and grants nothing: what makes a valid user, client or
// password is package accounts', who may have a token is the server's.
// Other packages keep buckets of their own through Update and View: the
// signing keys (package keys), the sign-in failure counts (package
// accounts).
package store
