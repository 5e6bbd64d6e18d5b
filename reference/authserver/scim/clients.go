package scim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// clientInput is the body of POST /oauth/clients, UAA's client details.
type clientInput struct {
	ClientID     string          `json:"client_id"`
	ClientSecret string          `json:"client_secret"`
	Name         string          `json:"name"`
	Scope        []string        `json:"scope"`
	GrantTypes   []string        `json:"authorized_grant_types"`
	Authorities  []string        `json:"authorities"`
	RedirectURI  []string        `json:"redirect_uri"`
	AutoApprove  json.RawMessage `json:"autoapprove"`
	AccessTTL    int64           `json:"access_token_validity"`  // seconds
	RefreshTTL   int64           `json:"refresh_token_validity"` // seconds
}

// clientOutput is a client as the API shows it: never with its secret.
type clientOutput struct {
	ClientID     string   `json:"client_id"`
	Name         string   `json:"name,omitempty"`
	Scope        []string `json:"scope"`
	ResourceIDs  []string `json:"resource_ids"`
	GrantTypes   []string `json:"authorized_grant_types"`
	RedirectURI  []string `json:"redirect_uri"`
	AutoApprove  any      `json:"autoapprove"`
	Authorities  []string `json:"authorities"`
	AccessTTL    int64    `json:"access_token_validity,omitempty"`
	RefreshTTL   int64    `json:"refresh_token_validity,omitempty"`
	LastModified int64    `json:"lastModified"`
}

func (s *API) CreateClient(w http.ResponseWriter, r *http.Request) {
	var in clientInput
	if !s.decodeInput(w, r, "clients.write", "invalid_client", &in) {
		return
	}
	all, list, err := parseAutoApprove(in.AutoApprove)
	if err != nil {
		s.provisioningError(w, err, "invalid_client", "invalid_client")
		return
	}
	c, err := s.accounts.AddClient(r.Context(), accounts.ClientSpec{
		ID: in.ClientID, Name: in.Name, Secret: in.ClientSecret,
		Scope: in.Scope, Authorities: in.Authorities, GrantTypes: in.GrantTypes, Redirects: in.RedirectURI,
		AutoApproveAll: all, AutoApprove: list,
		AccessTTL: seconds(in.AccessTTL), RefreshTTL: seconds(in.RefreshTTL),
	})
	if err != nil {
		s.provisioningError(w, err, "invalid_client", "invalid_client")
		return
	}
	httpio.WriteJSON(w, http.StatusCreated, clientOutputOf(c))
}

func (s *API) GetClient(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.tokens.RequireScope(w, r, "clients.read"); !ok {
		return
	}
	c, ok := s.store.Client(r.PathValue("id"))
	if !ok {
		httpio.WriteError(w, http.StatusNotFound, "invalid_client", "No client with requested id: "+r.PathValue("id"))
		return
	}
	httpio.WriteJSON(w, http.StatusOK, clientOutputOf(c))
}

// ListClients lists every client: GET /oauth/clients, in UAA's shape of a
// search result. UAA's filter, sortBy and paging are not supported: the
// answer holds every client, by id.
func (s *API) ListClients(w http.ResponseWriter, r *http.Request) {
	if !s.tokens.Authorized(w, r, "clients.read") {
		return
	}
	if f := r.URL.Query().Get("filter"); f != "" {
		httpio.WriteError(w, http.StatusBadRequest, "invalid_filter", "Unsupported filter "+strconv.Quote(f)+"; GET /oauth/clients lists every client")
		return
	}
	var out []clientOutput
	for _, c := range s.store.ListClients() {
		out = append(out, clientOutputOf(c))
	}
	list := newSCIMList(out)
	list.Schemas = []string{"http://cloudfoundry.org/schema/scim/oauth-clients-1.0"}
	httpio.WriteJSON(w, http.StatusOK, list)
}

// DeleteClient removes a client with the approvals users gave it: DELETE
// /oauth/clients/{id}. The answer is the client that was removed.
func (s *API) DeleteClient(w http.ResponseWriter, r *http.Request) {
	if !s.tokens.Authorized(w, r, "clients.write") {
		return
	}
	c, err := s.store.DeleteClient(r.PathValue("id"))
	if store.IsNotFound(err) {
		httpio.WriteError(w, http.StatusNotFound, "invalid_client", err.Error())
		return
	}
	if err != nil {
		s.provisioningError(w, err, "invalid_client", "invalid_client")
		return
	}
	httpio.WriteJSON(w, http.StatusOK, clientOutputOf(c))
}

func clientOutputOf(c *store.Client) clientOutput {
	var auto any = c.AutoApprove
	if c.AutoApproveAll {
		auto = true
	}
	return clientOutput{
		ClientID: c.ID, Name: c.Name, Scope: c.Scope, ResourceIDs: []string{"none"},
		GrantTypes: c.GrantTypes, RedirectURI: c.RedirectURIs, AutoApprove: auto,
		Authorities: c.Authorities, LastModified: c.Modified.UnixMilli(),
		AccessTTL: int64(c.AccessTTL / time.Second), RefreshTTL: int64(c.RefreshTTL / time.Second),
	}
}

// seconds converts a validity in seconds, clamped so that the conversion
// cannot overflow (a negative one stays negative, and is refused).
func seconds(n int64) time.Duration {
	const century = 100 * 365 * 24 * 3600
	return time.Duration(max(min(n, century), -1)) * time.Second
}

// parseAutoApprove reads UAA's autoapprove: true or false (also as strings,
// or a list holding "true"), or the list of scopes approved without asking.
func parseAutoApprove(raw json.RawMessage) (all bool, scopes []string, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return false, nil, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, nil, nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil && (strings.EqualFold(str, "true") || strings.EqualFold(str, "false")) {
		return strings.EqualFold(str, "true"), nil, nil
	}
	if json.Unmarshal(raw, &scopes) == nil {
		for _, sc := range scopes {
			if strings.EqualFold(sc, "true") {
				return true, nil, nil
			}
		}
		return false, scopes, nil
	}
	return false, nil, accounts.Invalidf("autoapprove must be true, false or a list of scopes")
}
