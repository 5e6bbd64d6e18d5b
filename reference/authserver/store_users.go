package authserver

import (
	"cmp"
	"slices"
	"strings"
	"time"
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
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if _, dup := s.userNames[fold(u.UserName)]; dup {
		return conflictf("Username already in use: %s", u.UserName)
	}
	s.users[u.ID] = u
	s.userNames[fold(u.UserName)] = u.ID
	return nil
}

func (s *store) user(id string) (*userRecord, bool) {
	s.idMu.RLock()
	defer s.idMu.RUnlock()
	u, ok := s.users[id]
	return u, ok
}

func (s *store) userByName(name string) (*userRecord, bool) {
	s.idMu.RLock()
	defer s.idMu.RUnlock()
	u, ok := s.users[s.userNames[fold(name)]]
	return u, ok
}

// listUsers returns every user, oldest first.
func (s *store) listUsers() []*userRecord {
	s.idMu.RLock()
	us := make([]*userRecord, 0, len(s.users))
	for _, u := range s.users {
		us = append(us, u)
	}
	s.idMu.RUnlock()
	slices.SortFunc(us, func(a, b *userRecord) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UserName, b.UserName))
	})
	return us
}

func (s *store) createGroup(g *groupRecord) error {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if _, dup := s.groupNames[fold(g.DisplayName)]; dup {
		return conflictf("A group with displayName: %s already exists.", g.DisplayName)
	}
	s.groups[g.ID] = g
	s.groupNames[fold(g.DisplayName)] = g.ID
	return nil
}

func (s *store) groupByName(name string) (*groupRecord, bool) {
	s.idMu.RLock()
	defer s.idMu.RUnlock()
	g, ok := s.groups[s.groupNames[fold(name)]]
	return g, ok
}

// listGroups returns every group, oldest first.
func (s *store) listGroups() []*groupRecord {
	s.idMu.RLock()
	gs := make([]*groupRecord, 0, len(s.groups))
	for _, g := range s.groups {
		gs = append(gs, g)
	}
	s.idMu.RUnlock()
	slices.SortFunc(gs, func(a, b *groupRecord) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.DisplayName, b.DisplayName))
	})
	return gs
}

// addMember adds a user to a group (a new copy of the group).
func (s *store) addMember(groupID, userID string) error {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	g, ok := s.groups[groupID]
	if !ok {
		return notFoundf("Group %s does not exist", groupID)
	}
	if _, ok := s.users[userID]; !ok {
		return notFoundf("User %s does not exist", userID)
	}
	if slices.Contains(g.Members, userID) {
		return conflictf("Member %s already exists in group %s", userID, groupID)
	}
	c := *g
	c.Members = append(slices.Clip(g.Members), userID)
	c.Modified = now()
	c.Version++
	s.groups[groupID] = &c
	return nil
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

// approve remembers that the user approved scopes for the client.
func (s *store) approve(userID, clientID string, scopes []string) {
	s.approvalMu.Lock()
	defer s.approvalMu.Unlock()
	k := approvalKey{userID, clientID}
	if s.approvals[k] == nil {
		s.approvals[k] = make(map[string]bool)
	}
	for _, sc := range scopes {
		s.approvals[k][sc] = true
	}
}

// approved reports whether the user approved every one of scopes for the
// client before.
func (s *store) approved(userID, clientID string, scopes []string) bool {
	s.approvalMu.Lock()
	defer s.approvalMu.Unlock()
	got := s.approvals[approvalKey{userID, clientID}]
	for _, sc := range scopes {
		if !got[sc] {
			return false
		}
	}
	return true
}
