package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/testdisk"
	"github.com/svc-project/svc/internal/testwait"
)

// TestProbeReplay replays the outside probe's findings (docs/security.md,
// What we tested and how) against a real server, black-box: bodies,
// queries, matching, budgets, orders, disks, files and connections. It
// fails if any of them comes back.
// The full disk needs a tmpfs of its own, so root: without it that probe
// is skipped and the others run on a temporary folder.
func TestProbeReplay(t *testing.T) {
	// Not parallel: it sets the process's umask.
	old := syscall.Umask(0) // the loosest: any mode left to the umask shows
	defer syscall.Umask(old)
	dir, disk := probeDisk(t)
	beta := addBrand(t, dir, "--domain", "beta.example")
	alpha := addBrand(t, dir, "--domain", "alpha.example")
	s := startServer(t, "--data", dir, "--anon-new-products-per-address", "5", "--anon-max-lines", "3",
		"--max-conns-per-address", "8", "--rate-limit", "0")
	view, buy := s.url+"/api/collect/product-view", s.url+"/api/collect/product-purchase"
	mustPost := func(what, url, key string, body any, want int) map[string]any {
		t.Helper()
		st, m, err := post(url, key, "", body)
		if err != nil || st != want {
			t.Fatalf("%s: %d %v %v, want %d", what, st, m, err, want)
		}
		return m
	}

	rawPost := func(url, body string) (int, string) {
		t.Helper()
		res, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	refused := func(what string, status int, body string, fields ...string) {
		t.Helper()
		if status != 400 {
			t.Errorf("%s: %d %s, want 400", what, status, body)
		}
		for _, f := range fields {
			if !strings.Contains(body, `"field":"`+f+`"`) {
				t.Errorf("%s: the 400 does not name %s: %s", what, f, body)
			}
		}
	}

	t.Run("1 invalid UTF-8 in a body is refused, naming the field", func(t *testing.T) {
		for _, id := range []string{"u\xff\xfeX", "u\xc0\xafX"} {
			st, body := rawPost(view, `{"brand_id":"`+beta.BrandID+`","product":{"product_id":"`+id+`"}}`)
			refused(fmt.Sprintf("product_id %q", id), st, body, "product.product_id")
		}
	})

	t.Run("2 repeated and case-variant names are refused", func(t *testing.T) {
		st, body := rawPost(view, `{"brand_id":"br_other","brand_id":"`+beta.BrandID+`","product":{"product_id":"p"}}`)
		refused("brand_id twice", st, body, "brand_id")
		st, body = rawPost(view, `{"BRAND_ID":"`+beta.BrandID+`","product":{"Product_Id":"p"}}`)
		refused("names in another case", st, body, "brand_id", "product.product_id")
		st, body = rawPost(buy, `{"brand_id":"`+beta.BrandID+`","order":{"order_id":"case","items":[{"product_id":"p","quantity":1,"QUANTITY":7}]}}`)
		refused("quantity and QUANTITY", st, body, "order.items[0].quantity")
	})

	t.Run("3 a repeated query parameter is refused", func(t *testing.T) {
		res, err := http.Get(s.url + "/api/svc/product-proof?brand_id=" + beta.BrandID + "&brand_id=br_other&product_id=p&window_views=7&window_views=abc")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		refused("brand_id and window_views twice", res.StatusCode, string(b), "brand_id", "window_views")
	})

	t.Run("4 an anonymous view cannot take another brand's page", func(t *testing.T) {
		const page = "https://beta.example/p/bag-7"
		named := func(brand, product string) map[string]any {
			b := viewBody(brand, product)
			b["product"].(map[string]any)["url"] = page
			return b
		}
		mustPost("B's keyed view", view, beta.APIKey, named(beta.BrandID, "bag-7"), 200)
		mustPost("A's anonymous view of B's page", view, "", named(alpha.BrandID, "squat"), 200)
		mustPost("B's keyed view again", view, beta.APIKey, named(beta.BrandID, "bag-7"), 200)
		m := mustPost("enrich B's page", s.url+"/api/svc/product-enrich", "", map[string]any{"context": map[string]any{"url": page}}, 200)
		if m["matched"] != true || !strings.Contains(fmt.Sprint(m["match"]), "bag-7") {
			t.Errorf("B's page after A's anonymous view: %v", m)
		}
	})

	t.Run("6 an anonymous purchase cannot squat a real order id", func(t *testing.T) {
		mustPost("anonymous A-90001", buy, "", purchaseBody(beta.BrandID, "A-90001", "bag-7"), 200)
		if m := mustPost("keyed A-90001", buy, beta.APIKey, purchaseBody(beta.BrandID, "A-90001", "bag-7"), 200); m["status"] != "accepted" {
			t.Errorf("the brand's keyed order after an anonymous one: %v", m)
		}
	})

	t.Run("5 anonymous traffic is budgeted by what it creates", func(t *testing.T) {
		big := purchaseBody(beta.BrandID, "big", "n-0")
		items := big["order"].(map[string]any)["items"].([]any)
		for i := 1; i < 4; i++ {
			items = append(items, map[string]any{"product_id": fmt.Sprint("n-", i), "quantity": 1})
		}
		big["order"].(map[string]any)["items"] = items
		if m := mustPost("an anonymous order of 4 lines", buy, "", big, 400); !strings.Contains(fmt.Sprint(m), "order.items") {
			t.Errorf("the 400 does not name order.items: %v", m)
		}
		mustPost("a keyed order of 4 lines", buy, beta.APIKey, big, 200)
		limited := false
		for i := 0; i < 10 && !limited; i++ {
			st, m, err := post(view, "", "", viewBody(beta.BrandID, fmt.Sprint("new-", i)))
			if err != nil {
				t.Fatal(err)
			}
			limited = st == 429 && strings.Contains(fmt.Sprint(m), "--anon-new-products-per-address")
		}
		if !limited {
			t.Error("10 new products from one address with a budget of 5: none refused")
		}
		mustPost("a keyed view of a new product", view, beta.APIKey, viewBody(beta.BrandID, "keyed-new"), 200)
	})

	t.Run("8 net/http's own errors are problem+json", func(t *testing.T) {
		u, _ := url.Parse(s.url)
		for _, req := range []string{
			"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n",
			"POST /api/collect/product-view HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
			"POST /api/collect/product-view HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n",
		} {
			res, body, err := rawRequest(u.Host, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode < 400 || res.Header.Get("Content-Type") != "application/problem+json" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%.40q: %d %v %s", req, res.StatusCode, res.Header, body)
			}
		}
	})

	t.Run("10 /metrics answers no CORS; connections per address are bounded", func(t *testing.T) {
		req, _ := http.NewRequest("GET", s.url+"/metrics", nil)
		req.Header.Set("Origin", "https://evil.example")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("/metrics answers Access-Control-Allow-Origin %q", got)
		}
		u, _ := url.Parse(s.url)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range 12 { // at most 8 stay open: the last is refused
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		last := conns[len(conns)-1]
		_ = last.SetReadDeadline(time.Now().Add(testwait.Timeout))
		refused := false
		if res, err := http.ReadResponse(bufio.NewReader(last), nil); err == nil {
			res.Body.Close()
			refused = res.StatusCode == 429
		}
		if !refused {
			t.Error("12 connections from one address with a limit of 8: none refused")
		}
	})

	t.Run("7 a full disk makes writes 503 and the node not ready, until there is room", func(t *testing.T) {
		if !disk {
			t.Skip("no disk of its own to fill (needs root to mount a tmpfs)")
		}
		filler := filepath.Join(dir, "filler")
		testdisk.Fill(t, filler)
		var st int
		var m map[string]any
		for i := 0; ; i++ {
			if i == 5000 {
				t.Fatal("5,000 writes on a full disk all stored")
			}
			body := viewBody(beta.BrandID, fmt.Sprint("disk-", i))
			body["product"].(map[string]any)["title"] = strings.Repeat("t", 500)
			var err error
			if st, m, err = post(view, beta.APIKey, "", body); err != nil {
				t.Fatal(err)
			} else if st != 200 {
				break
			}
		}
		if st != 503 || !strings.HasSuffix(fmt.Sprint(m["type"]), "#unavailable") {
			t.Errorf("a write on a full disk: %d %v, want 503 unavailable", st, m)
		}
		res, err := http.Get(s.url + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
			t.Errorf("/readyz on a full disk: %d %v", res.StatusCode, res.Header)
		}
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		testwait.Eventually(t, func() error {
			res, err := http.Get(s.url + "/readyz")
			if err != nil {
				return err
			}
			res.Body.Close()
			return status("/readyz once the disk has room", res.StatusCode, 200)
		})
		mustPost("a write once the disk has room", view, beta.APIKey, viewBody(beta.BrandID, "after-disk"), 200)
	})

	t.Run("9 every file svc writes is private", func(t *testing.T) {
		export, backup := filepath.Join(dir, "export.jsonl"), filepath.Join(dir, "backup.db")
		runCmd(t, "export", "--data", dir, "--brand", beta.BrandID, "--out", export)
		runCmd(t, "backup", "--data", dir, "--to", backup)
		s.stop() // a clean stop saves the snapshot
		err := <-s.done
		s.done <- err // for the cleanup
		want := map[string]os.FileMode{dir: 0o700}
		for _, name := range []string{"svc.db", "svc.db-wal", "svc.db-shm", "serve.lock", snapshotFile, "export.jsonl", "backup.db"} {
			want[filepath.Join(dir, name)] = 0o600
		}
		for path, mode := range want {
			fi, err := os.Stat(path)
			if errors.Is(err, os.ErrNotExist) && strings.Contains(path, ".db-") {
				continue // the log and shared memory go at a clean stop
			} else if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != mode {
				t.Errorf("%s: %v, want %v", filepath.Base(path), fi.Mode().Perm(), mode)
			}
		}
	})
}

// probeDisk returns the data folder of the replay: a tmpfs of its own, so
// that it can be filled, when mounting one is allowed (true), else a
// temporary folder.
func probeDisk(t *testing.T) (string, bool) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, testdisk.Mount(t, dir, "16m")
}

// rawRequest sends bytes as a request on a new connection and reads the answer.
func rawRequest(addr, request string) (*http.Response, []byte, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	if _, err := io.WriteString(c, request); err != nil {
		return nil, nil, err
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}
