package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// The writer leaves checkpoints to the checkpointer up to the backstop,
// and a checkpoint copies every committed frame while nobody reads.
func TestCheckpointBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, migratedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pages int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&pages); err != nil || pages != backstopCheckpointPages {
		t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want %d", pages, err, backstopCheckpointPages)
	}
	now := time.Now()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i)}}
		ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", i), Time: now, ReceivedAt: now}
		if err := s.Append(ctx, []*svc.Write{{View: ev, MayRegister: true}}); err != nil {
			t.Fatal(err)
		}
	}
	frames, copied, err := s.checkpoint(ctx)
	if err != nil || frames == 0 || copied != frames {
		t.Fatalf("checkpoint: %d frames, %d copied, %v", frames, copied, err)
	}
}
