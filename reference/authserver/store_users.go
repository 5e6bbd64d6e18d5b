package authserver

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// userRecord is a person who signs in here (a SCIM user of origin "uaa").
type userRecord struct {
	ID               string
	UserName         string
	GivenName        string
	FamilyName       string
	Email            string
	PasswordHash     []byte
	Active           bool
	Verified         bool
	Created          time.Time
	PasswordModified time.Time
}

// groupRecord is a group; its display name is the scope it grants members.
type groupRecord struct {
	ID          string
	DisplayName string
	Description string
	Members     []string // user ids, in the order they were added
	Created     time.Time
	Modified    time.Time
	Version     int
}

// fold is the key of names that are unique regardless of case, as in UAA.
func fold(name string) string { return strings.ToLower(name) }

func (s *store) createUser(u *userRecord) error {
	return s.update(func(tx kv.Tx) error { return insertUser(tx, u) })
}

// insertUser stores a new user with its entries in the indexes by name and
// by e-mail (scim_filter.go).
func insertUser(tx kv.Tx, u *userRecord) error {
	if _, dup, err := tx.Get(bucketUserNames, fold(u.UserName)); err != nil || dup {
		return cmp.Or(err, conflictf("Username already in use: %s", u.UserName))
	}
	if err := putJSON(tx, bucketUsers, u.ID, u); err != nil {
		return err
	}
	if err := tx.Put(bucketUserEmails, emailKey(u.Email, u.ID), []byte{1}); err != nil {
		return err
	}
	return tx.Put(bucketUserNames, fold(u.UserName), []byte(u.ID))
}

func (s *store) user(id string) (*userRecord, bool) {
	u := new(userRecord)
	var ok bool
	err := s.view(func(tx kv.Tx) (err error) {
		ok, err = getJSON(tx, bucketUsers, id, u)
		return err
	})
	if err != nil {
		s.readFailed("user", err)
		return nil, false
	}
	return u, ok
}

func (s *store) userByName(name string) (*userRecord, bool) {
	u := new(userRecord)
	var ok bool
	err := s.view(func(tx kv.Tx) error {
		id, found, err := tx.Get(bucketUserNames, fold(name))
		if err != nil || !found {
			return err
		}
		ok, err = getJSON(tx, bucketUsers, string(id), u)
		return err
	})
	if err != nil {
		s.readFailed("userByName", err)
		return nil, false
	}
	return u, ok
}

// listUsers returns every user, oldest first.
func (s *store) listUsers() []*userRecord {
	var us []*userRecord
	err := s.view(func(tx kv.Tx) error {
		return tx.Scan(bucketUsers, "", func(_ string, v []byte) error {
			u := new(userRecord)
			us = append(us, u)
			return json.Unmarshal(v, u)
		})
	})
	if err != nil {
		s.readFailed("listUsers", err)
		return nil
	}
	slices.SortFunc(us, func(a, b *userRecord) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UserName, b.UserName))
	})
	return us
}

func (s *store) createGroup(g *groupRecord) error {
	return s.update(func(tx kv.Tx) error {
		if _, dup, err := tx.Get(bucketGroupNames, fold(g.DisplayName)); err != nil || dup {
			return cmp.Or(err, conflictf("A group with displayName: %s already exists.", g.DisplayName))
		}
		if err := putJSON(tx, bucketGroups, g.ID, g); err != nil {
			return err
		}
		return tx.Put(bucketGroupNames, fold(g.DisplayName), []byte(g.ID))
	})
}

func (s *store) groupByName(name string) (*groupRecord, bool) {
	g := new(groupRecord)
	var ok bool
	err := s.view(func(tx kv.Tx) error {
		id, found, err := tx.Get(bucketGroupNames, fold(name))
		if err != nil || !found {
			return err
		}
		ok, err = getJSON(tx, bucketGroups, string(id), g)
		return err
	})
	if err != nil {
		s.readFailed("groupByName", err)
		return nil, false
	}
	return g, ok
}

// listGroups returns every group, oldest first.
func (s *store) listGroups() []*groupRecord {
	var gs []*groupRecord
	err := s.view(func(tx kv.Tx) error {
		return tx.Scan(bucketGroups, "", func(_ string, v []byte) error {
			g := new(groupRecord)
			gs = append(gs, g)
			return json.Unmarshal(v, g)
		})
	})
	if err != nil {
		s.readFailed("listGroups", err)
		return nil
	}
	slices.SortFunc(gs, func(a, b *groupRecord) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.DisplayName, b.DisplayName))
	})
	return gs
}

// addMember adds a user to a group.
func (s *store) addMember(groupID, userID string) error {
	return s.update(func(tx kv.Tx) error {
		g := new(groupRecord)
		if ok, err := getJSON(tx, bucketGroups, groupID, g); err != nil || !ok {
			return cmp.Or(err, notFoundf("Group %s does not exist", groupID))
		}
		if _, ok, err := tx.Get(bucketUsers, userID); err != nil || !ok {
			return cmp.Or(err, notFoundf("User %s does not exist", userID))
		}
		if slices.Contains(g.Members, userID) {
			return conflictf("Member %s already exists in group %s", userID, groupID)
		}
		g.Members = append(g.Members, userID)
		g.Modified = now()
		g.Version++
		return putJSON(tx, bucketGroups, groupID, g)
	})
}

// groupsOf returns the groups userID is a member of, by name.
func (s *store) groupsOf(userID string) []*groupRecord {
	var gs []*groupRecord
	for _, g := range s.listGroups() {
		if slices.Contains(g.Members, userID) {
			gs = append(gs, g)
		}
	}
	return gs
}

// isMember reports whether userID is in the group named scope.
func (s *store) isMember(userID, scope string) bool {
	g, ok := s.groupByName(scope)
	return ok && slices.Contains(g.Members, userID)
}

func approvalKey(userID, clientID string) string { return userID + "\x00" + clientID }

// approve remembers that the user approved scopes for the client.
func (s *store) approve(userID, clientID string, scopes []string) error {
	return s.update(func(tx kv.Tx) error {
		var have []string
		if _, err := getJSON(tx, bucketApprovals, approvalKey(userID, clientID), &have); err != nil {
			return err
		}
		for _, sc := range scopes {
			if !slices.Contains(have, sc) {
				have = append(have, sc)
			}
		}
		return putJSON(tx, bucketApprovals, approvalKey(userID, clientID), have)
	})
}

// approved reports whether the user approved every one of scopes for the
// client before.
func (s *store) approved(userID, clientID string, scopes []string) bool {
	var have []string
	err := s.view(func(tx kv.Tx) error {
		_, err := getJSON(tx, bucketApprovals, approvalKey(userID, clientID), &have)
		return err
	})
	if err != nil {
		s.readFailed("approved", err)
		return false
	}
	for _, sc := range scopes {
		if !slices.Contains(have, sc) {
			return false
		}
	}
	return true
}

// deleteUser removes a user with its memberships and approvals, and returns
// it. Its tokens stop being accepted: their rev_sig names a user that is
// gone.
func (s *store) deleteUser(id string) (*userRecord, error) {
	var u *userRecord
	err := s.update(func(tx kv.Tx) error {
		u = new(userRecord)
		if ok, err := getJSON(tx, bucketUsers, id, u); err != nil || !ok {
			return cmp.Or(err, notFoundf("User %s does not exist", id))
		}
		var groups []*groupRecord
		err := tx.Scan(bucketGroups, "", func(_ string, v []byte) error {
			g := new(groupRecord)
			if err := json.Unmarshal(v, g); err != nil {
				return err
			}
			if slices.Contains(g.Members, id) {
				groups = append(groups, g)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, g := range groups {
			g.Members = slices.DeleteFunc(g.Members, func(m string) bool { return m == id })
			g.Modified = now()
			g.Version++
			if err := putJSON(tx, bucketGroups, g.ID, g); err != nil {
				return err
			}
		}
		if err := deleteApprovals(tx, approvalKey(id, ""), func(string) bool { return true }); err != nil {
			return err
		}
		if err := tx.Delete(bucketUserNames, fold(u.UserName)); err != nil {
			return err
		}
		if err := tx.Delete(bucketUserEmails, emailKey(u.Email, id)); err != nil {
			return err
		}
		return tx.Delete(bucketUsers, id)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// deleteApprovals deletes the approvals whose keys (approvalKey) start with prefix and match: collected first,
// as a store may not delete under a running scan.
func deleteApprovals(tx kv.Tx, prefix string, match func(key string) bool) error {
	var keys []string
	if err := tx.Scan(bucketApprovals, prefix, func(k string, _ []byte) error {
		if match(k) {
			keys = append(keys, k)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(bucketApprovals, k); err != nil {
			return err
		}
	}
	return nil
}

// deleteGroup removes a group (its members lose the scope it names) and
// returns it.
func (s *store) deleteGroup(id string) (*groupRecord, error) {
	var g *groupRecord
	err := s.update(func(tx kv.Tx) error {
		g = new(groupRecord)
		if ok, err := getJSON(tx, bucketGroups, id, g); err != nil || !ok {
			return cmp.Or(err, notFoundf("Group %s does not exist", id))
		}
		if err := tx.Delete(bucketGroupNames, fold(g.DisplayName)); err != nil {
			return err
		}
		return tx.Delete(bucketGroups, id)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}
