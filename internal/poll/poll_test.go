package poll_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/poll"
	"github.com/svc-project/svc/internal/testwait"
)

// lockedBuffer is a log destination that the poller and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestEveryRefreshesLogsFailuresAndStops(t *testing.T) {
	var calls atomic.Int64
	var out lockedBuffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	stop := poll.Every(time.Millisecond, log, "reload things", func(ctx context.Context) error {
		if calls.Add(1) == 2 {
			return errors.New("store away")
		}
		return nil
	})
	testwait.Eventually(t, func() error {
		if calls.Load() < 3 {
			return errors.New("fewer than 3 refreshes")
		}
		return nil
	})
	stop()
	after := calls.Load()
	time.Sleep(20 * time.Millisecond)
	if n := calls.Load(); n != after {
		t.Fatalf("%d refreshes after stop returned", n-after)
	}
	if s := out.String(); !strings.Contains(s, "reload things") || !strings.Contains(s, "store away") {
		t.Fatalf("the failed refresh was not logged: %q", s)
	}
}
