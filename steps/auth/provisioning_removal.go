package auth

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/go-resty/resty/v2"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// What the steps create through UAA's administration API is removed again with it: users (DELETE /Users/{id},
// their memberships go with them), clients (DELETE /oauth/clients/{id}) and groups (DELETE /Groups/{id}).
// A user, client or group a scenario creates is removed when the scenario ends. A group the steps create only
// because a user must join it and it is missing (fortunes.read on a server set up without it) is shared by
// every scenario of the run, so it is removed at the end of the run, and only when it has no members left: a
// group someone else's users joined meanwhile stays, and is named as left behind. A group the steps found is
// never removed. The removals use a token of the admin client of their own, fetched again when the server
// refuses the one held (tokens expire, and a run may outlast one); their exchanges are no scenario's evidence.

// adminRecord is one record the steps made through the administration API.
type adminRecord struct {
	kind string // user, group or client
	name string // its userName, displayName or client_id
	id   string // its id when the answer that created it gave one (a client's id is its name)
}

func (r adminRecord) String() string { return fmt.Sprintf("the %s %s", r.kind, r.name) }

// adminSession holds the admin client's token for the removals.
type adminSession struct {
	mu    sync.Mutex
	token string
}

// registerMade registers what the last answer, to a POST of sent to path of the administration API, created, to
// be removed when the scenario ends. An answer that is no 2xx created nothing.
func (ids *identitySteps) registerMade(p *adminAPI, path string, sent any) {
	rec, ok := madeBy(ids.Last, path, sent)
	if ok {
		ids.Created(rec.String()+" at "+p.URL, ids.srv.removal(p, rec))
	}
}

// madeBy is the record an answer to a POST to the administration API says was created.
func madeBy(answer *core.Exchange, path string, sent any) (adminRecord, bool) {
	if answer == nil || answer.Status/100 != 2 {
		return adminRecord{}, false
	}
	var in struct {
		UserName    string `json:"userName"`
		DisplayName string `json:"displayName"`
		ClientID    string `json:"client_id"`
	}
	b, _ := json.Marshal(sent)
	_ = json.Unmarshal(b, &in)
	var out struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(answer.Body, &out)
	switch path {
	case "/Users":
		return adminRecord{kind: "user", name: in.UserName, id: out.ID}, in.UserName != ""
	case "/Groups":
		return adminRecord{kind: "group", name: in.DisplayName, id: out.ID}, in.DisplayName != ""
	case "/oauth/clients":
		return adminRecord{kind: "client", name: in.ClientID, id: in.ClientID}, in.ClientID != ""
	}
	return adminRecord{}, false
}

// createSharedGroup creates a group a user must join and the server lacks, for the whole run: it is removed at
// the end of the run when nobody is left in it. A 409 (another caller created it meanwhile) is no error.
func (ids *identitySteps) createSharedGroup(name, description string) error {
	p, err := ids.provisioning()
	if err != nil {
		return err
	}
	body := map[string]string{"displayName": name, "description": description}
	if err := ids.API(core.Request{Method: http.MethodPost, URL: p.URL + "/Groups", JSON: body, Bearer: ids.adminToken}); err != nil {
		return err
	}
	if ids.Last.Status == http.StatusConflict {
		return nil
	}
	if rec, ok := madeBy(ids.Last, "/Groups", body); ok {
		remove := ids.srv.removal(p, rec)
		ids.srv.run.CreatedForRun(rec.String()+" at "+p.URL+" (created because it was missing)", func(ctx context.Context) error {
			if n, err := ids.srv.membersOf(ctx, p, name); err != nil || n > 0 {
				if err == nil {
					err = fmt.Errorf("it has %d members left, whom the suite did not add or could not remove", n)
				}
				return err
			}
			return remove(ctx)
		})
	}
	if ids.Last.Status != http.StatusCreated {
		return ids.Failf("creating the group %s answered %d", name, ids.Last.Status)
	}
	return nil
}

// removal is the way to remove a record: DELETE it by id (found by its name when the answer that created it
// gave none). A 404 is believed only when the record cannot be found either: a server without the DELETE may
// answer 404 too.
func (s *Server) removal(p *adminAPI, rec adminRecord) func(context.Context) error {
	return func(ctx context.Context) error {
		id := rec.id
		if id == "" {
			found, err := s.findRecord(ctx, p, rec)
			if err != nil || found == "" {
				return err
			}
			id = found
		}
		path := map[string]string{"user": "/Users/", "group": "/Groups/", "client": "/oauth/clients/"}[rec.kind] + url.PathEscape(id)
		resp, err := s.adminDo(ctx, p, http.MethodDelete, path)
		if err != nil {
			return err
		}
		switch code := resp.StatusCode(); {
		case code/100 == 2:
			return nil
		case code == http.StatusNotFound:
			if found, err := s.findRecord(ctx, p, rec); err != nil || found == "" {
				return err
			}
			return fmt.Errorf("DELETE %s answered 404, yet the %s is still there", path, rec.kind)
		default:
			return fmt.Errorf("DELETE %s answered %d: %s", path, code, bodyOf(resp))
		}
	}
}

// findRecord looks a record up by its name and returns its id; "" when there is none.
func (s *Server) findRecord(ctx context.Context, p *adminAPI, rec adminRecord) (string, error) {
	if rec.kind == "client" {
		path := "/oauth/clients/" + url.PathEscape(rec.name)
		resp, err := s.adminDo(ctx, p, http.MethodGet, path)
		switch {
		case err != nil:
			return "", err
		case resp.StatusCode() == http.StatusNotFound:
			return "", nil
		case resp.StatusCode() != http.StatusOK:
			return "", fmt.Errorf("GET %s answered %d: %s", path, resp.StatusCode(), bodyOf(resp))
		}
		return rec.name, nil
	}
	found, err := s.lookUp(ctx, p, rec.kind, rec.name)
	if err != nil || len(found) == 0 {
		return "", err
	}
	return found[0].ID, nil
}

// scimResource is what the removals read of a SCIM user or group.
type scimResource struct {
	ID          string            `json:"id"`
	UserName    string            `json:"userName"`
	DisplayName string            `json:"displayName"`
	Members     []json.RawMessage `json:"members"`
}

// lookUp finds the users or groups of a name with UAA's filter.
func (s *Server) lookUp(ctx context.Context, p *adminAPI, kind, name string) ([]scimResource, error) {
	path, attr := "/Users", "userName"
	if kind == "group" {
		path, attr = "/Groups", "displayName"
	}
	path += "?" + url.Values{"filter": {fmt.Sprintf("%s eq %q", attr, name)}}.Encode()
	resp, err := s.adminDo(ctx, p, http.MethodGet, path)
	if err != nil {
		return nil, err
	}
	var list struct {
		Resources []scimResource `json:"resources"`
	}
	if resp.StatusCode() != http.StatusOK || json.Unmarshal(resp.Body(), &list) != nil {
		return nil, fmt.Errorf("GET %s answered %d: %s", path, resp.StatusCode(), bodyOf(resp))
	}
	var out []scimResource
	for _, r := range list.Resources {
		if strings.EqualFold(cmp.Or(r.UserName, r.DisplayName), name) {
			out = append(out, r)
		}
	}
	return out, nil
}

// bodyOf is what a person needs to read of an answer's body.
func bodyOf(resp *resty.Response) string {
	return core.Excerpt(resp.Header().Get("Content-Type"), resp.Body(), 300)
}

// membersOf counts the members of a group; 0 when it is gone.
func (s *Server) membersOf(ctx context.Context, p *adminAPI, group string) (int, error) {
	found, err := s.lookUp(ctx, p, "group", group)
	if err != nil || len(found) == 0 {
		return 0, err
	}
	return len(found[0].Members), nil
}

// adminDo sends a request to the administration API with the admin client's token, and once more with a fresh
// token when the server refuses the one held.
func (s *Server) adminDo(ctx context.Context, p *adminAPI, method, path string) (*resty.Response, error) {
	client := core.NewRestyClient(s.run.HTTP, func(*core.Exchange) {}) // no scenario's evidence
	for fresh := false; ; fresh = true {
		tok, err := s.admin.get(s, p, fresh)
		if err != nil {
			return nil, err
		}
		resp, err := client.R().SetContext(ctx).SetAuthToken(tok).SetHeader("Accept", "application/json").
			Execute(method, p.URL+path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
		if resp.StatusCode() != http.StatusUnauthorized || fresh {
			return resp, nil
		}
	}
}

// get returns the token held, or a new one when there is none or fresh asks for one. The token is got as a
// scenario gets it (clientCredentialsToken), outside every scenario: removals run after theirs has ended.
func (a *adminSession) get(s *Server, p *adminAPI, fresh bool) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" && !fresh {
		return a.token, nil
	}
	if s.endpoints.Token == "" {
		return "", fmt.Errorf("the authorization server has no token endpoint to get the admin client's token from")
	}
	tok, err := s.clientCredentialsToken(s.newScenario(), p.ClientID, p.ClientSecret)
	if err != nil {
		return "", fmt.Errorf("the admin client's token: %w", err)
	}
	a.token = tok
	return a.token, nil
}
