// Package httpio is how the authorization server reads requests and writes
// answers, in UAA's conventions: JSON answers as application/json;
// charset=UTF-8, errors as {"error", "error_description"} (RFC 6749), the
// bearer token of a request and the RFC 6750 challenge that refuses it, and
// bodies bounded and read in full before any handler runs (LimitBody), so
// that check_token's form can be read in place (CheckTokenForm).
//
// It owns no endpoint and no state: what a request means, and who may make
// it, is the business of the packages that serve it.
package httpio
