package httpapi_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/svc-project/svc/internal/testwait"
)

// smallDisk mounts a tmpfs of a few MiB in a temporary folder, so that a
// test fills a disk for real. It skips the test where mounting is not
// allowed (not root, no CAP_SYS_ADMIN).
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small disk here (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file at path until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill the disk: %v", err)
			}
			break
		}
	}
	// The last bytes, below a page of the file system.
	for _, n := range []int{4096, 512, 1} {
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
}

// Finding 7 of issue 18: on a full disk every write answered 500 and
// /readyz stayed 200. Writes now answer 503 unavailable with Retry-After,
// /readyz follows, and both recover once the disk has room again.
func TestFullDiskUnavailableAndNotReady(t *testing.T) {
	f := newFixtureIn(t, smallDisk(t))
	if r := f.do("GET", "/readyz", nil); r.status != 200 {
		t.Fatalf("readyz before: %d %s", r.status, r.body)
	}
	filler := filepath.Join(f.dir, "filler")
	fill(t, filler)
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
	r := f.do("GET", "/readyz", nil)
	if r.status != 503 || r.header.Get("Retry-After") == "" {
		t.Fatalf("readyz while the store cannot write: %d %s, want 503 with Retry-After", r.status, r.body)
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
	if r := f.do("POST", "/api/collect/product-view", view("br_open", "after", nil), "X-svc-Api-Key", f.keys["br_open"]); r.status != 200 {
		t.Fatalf("a write after the disk has room: %d %s", r.status, r.body)
	}
}
