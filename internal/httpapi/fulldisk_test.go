package httpapi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/testdisk"
	"github.com/svc-project/svc/internal/testwait"
)

// An outside probe found that on a full disk every write answered 500 and
// /readyz stayed 200. Writes now answer 503 unavailable with Retry-After,
// /readyz follows, and both recover once the disk has room again.
func TestFullDiskUnavailableAndNotReady(t *testing.T) {
	// Not parallel: run beside others under load it once saw /readyz 200
	// after a failed write (the readiness write check then found room).
	f := newFixtureIn(t, testdisk.Small(t, "8m"))
	if r := f.do("GET", "/readyz", nil); r.status != 200 {
		t.Fatalf("readyz before: %d %s", r.status, r.body)
	}
	filler := filepath.Join(f.dir, "filler")
	testdisk.Fill(t, filler)
	title := strings.Repeat("t", 500)
	var failed response
	for i := 0; ; i++ {
		if i == 5000 {
			t.Fatal("5,000 views on a full disk were all stored")
		}
		v := view("br_open", fmt.Sprintf("p-%d", i), nil)
		v["product"].(map[string]any)["title"] = title
		r := f.do("POST", "/api/collect/product-view", v, "X-svc-Api-Key", f.keys["br_open"])
		if r.status != 200 {
			failed = r
			break
		}
	}
	if failed.status != 503 || failed.header.Get("Retry-After") == "" || !strings.HasSuffix(failed.json(t)["type"].(string), "#unavailable") {
		t.Fatalf("a write on a full disk: %d Retry-After %q %s, want 503 unavailable with Retry-After", failed.status, failed.header.Get("Retry-After"), failed.body)
	}
	notReadyUntilRoom(t, f, filler, "a view")
	if r := f.do("POST", "/api/collect/product-view", view("br_open", "after", nil), "X-svc-Api-Key", f.keys["br_open"]); r.status != 200 {
		t.Fatalf("a write after the disk has room: %d %s", r.status, r.body)
	}
}

// Cancellations commit on a path of their own, beside the batches of
// events: one that the store could not write answered 503 while /readyz
// stayed 200. It now makes the node not ready, as a failed batch does.
func TestFullDiskCancelMakesTheNodeNotReady(t *testing.T) {
	// Not parallel, as TestFullDiskUnavailableAndNotReady.
	f := newFixtureIn(t, testdisk.Small(t, "8m"))
	filler := filepath.Join(f.dir, "filler")
	testdisk.Fill(t, filler)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	var failed response
	var body map[string]any
	for i := 0; ; i++ {
		if i == 5000 {
			t.Fatal("5,000 cancellations on a full disk were all stored")
		}
		// A cancellation of an order not seen yet is stored until it comes.
		body = map[string]any{"brand_id": "br_open", "order_id": fmt.Sprintf("o-%d-%s", i, strings.Repeat("x", 100))}
		if r := f.do("POST", cancelPath, body, key...); r.status != 200 {
			failed = r
			break
		}
	}
	if failed.status != 503 || failed.header.Get("Retry-After") == "" || !strings.HasSuffix(failed.json(t)["type"].(string), "#unavailable") {
		t.Fatalf("a cancellation on a full disk: %d Retry-After %q %s, want 503 unavailable with Retry-After", failed.status, failed.header.Get("Retry-After"), failed.body)
	}
	notReadyUntilRoom(t, f, filler, "a cancellation")
	if r := f.do("POST", cancelPath, body, key...); r.status != 200 {
		t.Fatalf("the cancellation again once the disk has room: %d %s", r.status, r.body)
	}
}

// notReadyUntilRoom checks that /readyz answers 503 with Retry-After
// after what failed, the disk full, and 200 again once filler is removed.
func notReadyUntilRoom(t *testing.T, f *fixture, filler, what string) {
	t.Helper()
	if r := f.do("GET", "/readyz", nil); r.status != 503 || r.header.Get("Retry-After") == "" {
		t.Fatalf("readyz after %s the store could not write: %d %s, want 503 with Retry-After", what, r.status, r.body)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, func() error {
		if r := f.do("GET", "/readyz", nil); r.status != 200 {
			return fmt.Errorf("readyz after the disk has room: %d %s", r.status, r.body)
		}
		return nil
	})
}
