package manifest

import "strings"

// PrefixMatch is the Gateway API's PathPrefix match: whole path elements,
// so /abc matches /abc and /abc/d but not /abcd; a trailing slash in the
// prefix is ignored.
func PrefixMatch(prefix, path string) bool {
	prefix = strings.TrimRight(prefix, "/")
	if prefix == "" {
		return true
	}
	return strings.HasPrefix(path, prefix) && (len(path) == len(prefix) || path[len(prefix)] == '/')
}
