package metrics

import (
	"reflect"
	"sync"
	"testing"
)

func TestBrandRefusals(t *testing.T) {
	var none *Metrics
	none.BrandRefused("br_a", "view", "invalid") // a nil *Metrics records nothing
	if got := none.BrandRefusals("br_a"); got != nil {
		t.Fatalf("nil metrics: %v", got)
	}
	m := New()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { m.BrandRefused("br_a", "view", "invalid") })
	}
	wg.Wait()
	m.BrandRefused("br_a", "purchase", "unauthorized")
	m.BrandRefused("br_b", "view", "forbidden")
	want := []BrandRefusal{{"view", "invalid", 10}, {"purchase", "unauthorized", 1}}
	if got := m.BrandRefusals("br_a"); !reflect.DeepEqual(got, want) {
		t.Fatalf("br_a: %v, want %v", got, want)
	}
	if got := m.BrandRefusals("br_c"); len(got) != 0 {
		t.Fatalf("br_c: %v, want none", got)
	}
}
