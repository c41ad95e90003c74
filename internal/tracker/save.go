package tracker

import (
	"context"

	"github.com/svc-project/svc/internal/snapshot"
	"github.com/svc-project/svc/internal/window"
)

// loader is what a rebuild or a restore fills besides the engine.
func (t *Tracker) loader() snapshot.Loader {
	return snapshot.Loader{Refs: t.products, Catalog: t.cat, Price: t.learnPurchaseLine, Now: t.cfg.Now, Logger: t.cfg.Logger}
}

// saveSnapshot writes the counts to the snapshot file.
func (t *Tracker) saveSnapshot(ctx context.Context) error {
	return t.snaps.Save(ctx, t.engine.Load(), kept{t: t}, commitPath{t}, t.erasure.Load())
}

// commitPath lets a save cut each shard while no batch is committed or
// waits to be applied (lockCommitted, batch.go).
type commitPath struct{ t *Tracker }

func (c commitPath) Lock(shard int) *window.Engine {
	if c.t.beforeCut != nil {
		c.t.beforeCut(shard)
	}
	c.t.batch.lockCommitted()
	if c.t.cfg.ChangeFeed != nil && !c.t.catchUpForCut() {
		return nil // the save gives up; the next one tries again
	}
	return c.t.engine.Load()
}

func (c commitPath) Unlock() {
	if c.t.cfg.ChangeFeed != nil {
		c.t.changes.mu.Unlock()
	}
	c.t.batch.unlockCommitted()
}
