//go:build !linux

package sqlite

import "os"

// syncData is File.Sync where fdatasync is not offered (on macOS, Sync
// asks the drive itself to flush, F_FULLFSYNC).
func syncData(f *os.File) error { return f.Sync() }
