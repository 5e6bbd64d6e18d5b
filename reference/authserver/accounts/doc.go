// Package accounts is who may sign in and with what: users, groups and
// clients as they are registered (their names, e-mails, scopes, grant
// types and redirect URIs checked; passwords and secrets hashed with
// bcrypt, Hasher, which is fosite's too), UAA's passwordPolicy on new
// users' passwords, and sign-in under UAA's lockoutPolicy (Authenticate):
// failures counted per user name in the store, a name that is no user
// alike, a locked name refused whatever the password, with UAA's audit
// events.
//
// It keeps no record itself (package store does; the failure counts are
// its "lockout" bucket there) and serves no request: the server's sign-in
// form and provisioning API call it.
package accounts
