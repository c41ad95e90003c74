package insights

import "testing"

// Sums of money keep their cents where a float64 loses them, and do not
// overflow within the bounds.
func TestMoneyKeepsCents(t *testing.T) {
	t.Parallel()
	var probe Money // the probe's order, and one of 59.90
	for range 10 {
		probe.AddLine(1e12, 1000000)
	}
	probe.AddLine(59.9, 1)
	var tenths Money
	for range 10 {
		tenths.Add(0.1)
	}
	var largest Money // a million of the largest orders, and a cent
	for range 1000000 {
		largest.AddLine(1e12, 500*1000000)
	}
	largest.Add(0.01)
	var thirds Money // a price that is no float64, times units
	thirds.AddLine(0.3, 3)
	for _, tt := range []struct {
		name string
		m    Money
		want string
	}{
		{"10¹⁹ and 59.90", probe, "10000000000000000059.90"},
		{"0.1 ten times", tenths, "1.00"},
		{"10⁶ orders of 5×10²⁰ and a cent", largest, "500000000000000000000000000.01"},
		{"0.3 × 3", thirds, "0.90"},
	} {
		if got := tt.m.Text(2); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	if f := probe.Float64(); f != 1e19 {
		t.Errorf("Float64 = %g", f)
	}
}
