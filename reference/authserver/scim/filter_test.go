package scim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv/kvtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// filterUsersOf stores users named and mailed as given (in that case),
// oldest first and every fourth one inactive, and returns them by name.
func filterUsersOf(t *testing.T, s *store.Store, users [][2]string) map[string]*store.User {
	t.Helper()
	byName := map[string]*store.User{}
	base := time.Now().UTC().Add(time.Hour).Truncate(time.Millisecond) // after the seeded users
	err := s.Update(func(tx kv.Tx) error {
		for i, nm := range users {
			u := &store.User{
				ID: store.NewID(), UserName: nm[0], Email: nm[1], GivenName: "G" + nm[0], FamilyName: "F",
				Active: i%4 != 3, Verified: true, Created: base.Add(time.Duration(i) * time.Second),
			}
			byName[nm[0]] = u
			if err := store.InsertUser(tx, u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return byName
}

var filterTestUsers = [][2]string{
	{"Alice", "Shared@Test.org"}, {"bob", "bob@test.org"}, {"CAROL", "shared@test.ORG"},
	{"dave", "dave@example.com"}, {"Eve", "eve@test.org"}, {"frank", "SHARED@test.org"},
}

// names returns the user names of users, in order.
func names(users []*store.User) string {
	var out []string
	for _, u := range users {
		out = append(out, u.UserName)
	}
	return strings.Join(out, ",")
}

// Every filter an index serves answers what a scan of every user answers,
// in every store, with userName and email compared without regard to case
// (as before the index, and as UAA) and id exactly; filters no index serves
// are answered by the scan, right.
func TestUserFilterIndexAgreesWithScan(t *testing.T) {
	kvtest.EachStore(t, func(t *testing.T, db kv.Store) {
		s := store.New(db, nil)
		byName := filterUsersOf(t, s, filterTestUsers)
		ctx := context.Background()
		for _, tt := range []struct {
			filter  string
			indexed bool
			want    string // user names, oldest first
		}{
			{`userName eq "alice"`, true, "Alice"},
			{`USERNAME EQ "ALICE"`, true, "Alice"},
			{`userName eq "carol"`, true, "CAROL"},
			{`userName eq "nobody"`, true, ""},
			{`email eq "shared@test.org"`, true, "Alice,CAROL,frank"},
			{`emails.value eq "SHARED@TEST.ORG"`, true, "Alice,CAROL,frank"},
			{`email eq "shared@test"`, true, ""},
			{`id eq "` + byName["bob"].ID + `"`, true, "bob"},
			{`id eq "` + strings.ToUpper(byName["bob"].ID) + `"`, true, ""},
			{`id eq "missing"`, true, ""},
			{`userName eq "alice" or email eq "bob@TEST.org"`, true, "Alice,bob"},
			{`email eq "shared@test.org" and active eq true`, true, "Alice,CAROL,frank"},
			{`active eq false and (email eq "shared@test.org" or email eq "dave@example.com")`, true, "dave"},
			{`(userName eq "bob" or userName eq "eve") and name.givenName co "E"`, true, "Eve"},
			{`email eq "shared@test.org" and userName eq "carol"`, true, "CAROL"},
			{`userName co "a"`, false, "Alice,CAROL,dave,frank"},
			{`userName sw "CA"`, false, "CAROL"},
			{`email ew "@TEST.ORG"`, false, "Alice,bob,CAROL,Eve,frank"},
			{`email co "example"`, false, "dave"},
			{`userName ne "bob" and email ew "test.org"`, false, "Alice,CAROL,Eve,frank"},
			{`userName eq "alice" or userName co "ve"`, false, "Alice,dave,Eve"},
			{`active eq false`, false, "dave"},
			{`verified eq true and origin eq "UAA" and userName sw "e"`, false, "Eve"},
			{`name.familyName pr and userName eq "bob"`, true, "bob"},
			{`givenName sw "gf"`, false, "frank"},
			{`userName gt "CAROL"`, false, "dave,Eve,frank"},
			{`userName ge "carol"`, false, "CAROL,dave,Eve,frank"},
			{`userName lt "Carol"`, false, "Alice,bob"},
			{`userName LE "carol" and userName Gt "alice"`, false, "bob,CAROL"},
		} {
			f, err := parseUserFilter(tt.filter)
			if err != nil {
				t.Fatalf("%s: %v", tt.filter, err)
			}
			var indexed bool
			if err := s.ReadUsers(func(r store.UserReader) (err error) { _, indexed, err = candidates(r, f); return err }); err != nil {
				t.Fatal(err)
			}
			if indexed != tt.indexed {
				t.Errorf("%s: indexed %v, want %v", tt.filter, indexed, tt.indexed)
			}
			got, total, err := findUsers(ctx, s, f)
			if err != nil {
				t.Fatalf("%s: %v", tt.filter, err)
			}
			var scanned matches
			if err := scanUsers(ctx, s, f, &scanned); err != nil {
				t.Fatal(err)
			}
			if names(got) != names(scanned.result()) || total != scanned.total || names(got) != tt.want {
				t.Errorf("%s: found %q (%d), a scan finds %q (%d), want %q", tt.filter, names(got), total, names(scanned.result()), scanned.total, tt.want)
			}
		}

		// A deleted user leaves every index.
		if _, err := s.DeleteUser(byName["CAROL"].ID); err != nil {
			t.Fatal(err)
		}
		err := s.ReadUsers(func(r store.UserReader) error {
			ids, err := r.IDsByEmail(byName["CAROL"].Email, 100)
			if slices.Contains(ids, byName["CAROL"].ID) {
				t.Errorf("the index by e-mail still holds the deleted user: %q", ids)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for filter, want := range map[string]string{
			`email eq "shared@test.org"`:         "Alice,frank",
			`userName eq "carol"`:                "",
			`id eq "` + byName["CAROL"].ID + `"`: "",
		} {
			f, _ := parseUserFilter(filter)
			got, _, err := findUsers(ctx, s, f)
			if err != nil || names(got) != want {
				t.Errorf("after the delete, %s: %q %v, want %q", filter, names(got), err, want)
			}
		}
	})
}
