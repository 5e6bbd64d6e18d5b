// Package pages is what a browser sees of the authorization server: the
// HTML pages (sign-in, consent, error, home; html/template, embedded) and
// the server-side session behind the browser's cookie: who signed in and
// when, the CSRF token of the sign-in form, the authorization request to
// resume after signing in, and the requests awaiting consent, each good
// once.
//
// It decides nothing: whether a password is right, what a user may be
// granted and when a request needs consent are the server's, and the
// sessions live in this process's memory only (a browser signs in again at
// another replica or after a restart).
package pages
