//go:build unix

package sqlite

import "syscall"

// diskFree returns the bytes free to unprivileged writers on the disk of
// dir, and whether it could tell.
func diskFree(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
