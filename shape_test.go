package svc

import (
	"regexp"
	"testing"
)

// TestShapes checks the hand-written checks of short codes against the
// regular expressions they replace, on every string of up to three bytes
// from a set of telling ones and on longer cases.
func TestShapes(t *testing.T) {
	checks := []struct {
		name string
		is   func(string) bool
		re   *regexp.Regexp
	}{
		{"country", isCountry, regexp.MustCompile(`^[A-Z]{2}$`)},
		{"locale", isLocale, regexp.MustCompile(`^[a-z]{2}-[A-Z]{2}$`)},
		{"currency", isCurrency, regexp.MustCompile(`^[A-Z]{3}$`)},
	}
	alphabet := []string{"A", "Z", "a", "z", "@", "[", "`", "{", "-", "_", "0", "\n", "É", "\x00"}
	inputs := []string{"", "de-DE", "en-GB", "DE-de", "de_DE", "de-DEX", "xde-DE", "de-D", "dE-DE", "de-De", "de-DE\n", "EUR\n", "EURO", "ÉUR"}
	var grow func(s string, n int)
	grow = func(s string, n int) {
		inputs = append(inputs, s)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(s+c, n-1)
		}
	}
	grow("", 3)
	for _, c := range checks {
		accepted := 0
		for _, in := range inputs {
			if got, want := c.is(in), c.re.MatchString(in); got != want {
				t.Errorf("%s(%q) = %v, the expression says %v", c.name, in, got, want)
			} else if got {
				accepted++
			}
		}
		if accepted == 0 {
			t.Errorf("%s accepted nothing", c.name)
		}
	}
}
