package core

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is text from a target made safe for a terminal: every control character but the newline and the
// tab (escape sequences that would move the cursor, retitle the window, write the clipboard; C1 controls),
// and the bidirectional overrides that reorder what is shown, are written as Go escapes (\x1b, \u202e); bytes
// that are not UTF-8 become U+FFFD.
func Printable(text string) string {
	if !needsEscape(text) {
		return text
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	var b strings.Builder
	b.Grow(len(text) + 16)
	for _, r := range text {
		if unsafeRune(r) {
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsEscape(text string) bool {
	if !utf8.ValidString(text) {
		return true
	}
	for _, r := range text {
		if unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune tells a rune a terminal would act on rather than show.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return unicode.Is(unicode.Cc, r)
}
