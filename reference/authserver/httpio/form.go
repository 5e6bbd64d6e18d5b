package httpio

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strings"
)

// maxPlainFields bounds the fields of a form read in place: far under
// net/url's limit (10000 by default), over which ParseForm reads nothing.
const maxPlainFields = 16

// CheckTokenForm returns the token and scopes fields of check_token's form,
// as r.PostFormValue does. A body as resource servers send it is read in
// place, without ParseForm's copy of the body, its map and slices and its
// unescaping of a 1 KiB token (a tenth of check_token's time); any other
// goes through ParseForm.
func CheckTokenForm(r *http.Request) (token, scopes string) {
	if token, scopes, ok := plainForm(r); ok {
		return token, scopes
	}
	return r.PostFormValue("token"), r.PostFormValue("scopes")
}

// plainForm reads the token and scopes fields of a POST body when ParseForm
// would find them verbatim: an urlencoded body that LimitBody read and
// nothing has read since, holding no '%' or '+' (nothing to unescape), no
// ';' (ParseForm drops a field with one) and few fields, net/url's limit on
// fields being its default. ok is false for any other request.
func plainForm(r *http.Request) (token, scopes string, ok bool) {
	bb, buffered := r.Body.(*bufferedBody)
	if !buffered || r.Method != http.MethodPost || r.PostForm != nil ||
		r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		return "", "", false
	}
	body, unread := bb.unread()
	if !unread || bytes.IndexByte(body, '%') >= 0 || bytes.IndexByte(body, '+') >= 0 ||
		bytes.IndexByte(body, ';') >= 0 || bytes.Count(body, []byte{'&'}) >= maxPlainFields || fieldLimitSet() {
		return "", "", false
	}
	var haveToken, haveScopes bool
	for rest := body; len(rest) > 0; {
		var field []byte
		field, rest, _ = bytes.Cut(rest, []byte{'&'})
		name, value, _ := bytes.Cut(field, []byte{'='})
		switch {
		case !haveToken && string(name) == "token":
			token, haveToken = string(value), true
		case !haveScopes && string(name) == "scopes":
			scopes, haveScopes = string(value), true
		}
	}
	return token, scopes, true
}

// fieldLimitSet reports whether GODEBUG sets urlmaxqueryparams, net/url's
// limit on the fields of a form, in the environment (read on every call:
// os.Setenv changes it for net/url too) or as the program's default.
func fieldLimitSet() bool {
	return defaultFieldLimitSet || strings.Contains(os.Getenv("GODEBUG"), "urlmaxqueryparams")
}

var defaultFieldLimitSet = func() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "DefaultGODEBUG" && strings.Contains(s.Value, "urlmaxqueryparams") {
			return true
		}
	}
	return false
}()

// CloneValues is a copy of v that shares no slice with it.
func CloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = slices.Clone(vs)
	}
	return c
}
