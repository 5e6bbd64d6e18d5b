package main

import (
	"errors"
	"flag"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
)

// authPolicyFlags are UAA's lockoutPolicy and passwordPolicy as flags, with
// UAA's defaults; policies reads them once the flags are parsed.
func authPolicyFlags(fs *flag.FlagSet) (policies func() (accounts.LockoutPolicy, accounts.PasswordPolicy, error)) {
	after := fs.Int("lockout-after-failures", accounts.DefaultLockoutAfterFailures,
		"refuse a user's sign-in after this many failures within --lockout-count-within, whatever the password (UAA's lockoutAfterFailures; 0 turns lockout off)")
	within := fs.Duration("lockout-count-within", accounts.DefaultLockoutCountWithin,
		"count sign-in failures within this window (UAA's countFailuresWithin)")
	period := fs.Duration("lockout-period", accounts.DefaultLockoutPeriod,
		"refuse a locked-out user's sign-in for this long after the latest failure (UAA's lockoutPeriodSeconds)")
	// UAA's passwordPolicy applies to users created through POST /Users.
	minLen := fs.Int("password-min-length", 0, "a new user's password has at least this many characters, and at least 1 (UAA's passwordPolicy minLength)")
	maxLen := fs.Int("password-max-length", accounts.DefaultPasswordMaxLength, "a new user's password has at most this many characters (maxLength; bcrypt also limits it to 72 bytes)")
	upper := fs.Int("password-require-uppercase", 0, "a new user's password has at least this many upper-case letters (requireUpperCaseCharacter)")
	lower := fs.Int("password-require-lowercase", 0, "a new user's password has at least this many lower-case letters (requireLowerCaseCharacter)")
	digit := fs.Int("password-require-digit", 0, "a new user's password has at least this many digits (requireDigit)")
	special := fs.Int("password-require-special", 0, "a new user's password has at least this many punctuation marks or symbols (requireSpecialCharacter)")
	return func() (accounts.LockoutPolicy, accounts.PasswordPolicy, error) {
		var lp accounts.LockoutPolicy
		var pp accounts.PasswordPolicy
		if *after < 0 || *within <= 0 || *period <= 0 {
			return lp, pp, errors.New("--lockout-after-failures must not be negative, --lockout-count-within and --lockout-period must be positive")
		}
		if *maxLen < 1 {
			return lp, pp, errors.New("--password-max-length must be at least 1")
		}
		lp = accounts.LockoutPolicy{AfterFailures: *after, CountWithin: *within, Period: *period}
		if *after == 0 {
			lp.AfterFailures = -1 // off
		}
		pp = accounts.PasswordPolicy{MinLength: *minLen, MaxLength: *maxLen,
			RequireUpperCase: *upper, RequireLowerCase: *lower, RequireDigit: *digit, RequireSpecial: *special}
		return lp, pp, nil
	}
}
