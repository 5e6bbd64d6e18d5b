package accounts

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultPasswordMaxLength is UAA's password.policy.maxLength.
const DefaultPasswordMaxLength = 255

// PasswordPolicy is UAA's passwordPolicy, checked on the passwords of users
// created through the provisioning API (POST /Users). The zero value is
// UAA's default: at least one character, at most DefaultPasswordMaxLength
// (a zero MaxLength means that), no character class required. Lengths count
// characters; bcrypt also limits a password to 72 bytes.
type PasswordPolicy struct {
	MinLength, MaxLength int
	// Each requires at least that many characters of its class: upper
	// case and lower case letters, decimal digits, and special characters
	// (punctuation and symbols; a space is not special, as in UAA).
	RequireUpperCase, RequireLowerCase, RequireDigit, RequireSpecial int
}

// WithDefaults is p with UAA's default maximum length when it has none,
// or an error naming what is out of range.
func (p PasswordPolicy) WithDefaults() (PasswordPolicy, error) {
	if min(p.MinLength, p.MaxLength, p.RequireUpperCase, p.RequireLowerCase, p.RequireDigit, p.RequireSpecial) < 0 {
		return p, errors.New("authserver: the password policy's numbers must not be negative")
	}
	p.MaxLength = cmp.Or(p.MaxLength, DefaultPasswordMaxLength)
	if p.MinLength > p.MaxLength {
		return p, fmt.Errorf("authserver: the password policy's minimum length %d exceeds its maximum %d", p.MinLength, p.MaxLength)
	}
	if need := p.RequireUpperCase + p.RequireLowerCase + p.RequireDigit + p.RequireSpecial; need > p.MaxLength {
		return p, fmt.Errorf("authserver: the password policy requires %d characters of given classes, more than its maximum length %d", need, p.MaxLength)
	}
	return p, nil
}

// errPassword is a password the policy refuses: UAA's invalid_password
// (400), whose message names every rule broken.
type errPassword struct{ msg string }

func (e *errPassword) Error() string { return e.msg }

// IsInvalidPassword reports whether err is a password the policy refuses.
func IsInvalidPassword(err error) bool { return errors.As(err, new(*errPassword)) }

// check returns an errPassword naming every rule password breaks, in UAA's
// words and order; the minimum length is at least one, as in UAA.
func (p PasswordPolicy) check(password string) error {
	var broken []string
	n := utf8.RuneCountInString(password)
	if minLen := max(1, p.MinLength); n < minLen {
		broken = append(broken, fmt.Sprintf("Password must be at least %d characters in length.", minLen))
	}
	if maxLen := cmp.Or(p.MaxLength, DefaultPasswordMaxLength); n > maxLen {
		broken = append(broken, fmt.Sprintf("Password must be no more than %d characters in length.", maxLen))
	}
	for _, c := range []struct {
		need  int
		class string
		in    func(rune) bool
	}{
		{p.RequireUpperCase, "uppercase", unicode.IsUpper},
		{p.RequireLowerCase, "lowercase", unicode.IsLower},
		{p.RequireDigit, "digit", unicode.IsDigit},
		{p.RequireSpecial, "special", isSpecial},
	} {
		if c.need > 0 && countRunes(password, c.in) < c.need {
			broken = append(broken, fmt.Sprintf("Password must contain at least %d %s characters.", c.need, c.class))
		}
	}
	if len(password) > maxSecretBytes {
		broken = append(broken, fmt.Sprintf("Password must be no more than %d bytes in length.", maxSecretBytes))
	}
	if len(broken) > 0 {
		return &errPassword{strings.Join(broken, " ")}
	}
	return nil
}

// isSpecial: ASCII punctuation and symbols, and their kin beyond ASCII.
func isSpecial(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

func countRunes(s string, in func(rune) bool) int {
	n := 0
	for _, r := range s {
		if in(r) {
			n++
		}
	}
	return n
}
