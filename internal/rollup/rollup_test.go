package rollup

import (
	"math/big"
	"testing"

	"github.com/svc-project/svc"
)

func ptr[T any](v T) *T { return &v }

func TestOrderValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		o     Order
		want  string // micros
		count bool
	}{
		{"priced lines", Order{Total: ptr(99.0), Lines: []Line{{1, 2, ptr(10.5)}, {2, 1, ptr(0.1)}}}, "21100000", true},
		{"a line without a price: total_value", Order{Total: ptr(44.0), Lines: []Line{{1, 2, nil}, {2, 1, ptr(3.0)}}}, "44000000", true},
		{"no total_value: the priced lines", Order{Lines: []Line{{1, 2, nil}, {2, 1, ptr(3.0)}}}, "3000000", true},
		{"a cancelled line leaves the rule", Order{Total: ptr(44.0), Lines: []Line{{1, 0, nil}, {2, 1, ptr(3.0)}}}, "3000000", true},
		{"every line cancelled", Order{Total: ptr(44.0), Lines: []Line{{1, 0, ptr(1.0)}}}, "0", false},
	} {
		v, ok := c.o.Value()
		if v.String() != c.want || ok != c.count {
			t.Errorf("%s: %s, %v; want %s, %v", c.name, v, ok, c.want, c.count)
		}
	}
}

// The largest order the collect limits allow is summed exactly: no bound
// of the rollups is below the event's.
func TestLargestOrdersAreExact(t *testing.T) {
	t.Parallel()
	var d Delta
	o := Order{Brand: "br_1", At: 3 * Hour}
	for i := range svc.MaxOrderItems {
		o.Lines = append(o.Lines, Line{Product: int64(1 + i%2), Quantity: svc.MaxQuantity, Price: ptr(float64(svc.MaxAmount))})
	}
	for range 1000 {
		d.AddOrder(o, 1)
	}
	want := new(big.Int).Mul(big.NewInt(1000*svc.MaxOrderItems*svc.MaxQuantity), big.NewInt(svc.MaxAmount*Micros))
	if got := d.rows[Key{"br_1", 0, 3 * Hour}].Revenue; got.Cmp(want) != 0 {
		t.Errorf("revenue %s, want %s", got, want)
	}
	if p := d.rows[Key{"br_1", 1, 3 * Hour}]; p.Purchases != 1000 || p.Units != 1000*svc.MaxQuantity*svc.MaxOrderItems/2 {
		t.Errorf("product row %+v", p.Row)
	}
}

func TestFloor(t *testing.T) {
	t.Parallel()
	if Floor(-1, Hour) != -Hour || Floor(Hour+5, Hour) != Hour || Floor(Day-1, Day) != 0 {
		t.Error("Floor")
	}
}
