package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// Views reach the rollups after their commit, not in it (docs/storage.md,
// Views in blocks): the checkpoint loop, and any read of the rollups,
// folds the blocks written since the last fold into them, many commits in
// one transaction. A product's hour row is then read and written once a
// fold, not once a commit: under load that was half of the writer's CPU
// a view. view_rollups holds the largest block id folded; block ids grow
// in commit order, so every block at or under it is in the rollups, and an
// erasure or expiry takes out of them only the views of such blocks.

// foldBlocks is the most blocks a fold's transaction reads, so that it
// holds the writer a few milliseconds at most.
const foldBlocks = 256

// noFolds stops the checkpoint loop's folds, for the benchmarks that
// measure the writer and the fold apart (export_test.go).
var noFolds atomic.Bool

func foldedUpTo(ctx context.Context, q queryer) (int64, error) {
	var folded int64
	err := q.QueryRowContext(ctx, "SELECT folded FROM view_rollups").Scan(&folded)
	return folded, err
}

// foldViews adds the views of the blocks not yet folded to the rollups.
func (s *Store) foldViews(ctx context.Context) error {
	var pending bool
	if err := s.r.QueryRowContext(ctx, "SELECT coalesce((SELECT max(id) FROM view_blocks), 0) > (SELECT folded FROM view_rollups)").Scan(&pending); err != nil || !pending {
		return err
	}
	for more := true; more; {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			folded, err := foldedUpTo(ctx, tx)
			if err != nil {
				return err
			}
			d := &rollup.Delta{}
			var dec viewblock.Decoder
			var buf []viewblock.View
			n, last := 0, folded
			err = eachBlock(ctx, tx, func(id int64, data []byte) error {
				if buf, err = dec.Decode(data, buf[:0], viewblock.NoIDs); err != nil {
					return fmt.Errorf("sqlite: view block %d: %w", id, err)
				}
				for i := range buf {
					d.AddView(rollupView(&buf[i]), 1)
				}
				n, last = n+1, id
				return nil
			}, "SELECT id, data FROM view_blocks WHERE id > ? ORDER BY id LIMIT ?", folded, foldBlocks)
			if err != nil {
				return err
			}
			more = n == foldBlocks
			if n == 0 {
				return nil
			}
			if err := rollup.Apply(ctx, s.rollupTx(tx), d); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, "UPDATE view_rollups SET folded = ?", last)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// The rollups' reads fold first, so that they hold every committed view.

// RollupHours calls fn with the hour rows of a brand ("" product) or one
// of its products, from up to to, oldest first.
func (s *Store) RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	if err := s.foldViews(ctx); err != nil {
		return err
	}
	return s.reads.RollupHours(ctx, brandID, productID, from, to, fn)
}

// RollupCountries returns the brand's country rows of the days in [from, to).
func (s *Store) RollupCountries(ctx context.Context, brandID string, from, to time.Time) ([]rollup.CountryRow, error) {
	if err := s.foldViews(ctx); err != nil {
		return nil, err
	}
	return s.reads.RollupCountries(ctx, brandID, from, to)
}

// RollupArms calls sessions and order with the brand's experiment arms
// (rollup.Store).
func (s *Store) RollupArms(ctx context.Context, brandID string, sessions func(arm string, n int64), order func(arm, session string, value float64, saw bool) error) error {
	if err := s.foldViews(ctx); err != nil {
		return err
	}
	return s.reads.RollupArms(ctx, brandID, sessions, order)
}
