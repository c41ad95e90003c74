package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A scan hands rows over in reused batches: ranges of many
// batches, read ahead of a slow fn, come in order, each row once. With one
// connection for two readers, the reader of the second range may get it
// first: it must keep what its channel cannot take and let the connection
// go, or the reader of the first range, which fn waits for, never gets it
// (as when a start scans the products beside the views).
func TestScanBatchesInOrderOnOneConnection(t *testing.T) {
	batch, queued := scanBatch, scanQueued
	scanBatch, scanQueued = 16, 2
	defer func() { scanBatch, scanQueued = batch, queued }()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Dense ids in the first two of the 64 ranges the bounds make, about
	// ten batches each, and one far id that sets the ranges' width.
	const dense, far = 340, 64 * 170 // as in the queries below
	for _, q := range []string{"CREATE TABLE t (x INTEGER PRIMARY KEY)",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 340) INSERT INTO t SELECT x FROM c",
		"INSERT INTO t VALUES (10880)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.SetMaxOpenConns(1)
	// Two scans at once, several times: the connection goes to a waiting
	// reader chosen at random each time one lets it go.
	scan := func() error {
		var want int64 = 1
		err := scanRangesInto(ctx, db, "SELECT min(x), max(x) FROM t WHERE x >= ?", "SELECT x FROM t WHERE x >= ? AND x < ? ORDER BY x", 1, nil,
			func(rows *sql.Rows, dst *int64) error { return rows.Scan(dst) },
			func(x int64) error {
				if x != want {
					return fmt.Errorf("%d after %d", x, want-1)
				}
				if want++; want == dense+1 {
					want = far
				}
				if x%40 == 0 {
					time.Sleep(time.Millisecond) // the readers run ahead
				}
				return nil
			})
		if err == nil && want != far+1 {
			err = fmt.Errorf("ended at %d", want-1)
		}
		return err
	}
	for range 10 {
		errs := make(chan error, 2)
		go func() { errs <- scan() }()
		go func() { errs <- scan() }()
		for range 2 {
			select {
			case err := <-errs:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the scans are stuck")
			}
		}
	}
}
