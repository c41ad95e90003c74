package match

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
// words ("the", "für", "avec") are dropped: they name nothing; but letters
// glued to a number are part of a model name ("8a", "A54", "DE-Layout"
// is not), and are kept.
func Words(title string) []string {
	folded := fold(title)
	type run struct {
		start, end int
		kind       int // 1 letters, 2 digits, 3 plus signs
	}
	var runs []run
	cur := run{start: -1}
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
		if k != cur.kind {
			if cur.start >= 0 {
				cur.end = i
				runs = append(runs, cur)
			}
			cur = run{start: -1}
			if k != 0 {
				cur = run{start: i, kind: k}
			}
		}
	}
	if cur.start >= 0 {
		cur.end = len(folded)
		runs = append(runs, cur)
	}
	glued := func(i int) bool { // run i touches a digit run
		return runs[i].kind == 1 && (i > 0 && runs[i-1].kind == 2 && runs[i-1].end == runs[i].start ||
			i+1 < len(runs) && runs[i+1].kind == 2 && runs[i].end == runs[i+1].start)
	}
	var words []string
	for i := 0; i < len(runs); i++ {
		w := folded[runs[i].start:runs[i].end]
		switch {
		case runs[i].kind == 3 && i > 0 && i+1 < len(runs) && runs[i-1].kind == 2 && runs[i+1].kind == 2 &&
			runs[i-1].end == runs[i].start && runs[i].end == runs[i+1].start:
			continue // "3+32GB" is memory and storage, not a model "+"
		case runs[i].kind == 3:
			w = "plus"
		case runs[i].kind == 2 && i+1 < len(runs) && runs[i+1].kind == 1:
			u := folded[runs[i+1].start:runs[i+1].end]
			if units[u] && (runs[i].end == runs[i+1].start || spacedUnits[u]) {
				w += u
				i++
			} else if b, ok := frenchUnits[u]; ok && (runs[i].end == runs[i+1].start || u != "to") {
				w += b // "2 To" is not "2 to 4": a spaced "to" stays a word
				i++
			}
		case stopWords[w] && !glued(i):
			continue
		}
		words = append(words, w)
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

// hasDigit reports whether a word carries a number: a model, a size or a
// capacity, which tells products apart more than any other word.
func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// units are written after a number, with or without a space.
var units = set("gb", "tb", "mb", "kb", "mp", "ghz", "mhz", "hz", "w", "kw", "v", "mah", "wh",
	"mm", "cm", "m", "km", "in", "inch", "ft", "ml", "cl", "l", "g", "kg", "mg", "oz", "lb", "lbs",
	"pcs", "pc", "pack", "pk", "x", "k", "p", "gen", "st", "nd", "rd", "th")

// frenchUnits are French spellings of units of storage: "128 Go" is
// "128gb".
var frenchUnits = map[string]string{"go": "gb", "to": "tb", "mo": "mb", "ko": "kb"}

// spacedUnits are the units also joined when a space stands between number
// and unit: the others ("in", "x", "m", "st") are words as well, so
// "iPhone 15 in Blue" keeps its "15".
var spacedUnits = set("gb", "tb", "mb", "kb", "mp", "ghz", "mhz", "hz", "mah", "wh", "mm", "cm", "km",
	"ml", "cl", "l", "g", "kg", "mg", "oz", "lb", "lbs", "w", "kw", "pcs", "pack", "inch")

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

// union is a set of the words of both.
func union(a, b map[string]bool) map[string]bool {
	m := make(map[string]bool, len(a)+len(b))
	for w := range a {
		m[w] = true
	}
	for w := range b {
		m[w] = true
	}
	return m
}
