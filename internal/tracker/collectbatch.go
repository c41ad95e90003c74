package tracker

import (
	"github.com/google/uuid"

	"github.com/svc-project/svc"
)

// CollectBatch records several valid, stamped events of one request in one
// commit of the group commit, in their order, as Collect records one: each
// write's Result says what became of it (a duplicate or a replay of one
// before it in the batch included), and the events are durable when it
// returns nil. Returns EUNAVAILABLE when closing or when the store cannot
// write; nothing of the batch is stored then.
func (t *Tracker) CollectBatch(ws []*svc.Write) error {
	if len(ws) == 0 {
		return nil
	}
	for _, w := range ws {
		id, err := uuid.NewV7()
		if err != nil {
			return svc.Internal(err)
		}
		_, meta := w.Event()
		meta.EventID = id.String()
	}
	return t.batch.submit(ws...)
}
