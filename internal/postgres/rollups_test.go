package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/rollup"
)

// In a rolling upgrade, a node of the version before migration 00031
// writes an hour's sketch without its digest: the digest it leaves goes,
// so that the dashboard reads that sketch rather than trust a digest that
// is not its own. A node of this version writes both.
func TestOldNodeLeavesNoStaleDigest(t *testing.T) {
	url := pgtest.URL(t)
	s := open(t, url)
	br := brand(t, s)
	w := view(br, "p1", "")
	w.View.Context.SessionID = new("s1")
	if err := s.Append(ctx, []*svc.Write{w}); err != nil {
		t.Fatal(err)
	}
	from, to := time.Now().Add(-2*time.Hour), time.Now().Add(time.Hour)
	brandRow := func() (sums, rows rollup.Row) {
		t.Helper()
		if err := s.RollupHourSums(ctx, br, "", from, to, func(r rollup.Row) error { sums = r; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.RollupHours(ctx, br, "", from, to, func(r rollup.Row) error { rows = r; return nil }); err != nil {
			t.Fatal(err)
		}
		return sums, rows
	}
	sums, row := brandRow()
	if sums.ViewersSum == 0 || sums.ViewersSum != rollup.ViewersSum(row.Viewers) || sums.Viewers != nil {
		t.Fatalf("this version's digest %d, %d bytes read; want %d, none", sums.ViewersSum, len(sums.Viewers), rollup.ViewersSum(row.Viewers))
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The version before's write: views and viewers, not the digest.
	if _, err := conn.Exec(ctx, `UPDATE rollup_hours SET views = views + 1, viewers = viewers || '\x00'::bytea WHERE brand_id = $1 AND product = 0`, br); err != nil {
		t.Fatal(err)
	}
	sums, row = brandRow()
	if sums.ViewersSum != 0 || string(sums.Viewers) != string(row.Viewers) {
		t.Errorf("after an old node's write: digest %d, %d bytes read; want none, the sketch's %d", sums.ViewersSum, len(sums.Viewers), len(row.Viewers))
	}
	// A write of this version writes both again.
	w = view(br, "p1", "")
	w.View.Context.SessionID = new("s2")
	if err := s.Append(ctx, []*svc.Write{w}); err != nil {
		t.Fatal(err)
	}
	if sums, row = brandRow(); sums.ViewersSum != rollup.ViewersSum(row.Viewers) || sums.Viewers != nil {
		t.Errorf("after this version's write: digest %d, want %d", sums.ViewersSum, rollup.ViewersSum(row.Viewers))
	}
}
