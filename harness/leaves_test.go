package harness

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/target"
)

// targetState is what a run could leave in the reference, by part: the users, groups and clients of its
// administration API, the refs of the configuration repository and the files on its master, the gateway's
// manifests. Each part is a sorted list of lines.
func targetState(t *testing.T, tg *target.Target) map[string][]string {
	t.Helper()
	as, cs, gw := tg.Services.AuthServer, tg.Services.ConfigServer, tg.Services.Gateway
	if as == nil || as.Provisioning == nil || cs == nil || gw == nil || gw.ManifestDir == "" {
		t.Fatalf("the reference's target lacks the administration API, the configuration server or the gateway's folder")
	}
	state := map[string][]string{}
	token := adminToken(t, as)
	var users struct {
		Resources []struct{ ID, UserName string }
	}
	adminGet(t, as, token, "/Users", &users)
	for _, u := range users.Resources {
		state["users"] = append(state["users"], u.UserName+" "+u.ID)
	}
	var groups struct {
		Resources []struct {
			ID, DisplayName string
			Members         []struct{ Value string }
		}
	}
	adminGet(t, as, token, "/Groups", &groups)
	for _, g := range groups.Resources {
		line := g.DisplayName + " " + g.ID
		for _, m := range g.Members {
			line += " " + m.Value
		}
		state["groups"] = append(state["groups"], line)
	}
	var clients struct {
		Resources []struct {
			ClientID string `json:"client_id"`
		}
	}
	adminGet(t, as, token, "/oauth/clients", &clients)
	for _, c := range clients.Resources {
		state["clients"] = append(state["clients"], c.ClientID)
	}
	repo := strings.TrimPrefix(cs.Repository.URI, "file://")
	if fi, err := os.Stat(repo); err != nil || !fi.IsDir() {
		t.Fatalf("the reference's configuration repository %q is not a folder here: %v", repo, err)
	}
	// master moves (the suite's commits stay in its history); its tree must not.
	for _, line := range gitLines(t, repo, "for-each-ref", "--format=%(refname) %(objectname)") {
		if name, _, _ := strings.Cut(line, " "); name == "refs/heads/master" {
			line = name
		}
		state["repository refs"] = append(state["repository refs"], line)
	}
	state["files on master"] = gitLines(t, repo, "ls-tree", "-r", "master")
	entries, err := os.ReadDir(gw.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		state["gateway manifests"] = append(state["gateway manifests"], e.Name())
	}
	for _, lines := range state {
		slices.Sort(lines)
	}
	if len(state["users"]) == 0 || len(state["clients"]) == 0 || len(state["files on master"]) == 0 {
		t.Fatalf("the state read is not the reference's: %v", state)
	}
	return state
}

func adminToken(t *testing.T, as *target.AuthServer) string {
	t.Helper()
	p := as.Provisioning
	req, _ := http.NewRequest(http.MethodPost, as.URL+"/oauth/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(p.ClientID), url.QueryEscape(p.ClientSecret))
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	getJSON(t, req, &tok)
	return tok.AccessToken
}

func adminGet(t *testing.T, as *target.AuthServer, token, path string, into any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, as.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	getJSON(t, req, into)
}

func getJSON(t *testing.T, req *http.Request, into any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d", req.Method, req.URL, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
}

// gitLines runs git on a bare repository and returns its output's lines.
func gitLines(t *testing.T, repo string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", repo}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// difference is what was in a and is not in b, and what is in b and was not in a.
func difference(a, b []string) (gone, added []string) {
	for _, x := range a {
		if !slices.Contains(b, x) {
			gone = append(gone, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			added = append(added, x)
		}
	}
	return gone, added
}
