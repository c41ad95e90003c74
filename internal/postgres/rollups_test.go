package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres"
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

// hourViewers returns the brand's hour rows' views and estimated viewers,
// as the dashboard reads them (a reading folds the queued viewers first).
func hourViewers(t *testing.T, s *postgres.Store, br string) (views int64, viewers uint64) {
	t.Helper()
	err := s.RollupHours(ctx, br, "", time.Now().Add(-2*time.Hour), time.Now().Add(time.Hour), func(r rollup.Row) error {
		sk, err := rollup.Sketch(r.Viewers)
		views, viewers = views+r.Views, viewers+sk.Estimate()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return views, viewers
}

func queued(t *testing.T, url, br string) (n int64) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM rollup_viewers WHERE brand_id = $1", br).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// unfolded opens a store that does not fold on its own, with a brand.
func unfolded(t *testing.T) (url string, s *postgres.Store, br string) {
	t.Helper()
	url = pgtest.URL(t)
	s = open(t, url)
	postgres.StopFolds(s)
	return url, s, brand(t, s)
}

// appendSessionViews appends n views of the brand's products p0 to
// p(products-1) from sessions s0 to s(sessions-1), in turn.
func appendSessionViews(t *testing.T, s *postgres.Store, br string, n, products, sessions int) {
	t.Helper()
	var batch []*svc.Write
	for i := range n {
		w := view(br, fmt.Sprint("p", i%products), "")
		w.View.Context.SessionID = new(fmt.Sprint("s", i%sessions))
		batch = append(batch, w)
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
}

// An Append queues its views' sessions for the hour rows' sketches rather
// than rewrite each sketch; a reading folds them in first.
func TestViewersWaitForAFold(t *testing.T) {
	url, s, br := unfolded(t)
	appendSessionViews(t, s, br, 6, 2, 3)
	if n := queued(t, url, br); n != 6 { // a view each, for its product's row and its brand's
		t.Fatalf("%d sessions queued, want 6", n)
	}
	if views, viewers := hourViewers(t, s, br); views != 6 || viewers != 3 {
		t.Fatalf("the brand's hours count %d views of %d viewers, want 6 of 3", views, viewers)
	}
	if n := queued(t, url, br); n != 0 {
		t.Fatalf("%d sessions still queued after a reading", n)
	}
}

// A session erased before its views' sessions are folded in is not added
// to the sketches after: the erasure makes the hour's sketch again from
// the views left, and the queued sessions go.
func TestErasedSessionNotFoldedBack(t *testing.T) {
	_, s, br := unfolded(t)
	appendSessionViews(t, s, br, 4, 1, 2)
	if _, err := s.ForgetSession(ctx, br, "s0"); err != nil {
		t.Fatal(err)
	}
	if err := s.FoldViewers(ctx); err != nil {
		t.Fatal(err)
	}
	if views, viewers := hourViewers(t, s, br); views != 2 || viewers != 1 {
		t.Fatalf("after the erasure the brand's hours count %d views of %d viewers, want 2 of 1", views, viewers)
	}
}

// Two nodes append views of one brand's products while both fold, over
// and over: the folds lock the rows in the order the appends do, so no
// transaction deadlocks, and every session queued is folded in once.
func TestFoldsBesideAppendsOfTwoNodes(t *testing.T) {
	url := pgtest.URL(t)
	nodes := []*postgres.Store{open(t, url), open(t, url)}
	br := brand(t, nodes[0])
	const rounds, perRound, sessions = 40, 10, 300
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for n, s := range nodes {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for r := range rounds {
				var batch []*svc.Write
				for i := range perRound {
					w := view(br, fmt.Sprint("p", (r+i)%7), "")
					w.View.Context.SessionID = new(fmt.Sprint("s", (n*rounds*perRound+r*perRound+i)%sessions))
					batch = append(batch, w)
				}
				if err := s.Append(ctx, batch); err != nil {
					errs <- fmt.Errorf("node %d, round %d: %w", n, r, err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range rounds {
				if err := s.FoldViewers(ctx); err != nil {
					errs <- fmt.Errorf("node %d's fold: %w", n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	views, viewers := hourViewers(t, nodes[1], br)
	if views != 2*rounds*perRound {
		t.Errorf("the brand's hours count %d views, want %d", views, 2*rounds*perRound)
	}
	// The sketch's estimate of 300 sessions, all but exact at this size.
	if viewers < sessions-3 || viewers > sessions+3 {
		t.Errorf("the brand's hours count %d viewers, want about %d", viewers, sessions)
	}
	if n := queued(t, url, br); n != 0 {
		t.Errorf("%d sessions still queued after a reading", n)
	}
}
