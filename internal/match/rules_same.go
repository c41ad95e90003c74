package match

import (
	"slices"
	"strings"
)

// The same-words tier: two shops write one product's title with the same
// words but for a few that tell no product from another: "software",
// "edition", the platform or medium on one side only, a bracket such as
// "(dvd-rom)", a part number the catalog's shop adds, the maker one shop
// leaves out at the head of its title. A version, a year, an edition word
// ("upgrade", "academic", "oem"), a colour or any other word on one side
// alone makes another product, but for a word or two of description that
// one title adds to the other's of four words or more whose words it has
// all ("instant" in "fujifilm instax mini twin pack instant film"). A
// colour the product's title adds to a query that names none,
// the kind of accessory a query names ("case") for a product "for"
// something, and a third or fourth word of description are no difference
// either when no other gathered product has the query's words (rules_lookup.go,
// anotherHasWords). When exactly one of the
// gathered products has the query's words in this sense, it is the
// answer, at the share of such answers that were right in training
// (docs/enrichment.md, Matching).

// softWords tell no product from another when one title has them and the
// other does not; a camera's body alone (bodyWords) is the camera a shop
// sells without a lens: a kit names its lens, a measure one title alone
// has.
var softWords = union(bodyWords, set("software", "edition", "ed", "version", "ver", "retail", "full", "new",
	"complete", "package", "packaging", "boxed", "english", "cd", "dvd", "rom", "cdrom", "dvdrom", "only",
	"pc", "win", "windows", "mac", "macintosh", "osx",
	// Both platforms, "win/mac" run together.
	"winmac", "macwin", "pcmac", "macpc", "windowsmac", "macwindows"))

// bodyWords name a camera's body alone, in the four languages and Polish.
var bodyWords = set("body", "gehause", "boitier", "cuerpo", "corpo", "korpus")

// companyWords end a maker's name ("griffin technology", "creative
// labs"): one shop writes them, the other leaves them out.
var companyWords = set("technology", "technologies", "tech", "labs", "electronics", "products",
	"systems", "inc", "corp", "corporation", "international", "industries", "co", "company", "ltd", "llc")

// editionWords make another product of a line; a title that starts with
// one does not start with its maker.
var editionWords = set("upgrade", "academic", "student", "teacher", "oem", "professional", "pro",
	"standard", "deluxe", "premium", "home", "basic", "ultimate", "enterprise", "express", "plus",
	"lite", "trial")

// Kinds of soft words of which two titles may each name one.
const (
	platform = iota
	medium
	kinds
)

// kind gives a soft word's platform or medium: two titles that each name
// one, and not the same, name two products (the Mac and the Windows one,
// the CD and the DVD).
func kind(t string) (what int, which string) {
	switch t {
	case "pc", "win", "windows":
		return platform, "win"
	case "mac", "macintosh", "osx":
		return platform, "mac"
	case "cd", "cdrom":
		return medium, "cd"
	case "dvd", "dvdrom":
		return medium, "dvd"
	}
	return -1, ""
}

// spans returns the bounds of a title's tokens in its squeezed text.
func spans(f *facts) [][2]int { return f.spans }

// tokenSpans works out the tokens' bounds from bounds (facts.bounds).
func tokenSpans(bounds []bool) [][2]int {
	var out [][2]int
	start := 0
	for k := 1; k < len(bounds); k++ {
		if bounds[k] {
			out = append(out, [2]int{start, k})
			start = k
		}
	}
	return out
}

// lacked is a token of one title that the other lacks.
type lacked struct {
	token string
	value string // its number, normalised, if it is one
	first bool   // the title's first token, or its second after a first one lacked
	pos   int    // its place in the title
}

// lackedTokens returns the tokens of a that b lacks: neither standing in
// b as whole words ("handsfree" in "hands free") nor inside a run of b's
// that stands in a as whole words ("950" and "000" of "950 000" in
// "950000").
func lackedTokens(a, b *facts) []lacked {
	covered := make([]bool, len(a.squeezed))
	for _, s := range spans(b) {
		if i := alignedAt(a, b.squeezed[s[0]:s[1]]); i >= 0 {
			for k := i; k < i+s[1]-s[0]; k++ {
				covered[k] = true
			}
		}
	}
	var out []lacked
	for k, s := range spans(a) {
		t := a.squeezed[s[0]:s[1]]
		full := true
		for j := s[0]; j < s[1]; j++ {
			full = full && covered[j]
		}
		if !full && alignedAt(b, t) < 0 {
			// A maker of two words: "acd systems", "elite screens".
			head := k == 0 || k == 1 && len(out) == 1 && out[0].first
			out = append(out, lacked{t, a.values[k], head, k})
		}
	}
	return out
}

// sameWords reports whether a query's title q and a product's p have
// the same words but for soft ones, a code the product adds (a shop's
// part number), and the first word or two of one (its maker) when the
// other's first word is in it, and a word or two of description the
// product adds to a query whose words it has all; and whether a code is
// among the differences. A
// code the query has and the product lacks may be the code of the very
// product the catalog lacks: no same words.
func sameWords(q, p *facts) (same, code bool) {
	same, code, alone := sameAdding(q, p)
	return same && !alone, code
}

// sameAdding is sameWords that also takes a colour or two the product's
// title adds to a query that names none, and the kind of accessory
// ("case") a query names for a product "for" something (namesKind): the
// product is then the query's only if no other gathered product has the
// query's words (alone; rules_lookup.go, anotherHasWords), which two titles
// alone cannot tell.
func sameAdding(q, p *facts) (same, code, alone bool) {
	la, ok := lackedBothWays(q, p)
	if !ok {
		return false, false, false
	}
	d := difference{q: q, p: p}
	for side, ts := range la {
		d.otherFirstIn = !slices.ContainsFunc(la[1-side], func(l lacked) bool { return l.first && l.token != "" })
		for _, l := range ts {
			if !d.allows(side, l, ts) {
				return false, false, false
			}
		}
	}
	if d.describesAnother() || d.twoKinds() {
		return false, false, false
	}
	return true, d.code, d.colours > 0 || d.kindsNamed > 0 || d.added > maxAdded
}

// lackedBothWays returns the tokens each title lacks of the other's (the
// query's first), once paired up, spelled out as initials or run into a
// soft word; or false when the query has a word the product cannot hold
// softly, a quick answer for most products.
func lackedBothWays(q, p *facts) (la [2][]lacked, ok bool) {
	la[0] = lackedTokens(q, p)
	// Most products differ from the query by a word of the query's: no need to
	// look at theirs.
	// A word may yet be in the initials of one of the product's ("creative"
	// in "cs3"), or describe the product (queryAdded).
	var hard []lacked
	described := 0
	for _, l := range la[0] {
		switch {
		case mayBeSoft(l, p):
		case describes(l.token):
			if described++; described > maxAdded {
				return la, false
			}
		default:
			if hard = append(hard, l); len(hard) > 4 || hasDigit(l.token) || !hasAcronym(p, hard[0].token[0]) {
				return la, false
			}
		}
	}
	la[1] = lackedTokens(p, q)
	pairUp(la[0], la[1])
	pairUp(la[1], la[0])
	acronyms(la[0], la[1])
	acronyms(la[1], la[0])
	// A word of the other title behind a soft word: "new-standard" for
	// "standard".
	for side, f := range [2]*facts{p, q} {
		for i := range la[side] {
			if l := &la[side][i]; l.token != "" && gluedIn(l.token, f) {
				l.token = ""
			}
		}
	}
	return la, true
}

// difference tallies the tokens one title has and the other lacks (side 0:
// the query's, side 1: the product's), rule by rule.
type difference struct {
	q, p         *facts
	otherFirstIn bool // the other side lacks no first token of its own
	named        [2][kinds]string
	// Either title may add descriptive words when the other's are all in
	// it: none lacked (a stop or soft word either, lacks), its maker not
	// left out, and no bundle word (bundled) or measure added.
	added          int
	lacks, bundled [2]bool // by side: the other title lacks a word of this side's; this side adds a bundle word
	measured, code bool    // the product adds a measure; a code is among the differences
	// A colour the product adds, the kind of accessory the query names
	// for a product "for" something, or more than maxAdded words of
	// description: the product is the query's only if no other gathered
	// product has the query's words.
	colours, kindsNamed int
	// Words of description the query adds to a product whose words it
	// has all: the product may add nothing then.
	queryAdded int
}

// allows reports whether a token one side lacks leaves the titles the
// same words: each rule below, in its order, takes the tokens it names.
func (d *difference) allows(side int, l lacked, ts []lacked) bool {
	t := l.token
	switch {
	case t == "" || stopWords[t]:
		return d.functionWord(side, t)
	case softWords[t]:
		return d.softWord(side, t)
	case side == 1 && len(t) == 4 && isNumber(t) && inCode(t, ts):
		d.code = true // four digits of the product's own code, spaced
		return true
	case isProductCode(t):
		return d.productCode(side, t)
	case l.first && d.otherFirstIn && !hasDigit(t) && !editionWords[t]:
		return d.makerLeftOut(side)
	case l.pos == 1 && companyWords[t]:
		return true // "technology" after a maker's name
	case side == 0 && namesKind(t, d.p):
		return d.kindOfAccessory()
	case side == 1 && colourWords[t] && len(d.q.colours) == 0:
		return d.addedColour()
	case side == 1 && describes(t) && len(spans(d.q)) >= minAddedTo:
		return d.addedDescription()
	case side == 0 && describes(t) && len(spans(d.p)) >= minAddedTo:
		return d.queryAdds()
	}
	return false // any other word makes another product
}

// functionWord: a word that tells nothing, or one paired up or spelled
// out; a bundle word either title adds ("with", "and") is remembered.
func (d *difference) functionWord(side int, t string) bool {
	d.lacks[side] = d.lacks[side] || t != ""
	d.bundled[side] = d.bundled[side] || bundleWords[t]
	return true
}

// softWord: "software", "edition", a platform or medium, whose kind is
// remembered (twoKinds).
func (d *difference) softWord(side int, t string) bool {
	d.lacks[side] = true
	if what, which := kind(t); what >= 0 {
		d.named[side][what] = which
	}
	return true
}

// productCode: a code the product adds (a shop's part number); the
// query's code the product lacks may be the code of the very product the
// catalog lacks.
func (d *difference) productCode(side int, t string) bool {
	d.measured = d.measured || isMeasure(t)
	d.code = true
	return side == 1
}

// makerLeftOut: the first word or two of one title (its maker) when the
// other's first word is in it.
func (d *difference) makerLeftOut(side int) bool {
	d.lacks[side] = true
	return true
}

// kindOfAccessory: the kind of accessory ("case") a query names for a
// product "for" something (namesKind), once.
func (d *difference) kindOfAccessory() bool {
	d.kindsNamed++
	return d.kindsNamed <= 1
}

// addedColour: a colour or two the product's title adds to a query that
// names none.
func (d *difference) addedColour() bool {
	d.colours++
	return d.colours <= maxAdded
}

// addedDescription: a word or few of description the product adds to a
// query of minAddedTo words or more.
func (d *difference) addedDescription() bool {
	d.added++
	return d.added <= maxAddedAlone
}

// queryAdds: a word or two of description the query adds to a product
// of minAddedTo words or more ("internal ssd" in "Samsung 970 EVO Plus
// NVMe M.2 500GB Internal SSD" for "Samsung 970 EVO Plus NVMe M.2
// 500GB"): the other shop's description of the same product.
func (d *difference) queryAdds() bool {
	d.queryAdded++
	return d.queryAdded <= maxAdded
}

// describesAnother reports whether the product adds description or a
// colour though it lacks a word of the query's, or adds a bundle or a
// measure with it, or the same of the query, or the title that adds
// words alone is "for" something ("GoPro Battery for HERO9 Black Action
// Camera"): then the words added name another product.
func (d *difference) describesAnother() bool {
	if d.queryAdded > 0 && (d.added > 0 || d.colours > 0 || d.kindsNamed > 0 || d.code || d.lacks[1] || d.bundled[0] ||
		forOther(d.q, d.p)) {
		return true
	}
	return (d.added > 0 || d.colours > 0) && (d.lacks[0] || d.bundled[1] || d.measured || forOther(d.p, d.q))
}

// forOther reports whether a title is "for" the other's product: it has
// a "for" (of the four languages) that the other lacks, and more of the
// other's words after it than before, a model's number among them
// ("GoPro Battery for HERO9 Black Action Camera" for "GoPro HERO9 Black
// Action Camera"; not "Air Jordan 13 Olive For Sale", nor "GEL-NIMBUS 19
// für Herren | Men Road Running", whom a shoe is for).
func forOther(a, b *facts) bool {
	if !a.forWord || b.forWord {
		return false
	}
	before, after, seen, model := 0, 0, false, false
	for _, sp := range spans(a) {
		switch t := a.squeezed[sp[0]:sp[1]]; {
		case isFor(t):
			seen = true
		case alignedAt(b, t) < 0:
		case seen:
			after++
			model = model || hasDigit(t)
		default:
			before++
		}
	}
	return after > before && model
}

// twoKinds reports whether the titles name two platforms or two media
// (the Mac and the Windows one, the CD and the DVD).
func (d *difference) twoKinds() bool {
	for what := range kinds {
		if x, y := d.named[0][what], d.named[1][what]; x != "" && y != "" && x != y {
			return true
		}
	}
	return false
}

// namesKind reports whether a query's token is the kind of accessory
// ("case") that a product's title, "for" something and naming no
// accessory, leaves out: "griffin … formfit case" for "griffin … formfit
// for ipod touch 4g". Another maker's supply ("compatible") is no kind.
func namesKind(t string, p *facts) bool {
	return accessoryWords[t] && p.forWord && len(p.accessories) == 0 && t != "compatible" && t != "remanufactured"
}

// isProductCode reports whether a token is a code that may be a shop's
// part number: letters with digits, or five digits or more.
func isProductCode(t string) bool { return isCode(t) && hasLetter(t) || len(t) >= 5 && isNumber(t) }

// mayBeSoft reports whether a token one title lacks may turn out no
// difference once the other title's tokens are known.
func mayBeSoft(l lacked, other *facts) bool {
	t := l.token
	// A version or Roman numeral pairs only with its number in the other
	// title.
	number := l.value != "" && (!hasLetter(t) || slices.Contains(other.values, l.value))
	if stopWords[t] || softWords[t] || namesKind(t, other) || l.first || l.pos == 1 && companyWords[t] || number || abbreviations[t] != "" || fullWords[t] || isAcronym(t) ||
		colourWords[t] && contains(other.colours, colourOf[t]) {
		return true
	}
	// A measure, that a bare number may stand for: "18inch".
	n := strings.TrimLeft(t, "0123456789")
	_, unit := unitAlias(n)
	return len(n) < len(t) && unit
}

// abbreviations of edition words, and of a maker, by their full word.
var abbreviations = map[string]string{"pro": "professional", "std": "standard", "upg": "upgrade",
	"prem": "premium", "dlx": "deluxe", "ent": "enterprise", "acad": "academic", "ms": "microsoft"}

// spelledOut reports whether two titles differ by no veto once a model
// word that one has and the other spells out ("pro" for "professional")
// is set aside: the model word's veto holds elsewhere, as "professional"
// is no "pro" of a phone, but not in the same-words tier, which pairs the
// two words.
func spelledOut(a, b *facts) bool {
	strip := func(x, y *facts) *facts {
		c := *x
		c.models = slices.DeleteFunc(slices.Clone(x.models), func(m string) bool {
			full := abbreviations[m]
			return full != "" && alignedAt(y, full) >= 0
		})
		return &c
	}
	return veto(strip(a, b), strip(b, a)) == ""
}

// fullWords are the words abbreviations stand for.
var fullWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range abbreviations {
		m[w] = true
	}
	return m
}()

// pairUp takes a token one title lacks for one the other lacks when they
// say the same: a number for a measure of it ("13" for "13-inch"), one
// number written two ways ("5.0" and "5"), an abbreviation for its word
// ("pro" for "professional"), two names of one colour ("gray" and
// "grey", "schwarz" and "black"). Both are then no difference, their
// tokens made "".
func pairUp(a, b []lacked) {
	for i := range a {
		for j := range b {
			if a[i].token != "" && b[j].token != "" && sameSaid(a[i], b[j]) {
				a[i].token, b[j].token = "", ""
				break
			}
		}
	}
}

// acronyms takes a token of a, initials and a number ("cs3"), for the
// words of b it stands for, one after the other ("creative suite 3"),
// when b lacks them all. They are then no difference, their tokens made
// "".
func acronyms(a, b []lacked) {
	for i := range a {
		t := a[i].token
		if !isAcronym(t) {
			continue
		}
		letters := strings.TrimRight(t, "0123456789")
		n := len(letters)
		for j := 0; j+n < len(b); j++ {
			ok := b[j+n].value == t[n:] && b[j+n].pos == b[j].pos+n
			for k := 0; ok && k < n; k++ {
				w := b[j+k].token
				ok = w != "" && w[0] == letters[k] && !hasDigit(w) && b[j+k].pos == b[j].pos+k
			}
			if ok {
				a[i].token = ""
				for k := j; k <= j+n; k++ {
					b[k].token = ""
				}
				break
			}
		}
	}
}

// isAcronym reports whether a token is two to four letters and a number.
func isAcronym(t string) bool {
	letters := strings.TrimRight(t, "0123456789")
	n := len(letters)
	return n >= 2 && n <= 4 && n < len(t) && !hasDigit(letters)
}

// hasAcronym reports whether a title has a token of initials and a number
// that starts with the given letter.
func hasAcronym(f *facts, first byte) bool {
	start := 0
	for k := 1; k < len(f.bounds); k++ {
		if f.bounds[k] {
			if t := f.squeezed[start:k]; t[0] == first && isAcronym(t) {
				return true
			}
			start = k
		}
	}
	return false
}

func sameSaid(x, y lacked) bool {
	if x.value != "" {
		if x.value == y.value {
			return true
		}
		u, ok := strings.CutPrefix(y.token, x.token)
		_, unit := unitAlias(u)
		return ok && u != "" && !hasDigit(u) && unit
	}
	return abbreviations[x.token] == y.token || glued(x.token, y.token) || glued(y.token, x.token) ||
		colourOf[x.token] != "" && colourOf[x.token] == colourOf[y.token]
}

// glued reports whether a token is another behind a soft word, run
// together by a hyphen ("new-expo" for "expo").
func glued(t, word string) bool {
	p, ok := strings.CutSuffix(t, word)
	return ok && len(word) >= 3 && softWords[p]
}

// Words the product's title adds to the query's, in the catalog lookup:
// at most maxAdded, to a query of at least minAddedTo words; up to
// maxAddedAlone when no other gathered product has the query's words
// (rules_lookup.go, anotherHasWords). The query may add maxAdded to a
// product of minAddedTo words.
const (
	maxAdded      = 2
	maxAddedAlone = 4
	minAddedTo    = 4
)

// bundleWords join another thing to a product: "with dimmer", "adapter
// kit".
var bundleWords = set("with", "w", "and", "plus", "includes", "including", "kit", "bundle", "set")

// variantWords tell one product of a line from another though they look
// like description: a connection, a condition, a language, an operating
// system, a count, an edition.
var variantWords = set("wireless", "cordless", "wired", "bluetooth", "refurbished", "used", "renewed",
	"reconditioned", "english", "french", "spanish", "german", "italian", "japanese", "chinese",
	"vista", "linux", "unix", "android", "ios", "mobile", "pair", "single", "twin", "double", "dual", "triple",
	"extended", "special", "limited", "collectors", "anniversary", "platinum", "signature", "classic")

// describes reports whether a word the product's title adds to the
// query's may only describe the product: letters, and no edition,
// colour, model, size, accessory, bundle, unit or variant word.
func describes(t string) bool {
	return len(t) >= 3 && !hasDigit(t) && !editionWords[t] && !colourWords[t] && !modelWords[t] &&
		!sizeWords[t] && !accessoryWords[t] && !companyWords[t] && !bundleWords[t] && !variantWords[t] &&
		abbreviations[t] == "" && !fullWords[t] && !isUnit(t)
}

// isUnit reports whether a token is a unit's name.
func isUnit(t string) bool { _, ok := unitAlias(t); return ok }

// isMeasure reports whether a token is a number and a unit: "16inch".
func isMeasure(t string) bool {
	n := strings.TrimLeft(t, "0123456789")
	return len(n) < len(t) && isUnit(n)
}

// inCode reports whether a number is the end of a code among tokens
// ("5029" of "ave5029"): a shop's part number, not a year.
func inCode(n string, ts []lacked) bool {
	for _, l := range ts {
		if len(l.token) > len(n) && strings.HasSuffix(l.token, n) && isProductCode(l.token) && hasLetter(l.token) {
			return true
		}
	}
	return false
}
