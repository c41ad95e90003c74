//go:build !unix

package sqlite

// diskFree cannot tell where statfs is not available.
func diskFree(string) (uint64, bool) { return 0, false }
