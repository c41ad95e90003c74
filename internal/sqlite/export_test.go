package sqlite

import "context"

// SetFolds turns the checkpoint loop's folds of views into the rollups on
// or off, for benchmarks that measure the writer and the fold apart.
func SetFolds(on bool) { noFolds.Store(!on) }

// FoldViews folds the views not yet in the rollups.
func (s *Store) FoldViews(ctx context.Context) error { return s.foldViews(ctx) }
