// Package testdisk gives tests a disk they can fill for real: a small
// tmpfs of their own. Import it from _test.go files only.
package testdisk

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (such as "8m") on dir, unmounted when the
// test ends, and reports whether it could: mounting needs root (or
// CAP_SYS_ADMIN), and the caller skips what needs a full disk without it.
// Under CI, which runs as root, not being able to is a failure: the
// full-disk tests must run there.
func Mount(t testing.TB, dir, size string) bool {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot mount a small disk under CI (.ci/run runs as root): %v: %s", err, out)
		}
		t.Logf("cannot mount a small disk here (needs root): %v: %s", err, out)
		return false
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return true
}

// Small returns a new folder on a tmpfs of size, or skips the test.
func Small(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if !Mount(t, dir, size) {
		t.Skip("no disk of its own to fill")
	}
	return dir
}

// Fill writes a file at path until its disk is full, to the last byte.
func Fill(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for _, n := range []int{len(buf), 4096, 512, 1} {
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fill the disk: %v", err)
				}
				break
			}
		}
	}
}
