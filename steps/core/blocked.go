package core

import (
	"errors"
	"fmt"
)

// BlockedError stops a scenario before the behaviour it is named for: a precondition the target does not
// meet, or a surface it does not have. The harness reports it as blocked, apart from failures.
type BlockedError struct{ Cause string }

func (e *BlockedError) Error() string { return "blocked: " + e.Cause }

// Blockedf makes a BlockedError.
func Blockedf(format string, args ...any) error {
	return &BlockedError{Cause: fmt.Sprintf(format, args...)}
}

// IsBlocked tells whether err is, or wraps, a BlockedError.
func IsBlocked(err error) bool {
	var b *BlockedError
	return errors.As(err, &b)
}
