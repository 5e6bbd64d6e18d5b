// Package scim is UAA's provisioning API, which speaks SCIM: POST and GET
// /Users (GET with SCIM's filter language, answered from the store's
// indexes when the filter pins userName, email or id with eq, by a bounded
// scan otherwise), DELETE /Users/{id}; POST and GET /Groups, DELETE
// /Groups/{id}, POST /Groups/{id}/members; and the client registrations
// of /oauth/clients, in SCIM's list shape. Each handler checks its bearer
// token's scope (package tokens) and answers UAA's statuses and errors:
// 400 with what to fix, 404, 409.
//
// It decides nothing about what a valid user, group or client is (package
// accounts) and keeps nothing (package store).
package scim
