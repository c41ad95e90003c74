package matcheval

import (
	"os"
	"sync"
	"testing"
)

// Each set is read once per test binary, and each catalog the tests ask
// is built once: its titles are analysed at the first lookups and kept in
// the index's cache, so every test that evaluates the same catalog shares
// that work. Under -race the sets' reading and indexing were more than a
// third of this package's time.

// needData skips the test when the sets are not beside the checkout, or
// fails it in CI, where .ci/run finds them (docs/enrichment.md,
// Evaluation).
func needData(t testing.TB) {
	t.Helper()
	if _, err := DataDir(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

var walmartPairs = sync.OnceValues(func() ([]Pair, error) {
	dir, err := DataDir()
	if err != nil {
		return nil, err
	}
	return Load(dir)
})

func load(t *testing.T) []Pair {
	t.Helper()
	needData(t)
	pairs, err := walmartPairs()
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// heldTasks are Walmart–Amazon's held-out lookups, with the right-hand
// shop alone in the index ([false]) and with both shops ([true]).
var heldTasks = [2]func([]Pair) *Task{onceTask(false), onceTask(true)}

func onceTask(withLeft bool) func([]Pair) *Task {
	var once sync.Once
	var task *Task
	return func(pairs []Pair) *Task {
		once.Do(func() { task = NewTask(pairs, true, withLeft) })
		return task
	}
}

func heldTask(t *testing.T, withLeft bool) *Task {
	t.Helper()
	pairs := load(t)
	if withLeft {
		return heldTasks[1](pairs)
	}
	return heldTasks[0](pairs)
}

// heldShops holds each of ShopSetNames' held-out products as twelve
// shops, the set read and the catalog built once.
var heldShops = func() map[string]func() (*Shops, error) {
	shops := map[string]func() (*Shops, error){}
	for _, name := range ShopSetNames {
		shops[name] = sync.OnceValues(func() (*Shops, error) {
			s, err := LoadShopSet(name)
			if err != nil {
				return nil, err
			}
			return NewShops(s, 12, true), nil
		})
	}
	return shops
}()

func loadShops(t *testing.T, name string) *Shops {
	t.Helper()
	needData(t)
	task, err := heldShops[name]()
	if err != nil {
		t.Fatal(err)
	}
	return task
}
