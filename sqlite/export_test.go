package sqlite

// SetListReadStarted makes f run as each reading of the ListBundles stream starts, for the tests
// of package sqlite_test; the returned function puts back what was there.
func SetListReadStarted(f func()) (restore func()) {
	old := listReadStarted
	listReadStarted = f
	return func() { listReadStarted = old }
}
