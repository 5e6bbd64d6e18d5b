package scim

// What the tests of package scim_test (http_test.go), which run the whole
// server, set and read of this package's bounds.

// The bounds of a filtered GET /Users.
const (
	MaxFilterResults = maxFilterResults
	ScanBatch        = scanBatch
	MaxFilterBytes   = maxFilterBytes
)

// FilterUsersOf stores users in bulk (filterUsersOf).
var FilterUsersOf = filterUsersOf

// SetMaxScannedUsers bounds the users a filter may scan until restore.
func SetMaxScannedUsers(n int) (restore func()) {
	old := maxScannedUsers
	maxScannedUsers = n
	return func() { maxScannedUsers = old }
}
