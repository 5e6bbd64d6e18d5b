package store

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// User is a person who signs in here (a SCIM user of origin "uaa").
type User struct {
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

// Group is a group; its display name is the scope it grants members.
type Group struct {
	ID          string
	DisplayName string
	Description string
	Members     []string // user ids, in the order they were added
	Created     time.Time
	Modified    time.Time
	Version     int
}

// Fold is the key of names that are unique regardless of case, as in UAA.
func Fold(name string) string { return strings.ToLower(name) }

// bucketUserEmails indexes users by e-mail: Fold(email) NUL id. E-mails are
// not unique, so the id is part of the key. CreateUser and DeleteUser keep
// it; a store from before it gets it at start (Migrate).
const bucketUserEmails = "user-emails"

func emailKey(email, id string) string { return Fold(email) + "\x00" + id }

// CreateUser stores a new user; a taken name is a conflict.
func (s *Store) CreateUser(u *User) error {
	return s.Update(func(tx kv.Tx) error { return InsertUser(tx, u) })
}

// InsertUser stores a new user with its entries in the indexes by name and
// by e-mail, in tx: CreateUser's transaction, or a bulk load's.
func InsertUser(tx kv.Tx, u *User) error {
	if _, dup, err := tx.Get(bucketUserNames, Fold(u.UserName)); err != nil || dup {
		return cmp.Or(err, Conflictf("Username already in use: %s", u.UserName))
	}
	if err := PutJSON(tx, bucketUsers, u.ID, u); err != nil {
		return err
	}
	if err := tx.Put(bucketUserEmails, emailKey(u.Email, u.ID), []byte{1}); err != nil {
		return err
	}
	return tx.Put(bucketUserNames, Fold(u.UserName), []byte(u.ID))
}

// User returns the user of an id.
func (s *Store) User(id string) (*User, bool) {
	u := new(User)
	var ok bool
	err := s.View(func(tx kv.Tx) (err error) {
		ok, err = GetJSON(tx, bucketUsers, id, u)
		return err
	})
	if err != nil {
		s.ReadFailed("user", err)
		return nil, false
	}
	return u, ok
}

// UserByName returns the user of a name, in any case.
func (s *Store) UserByName(name string) (*User, bool) {
	u := new(User)
	var ok bool
	err := s.View(func(tx kv.Tx) error {
		id, found, err := tx.Get(bucketUserNames, Fold(name))
		if err != nil || !found {
			return err
		}
		ok, err = GetJSON(tx, bucketUsers, string(id), u)
		return err
	})
	if err != nil {
		s.ReadFailed("userByName", err)
		return nil, false
	}
	return u, ok
}

// ListUsers returns every user, oldest first.
func (s *Store) ListUsers() []*User {
	var us []*User
	err := s.View(func(tx kv.Tx) error {
		return tx.Scan(bucketUsers, "", func(_ string, v []byte) error {
			u := new(User)
			us = append(us, u)
			return json.Unmarshal(v, u)
		})
	})
	if err != nil {
		s.ReadFailed("listUsers", err)
		return nil
	}
	slices.SortFunc(us, func(a, b *User) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UserName, b.UserName))
	})
	return us
}

// CreateGroup stores a new group; a taken name is a conflict.
func (s *Store) CreateGroup(g *Group) error {
	return s.Update(func(tx kv.Tx) error {
		if _, dup, err := tx.Get(bucketGroupNames, Fold(g.DisplayName)); err != nil || dup {
			return cmp.Or(err, Conflictf("A group with displayName: %s already exists.", g.DisplayName))
		}
		if err := PutJSON(tx, bucketGroups, g.ID, g); err != nil {
			return err
		}
		return tx.Put(bucketGroupNames, Fold(g.DisplayName), []byte(g.ID))
	})
}

// GroupByName returns the group of a name, in any case.
func (s *Store) GroupByName(name string) (*Group, bool) {
	g := new(Group)
	var ok bool
	err := s.View(func(tx kv.Tx) error {
		id, found, err := tx.Get(bucketGroupNames, Fold(name))
		if err != nil || !found {
			return err
		}
		ok, err = GetJSON(tx, bucketGroups, string(id), g)
		return err
	})
	if err != nil {
		s.ReadFailed("groupByName", err)
		return nil, false
	}
	return g, ok
}

// ListGroups returns every group, oldest first.
func (s *Store) ListGroups() []*Group {
	var gs []*Group
	err := s.View(func(tx kv.Tx) error {
		return tx.Scan(bucketGroups, "", func(_ string, v []byte) error {
			g := new(Group)
			gs = append(gs, g)
			return json.Unmarshal(v, g)
		})
	})
	if err != nil {
		s.ReadFailed("listGroups", err)
		return nil
	}
	slices.SortFunc(gs, func(a, b *Group) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.DisplayName, b.DisplayName))
	})
	return gs
}

// AddMember adds a user to a group.
func (s *Store) AddMember(groupID, userID string) error {
	return s.Update(func(tx kv.Tx) error {
		g := new(Group)
		if ok, err := GetJSON(tx, bucketGroups, groupID, g); err != nil || !ok {
			return cmp.Or(err, notFoundf("Group %s does not exist", groupID))
		}
		if _, ok, err := tx.Get(bucketUsers, userID); err != nil || !ok {
			return cmp.Or(err, notFoundf("User %s does not exist", userID))
		}
		if slices.Contains(g.Members, userID) {
			return Conflictf("Member %s already exists in group %s", userID, groupID)
		}
		g.Members = append(g.Members, userID)
		g.Modified = Now()
		g.Version++
		return PutJSON(tx, bucketGroups, groupID, g)
	})
}

// GroupsOf returns the groups userID is a member of, by name.
func (s *Store) GroupsOf(userID string) []*Group {
	var gs []*Group
	for _, g := range s.ListGroups() {
		if slices.Contains(g.Members, userID) {
			gs = append(gs, g)
		}
	}
	return gs
}

// IsMember reports whether userID is in the group named scope.
func (s *Store) IsMember(userID, scope string) bool {
	g, ok := s.GroupByName(scope)
	return ok && slices.Contains(g.Members, userID)
}

func approvalKey(userID, clientID string) string { return userID + "\x00" + clientID }

// Approve remembers that the user approved scopes for the client.
func (s *Store) Approve(userID, clientID string, scopes []string) error {
	return s.Update(func(tx kv.Tx) error {
		var have []string
		if _, err := GetJSON(tx, bucketApprovals, approvalKey(userID, clientID), &have); err != nil {
			return err
		}
		for _, sc := range scopes {
			if !slices.Contains(have, sc) {
				have = append(have, sc)
			}
		}
		return PutJSON(tx, bucketApprovals, approvalKey(userID, clientID), have)
	})
}

// Approved reports whether the user approved every one of scopes for the
// client before.
func (s *Store) Approved(userID, clientID string, scopes []string) bool {
	var have []string
	err := s.View(func(tx kv.Tx) error {
		_, err := GetJSON(tx, bucketApprovals, approvalKey(userID, clientID), &have)
		return err
	})
	if err != nil {
		s.ReadFailed("approved", err)
		return false
	}
	for _, sc := range scopes {
		if !slices.Contains(have, sc) {
			return false
		}
	}
	return true
}

// DeleteUser removes a user with its memberships and approvals, and returns
// it. Its tokens stop being accepted: their rev_sig names a user that is
// gone.
func (s *Store) DeleteUser(id string) (*User, error) {
	var u *User
	err := s.Update(func(tx kv.Tx) error {
		u = new(User)
		if ok, err := GetJSON(tx, bucketUsers, id, u); err != nil || !ok {
			return cmp.Or(err, notFoundf("User %s does not exist", id))
		}
		var groups []*Group
		err := tx.Scan(bucketGroups, "", func(_ string, v []byte) error {
			g := new(Group)
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
			g.Modified = Now()
			g.Version++
			if err := PutJSON(tx, bucketGroups, g.ID, g); err != nil {
				return err
			}
		}
		if err := deleteApprovals(tx, approvalKey(id, ""), func(string) bool { return true }); err != nil {
			return err
		}
		if err := tx.Delete(bucketUserNames, Fold(u.UserName)); err != nil {
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

// DeleteGroup removes a group (its members lose the scope it names) and
// returns it.
func (s *Store) DeleteGroup(id string) (*Group, error) {
	var g *Group
	err := s.Update(func(tx kv.Tx) error {
		g = new(Group)
		if ok, err := GetJSON(tx, bucketGroups, id, g); err != nil || !ok {
			return cmp.Or(err, notFoundf("Group %s does not exist", id))
		}
		if err := tx.Delete(bucketGroupNames, Fold(g.DisplayName)); err != nil {
			return err
		}
		return tx.Delete(bucketGroups, id)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}
