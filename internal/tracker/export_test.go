package tracker

import "context"

// PollChanges runs one poll of the change feed now, so that a test of
// tracker_test need not wait for the next one.
func (t *Tracker) PollChanges(ctx context.Context) { t.pollChanges(ctx) }
