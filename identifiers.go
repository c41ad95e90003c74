package svc

import (
	"math"
	"unicode/utf8"
)

// GTIN14 returns a GTIN of 8, 12, 13 or 14 digits as the GTIN-14 it
// stands for (zeros in front), and false when it is not one: other
// lengths, other characters, or a wrong check digit. UPC-A, EAN-13 and
// EAN-8 of one product are then one string, so that shops writing them
// differently still meet.
func GTIN14(s string) (string, bool) {
	switch len(s) {
	case 8, 12, 13, 14:
	default:
		return "", false
	}
	var b [14]byte
	for i := range b {
		b[i] = '0'
	}
	copy(b[14-len(s):], s)
	sum := 0
	for i, c := range b {
		if c < '0' || c > '9' {
			return "", false
		}
		d := int(c - '0')
		if i == 13 {
			if (10-sum%10)%10 != d {
				return "", false
			}
			break
		}
		if i%2 == 0 { // GS1 weights, from the right: 3, 1, 3, ...
			d *= 3
		}
		sum += d
	}
	return string(b[:]), true
}

// normalGTIN returns the GTIN-14 of a valid given GTIN, else nil; Validate
// has reported a bad one.
func normalGTIN(v *string) *string {
	if v == nil {
		return nil
	}
	g, ok := GTIN14(*v)
	if !ok {
		return nil
	}
	return &g
}

const gtinMessage = "must be 8, 12, 13 or 14 digits with a valid check digit (GTIN-8, UPC-A, EAN-13 or GTIN-14)"

func (fe *fieldErrors) gtin(field string, v *string) {
	if v == nil {
		return
	}
	if _, ok := GTIN14(*v); !ok {
		fe.add(field, gtinMessage)
	}
}

// name checks a maker's name or part number: like an id, 1 to MaxIDLen
// characters without control characters.
func (fe *fieldErrors) name(field string, v *string) {
	switch {
	case v == nil:
	case *v == "" || utf8.RuneCountInString(*v) > MaxIDLen:
		fe.add(field, "must be 1 to %d characters", MaxIDLen)
	case hasControl(*v):
		fe.add(field, controlMessage)
	}
}

// identifiers checks the optional identifiers of a product. The fields'
// names are made only for the identifiers given: most events have none,
// and the three names were most of a view's validation allocations.
func (fe *fieldErrors) identifiers(prefix string, gtin, mpn, brand *string) {
	if gtin != nil {
		fe.gtin(prefix+"GTIN", gtin)
	}
	if mpn != nil {
		fe.name(prefix+"MPN", mpn)
	}
	if brand != nil {
		fe.name(prefix+"Brand", brand)
	}
}

func (fe *fieldErrors) confidence(field string, v *float64) {
	if v != nil && (math.IsNaN(*v) || *v < 0 || *v > 1) {
		fe.add(field, "must be a number from 0 to 1")
	}
}
