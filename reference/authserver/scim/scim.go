package scim

import (
	"cmp"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
	"github.com/fortune-tck/fortune-tck/reference/authserver/tokens"
)

// API is UAA's provisioning API: /Users, /Groups and /oauth/clients, each
// handler answering a request whose bearer token lacks the scope it needs
// (scim.read, scim.write, clients.read, clients.write) itself.
type API struct {
	store     *store.Store
	accounts  *accounts.Accounts
	tokens    *tokens.Strategy
	passwords accounts.PasswordPolicy // of the users POST /Users creates
	log       *slog.Logger
}

// New serves the records of st, registered through accts, to the holders
// of tokens checked by tk; log receives the errors that are the server's
// (nil discards them).
func New(st *store.Store, accts *accounts.Accounts, tk *tokens.Strategy, passwords accounts.PasswordPolicy, log *slog.Logger) *API {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &API{store: st, accounts: accts, tokens: tk, passwords: passwords, log: log}
}

// The SCIM shapes of UAA's /Users and /Groups.
var scimSchemas = []string{"urn:scim:schemas:core:1.0"}

type scimMeta struct {
	Version      int    `json:"version"`
	Created      string `json:"created"`
	LastModified string `json:"lastModified"`
}

type scimName struct {
	GivenName  string `json:"givenName"`
	FamilyName string `json:"familyName"`
}

type scimEmail struct {
	Value   string `json:"value"`
	Primary bool   `json:"primary"`
}

type scimGroupRef struct {
	Value   string `json:"value"`
	Display string `json:"display"`
	Type    string `json:"type"`
}

type scimUser struct {
	ID                   string         `json:"id"`
	Meta                 scimMeta       `json:"meta"`
	UserName             string         `json:"userName"`
	Name                 scimName       `json:"name"`
	Emails               []scimEmail    `json:"emails"`
	Groups               []scimGroupRef `json:"groups"`
	Approvals            []struct{}     `json:"approvals"`
	Active               bool           `json:"active"`
	Verified             bool           `json:"verified"`
	Origin               string         `json:"origin"`
	ZoneID               string         `json:"zoneId"`
	PasswordLastModified string         `json:"passwordLastModified"`
	Schemas              []string       `json:"schemas"`
}

type scimMember struct {
	Value  string `json:"value"`
	Type   string `json:"type"`
	Origin string `json:"origin"`
}

type scimGroup struct {
	ID          string       `json:"id"`
	Meta        scimMeta     `json:"meta"`
	DisplayName string       `json:"displayName"`
	Description string       `json:"description"`
	Members     []scimMember `json:"members"`
	ZoneID      string       `json:"zoneId"`
	Schemas     []string     `json:"schemas"`
}

type scimList[T any] struct {
	Resources    []T      `json:"resources"`
	StartIndex   int      `json:"startIndex"`
	ItemsPerPage int      `json:"itemsPerPage"`
	TotalResults int      `json:"totalResults"`
	Schemas      []string `json:"schemas"`
}

func newSCIMList[T any](items []T) scimList[T] {
	if items == nil {
		items = []T{}
	}
	return scimList[T]{Resources: items, StartIndex: 1, ItemsPerPage: len(items), TotalResults: len(items), Schemas: scimSchemas}
}

// scimTime is UAA's timestamp format.
func scimTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// userInput is the body of POST /Users.
type userInput struct {
	UserName string      `json:"userName"`
	Name     scimName    `json:"name"`
	Emails   []scimEmail `json:"emails"`
	Password string      `json:"password"`
	Active   *bool       `json:"active"`
	Verified *bool       `json:"verified"`
	Origin   string      `json:"origin"`
}

func (s *API) CreateUser(w http.ResponseWriter, r *http.Request) {
	var in userInput
	if !s.decodeInput(w, r, "scim.write", "invalid_scim_resource", &in) {
		return
	}
	if in.Origin != "" && in.Origin != store.OriginUAA {
		httpio.WriteError(w, http.StatusBadRequest, "invalid_scim_resource", "Only users of origin uaa can be created here")
		return
	}
	u, err := s.accounts.AddUser(r.Context(), accounts.UserSpec{
		UserName: in.UserName, GivenName: in.Name.GivenName, FamilyName: in.Name.FamilyName,
		Email: primaryEmail(in.Emails), Password: in.Password,
		Active: in.Active == nil || *in.Active, Verified: in.Verified == nil || *in.Verified,
		Policy: s.passwords,
	})
	if err != nil {
		s.provisioningError(w, err, "scim_resource_already_exists", "invalid_scim_resource")
		return
	}
	w.Header().Set("ETag", `"0"`)
	httpio.WriteJSON(w, http.StatusCreated, s.scimUserOf(u))
}

func primaryEmail(emails []scimEmail) string {
	for _, e := range emails {
		if e.Primary {
			return e.Value
		}
	}
	if len(emails) > 0 {
		return emails[0].Value
	}
	return ""
}

// ListUsers lists every user, or those a filter selects (filter.go).
func (s *API) ListUsers(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.tokens.RequireScope(w, r, "scim.read"); !ok {
		return
	}
	if f := r.URL.Query().Get("filter"); f != "" {
		s.listFilteredUsers(w, r, f)
		return
	}
	var out []scimUser
	for _, u := range s.store.ListUsers() {
		out = append(out, s.scimUserOf(u))
	}
	httpio.WriteJSON(w, http.StatusOK, newSCIMList(out))
}

func (s *API) scimUserOf(u *store.User) scimUser {
	groups := []scimGroupRef{}
	for _, g := range s.store.GroupsOf(u.ID) {
		groups = append(groups, scimGroupRef{Value: g.ID, Display: g.DisplayName, Type: "DIRECT"})
	}
	return scimUser{
		ID:       u.ID,
		Meta:     scimMeta{Version: 0, Created: scimTime(u.Created), LastModified: scimTime(u.Created)},
		UserName: u.UserName, Name: scimName{GivenName: u.GivenName, FamilyName: u.FamilyName},
		Emails: []scimEmail{{Value: u.Email, Primary: true}}, Groups: groups, Approvals: []struct{}{},
		Active: u.Active, Verified: u.Verified, Origin: store.OriginUAA, ZoneID: store.ZoneID,
		PasswordLastModified: scimTime(u.PasswordModified), Schemas: scimSchemas,
	}
}

// groupInput is the body of POST /Groups.
type groupInput struct {
	DisplayName string       `json:"displayName"`
	Description string       `json:"description"`
	Members     []scimMember `json:"members"`
}

func (s *API) CreateGroup(w http.ResponseWriter, r *http.Request) {
	var in groupInput
	if !s.decodeInput(w, r, "scim.write", "invalid_scim_resource", &in) {
		return
	}
	if len(in.Members) > 0 {
		httpio.WriteError(w, http.StatusBadRequest, "invalid_scim_resource", "Add members with POST /Groups/{id}/members")
		return
	}
	g, err := s.accounts.AddGroup(in.DisplayName, in.Description)
	if err != nil {
		s.provisioningError(w, err, "scim_resource_already_exists", "invalid_scim_resource")
		return
	}
	w.Header().Set("ETag", `"0"`)
	httpio.WriteJSON(w, http.StatusCreated, scimGroupOf(g))
}

// ListGroups supports the filter displayName eq "..." only.
func (s *API) ListGroups(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.tokens.RequireScope(w, r, "scim.read"); !ok {
		return
	}
	name, filtered, ok := eqFilter(w, r, "displayName")
	if !ok {
		return
	}
	var out []scimGroup
	for _, g := range s.store.ListGroups() {
		if !filtered || store.Fold(g.DisplayName) == store.Fold(name) {
			out = append(out, scimGroupOf(g))
		}
	}
	httpio.WriteJSON(w, http.StatusOK, newSCIMList(out))
}

func scimGroupOf(g *store.Group) scimGroup {
	members := make([]scimMember, len(g.Members))
	for i, id := range g.Members {
		members[i] = scimMember{Value: id, Type: "USER", Origin: store.OriginUAA}
	}
	return scimGroup{
		ID:          g.ID,
		Meta:        scimMeta{Version: g.Version, Created: scimTime(g.Created), LastModified: scimTime(g.Modified)},
		DisplayName: g.DisplayName, Description: g.Description, Members: members,
		ZoneID: store.ZoneID, Schemas: scimSchemas,
	}
}

// AddMember adds a user to a group: POST /Groups/{id}/members.
func (s *API) AddMember(w http.ResponseWriter, r *http.Request) {
	var in scimMember
	if !s.decodeInput(w, r, "scim.write", "invalid_scim_resource", &in) {
		return
	}
	switch {
	case in.Value == "":
		httpio.WriteError(w, http.StatusBadRequest, "invalid_scim_resource", "value (the user id) is required")
		return
	case !strings.EqualFold(cmp.Or(in.Type, "USER"), "USER"):
		httpio.WriteError(w, http.StatusBadRequest, "invalid_scim_resource", "Only members of type USER are supported")
		return
	case cmp.Or(in.Origin, store.OriginUAA) != store.OriginUAA:
		httpio.WriteError(w, http.StatusBadRequest, "invalid_scim_resource", "Only members of origin uaa are supported")
		return
	}
	if err := s.store.AddMember(r.PathValue("id"), in.Value); err != nil {
		s.provisioningError(w, err, "member_already_exists", "invalid_scim_resource")
		return
	}
	httpio.WriteJSON(w, http.StatusCreated, scimMember{Value: in.Value, Type: "USER", Origin: store.OriginUAA})
}

// DeleteUser removes a user, with its memberships and approvals: DELETE
// /Users/{id}. As in UAA, the answer is the user that was removed.
func (s *API) DeleteUser(w http.ResponseWriter, r *http.Request) {
	if !s.tokens.Authorized(w, r, "scim.write") {
		return
	}
	u, err := s.store.DeleteUser(r.PathValue("id"))
	if err != nil {
		s.provisioningError(w, err, "scim_resource_already_exists", "invalid_scim_resource")
		return
	}
	if err := s.accounts.Forget(u.ID); err != nil {
		s.log.Error("deleting a user's failure count", "user_id", u.ID, "err", err)
	}
	httpio.WriteJSON(w, http.StatusOK, s.scimUserOf(u))
}

// DeleteGroup removes a group: DELETE /Groups/{id}. Its members lose the
// scope it names; the answer is the group that was removed.
func (s *API) DeleteGroup(w http.ResponseWriter, r *http.Request) {
	if !s.tokens.Authorized(w, r, "scim.write") {
		return
	}
	g, err := s.store.DeleteGroup(r.PathValue("id"))
	if err != nil {
		s.provisioningError(w, err, "scim_resource_already_exists", "invalid_scim_resource")
		return
	}
	httpio.WriteJSON(w, http.StatusOK, scimGroupOf(g))
}

// decodeInput reads the JSON body of a request whose token must hold scope
// into in. It answers itself when it returns false: 401 or 403 for the
// token, 400 with the error code code for a body that does not decode.
func (s *API) decodeInput(w http.ResponseWriter, r *http.Request, scope, code string, in any) bool {
	if _, ok := s.tokens.RequireScope(w, r, scope); !ok {
		return false
	}
	if err := httpio.DecodeJSON(r, in); err != nil {
		httpio.WriteError(w, http.StatusBadRequest, code, err.Error())
		return false
	}
	return true
}

// provisioningError answers a store or validation error: 404, 409 with the
// given code, or 400 with the given code.
func (s *API) provisioningError(w http.ResponseWriter, err error, conflictCode, invalidCode string) {
	switch {
	case store.IsNotFound(err):
		httpio.WriteError(w, http.StatusNotFound, "scim_resource_not_found", err.Error())
	case store.IsConflict(err):
		httpio.WriteError(w, http.StatusConflict, conflictCode, err.Error())
	case accounts.IsInvalidPassword(err):
		writePasswordError(w, err)
	case accounts.IsInvalid(err):
		httpio.WriteError(w, http.StatusBadRequest, invalidCode, err.Error())
	default:
		s.log.Error("provisioning", "err", err)
		httpio.WriteError(w, http.StatusInternalServerError, "server_error", "The request could not be completed.")
	}
}

// writePasswordError answers as UAA does: 400, the text both as
// error_description and as message.
func writePasswordError(w http.ResponseWriter, err error) {
	httpio.WriteJSON(w, http.StatusBadRequest, struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		Message     string `json:"message"`
	}{"invalid_password", err.Error(), err.Error()})
}

// eqFilterPattern is the one SCIM filter supported: attribute eq "value".
var eqFilterPattern = regexp.MustCompile(`(?i)^\s*([a-z]+)\s+eq\s+("(?:[^"\\]|\\.)*")\s*$`)

// eqFilter reads the filter parameter, which must be absent or
// attr eq "value"; otherwise it answers 400 itself.
func eqFilter(w http.ResponseWriter, r *http.Request, attr string) (value string, filtered, ok bool) {
	f := r.URL.Query().Get("filter")
	if f == "" {
		return "", false, true
	}
	m := eqFilterPattern.FindStringSubmatch(f)
	if m != nil && strings.EqualFold(m[1], attr) {
		if v, err := strconv.Unquote(m[2]); err == nil {
			return v, true, true
		}
	}
	httpio.WriteError(w, http.StatusBadRequest, "invalid_filter",
		"Unsupported filter "+strconv.Quote(f)+"; only "+attr+` eq "..." is supported`)
	return "", false, false
}
