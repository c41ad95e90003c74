package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// svcProcess runs the svc command as its own process (this test binary,
// see TestMain) and returns its output.
func svcProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SVC_TEST_RUN_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("svc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestBackupWhileServing backs up while clients send events: the copy is
// sound, holds every event acknowledged before the backup started, and
// nothing that was not acknowledged by the end.
func TestBackupWhileServing(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	s := startServer(t, "--data", dir, "--rate-limit", "0")
	var mu sync.Mutex
	var acked []string // event ids, in the order their 200s arrived
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path, body := "/api/collect/product-view", viewBody(b.BrandID, "p1")
				if i%4 == 3 {
					path, body = "/api/collect/product-purchase", purchaseBody(b.BrandID, svc.NewBrandID(), "p1")
				}
				st, m, err := post(s.url+path, b.APIKey, "", body)
				if err != nil || st != 200 {
					t.Errorf("%s: %d %v %v", path, st, m, err)
					return
				}
				mu.Lock()
				acked = append(acked, m["event_id"].(string))
				mu.Unlock()
			}
		}()
	}
	testwait.Eventually(t, func() error { mu.Lock(); defer mu.Unlock(); return atLeast("acknowledged", int64(len(acked)), 200) })
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	copyPath := filepath.Join(t.TempDir(), "backup.db")
	out := svcProcess(t, "backup", "--data", dir, "--to", copyPath)
	close(stop)
	wg.Wait()
	if !strings.Contains(out, "backed up to "+copyPath) {
		t.Fatalf("backup said %q", out)
	}

	restored := t.TempDir()
	if err := os.Rename(copyPath, filepath.Join(restored, sqlite.FileName)); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), restored)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if res, err := store.IntegrityCheck(context.Background()); err != nil || res != "ok" {
		t.Fatalf("integrity_check of the copy: %q %v", res, err)
	}
	inCopy := map[string]bool{}
	err = store.ExportEvents(context.Background(), b.BrandID, func(e svc.ExportedEvent) error {
		if e.View != nil {
			inCopy[e.View.Meta.EventID] = true
		} else {
			inCopy[e.Purchase.Meta.EventID] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range before {
		if !inCopy[id] {
			t.Fatalf("event %s was acknowledged before the backup but is not in the copy", id)
		}
	}
	all := map[string]bool{}
	for _, id := range acked {
		all[id] = true
	}
	for id := range inCopy {
		if !all[id] {
			t.Fatalf("the copy has event %s that was never acknowledged", id)
		}
	}
	t.Logf("%d events acknowledged before the backup, %d in the copy, %d by the end", len(before), len(inCopy), len(acked))
	if _, err := store.Brand(context.Background(), b.BrandID); err != nil {
		t.Fatalf("the brand is not in the copy: %v", err)
	}
}

func TestBackupRefusesPostgres(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"backup", "--store", "postgres://db/svc", "--to", "x.db"}, noEnv, &strings.Builder{}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup of a PostgreSQL store: %v, want a pointer to pg_dump", err)
	}
}

// TestForgetSession erases a session through the CLI while the server runs:
// the proof drops to the other session's counts at the server's next
// look at the store, and the
// export no longer has the erased events.
func TestForgetSession(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	s := startServer(t, "--data", dir)
	send := func(path string, body map[string]any, key string) {
		t.Helper()
		if st, m, err := post(s.url+path, key, "", body); err != nil || st != 200 {
			t.Fatalf("%s: %d %v %v", path, st, m, err)
		}
	}
	withSession := func(body map[string]any, session string) map[string]any {
		body["context"] = map[string]any{"session_id": session}
		return body
	}
	for i := 0; i < 3; i++ {
		send("/api/collect/product-view", withSession(viewBody(b.BrandID, "p1"), "sess-a"), b.APIKey)
	}
	send("/api/collect/product-purchase", withSession(purchaseBody(b.BrandID, "o-a", "p1"), "sess-a"), b.APIKey)
	send("/api/collect/product-view", withSession(viewBody(b.BrandID, "p1"), "sess-b"), b.APIKey)
	// An anonymous view with a clock an hour slow: it counts now, and the
	// export keeps the given time.
	old := viewBody(b.BrandID, "p1")
	old["context"] = map[string]any{"session_id": "sess-b", "timestamp": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}
	send("/api/collect/product-view", old, "")
	send("/api/collect/product-purchase", withSession(purchaseBody(b.BrandID, "o-b", "p1"), "sess-b"), b.APIKey)
	if m := proof(t, s.url, b.BrandID, "p1"); m["views"] != 5.0 || m["viewers"] != 2.0 || m["purchases"] != 2.0 {
		t.Fatalf("before: %v", m)
	}

	out := svcProcess(t, "forget", "--data", dir, "--brand", b.BrandID, "--session", "sess-a")
	if !strings.Contains(out, "erased 4 events") {
		t.Fatalf("forget said %q", out)
	}
	testwait.Eventually(t, func() error {
		if m := proof(t, s.url, b.BrandID, "p1"); m["views"] != 2.0 || m["viewers"] != 1.0 || m["purchases"] != 1.0 || m["units"] != 1.0 {
			return fmt.Errorf("after forget: %v, want sess-b's 2 views and 1 purchase", m)
		}
		return nil
	})
	// New events still count after the recount.
	send("/api/collect/product-view", withSession(viewBody(b.BrandID, "p1"), "sess-c"), b.APIKey)
	if m := proof(t, s.url, b.BrandID, "p1"); m["views"] != 3.0 || m["viewers"] != 2.0 {
		t.Fatalf("after a new view: %v", m)
	}

	file := filepath.Join(t.TempDir(), "export.jsonl")
	svcProcess(t, "export", "--data", dir, "--brand", b.BrandID, "--out", file)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var types []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			EventID string `json:"event_id"`
			BrandID string `json:"brand_id"`
			Product *struct {
				ProductID string `json:"product_id"`
			} `json:"product"`
			Order *struct {
				OrderID string `json:"order_id"`
				Items   []struct {
					ProductID string `json:"product_id"`
					Quantity  int    `json:"quantity"`
				} `json:"items"`
			} `json:"order"`
			Context struct {
				SessionID string    `json:"session_id"`
				Timestamp time.Time `json:"timestamp"`
			} `json:"context"`
			ReceivedAt     time.Time  `json:"received_at"`
			Keyed          bool       `json:"keyed"`
			GivenTimestamp *time.Time `json:"given_timestamp"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		if line.Context.SessionID == "sess-a" {
			t.Fatalf("the export still has an erased event: %s", sc.Bytes())
		}
		if line.BrandID != b.BrandID || line.EventID == "" || line.ReceivedAt.IsZero() || line.Context.Timestamp.IsZero() {
			t.Fatalf("incomplete line %s", sc.Bytes())
		}
		switch {
		case line.Type == "view" && line.Product != nil && line.Product.ProductID == "p1" && line.Order == nil:
		case line.Type == "purchase" && line.Order != nil && line.Order.OrderID == "o-b" && line.Order.Items[0].Quantity == 1 && line.Product == nil:
		default:
			t.Fatalf("bad line %s", sc.Bytes())
		}
		if (line.GivenTimestamp != nil) != (!line.Keyed) || line.Keyed && line.GivenTimestamp != nil {
			t.Fatalf("given_timestamp should be set only on the anonymous view with the slow clock: %s", sc.Bytes())
		}
		types = append(types, line.Type)
	}
	if strings.Join(types, ",") != "view,view,view,purchase" {
		t.Fatalf("exported %v, want sess-b's two views, sess-c's, then o-b", types)
	}
}

// A session with one event is erased in the singular.
func TestForgetOneEvent(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	s := startServer(t, "--data", dir)
	body := viewBody(b.BrandID, "p1")
	body["context"] = map[string]any{"session_id": "sess-1"}
	if st, m, err := post(s.url+"/api/collect/product-view", b.APIKey, "", body); err != nil || st != 200 {
		t.Fatalf("view: %d %v %v", st, m, err)
	}
	if out := runCmd(t, "forget", "--data", dir, "--brand", b.BrandID, "--session", "sess-1"); !strings.HasPrefix(out, "erased 1 event of session") {
		t.Fatalf("forget said %q", out)
	}
}

// backup --to into a folder that does not exist says so, rather than
// SQLite's "unable to open database file".
func TestBackupToAMissingFolder(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	addBrand(t, dir)
	missing := filepath.Join(t.TempDir(), "nope")
	err := run(context.Background(), []string{"backup", "--data", dir, "--to", filepath.Join(missing, "copy.db")}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "the folder "+missing+" does not exist") {
		t.Fatalf("backup into a missing folder: %v", err)
	}
}
