package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/testwait"
	"github.com/svc-project/svc/internal/viewblock"
)

// startNode runs svc serve on the PostgreSQL store as a separate process.
func startNode(t *testing.T, store string) (*exec.Cmd, string) {
	t.Helper()
	return startProcess(t, "--store", store)
}

// figures reads two of a product's counts (fields of its proof) from
// every node: -1 where the node does not know the product (yet).
func figures(t *testing.T, nodes []string, brand, product, a, b string) [][2]float64 {
	t.Helper()
	out := make([][2]float64, len(nodes))
	for i, n := range nodes {
		out[i] = [2]float64{-1, -1}
		res, err := http.Get(fmt.Sprintf("%s/api/svc/product-proof?brand_id=%s&product_id=%s", n, brand, product))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if json.NewDecoder(res.Body).Decode(&m) == nil && res.StatusCode == 200 {
			out[i] = [2]float64{m[a].(float64), m[b].(float64)}
		}
		res.Body.Close()
	}
	return out
}

// allAgree returns an error unless every node's proof shows want for the
// two fields.
func allAgree(t *testing.T, nodes []string, brand, product, a, b string, want [2]int) error {
	got := figures(t, nodes, brand, product, a, b)
	for _, c := range got {
		if c != [2]float64{float64(want[0]), float64(want[1])} {
			return fmt.Errorf("the nodes show %v (%s, %s), want %d and %d on each", got, a, b, want[0], want[1])
		}
	}
	return nil
}

// allShow returns an error unless every node's proof shows the views and
// purchases.
func allShow(t *testing.T, nodes []string, brand, product string, views, purchases int) error {
	return allAgree(t, nodes, brand, product, "views", "purchases", [2]int{views, purchases})
}

// postStatus posts a view and returns an error unless it is answered with
// want.
func postStatus(url, key string, body any, want int) error {
	st, _, err := post(url, key, "", body)
	if err != nil {
		return err
	}
	return status(url, st, want)
}

// TestNodesShareOnePostgreSQL runs three svc processes on one database:
// admin changes and events reach every node, a purchase
// or an Idempotency-Key sent to two nodes counts once, and a node killed
// with SIGKILL loses nothing it acknowledged.
func TestNodesShareOnePostgreSQL(t *testing.T) {
	t.Parallel()
	store := pgtest.URL(t)
	b := addBrand(t, "", "--store", store, "--domain", "shop.example")
	nodes := make([]string, 3)
	cmds := make([]*exec.Cmd, 3)
	for i := range nodes {
		cmds[i], nodes[i] = startNode(t, store)
	}

	// Brands and keys made by an admin command reach every node.
	b2 := addBrand(t, "", "--store", store)
	for _, n := range nodes {
		testwait.Eventually(t, func() error {
			return postStatus(n+"/api/collect/product-view", b2.APIKey, viewBody(b2.BrandID, "x"), 200)
		})
	}
	var k struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal([]byte(runCmd(t, "keys", "create", "--store", store, "--brand", b.BrandID, "--json")), &k)
	runCmd(t, "keys", "revoke", "--store", store, "--brand", b.BrandID, "--key", b.KeyPrefix)
	for _, n := range nodes {
		testwait.Eventually(t, func() error {
			return postStatus(n+"/api/collect/product-view", k.APIKey, viewBody(b.BrandID, "x"), 200)
		})
		testwait.Eventually(t, func() error {
			return postStatus(n+"/api/collect/product-view", b.APIKey, viewBody(b.BrandID, "x"), 401)
		})
	}
	var list []struct {
		BrandID string `json:"brand_id"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "list", "--store", store, "--json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("brands list --store: %+v %v", list, err)
	}

	// A view on one node, of a product no node has seen, shows on the others.
	if st, _, _ := post(nodes[0]+"/api/collect/product-view", "", "first", viewBody(b.BrandID, "p1")); st != 200 {
		t.Fatalf("first view: %d", st)
	}
	testwait.Eventually(t, func() error { return allShow(t, nodes, b.BrandID, "p1", 1, 0) })

	// A product page seen on one node is matched by enrichment on the
	// others: its keyed view's title and address are verified, as the
	// change feed hands them on (docs/security.md, Provenance).
	page := viewBody(b.BrandID, "p-page")
	page["product"].(map[string]any)["url"] = "https://shop.example/p/page"
	page["product"].(map[string]any)["title"] = "Nordic Wool Blanket"
	if st, _, _ := post(nodes[0]+"/api/collect/product-view", k.APIKey, "", page); st != 200 {
		t.Fatalf("page view: %d", st)
	}
	for _, n := range nodes[1:] {
		testwait.Eventually(t, func() error {
			_, m, err := post(n+"/api/svc/search-enrich", "", "", map[string]any{"results": []any{map[string]any{"url": "https://www.shop.example/p/page/?utm_source=x"}}})
			if r, _ := m["results"].([]any); err != nil || len(r) != 1 || r[0].(map[string]any)["matched"] != true {
				return fmt.Errorf("node %s does not match the page seen on node 0: %v %v", n, m, err)
			}
			return nil
		})
	}

	// Clients send to every node at once; each purchase goes to two nodes,
	// and every tenth view is replayed on another node.
	const workers = 6
	var acked, ackedViews, ackedOrders atomic.Int64
	ackedViews.Store(1)
	var nodeDown [3]atomic.Bool
	errs := make(chan error, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n0, n1 := (w+i)%3, (w+i+1)%3
				if nodeDown[n0].Load() || nodeDown[n1].Load() {
					n0, n1 = 0, 1 // node 2 is the one killed
				}
				id := fmt.Sprintf("w%d-%d", w, i)
				if i%5 == 4 {
					var both sync.WaitGroup
					var status [2]int
					var first [2]string
					for j, n := range []int{n0, n1} {
						both.Add(1)
						go func() {
							defer both.Done()
							st, m, _ := post(nodes[n]+"/api/collect/product-purchase", "", "", purchaseBody(b.BrandID, id, "p1"))
							status[j] = st
							first[j], _ = m["event_id"].(string)
						}()
					}
					both.Wait()
					if status[0] == 200 && status[1] == 200 {
						if first[0] != first[1] {
							errs <- fmt.Errorf("order %s on two nodes: two event ids %s and %s", id, first[0], first[1])
							return
						}
						ackedOrders.Add(1)
						acked.Add(1)
					}
					continue
				}
				st, m, _ := post(nodes[n0]+"/api/collect/product-view", "", id, viewBody(b.BrandID, "p1"))
				if st != 200 {
					continue // the node was killed: the event may or may not be stored
				}
				ackedViews.Add(1)
				acked.Add(1)
				if i%10 == 0 {
					st2, m2, _ := post(nodes[n1]+"/api/collect/product-view", "", id, viewBody(b.BrandID, "p1"))
					if st2 == 200 && m2["event_id"] != m["event_id"] {
						errs <- fmt.Errorf("key %s replayed on another node: event %v, first %v", id, m2["event_id"], m["event_id"])
						return
					}
				}
			}
		}()
	}
	testwait.Eventually(t, func() error { return atLeast("acknowledged", acked.Load(), 300) })
	nodeDown[2].Store(true)
	if err := cmds[2].Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
		t.Fatal(err)
	}
	start := acked.Load()
	testwait.Eventually(t, func() error { return atLeast("acknowledged", acked.Load(), start+300) })
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// The truth is in the database: every acknowledged event is there, and
	// every live node comes to show exactly what is there.
	conn, err := pgx.Connect(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var views, orders int
	var p1 int64
	err = conn.QueryRow(context.Background(), `SELECT (SELECT id FROM products WHERE brand_id = $1 AND product_id = 'p1'),
		(SELECT count(*) FROM purchase_events WHERE brand_id = $1)`, b.BrandID).Scan(&p1, &orders)
	if err != nil {
		t.Fatal(err)
	}
	// Views are stored in blocks (docs/decisions.md, Views in blocks).
	rows, err := conn.Query(context.Background(), "SELECT data FROM view_blocks")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		vs, err := viewblock.Decode(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v.Brand == b.BrandID && v.Product == p1 {
				views++
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("acknowledged %d views and %d orders; stored %d and %d", ackedViews.Load(), ackedOrders.Load(), views, orders)
	if views < int(ackedViews.Load()) || orders < int(ackedOrders.Load()) {
		t.Fatalf("acknowledged %d views and %d orders, but only %d and %d are stored", ackedViews.Load(), ackedOrders.Load(), views, orders)
	}
	live := nodes[:2]
	testwait.Eventually(t, func() error { return allShow(t, live, b.BrandID, "p1", views, orders) })
	// The killed node, restarted, rebuilds the same counts.
	_, nodes[2] = startNode(t, store)
	if err := allShow(t, nodes, b.BrandID, "p1", views, orders); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
}
