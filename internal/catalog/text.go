package catalog

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// foldPool holds transformers that take accents off letters (é → e, ü → u)
// and fold case (ß → ss),
// so that "Crème" and "Creme" are one word. Transformers keep state, hence
// one per call.
var foldPool = sync.Pool{New: func() any {
	return transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), cases.Fold(), norm.NFC)
}}

// Words splits a title into its normalized words: lower case, no accents,
// letters and digits apart ("iPhone15" → "iphone", "15"), and a number
// joined to the unit after it ("128 GB" and "128GB" → "128gb"). Function
// words ("the", "für", "avec") are dropped: they name nothing.
func Words(title string) []string {
	folded := fold(title)
	var out []string
	start, kind := -1, 0 // kind: 1 letters, 2 digits, 3 plus signs
	flush := func(end int) {
		if start >= 0 {
			out = append(out, folded[start:end])
		}
		start, kind = -1, 0
	}
	for i, r := range folded {
		k := 0
		switch {
		case unicode.IsLetter(r):
			k = 1
		case unicode.IsDigit(r):
			k = 2
		case r == '+':
			k = 3 // "S24+" is not "S24"
		}
		if k != kind {
			flush(i)
			if k != 0 {
				start, kind = i, k
			}
		}
	}
	flush(len(folded))
	words := out[:0]
	for i := 0; i < len(out); i++ {
		w := out[i]
		if strings.Trim(w, "+") == "" {
			w = "plus"
		}
		if isDigits(w) && i+1 < len(out) && units[out[i+1]] {
			w += out[i+1]
			i++
		}
		if !stopWords[w] {
			words = append(words, w)
		}
	}
	return words
}

// fold takes accents off and folds case; plain ASCII, most titles, only
// needs lower case.
func fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			t := foldPool.Get().(transform.Transformer)
			folded, _, err := transform.String(t, s)
			foldPool.Put(t)
			if err != nil {
				return strings.ToLower(s)
			}
			return folded
		}
	}
	return strings.ToLower(s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// hasDigit reports whether a word carries a number: a model, a size or a
// capacity, which tells products apart more than any other word.
func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// units are written after a number, with or without a space.
var units = set("gb", "tb", "mb", "kb", "mp", "ghz", "mhz", "hz", "w", "kw", "v", "mah", "wh",
	"mm", "cm", "m", "km", "in", "inch", "ft", "ml", "cl", "l", "g", "kg", "mg", "oz", "lb", "lbs",
	"pcs", "pc", "pack", "pk", "x", "k", "p", "gen", "st", "nd", "rd", "th")

// stopWords are the function words of the languages the messages speak.
var stopWords = set(
	"a", "an", "and", "the", "of", "for", "with", "in", "on", "by", "to", "at", "or", "from",
	"der", "die", "das", "und", "mit", "fur", "von", "im", "zu", "ein", "eine",
	"le", "la", "les", "un", "une", "et", "avec", "pour", "de", "du", "des", "en",
	"el", "los", "las", "y", "con", "para", "del", "una",
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
