package tracker

import (
	"context"

	"github.com/google/uuid"

	"github.com/svc-project/svc"
)

// Cancel records a valid cancellation of an order, or a refund of some of
// its units, from a brand's server or a shop platform's webhook: the one
// path by which purchases leave the counts, the prices paid and the store
// (svc.CancelOrder). c.Result says what became of it. Returns EUNAVAILABLE
// when the store cannot write, or ECONFLICT for an idempotency key reused
// with another body.
//
// It commits on its own, between two batches of the group commit, and
// takes the units out of the counts before any later batch is applied:
// cancellations are rare, and this way a snapshot's cut or a recount sees
// the store and the counts agree, as they do for batches.
func (t *Tracker) Cancel(ctx context.Context, c *svc.CancelEvent) error {
	id, err := uuid.NewV7()
	if err != nil {
		return svc.Internal(err)
	}
	c.Meta.EventID, c.Meta.Keyed = id.String(), true
	if c.Meta.ReceivedAt.IsZero() {
		c.Meta.ReceivedAt = t.cfg.Now().UTC()
	}
	if c.Meta.Time.IsZero() {
		c.Meta.Time = c.Meta.ReceivedAt
	}
	t.batch.lockCommitted()
	defer t.batch.unlockCommitted()
	if t.cfg.ChangeFeed != nil {
		t.changes.mu.Lock() // no poll between the commit and the counts
		defer t.changes.mu.Unlock()
	}
	err = t.store.CancelOrder(context.WithoutCancel(ctx), c)
	if t.cfg.ChangeFeed != nil && err == nil {
		// What the cancellation takes out, the node must have counted: an
		// order another node committed is counted first, as it was ordered,
		// from the feed, which leaves this cancellation out (it is the
		// node's own).
		t.pollChangesLocked(context.WithoutCancel(ctx))
	}
	if err != nil {
		if svc.ErrorCode(err) == svc.EINTERNAL {
			// The store cannot write: not ready until it can, as after a
			// failed batch (Ready).
			t.batch.failing.Add(1)
			err = &svc.Error{Code: svc.EUNAVAILABLE, Message: "the store cannot write; retry later with the same Idempotency-Key", Err: err}
		}
		return err
	}
	if c.Result.Err != nil {
		return c.Result.Err
	}
	t.applyCancels(c.Result.Removed)
	return nil
}

// applyCancels takes what cancellations removed out of the counts and the
// prices paid.
func (t *Tracker) applyCancels(removed []svc.CancelRecord) {
	now, e, side := t.cfg.Now(), t.engine.Load(), t.beside.Load()
	for _, r := range removed {
		e.RemovePurchase(r.Product, r.Time, r.Orders, r.Units, now)
		side.purchases.CancelLine(r)
		t.cat.Cancel(r, now)
	}
}
