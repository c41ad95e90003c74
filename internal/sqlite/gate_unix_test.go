//go:build unix

package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two stores writing one file take turns at the write lock (writeGate).
// SQLite's busy handler alone polls for the lock with sleeps of up to
// 100 ms, and a store committing without pause took it again between two
// polls: beside a server under load, another process's six commits waited
// for 100 to 226 of the server's, and one failed after its busy timeout.
func TestWritersTakeTurns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	busy, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	other, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	write := func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE write_check SET payload = randomblob(16)")
		return err
	}
	var commits atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := busy.inTx(ctx, write); err != nil {
					t.Error(err)
					return
				}
				commits.Add(1)
			}
		})
	}
	for commits.Load() < 20 {
		time.Sleep(time.Millisecond)
	}
	// While the other waits for the lock, the busy store finishes the
	// transaction it holds, and may have begun one more before the other
	// took the gate: two commits, and some counted late by goroutines the
	// scheduler left waiting (4 under eight spinning processes). Without
	// the gate: over 10,000.
	var most int64
	for range 20 {
		before := commits.Load()
		if err := other.inTx(ctx, write); err != nil {
			t.Fatal(err)
		}
		most = max(most, commits.Load()-before)
	}
	t.Logf("at most %d of the busy store's commits while the other waited for one", most)
	if most > 10 {
		t.Errorf("the busy store committed %d times while the other waited for one commit, want at most 10", most)
	}
}
