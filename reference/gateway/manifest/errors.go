package manifest

import (
	"fmt"
	"strings"
)

// Error is one reason a configuration is refused. It names the place a
// person has to edit: the file (and line), the resource and the field path.
type Error struct {
	File     string // the file as read, e.g. /etc/gateway/route.yaml
	Line     int    // 1-based line of the offending value; 0 when unknown
	Resource string // "HTTPRoute default/quotes", or "document 2" before the kind is known
	Field    string // e.g. spec.rules[0].matches[1].path.type; empty for the whole document
	Msg      string
}

func (e *Error) Error() string { return place(e.File, e.Line, e.Resource, e.Field) + e.Msg }

// Errors is every reason a set of files is refused, in file order, so that
// one run shows a person all they have to fix.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Notice is something accepted but not acted upon: a field or kind this
// gateway does not implement, a reference that does not resolve. Notices are
// logged at load so nothing is ignored silently.
type Notice struct {
	File     string
	Line     int
	Resource string
	Field    string
	Msg      string
}

func (n Notice) String() string { return place(n.File, n.Line, n.Resource, n.Field) + n.Msg }

func place(file string, line int, resource, field string) string {
	var b strings.Builder
	b.WriteString(file)
	if line > 0 {
		fmt.Fprintf(&b, ":%d", line)
	}
	b.WriteString(": ")
	if resource != "" {
		b.WriteString(resource + ": ")
	}
	if field != "" {
		b.WriteString(field + ": ")
	}
	return b.String()
}

// notImplemented is the message of a notice for a field that is ignored.
const notImplemented = "not implemented by this gateway; ignored"
