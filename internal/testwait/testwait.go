// Package testwait lets a test wait for what happens in the background: it
// checks a condition again and again instead of sleeping for a fixed time.
// Import it from _test.go files only.
package testwait

import (
	"testing"
	"time"
)

// Timeout is how long Eventually waits before it fails the test. It only
// keeps a broken test from hanging: it is no speed the code must reach, and
// it is long, so that a loaded machine slows a test down but never fails it
// (30 s was not enough for 200 writes on 2 cores at a load of 26).
const Timeout = 2 * time.Minute

// Eventually calls check until it returns nil. If it has not after Timeout,
// it fails t with check's last error, which should say what was seen.
func Eventually(t testing.TB, check func() error) {
	t.Helper()
	deadline := time.Now().Add(Timeout)
	pause := time.Millisecond
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still not so after %s: %v", Timeout, err)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
