package sqlite

import (
	"os"
	"syscall"
)

// syncData is fdatasync: the log's data and its size, not its times,
// which the log does not need to be read back.
func syncData(f *os.File) error {
	return syscall.Fdatasync(int(f.Fd()))
}
