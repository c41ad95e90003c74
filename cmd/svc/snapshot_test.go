package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// TestRestartLoadsTheSnapshot stops the server cleanly, which saves the
// counts, and starts it again: the proof is the same, and it comes from
// the snapshot, not from the events (one is removed behind the server's
// back, which a full replay would miss).
func TestRestartLoadsTheSnapshot(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	s := startServer(t, "--data", dir, "--rate-limit", "0")
	for i := range 30 {
		body := viewBody(b.BrandID, "p1")
		body["context"] = map[string]any{"session_id": fmt.Sprint("s", i%7)}
		if st, m, err := post(s.url+"/api/collect/product-view", "", "", body); err != nil || st != 200 {
			t.Fatalf("view: %d %v %v", st, m, err)
		}
	}
	for i := range 3 {
		if st, m, err := post(s.url+"/api/collect/product-purchase", "", "", purchaseBody(b.BrandID, fmt.Sprint("o", i), "p1")); err != nil || st != 200 {
			t.Fatalf("purchase: %d %v %v", st, m, err)
		}
	}
	before := proof(t, s.url, b.BrandID, "p1")
	s.stop()
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
	s.done <- nil // for the cleanup
	if _, err := os.Stat(filepath.Join(dir, snapshotFile)); err != nil {
		t.Fatalf("no snapshot after a clean stop: %v", err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "svc.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DELETE FROM view_blocks WHERE id = (SELECT min(id) FROM view_blocks)"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = startServer(t, "--data", dir, "--rate-limit", "0")
	after := proof(t, s.url, b.BrandID, "p1")
	for _, k := range []string{"views", "viewers", "purchases"} {
		if after[k] != before[k] {
			t.Errorf("%s: %v after the restart, %v before", k, after[k], before[k])
		}
	}
	if before["views"] != 30.0 || before["viewers"] != 7.0 || before["purchases"] != 3.0 {
		t.Errorf("before the restart: %v", before)
	}
}
