package testwait_test

import (
	"errors"
	"testing"

	"github.com/svc-project/svc/internal/testwait"
)

func TestEventuallyReturnsOnceTheCheckPasses(t *testing.T) {
	calls := 0
	testwait.Eventually(t, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("check called %d times, want 3", calls)
	}
}
