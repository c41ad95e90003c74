package tracker

import (
	"github.com/google/uuid"

	"github.com/svc-project/svc"
)

// SliceLines is the most order lines (a view or a cart is one) that one
// commit takes from a batch request. A larger batch is committed slice by
// slice, at most one slice a commit, after the other writes waiting: one
// brand's batches of 5,000 lines hold another brand's write for the commit
// in flight, not for the whole batch (docs/decisions.md, Batch collect).
const SliceLines = 1000

// CollectBatch records several valid, stamped events of one request, in
// their order, as Collect records one: each write's Result says what
// became of it (a duplicate or a replay of one before it in the batch
// included). The writes go in slices of at most SliceLines lines, each one
// commit of the group commit, and are durable when it returns nil.
// Returns EUNAVAILABLE when closing or when the store cannot write before
// the first slice is stored: nothing of the batch is stored then. When a
// later slice cannot be written, the slices before it stand, and each
// write of that slice and of the ones after has its Result.Err set: it is
// not stored, and may be sent again.
func (t *Tracker) CollectBatch(ws []*svc.Write) error {
	for _, w := range ws {
		id, err := uuid.NewV7()
		if err != nil {
			return svc.Internal(err)
		}
		_, meta := w.Event()
		meta.EventID = id.String()
	}
	submit := t.batch.submitSlice
	if sliceLen(ws, SliceLines) == len(ws) { // one slice: as any other request's write
		submit = func(ws []*svc.Write) error { return t.batch.submit(ws...) }
	}
	for done := 0; done < len(ws); {
		n := sliceLen(ws[done:], SliceLines)
		if err := submit(ws[done : done+n]); err != nil {
			if done == 0 {
				return err
			}
			for _, w := range ws[done:] {
				w.Result = svc.WriteResult{Err: err}
			}
			return nil
		}
		done += n
	}
	return nil
}

// sliceLen is how many of ws, at least one, make up to max lines.
func sliceLen(ws []*svc.Write, max int) int {
	n := 0
	for i := range ws {
		l := lines(ws[i : i+1])
		if i > 0 && n+l > max {
			return i
		}
		n += l
	}
	return len(ws)
}
