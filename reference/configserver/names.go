package configserver

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// slashToken stands for "/" in an application name or label, as in Spring.
const slashToken = "(_)"

// decodeName decodes one escaped path element that names an application,
// profile or label (part), and rejects anything that could escape the
// repository or be read as something else: ASCII percent-escapes (%2F, %2E,
// %00, ...), control characters, whitespace, backslashes, absolute paths and
// "." or ".." components. Escapes of non-ASCII UTF-8 bytes are decoded.
func decodeName(part, escaped string) (string, error) {
	bad := func(why string, args ...any) error {
		return badRequest("Bad %s %q: %s", part, escaped, fmt.Sprintf(why, args...))
	}
	decoded, why := unescape(escaped)
	if why != "" {
		return "", bad("%s", why)
	}
	if why := badRune(decoded); why != "" {
		return "", bad("%s", why)
	}
	name := strings.ReplaceAll(decoded, slashToken, "/")
	if why := badPath(name); why != "" {
		return "", bad("%s", why)
	}
	return name, nil
}

// unescape decodes %XX escapes, allowing only escapes of non-ASCII bytes: a
// client never needs to escape a safe ASCII character, and an escaped one
// (above all %2F) is how path tricks are smuggled past routers. Note that
// URL.EscapedPath also escapes unsafe characters sent raw (space, {, |, ...),
// so those are refused here too.
func unescape(s string) (string, string) {
	if !strings.Contains(s, "%") {
		return s, ""
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", "malformed percent-escape"
		}
		c := unhex(s[i+1])<<4 | unhex(s[i+2])
		switch {
		case c == '/':
			return "", "an encoded slash (%2F) is not allowed; write (_) for /"
		case c < utf8.RuneSelf:
			return "", fmt.Sprintf("the character %q (%s) is not allowed", rune(c), s[i:i+3])
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), ""
}

func badRune(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == 0:
			return "NUL characters are not allowed"
		case unicode.IsControl(r):
			return fmt.Sprintf("control character %U is not allowed", r)
		case unicode.IsSpace(r):
			return "whitespace is not allowed"
		case r == '\\':
			return "backslashes are not allowed"
		}
	}
	return ""
}

// badPath checks a name that may contain "/" (from "(_)") as a relative path.
func badPath(name string) string {
	if name == "" {
		return "it is empty"
	}
	if strings.HasPrefix(name, "/") {
		return "an absolute path is not allowed"
	}
	for c := range strings.SplitSeq(name, "/") { // no slice: this runs for every request
		switch c {
		case "":
			return "an empty path component is not allowed"
		case ".", "..":
			return fmt.Sprintf("a %q path component is not allowed", c)
		}
	}
	return ""
}

// badRefName applies git's reference-name rules (git check-ref-format) to a
// label, so a label is either a possible ref, a commit id, or a 400.
func badRefName(label string) string {
	if i := strings.IndexAny(label, "~^:?*["); i >= 0 {
		return fmt.Sprintf("%q is not allowed in a git reference name", label[i])
	}
	if strings.Contains(label, "..") {
		return `".." is not allowed in a git reference name`
	}
	if strings.Contains(label, "@{") || label == "@" {
		return `"@{" is not allowed in a git reference name`
	}
	for _, c := range strings.Split(label, "/") {
		if strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return "a git reference name component cannot start with . or end with .lock"
		}
	}
	if strings.HasSuffix(label, ".") {
		return "a git reference name cannot end with ."
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
