package insights

import (
	"math"
	"math/big"
)

// Money is a sum of money as a double-double: hi, and lo the part of the
// exact sum that hi could not hold, kept exact by TwoSum and a fused
// multiply-add. It holds 106 bits, about 32 significant digits: a sum
// within the bounds (a price or total at most 10¹², a line at most
// 1,000,000 units) keeps its cents up to 10²⁹, a hundred million of the
// largest orders, and cannot overflow before 10³⁰⁸ (docs/dashboard.md,
// Money). A float64 alone keeps 15 to 16 digits: 10¹⁹ + 59.90 was 10¹⁹.
type Money struct{ hi, lo float64 }

// Add adds an amount.
func (m *Money) Add(v float64) {
	s, e := twoSum(m.hi, v)
	m.hi, m.lo = fastTwoSum(s, e+m.lo)
}

// AddLine adds a price times units, the product's rounding included.
func (m *Money) AddLine(price float64, units int64) {
	u := float64(units) // exact: at most 1,000,000
	p := price * u
	m.Add(p)
	m.Add(math.FMA(price, u, -p))
}

// AddMoney adds another sum.
func (m *Money) AddMoney(o Money) {
	m.Add(o.hi)
	m.Add(o.lo)
}

// Float64 is the sum rounded to a float64, for ratios and statistics.
func (m Money) Float64() float64 { return m.hi + m.lo }

// Text writes the sum in decimal, rounded to prec digits after the point.
func (m Money) Text(prec int) string {
	// 2,200 bits hold hi + lo exactly, whatever their exponents.
	x := new(big.Float).SetPrec(2200).SetFloat64(m.hi)
	x.Add(x, new(big.Float).SetFloat64(m.lo))
	return x.Text('f', prec)
}

// twoSum returns a + b rounded, and the rounding error: s + e = a + b
// exactly (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// fastTwoSum is twoSum for |a| ≥ |b| or a = 0.
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	return s, b - (s - a)
}
