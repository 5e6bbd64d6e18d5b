package scim

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// The bounds of a filtered GET /Users.
const (
	// maxFilterResults is how many users one answer holds at most;
	// totalResults still counts every match (SCIM's itemsPerPage and
	// totalResults).
	maxFilterResults = 500
	// scanBatch is how many users one read transaction of a scan reads.
	scanBatch = 1000
	// maxFilterBytes bounds the filter's text (and so its nesting).
	maxFilterBytes = 2048
)

// maxScannedUsers is how many users a filter that no index serves may read
// (about a second here at 100,000); past it the answer is 400, and the
// caller is told to filter by userName, email or id with eq. A variable
// for tests.
var maxScannedUsers = 250_000

// scanTooLong is the error of a filter that would read more than
// maxScannedUsers users.
type scanTooLong struct{ limit int }

func (e *scanTooLong) Error() string {
	return fmt.Sprintf("this filter would read more than %d users; "+
		`filter with userName eq "...", email eq "..." or id eq "...", which read an index`, e.limit)
}

// listFilteredUsers answers GET /Users?filter=...: a SCIM filter (RFC 7644
// section 3.4.2.2) on id, userName, email (emails.value), name.givenName,
// name.familyName, active, verified and origin, with eq, ne, co, sw, ew,
// gt, ge, lt, le (the folded strings in byte order) and pr, and, or and
// parentheses. As in UAA, string values compare without
// regard to case, but for id. A filter that pins userName, email or id
// with eq (alone, under and, or on both sides of or) is answered from the
// indexes; any other reads every user (at most maxScannedUsers). Matches are
// listed as the unfiltered list is, oldest first, at most maxFilterResults.
func (s *API) listFilteredUsers(w http.ResponseWriter, r *http.Request, filter string) {
	f, err := parseUserFilter(filter)
	if err != nil {
		s.log.Debug("invalid user filter", "filter", filter, "err", err)
		writeFilterError(w, filter)
		return
	}
	users, total, err := findUsers(r.Context(), s.store, f)
	switch {
	case errors.As(err, new(*scanTooLong)):
		httpio.WriteError(w, http.StatusBadRequest, "invalid_filter", err.Error())
		return
	case err != nil:
		s.log.Error("listing users", "filter", filter, "err", err)
		httpio.WriteError(w, http.StatusInternalServerError, "server_error", "The request could not be completed.")
		return
	}
	out := make([]scimUser, 0, len(users))
	for _, u := range users {
		out = append(out, s.scimUserOf(u))
	}
	list := newSCIMList(out)
	list.TotalResults = total
	httpio.WriteJSON(w, http.StatusOK, list)
}

// springEscape is Spring's HtmlUtils.htmlEscape of the characters a filter
// may hold: UAA escapes the filter it quotes back.
var springEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// writeFilterError answers a filter that does not parse as UAA's
// ScimUserEndpoints does: 400, the error "scim" (its ScimException) and
// "Invalid filter expression: [<filter>]" as error_description and message.
// Why it does not parse is logged, not answered, as in UAA.
func writeFilterError(w http.ResponseWriter, filter string) {
	msg := "Invalid filter expression: [" + springEscape.Replace(filter) + "]"
	httpio.WriteJSON(w, http.StatusBadRequest, struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		Message     string `json:"message"`
	}{"scim", msg, msg})
}

// findUsers returns the users of st that match f, in listing order and at
// most maxFilterResults of them, and how many match in all.
func findUsers(ctx context.Context, st *store.Store, f *userFilter) ([]*store.User, int, error) {
	var m matches
	var ids []string
	var indexed bool
	err := st.ReadUsers(func(r store.UserReader) (err error) {
		ids, indexed, err = candidates(r, f)
		if err != nil || !indexed {
			return err
		}
		slices.Sort(ids)
		for _, id := range slices.Compact(ids) {
			u, ok, err := r.User(id)
			if err != nil {
				return err
			}
			if ok { // not so for an id eq with no such user
				m.add(f, u)
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if !indexed {
		if err := scanUsers(ctx, st, f, &m); err != nil {
			return nil, 0, err
		}
	}
	return m.result(), m.total, nil
}

// scanUsers reads every user, scanBatch per read transaction (a scan holds
// no transaction open for long), until maxScannedUsers or ctx ends.
func scanUsers(ctx context.Context, st *store.Store, f *userFilter, m *matches) error {
	from, scanned := "", 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var last string
		n := 0
		err := st.ReadUsers(func(r store.UserReader) error {
			return r.Range(from, scanBatch, func(id string, u *store.User) error {
				n, last = n+1, id
				m.add(f, u)
				return nil
			})
		})
		if err != nil {
			return err
		}
		from = last + "\x00"
		if scanned += n; n < scanBatch {
			return nil
		}
		if scanned >= maxScannedUsers {
			more := false
			err := st.ReadUsers(func(r store.UserReader) (err error) {
				more, err = r.HasUsersFrom(from)
				return err
			})
			if err == nil && more {
				err = &scanTooLong{maxScannedUsers}
			}
			return err
		}
	}
}

// matches collects the users that matched, keeping only the first
// maxFilterResults in listing order, and counts them all.
type matches struct {
	users []*store.User
	total int
}

func (m *matches) add(f *userFilter, u *store.User) {
	if !f.match(u) {
		return
	}
	m.total++
	m.users = append(m.users, u)
	if len(m.users) >= 2*maxFilterResults {
		m.trim()
	}
}

func (m *matches) trim() {
	slices.SortFunc(m.users, func(a, b *store.User) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UserName, b.UserName), cmp.Compare(a.ID, b.ID))
	})
	m.users = m.users[:min(len(m.users), maxFilterResults)]
}

func (m *matches) result() []*store.User {
	m.trim()
	return m.users
}

// candidates returns the ids of the users f may match, read from the
// indexes; indexed is false when f needs a scan. Every candidate is still
// matched against the whole filter.
func candidates(r store.UserReader, f *userFilter) (ids []string, indexed bool, err error) {
	switch f.op {
	case "eq":
		switch f.attr {
		case "id":
			return []string{f.value}, true, nil
		case "userName":
			id, ok, err := r.IDByName(f.value)
			if err != nil || !ok {
				return nil, err == nil, err
			}
			return []string{id}, true, nil
		case "email":
			ids, err := r.IDsByEmail(f.value, maxScannedUsers+1)
			if err == nil && len(ids) > maxScannedUsers {
				err = &scanTooLong{maxScannedUsers}
			}
			return ids, err == nil, err
		}
	case "and":
		left, lok, err := candidates(r, f.left)
		if err != nil {
			return nil, false, err
		}
		right, rok, err := candidates(r, f.right)
		if err != nil {
			return nil, false, err
		}
		switch {
		case lok && rok:
			if len(right) < len(left) {
				return right, true, nil
			}
			return left, true, nil
		case lok:
			return left, true, nil
		case rok:
			return right, true, nil
		}
	case "or":
		left, lok, err := candidates(r, f.left)
		if err != nil || !lok {
			return nil, false, err
		}
		right, rok, err := candidates(r, f.right)
		if err != nil || !rok {
			return nil, false, err
		}
		return append(left, right...), true, nil
	}
	return nil, false, nil
}

// userFilter is a parsed filter: and/or of two filters, or a comparison of
// an attribute (canonical name) with a value (folded, but for id).
type userFilter struct {
	op          string // and, or, eq, ne, co, sw, ew, gt, ge, lt, le, pr
	left, right *userFilter
	attr        string
	value       string
	boolean     bool // the value of active and verified
}

// userAttrs maps the filter's attribute names (compared without regard to
// case, as SCIM has it) to canonical ones.
var userAttrs = map[string]string{
	"id": "id", "username": "userName",
	"email": "email", "emails": "email", "emails.value": "email",
	"name.givenname": "givenName", "givenname": "givenName",
	"name.familyname": "familyName", "familyname": "familyName",
	"active": "active", "verified": "verified", "origin": "origin",
}

func (f *userFilter) match(u *store.User) bool {
	switch f.op {
	case "and":
		return f.left.match(u) && f.right.match(u)
	case "or":
		return f.left.match(u) || f.right.match(u)
	}
	switch f.attr {
	case "active", "verified":
		v := u.Active
		if f.attr == "verified" {
			v = u.Verified
		}
		switch f.op {
		case "pr":
			return true
		case "eq":
			return v == f.boolean
		}
		return v != f.boolean // ne
	}
	var v string
	switch f.attr {
	case "id":
		v = u.ID
	case "userName":
		v = store.Fold(u.UserName)
	case "email":
		v = store.Fold(u.Email)
	case "givenName":
		v = store.Fold(u.GivenName)
	case "familyName":
		v = store.Fold(u.FamilyName)
	case "origin":
		v = store.OriginUAA
	}
	switch f.op {
	case "eq":
		return v == f.value
	case "ne":
		return v != f.value
	case "co":
		return strings.Contains(v, f.value)
	case "sw":
		return strings.HasPrefix(v, f.value)
	case "ew":
		return strings.HasSuffix(v, f.value)
	case "gt":
		return v > f.value
	case "ge":
		return v >= f.value
	case "lt":
		return v < f.value
	case "le":
		return v <= f.value
	}
	return v != "" // pr
}

// parseUserFilter parses filter = term {or term}; term = factor {and
// factor}; factor = "(" filter ")" | attr "pr" | attr op value.
func parseUserFilter(filter string) (*userFilter, error) {
	if len(filter) > maxFilterBytes {
		return nil, fmt.Errorf("longer than %d bytes", maxFilterBytes)
	}
	toks, err := lexFilter(filter)
	if err != nil {
		return nil, err
	}
	p := &filterParser{toks: toks}
	f, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("unexpected %s", p.toks[p.pos])
	}
	return f, nil
}

type filterParser struct {
	toks []string // words, "(", ")" and quoted strings, quotes kept
	pos  int
}

func (p *filterParser) peekWord(w string) bool {
	return p.pos < len(p.toks) && strings.EqualFold(p.toks[p.pos], w)
}

func (p *filterParser) next() (string, error) {
	if p.pos == len(p.toks) {
		return "", errors.New("unexpected end")
	}
	p.pos++
	return p.toks[p.pos-1], nil
}

func (p *filterParser) or() (*userFilter, error) {
	f, err := p.and()
	for err == nil && p.peekWord("or") {
		p.pos++
		var right *userFilter
		if right, err = p.and(); err == nil {
			f = &userFilter{op: "or", left: f, right: right}
		}
	}
	return f, err
}

func (p *filterParser) and() (*userFilter, error) {
	f, err := p.factor()
	for err == nil && p.peekWord("and") {
		p.pos++
		var right *userFilter
		if right, err = p.factor(); err == nil {
			f = &userFilter{op: "and", left: f, right: right}
		}
	}
	return f, err
}

func (p *filterParser) factor() (*userFilter, error) {
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	if tok == "(" {
		f, err := p.or()
		if err != nil {
			return nil, err
		}
		if tok, err := p.next(); err != nil || tok != ")" {
			return nil, errors.New("missing )")
		}
		return f, nil
	}
	attr, ok := userAttrs[strings.ToLower(tok)]
	if !ok {
		return nil, fmt.Errorf("unknown attribute %s; known: id, userName, email, name.givenName, name.familyName, active, verified, origin", tok)
	}
	opTok, err := p.next()
	if err != nil {
		return nil, err
	}
	f := &userFilter{op: strings.ToLower(opTok), attr: attr}
	switch f.op {
	case "pr":
		return f, nil
	case "eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le":
	default:
		return nil, fmt.Errorf("unsupported operator %s; supported: eq, ne, co, sw, ew, gt, ge, lt, le, pr", opTok)
	}
	val, err := p.next()
	if err != nil {
		return nil, err
	}
	if attr == "active" || attr == "verified" {
		if b, err := strconv.ParseBool(strings.ToLower(val)); err == nil && (f.op == "eq" || f.op == "ne") && !strings.HasPrefix(val, `"`) {
			f.boolean = b
			return f, nil
		}
		return nil, fmt.Errorf("%s takes eq or ne with true or false", tok)
	}
	if !strings.HasPrefix(val, `"`) {
		return nil, fmt.Errorf("%s %s takes a quoted string, not %s", tok, opTok, val)
	}
	if err := json.Unmarshal([]byte(val), &f.value); err != nil {
		return nil, fmt.Errorf("invalid string %s", val)
	}
	if attr != "id" {
		f.value = store.Fold(f.value)
	}
	return f, nil
}

// lexFilter splits a filter into words, parentheses and quoted strings
// (JSON's syntax, kept with their quotes).
func lexFilter(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			toks = append(toks, s[i:i+1])
			i++
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return nil, errors.New("unterminated string")
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r()\"", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	if len(toks) == 0 {
		return nil, errors.New("empty")
	}
	return toks, nil
}
