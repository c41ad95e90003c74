package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// rollupsRebuild builds the dashboard's rollups again from the stored
// events (docs/dashboard.md, Rollups). A server may run meanwhile: each
// day is rebuilt in one transaction, against the writes of that day.
func rollupsRebuild(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("rollups rebuild")
	if err := parse(fs, args); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	rs, ok := store.(rollup.Store)
	if !ok {
		return fmt.Errorf("this store keeps no rollups")
	}
	start := time.Now()
	err = rs.RebuildRollups(ctx, false, func(day time.Time, done, total int) {
		fmt.Fprintf(env.stderr, "rollups: %s built (%d of %d days)\n", day.Format(time.DateOnly), done, total)
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "rollups rebuilt from the stored events in %s\n", time.Since(start).Round(time.Millisecond))
	return err
}

// buildRollups builds the rollups from the stored events on the first
// start of a version that keeps them, logging each day; a start that
// stops half-way resumes after the last day built.
func buildRollups(ctx context.Context, store svc.Store, log *slog.Logger) error {
	rs, ok := store.(rollup.Store)
	if !ok {
		return nil
	}
	built, err := rs.RollupsBuilt(ctx)
	if err != nil || built {
		return err
	}
	log.Info("rollups: building them from the stored events, once (docs/dashboard.md)")
	start := time.Now()
	err = rs.RebuildRollups(ctx, true, func(day time.Time, done, total int) {
		log.Info("rollups: day built", "day", day.Format(time.DateOnly), "done", done, "of", total)
	})
	if err != nil {
		return fmt.Errorf("rollups: building them from the stored events: %w (the next start resumes)", err)
	}
	log.Info("rollups: built", "took", time.Since(start).Round(time.Millisecond))
	return nil
}
