package dashboard

import "testing"

// The probe's order, 10 lines of 1,000,000 units at 10¹² (within the
// bounds), is a revenue of 10¹⁹, past int64: it is written as it is, not
// as -9,223,372,036,854,775,808.00.
func TestMoneyPastInt64(t *testing.T) {
	t.Parallel()
	revenue := 0.0
	for range 10 {
		revenue += 1e12 * 1e6
	}
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{revenue, "10,000,000,000,000,000,000.00 EUR"},
		{500 * 1e6 * 1e12, "500,000,000,000,000,000,000.00 EUR"}, // the largest order
		{1234.5, "1,234.50 EUR"},
		{0.995, "0.99 EUR"}, // 0.995 is 0.99499… as a float
		{99.999, "100.00 EUR"},
		{0, "0.00 EUR"},
		{-0.001, "0.00 EUR"},
	} {
		if got := money(tt.v, "EUR"); got != tt.want {
			t.Errorf("money(%g) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
