package scim_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/scim"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// GET /Users?filter=... served by the whole server
// (reference/internal/authtest), with users stored in bulk through a
// Store of the test's own on the server's kv.Store, as a replica would.

// GET /Users?filter=...: the answers, their bounds and the refused filters.
func TestUserFiltersOverHTTP(t *testing.T) {
	db := kv.NewMemory()
	srv := authtest.Start(t, func(o *authserver.Options) { o.Store = db })
	st := store.New(db, nil) // a replica, to store users in bulk
	token := srv.ClientToken(t, authserver.DefaultAdminClientID, authserver.DefaultAdminClientSecret)
	list := func(filter string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/Users?filter="+url.QueryEscape(filter), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		r := authtest.Send(t, req)
		return r.Status, r.JSON(t)
	}
	if status, m := list(`userName eq "MARISSA"`); status != http.StatusOK || m["totalResults"] != 1.0 ||
		m["resources"].([]any)[0].(map[string]any)["userName"] != authtest.User {
		t.Fatalf("userName eq in capitals: %d %v", status, m)
	}
	for _, bad := range []string{
		`nick eq "x"`, `userName xx "a"`, `userName eq "x`, `(userName eq "x"`, `userName eq "x")`, `userName eq x`,
		`userName eq`, `active eq "true"`, `active co true`, `userName eq "a" and`, `()`, `  `,
		`userName eq "` + strings.Repeat("x", scim.MaxFilterBytes) + `"`,
	} {
		want := "Invalid filter expression: [" + strings.NewReplacer(`"`, "&quot;").Replace(bad) + "]"
		if status, m := list(bad); status != http.StatusBadRequest || m["error"] != "scim" || m["error_description"] != want || m["message"] != want {
			t.Errorf("%q: %d %v, want 400 scim %q", bad, status, m, want)
		}
	}

	// More matches than one answer holds: the oldest scim.MaxFilterResults, and
	// totalResults counts them all.
	var many [][2]string
	for i := range scim.MaxFilterResults + 30 {
		many = append(many, [2]string{fmt.Sprintf("bulk-%03d", i), "bulk@test.org"})
	}
	scim.FilterUsersOf(t, st, many)
	for _, filter := range []string{`userName sw "bulk-"`, `email eq "bulk@test.org"`} {
		status, m := list(filter)
		res, _ := m["resources"].([]any)
		if status != http.StatusOK || len(res) != scim.MaxFilterResults || m["totalResults"] != float64(scim.MaxFilterResults+30) ||
			m["itemsPerPage"] != float64(scim.MaxFilterResults) || res[0].(map[string]any)["userName"] != "bulk-000" ||
			res[scim.MaxFilterResults-1].(map[string]any)["userName"] != fmt.Sprintf("bulk-%03d", scim.MaxFilterResults-1) {
			t.Errorf("%s: %d, %d resources of %v", filter, status, len(res), m["totalResults"])
		}
	}

	// A scan reads every batch of users once.
	var more [][2]string
	for i := range 2*scim.ScanBatch - scim.MaxFilterResults {
		more = append(more, [2]string{fmt.Sprintf("more-%04d", i), "more@test.org"})
	}
	scim.FilterUsersOf(t, st, more) // now 2*scim.ScanBatch+30 users and the seeded ones
	if status, m := list(`userName sw "more-" or userName sw "bulk-"`); status != http.StatusOK || m["totalResults"] != float64(2*scim.ScanBatch+30) {
		t.Errorf("a scan of %d users: %d, totalResults %v", 2*scim.ScanBatch+30, status, m["totalResults"])
	}

	// A scan stops at its bound; the indexes answer still.
	defer scim.SetMaxScannedUsers(2 * scim.ScanBatch)()
	if status, m := list(`userName co "more-"`); status != http.StatusBadRequest || m["error"] != "invalid_filter" ||
		!strings.Contains(fmt.Sprint(m["error_description"]), "userName eq") {
		t.Errorf("a scan past the scan bound: %d %v", status, m)
	}
	if status, m := list(`userName eq "more-0001"`); status != http.StatusOK || m["totalResults"] != 1.0 {
		t.Errorf("userName eq past the scan bound: %d %v", status, m)
	}
	scim.SetMaxScannedUsers(100)
	if status, m := list(`email eq "more@test.org"`); status != http.StatusBadRequest || m["error"] != "invalid_filter" {
		t.Errorf("an e-mail shared past the scan bound: %d %v", status, m)
	}
}
