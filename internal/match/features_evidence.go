package match

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Two shops write one product's title independently: one adds a colour and
// a category, the other a feature list or its own part number. What tells
// that two such titles name one product is weighed here, as features of a
// learned model (rules_model.go): model codes first, then the share of each
// title's words the other has, numbers, and the few kinds of words that
// really tell products apart.

// facts is what a title says beyond its words: model codes, numbers with
// units, colours, sizes, accessory words.
type facts struct {
	squeezed    string   // folded, letters and digits only: "tx-sr876 b" → "txsr876b"
	bounds      []bool   // bounds[k]: a word starts or ends at squeezed[k]
	codes       []string // model and part codes, squeezed: "TX-SR876" → "txsr876"
	units       []string // a number with its unit, normalised: "16.0 MP" → "16mp"
	numbers     []string // numbers that are neither codes nor measures
	colours     []string
	sizes       []string
	models      []string // words that make another model of a line: "pro", "mini", "+"
	accessories []string
	// computerCase: the title is of a computer's case, whose "case" is
	// the product (computerCase).
	computerCase bool
	// names: short names of a model within a line ("t3", "t5i", "sl1"):
	// too short for codes, but two of them tell two models apart.
	names []string
	// suffixed: a code followed by a letter of its own ("orb153bk l",
	// left-hinged), as "code letter": the letter makes another product.
	suffixed []string
	// plussed: the tokens a "+" is glued to, squeezed ("s24" of "s24+",
	// "sfp" of "sfp+"); "" for a "+" alone or the word "plus".
	plussed []string
	// inside: model words written inside a longer token, between
	// hyphens or after a "+" within it ("plus" of "x470-plus" and
	// "backup+slim", "lite" of "uap-ac-lite"): the title has the word.
	inside  []string
	forWord bool // "for", "für", "pour", "para": a title of something for another product
	body    bool // "body", "gehäuse": a camera's body alone
	// module: a memory module's form, "sodimm" (a laptop's) or "dimm" (a
	// desktop's), "" when the title names none.
	module string
	// values: each token's number, normalised ("5.0" → "5"), "" for a
	// token that is no number; one for each token of squeezed.
	values []string
	// spans: each token's start and end in squeezed, worked out once
	// (the rules walk a candidate's tokens many times a request).
	spans [][2]int
	// pack: how many the title says it sells in one ("2 Pack", "10-pack",
	// "Twin Pack", "pack of 3"); 0 when it says none.
	pack int
	// channels: a headset's or a speaker's "mono" or "duo" (stereo,
	// binaural), "" when the title names neither, "both" when it names
	// both (a cable from one to the other).
	channels string
	// chips: the graphics chips the title names (graphicsChip).
	chips []string
}

// minCodeLen: shorter runs of letters and digits ("4g", "s24") are names
// within a product line, counted as words, not as codes.
const minCodeLen = 4

func analyze(title string) facts {
	folded := numerals(fold(title))
	var f facts
	var sq strings.Builder
	sq.Grow(len(folded))
	tokens := regionSlashes(strings.FieldsFunc(folded, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:()[]{}|\"'!?*#&=<>~^", r)
	}))
	f.values = make([]string, 0, len(tokens))
	bundled := false             // past a "with": what follows comes with the product
	machine, memory := "", false // the computer a memory module is for; a "DDR" memory
	for k, tok := range tokens {
		t := squeeze(tok)
		bundled = bundled || bundles(tokens, k)
		if strings.HasSuffix(tok, "+") && !joins(tokens, k) {
			f.models = appendUnique(f.models, "plus")
			f.plussed = appendUnique(f.plussed, t)
		}
		f.inside = insideModels(f.inside, tok)
		if t != "" {
			f.bounds = append(f.bounds, make([]bool, len(t))...)
			f.bounds[sq.Len()] = true
			v := versionValue(tok)
			f.values = append(f.values, v)
		}
		sq.WriteString(t)
		if t == "" {
			continue
		}
		if lineName(tok) {
			f.names = appendUnique(f.names, tok)
		}
		if chip := graphicsChip(tokens, k); chip != "" {
			f.chips = appendUnique(f.chips, chip)
		}
		memory = memory || strings.HasPrefix(t, "ddr")
		switch {
		case isFor(t):
			f.forWord = true
		case t == "sodimm" || t == "dimm" && k > 0 && squeeze(tokens[k-1]) == "so":
			f.module = "sodimm"
		case (t == "dimm" || t == "udimm") && f.module == "":
			f.module = "dimm"
		case t == "desktop" || t == "laptop" || t == "notebook":
			machine = t
		case bodyWords[t]:
			f.body = true
		case channelWords[t] != "":
			// A cable from stereo to mono names both: neither is the
			// product's.
			if f.channels == "" {
				f.channels = channelWords[t]
			} else if f.channels != channelWords[t] {
				f.channels = "both"
			}
		case accessoryWords[t] && !(t == "compatible" && k+1 < len(tokens) && (tokens[k+1] == "with" || tokens[k+1] == "for")) &&
			(!bundled || thirdPartyWords[t]) && !qualifies(t, tokens, k):
			// "compatible with" a printer is the original's own title; a
			// case the product comes "with" ("AirPods with Charging Case",
			// "Mouse + Mouse Dock") is part of it; a "Mount Lens" names
			// the camera mount it fits, a "Case Fan" the case it cools.
			f.accessories = appendUnique(f.accessories, t)
		case colourWords[t]:
			f.colours = append(f.colours, colourOf[t])
		case sizeWords[t]:
			f.sizes = append(f.sizes, t)
		case modelWords[t] && !kindNamed(t, tokens, k):
			f.models = appendUnique(f.models, t)
			if t == "plus" {
				f.plussed = appendUnique(f.plussed, "")
			}
		}
		// "8700K", "2600X": a model number, not a measure in "k" or "x".
		if tok == t && modelNumberAt(tokens, k) {
			f.codes = appendUnique(f.codes, t)
			continue
		}
		if ms := memoryPair(tok); ms != nil {
			f.units = append(f.units, ms...)
			continue
		}
		if ms := dimensions(tok); ms != nil {
			f.units = append(f.units, ms...)
			continue
		}
		// A measure is a number followed by a unit, in one token ("16gb",
		// "16.0mp") or two ("16 gb").
		if v, u, ok := measure(tok); ok {
			f.units = append(f.units, v+u)
			continue
		}
		if isNumber(tok) && k+1 < len(tokens) {
			n := squeeze(tokens[k+1])
			if u, ok := unitAlias(n); ok && (spacedUnits[n] || n == "inches" || n == "watts" || n == "feet" || n == "go") {
				f.units = append(f.units, normNumber(tok)+u)
				continue
			}
		}
		if countedWord(tok) {
			n, _, _ := strings.Cut(tok, "-")
			f.numbers = appendUnique(f.numbers, normNumber(n))
			continue
		}
		if lo, hi, ok := strings.Cut(tok, "-"); ok {
			// A cassette's teeth may say so: "11-25T".
			if t, ok := strings.CutSuffix(hi, "t"); ok && numberRange(lo, t) {
				hi = t
			}
			if numberRange(lo, hi) {
				r := normNumber(lo) + "-" + normNumber(hi)
				// A range with its unit after a space ("18-135 mm") is a
				// measure, as "18-135mm" is; else one number ("11-25"
				// teeth of a cassette).
				if k+1 < len(tokens) {
					if n := squeeze(tokens[k+1]); spacedUnits[n] {
						if u, ok := unitAlias(n); ok && u != "pk" {
							f.units = append(f.units, r+u)
							continue
						}
					}
				}
				f.numbers = appendUnique(f.numbers, r)
				continue
			}
		}
		if ethernetSpeeds(tok) {
			continue // a port's speeds, "10/100/1000": no code
		}
		switch {
		case isCode(t) && (!countedWord(tok) && !strings.ContainsAny(tok, ".,") || hasLetter(t) || dottedReference(tok)):
			f.codes = appendUnique(f.codes, t)
			if k+1 < len(tokens) && suffixLetter(folded, tok, tokens[k+1]) {
				f.suffixed = appendUnique(f.suffixed, t+" "+tokens[k+1])
			}
		case isNumber(tok):
			f.numbers = appendUnique(f.numbers, normNumber(tok))
		}
	}
	// A "Desktop Memory" module is a DIMM, a laptop's a SO-DIMM.
	if f.module == "" && memory && machine != "" {
		f.module = "sodimm"
		if machine == "desktop" {
			f.module = "dimm"
		}
	}
	f.squeezed = sq.String()
	f.bounds = append(f.bounds, true)
	f.spans = tokenSpans(f.bounds)
	f.pack = packCount(tokens)
	// A tower's or a chassis's "case" is the product, not an accessory
	// ("Mid-Tower Gaming Case" against "Carbide SPEC-01 Red LED").
	if f.computerCase = computerCase(tokens); f.computerCase {
		f.accessories = slices.DeleteFunc(f.accessories, func(a string) bool { return a == "case" })
	}
	return f
}

// graphicsChip returns the graphics chip that token k of a title
// names, with its tier ("gtx1660super" of "GTX 1660 SUPER", "GTX1660S"
// or "GTX 1660S"; "rx5500xt" of "RX 5500 XT"), "" if none: one maker's
// cards of one chip share it, and two chips are two products.
func graphicsChip(tokens []string, k int) string {
	t := squeeze(tokens[k])
	if strings.Contains(tokens[k], "-") {
		// Within a maker's part number: "DUAL-GTX1660S-O6G-EVO"; not an
		// "RX" there, a part's code as often ("BR-RX400", a brake's).
		for part := range strings.SplitSeq(tokens[k], "-") {
			if c := graphicsChip([]string{part}, 0); c != "" && !strings.HasPrefix(c, "rx") {
				return c
			}
		}
	}
	chip := ""
	for _, p := range [...]string{"gtx", "rtx", "rx"} {
		if strings.HasPrefix(t, p) {
			chip = p
			break
		}
	}
	if chip == "" {
		return ""
	}
	rest := t[len(chip):]
	next := k + 1
	if rest == "" && next < len(tokens) {
		rest = squeeze(tokens[next])
		next++
	}
	n := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if n < 3 || n > 4 {
		return ""
	}
	tier := rest[n:]
	// The tier may take two words ("4070 Ti SUPER").
	for tier == "" || tier == "ti" {
		if next >= len(tokens) || !chipTiers[squeeze(tokens[next])] {
			break
		}
		tier += squeeze(tokens[next])
		next++
	}
	switch tier {
	case "s":
		tier = "super"
	case "", "super", "ti", "tisuper", "xt", "xtx", "gre":
	default:
		return ""
	}
	return chip + rest[:n] + tier
}

// chipTiers are the words after a graphics chip's number that make
// another chip.
var chipTiers = set("super", "ti", "xt", "xtx", "gre")

// ethernetSpeeds reports whether a token lists a network port's speeds
// in Mbit/s ("10/100", "10/100/1000"): every switch and card of the
// standard has it, and squeezed it would be a code of five digits.
func ethernetSpeeds(tok string) bool {
	n := 0
	for part := range strings.SplitSeq(tok, "/") {
		switch part {
		case "10", "100", "1000", "2500", "5000", "10000":
			n++
		default:
			return false
		}
	}
	return n >= 2
}

// channelWords say whether a headset has one ear or two.
var channelWords = map[string]string{"mono": "mono", "monaural": "mono", "duo": "duo", "stereo": "duo", "binaural": "duo"}

// kindPhrases are model words that, with the word after them, name a
// technology or a kind of product, not a model of a line: "Ultra HD" is
// a screen's resolution, an "Air Pump" or "Air Purifier" a kind.
var kindPhrases = map[string]map[string]bool{
	"ultra": set("hd", "uhd", "hdtv"),
	"air": set("fryer", "purifier", "conditioner", "conditioning", "cooler", "cooling", "compressor", "pump",
		"filter", "humidifier", "dehumidifier", "freshener", "mattress", "bed"),
}

// kindNamed reports whether model word t, token k of a title, names a
// kind with the token after it (kindPhrases).
func kindNamed(t string, tokens []string, k int) bool {
	return k+1 < len(tokens) && kindPhrases[t][squeeze(tokens[k+1])]
}

// regionSlashes splits a code from a region's or a retailer's part after
// a slash ("WW90K5413UW/EU", "MZ-V7S500B/AM", "243V7QDSB/00"), so that
// the code stands alone as other shops write it: two letters or "00"
// after a code of seven characters or more. One letter is a colour's
// ("WH-1000XM4/S", "LC-3219XL/M") and digits a capacity
// ("KF432C16BB/16"): they make another product, and stay. Other slashes
// are lists ("10/100/1000", "BK/C/M/Y").
func regionSlashes(tokens []string) []string {
	for k := 0; k < len(tokens); k++ {
		code, part, ok := strings.Cut(tokens[k], "/")
		if !ok || !regionPart(part) {
			continue
		}
		if c := squeeze(code); !isCode(c) || len(c) < 7 {
			continue
		}
		tokens = slices.Insert(tokens, k+1, part)
		tokens[k] = code
		k++
	}
	return tokens
}

// regionPart reports whether the part after a code's slash is a
// region's or a retailer's: two letters but a colour's, or "00".
func regionPart(part string) bool {
	if part == "00" {
		return true
	}
	return len(part) == 2 && part[0] >= 'a' && part[0] <= 'z' && part[1] >= 'a' && part[1] <= 'z' && !colourWords[part]
}

// kitOf reports whether a names a lens's focal length ("18-55mm") that b
// lacks, and b is a camera's body alone ("… Body"): the kit is another
// product than the body.
func kitOf(a, b *facts) bool {
	if !b.body {
		return false
	}
	for _, u := range a.units {
		if unitOf(u) == "mm" && !contains(b.units, u) {
			return true
		}
	}
	return false
}

// isFor reports whether a word is "for" in one of the four languages
// ("für" folded).
func isFor(t string) bool { return t == "for" || t == "fur" || t == "pour" || t == "para" }

// bundles reports whether token k starts what a product comes with:
// "with", "incl.", "w/charging", a "+" between two words ("Mouse + Dock";
// not a model's "S10 +"); not the "with" of "compatible with" a model,
// which says what an accessory fits.
func bundles(tokens []string, k int) bool {
	tok := strings.TrimSuffix(tokens[k], ".")
	switch {
	case tok == "+":
		return joins(tokens, k)
	case strings.HasPrefix(tok, "w/"):
		return true
	case k > 0 && (tokens[k-1] == "compatible" || tokens[k-1] == "kompatibel"):
		return false
	}
	return withWords[tok]
}

// computerCase reports whether a title is of a computer's case: a
// "chassis", a tower of a size ("Mid-Tower", "miditower", "Midi Tower"),
// or a "case" with a tower or a board's size ("Tower Case", "ATX Gaming
// Case", "E-ATX"). A "Tower Fan" is no case, and neither is a phone's
// "Hard PC Case" (polycarbonate).
func computerCase(tokens []string) bool {
	named, shaped := false, false
	for k, tok := range tokens {
		// The folded token, trimmed of what squeeze would drop at its end
		// ("tower." "(atx)"): no squeezed copy of every token of every title.
		t := strings.TrimRightFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		switch {
		case t == "chassis":
			return true
		case strings.HasSuffix(t, "tower") && (len(t) > len("tower") || k > 0 && towerSizes[tokens[k-1]]):
			return true
		case t == "tower" || strings.HasSuffix(t, "atx"):
			shaped = true
		case t == "case":
			named = true
		}
	}
	return named && shaped
}

// towerSizes name a computer case's tower: "Midi Tower", "Full Tower".
var towerSizes = set("mid", "midi", "full", "mini", "micro", "super")

// qualifiers are accessory words that, right before one of these words,
// say what kind of that thing the product is: a "Mount Lens" fits a
// camera mount, a "Case Fan" cools a computer's case.
var qualifiers = map[string][]string{"mount": {"lens"}, "case": {"fan", "fans"}}

// qualifies reports whether t, token k squeezed, is an accessory word
// that qualifies the next word (qualifiers).
func qualifies(t string, tokens []string, k int) bool {
	next, ok := qualifiers[t]
	return ok && k+1 < len(tokens) && slices.Contains(next, squeeze(tokens[k+1]))
}

// accessoriesBeside returns a title's accessories as they differ from
// another's: beside a computer's case, a "case" is that product ("Mesh
// Case" beside "Mid-Tower Case"). The veto reads them so; the learned
// model's accessory feature reads the titles' own, as it was trained.
func accessoriesBeside(a, b *facts) []string {
	switch {
	case !b.computerCase || !slices.Contains(a.accessories, "case"):
		return a.accessories
	case len(a.accessories) == 1:
		return nil // the case alone, as most titles of a case have it: no copy
	}
	return slices.DeleteFunc(slices.Clone(a.accessories), func(w string) bool { return w == "case" })
}

// numerals rewrites the numbers a title writes with punctuation that
// would split them: a decimal comma is a point ("3,5 cm" is 3.5 cm;
// not before three digits, "1,050MB/s"), and a ratio ("16:9", "1:4") is
// no plain number, so it is blanked.
func numerals(s string) string {
	if !strings.ContainsAny(s, ",:") {
		return s
	}
	b := []byte(s)
	digit := func(i int) bool { return i >= 0 && i < len(b) && b[i] >= '0' && b[i] <= '9' }
	alnum := func(i int) bool { return digit(i) || i >= 0 && i < len(b) && b[i] >= 'a' && b[i] <= 'z' }
	for i := 1; i+1 < len(b); i++ {
		if b[i] != ',' && b[i] != ':' || !digit(i-1) || !digit(i+1) {
			continue
		}
		j := i + 1
		for digit(j) {
			j++
		}
		if b[i] == ',' {
			if j-i-1 != 3 {
				b[i] = '.'
			}
			continue
		}
		h := i - 1
		for digit(h) {
			h--
		}
		if !alnum(h) && !alnum(j) {
			for k := h + 1; k < j; k++ {
				b[k] = ' '
			}
		}
	}
	return string(b)
}

// joins reports whether token k is a "+" alone between two words that
// are no model's name, so that it joins what comes with the product
// ("Mouse + Dock", "32GB + SD Adapter"); after a code or a line's name
// ("DS218 +", "S24 +"), not a measure, it may be that model's "+".
func joins(tokens []string, k int) bool {
	if tokens[k] != "+" || k == 0 || k+1 == len(tokens) {
		return false
	}
	prev := tokens[k-1]
	if _, _, ok := measure(prev); ok {
		return true // "32gb" is no code
	}
	return !isCode(squeeze(prev)) && !lineName(prev) || lensAfter(tokens, k)
}

// lensAfter reports whether a lens's focal length comes within three
// tokens after token k ("D3400 + AF-P 18-55mm", "80D + 18-135 IS"): a
// camera's kit, the "+" its lens's.
func lensAfter(tokens []string, k int) bool {
	for _, tok := range tokens[k+1 : min(k+4, len(tokens))] {
		if _, u, ok := measure(tok); ok && u == "mm" {
			return true
		}
		if lo, hi, ok := strings.Cut(tok, "-"); ok && numberRange(lo, hi) {
			return true
		}
	}
	return false
}

// insideModels adds the model words a token holds between hyphens,
// slashes or pluses ("x470-plus", "uap-ac-m-pro"), and "plus" for a "+"
// within it ("backup+slim", "ws-c2960+48tc-l"); not a phone's memory and
// storage ("3+32gb").
func insideModels(inside []string, tok string) []string {
	if !strings.ContainsAny(tok, "-+/") || memoryPair(tok) != nil {
		return inside
	}
	parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '+' || r == '/' })
	if len(parts) < 2 {
		return inside
	}
	for _, p := range parts {
		if modelWords[p] {
			inside = appendUnique(inside, p)
		}
	}
	if i := strings.IndexByte(tok, '+'); i > 0 && i < len(tok)-1 {
		inside = appendUnique(inside, "plus")
	}
	return inside
}

// suffixLetter reports whether the token after a code is a lone letter
// of its own, between spaces: a hinge ("orb153bk l"), a colour or region
// letter. Not "a" or "x", which are words ("2 x 8gb"), nor "s" (a
// possessive's); not in brackets nor before "&" ("(b)", "b&h"), which
// the data showed to be other things.
func suffixLetter(folded, code, next string) bool {
	if len(next) != 1 || next[0] < 'b' || next[0] > 'z' || next == "s" || next == "x" {
		return false
	}
	w := code + " " + next
	return strings.Contains(folded, w+" ") || strings.HasSuffix(folded, w)
}

// numberRange reports whether two numbers joined by a hyphen are a range
// ("11-25"), not a part number ("508429-001", "2399-823").
func numberRange(lo, hi string) bool {
	if !isNumber(lo) || !isNumber(hi) || len(lo) > 3 || len(hi) > 3 {
		return false
	}
	a, errA := strconv.ParseFloat(strings.ReplaceAll(lo, ",", "."), 64)
	b, errB := strconv.ParseFloat(strings.ReplaceAll(hi, ",", "."), 64)
	return errA == nil && errB == nil && a < b
}

// dottedReference reports whether a token of digits is a reference
// written in groups: two dots or more, perhaps a hyphen ("215.30.46.51.01.001",
// "06-5161.2.04.007", a watch's; "470.713.595"). A number has one dot at
// most ("3.5", "1,050"), so the digits, squeezed, are a code.
func dottedReference(tok string) bool {
	if strings.Count(tok, ".") < 2 || strings.Trim(tok, "0123456789.-") != "" || strings.Contains(tok, "..") {
		return false
	}
	// Six digits or more ("10.15.7" is a version), and no date
	// ("01.05.2020").
	return digits(tok) >= minReference && !date(tok)
}

// minReference: fewer digits in dotted groups are a version ("10.15.7").
const minReference = 6

// date reports whether a token is a day, a month and a year: "01.05.2020".
func date(tok string) bool {
	parts := strings.Split(tok, ".")
	return len(parts) == 3 && len(parts[0]) <= 2 && len(parts[1]) <= 2 && len(parts[2]) == 4 &&
		(strings.HasPrefix(parts[2], "19") || strings.HasPrefix(parts[2], "20"))
}

// countedWord reports whether a token is a number joined to a word by a
// hyphen ("5-port", "240-pin", "3-year"): a count, not a code.
func countedWord(tok string) bool {
	n, w, ok := strings.Cut(tok, "-")
	return ok && isNumber(n) && w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// squeeze keeps the letters and digits of a token.
func squeeze(tok string) string {
	clean := true
	for _, r := range tok {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			clean = false
			break
		}
	}
	if clean {
		return tok
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, tok)
}

// isCode reports whether a squeezed token is a model or part code: letters
// with digits, or a long number ("25432"), but not a measure or a year-like
// number of four digits alone.
func isCode(t string) bool {
	if len(t) < minCodeLen {
		return false
	}
	letters, digits := 0, 0
	for _, r := range t {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case unicode.IsLetter(r):
			letters++
		}
	}
	if digits == 0 {
		return false
	}
	if letters == 0 {
		return digits >= 5
	}
	return true
}

func isNumber(tok string) bool {
	if tok == "" {
		return false
	}
	dot := false
	for i, r := range tok {
		switch {
		case r >= '0' && r <= '9':
		case (r == '.' || r == ',') && !dot && i > 0 && i < len(tok)-1:
			dot = true
		default:
			return false
		}
	}
	return true
}

// normNumber writes "16.0" as "16" and "2,5" as "2.5".
// versionValue returns the number a token says, normalised: a number
// ("5.0" is "5"), a version ("v5", "ver5"), or a Roman numeral from ii to
// viii (not "i", "v" or "x", which are letters and "by" as well); "" for
// any other token.
func versionValue(tok string) string {
	if isNumber(tok) {
		return normNumber(tok)
	}
	for _, p := range []string{"ver", "v"} {
		if n, ok := strings.CutPrefix(tok, p); ok && isNumber(n) {
			return normNumber(n)
		}
	}
	return romanNumerals[tok]
}

var romanNumerals = map[string]string{"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8"}

func normNumber(s string) string {
	s = strings.ReplaceAll(s, ",", ".")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// measure splits a token such as "16gb" or "2.5-inch" into its number and
// its unit.
func measure(tok string) (value, unit string, ok bool) {
	i := 0
	for i < len(tok) && (tok[i] >= '0' && tok[i] <= '9' || (tok[i] == '.' || tok[i] == ',') && i > 0) {
		i++
	}
	if i == 0 || i == len(tok) {
		return "", "", false
	}
	num := normNumber(strings.TrimRight(tok[:i], ".,"))
	// A range of one unit, as of a zoom lens: "18-200mm".
	if j := i + 1; tok[i] == '-' && j < len(tok) && tok[j] >= '0' && tok[j] <= '9' {
		for j < len(tok) && (tok[j] >= '0' && tok[j] <= '9' || tok[j] == '.') {
			j++
		}
		if u, known := unitAlias(tok[j:]); known && u != "pk" && numberRange(num, tok[i+1:j]) {
			return num + "-" + normNumber(strings.TrimRight(tok[i+1:j], ".")), u, true
		}
	}
	u, known := unitAlias(strings.TrimLeft(tok[i:], "-"))
	if !known {
		return "", "", false
	}
	return num, u, true
}

// unitAlias gives a unit's one spelling.
func unitAlias(u string) (string, bool) {
	switch u {
	case "inch", "inches", "in", "\u2033":
		return "in", true
	case "lbs":
		return "lb", true
	case "watt", "watts":
		return "w", true
	case "pk", "pack", "pcs", "pc", "count", "ct":
		return "pk", true
	case "feet", "foot":
		return "ft", true
	case "go", "to", "mo", "ko": // French: "128 Go", "2To"
		return u[:1] + "b", true
	}
	if units[u] && len(u) > 0 {
		return u, true
	}
	return "", false
}

var (
	// withWords start what a product comes with.
	withWords = set("with", "mit", "avec", "con", "incl", "inkl", "including", "includes")
	// thirdPartyWords say another maker made a supply: no "with" makes it the original.
	thirdPartyWords = set("compatible", "remanufactured")
	accessoryWords  = set("case", "cover", "charger", "strap", "sleeve", "skin", "holster", "protector",
		"mount", "holder", "dock", "stand", "brush", "pouch", "bumper", "replacement", "refill", "lamp",
		"hulle", "tasche", "ladegerat", "etui", "housse", "chargeur", "funda", "cargador", "correa",
		// Another maker's supplies for a model: a "compatible" cartridge
		// holds the original's code (the wrong answers of the trained
		// code tier were these).
		"compatible", "remanufactured")
	// colourOf gives a colour word of any of the shops' languages its one
	// name, so that "schwarz" is "black" and "grau" is "grey": two names
	// of one colour are no two colours.
	colourOf = synonyms(map[string][]string{
		"black":  {"schwarz", "noir", "negro", "nero", "czarny", "zwart", "preto", "blk"},
		"white":  {"weiss", "blanc", "blanco", "bianco", "bialy", "wit", "branco", "wht"},
		"red":    {"rot", "rouge", "rojo", "rosso", "czerwony", "rood", "vermelho"},
		"blue":   {"blau", "bleu", "azul", "blu", "niebieski", "blauw"},
		"green":  {"grun", "vert", "verde", "zielony", "groen"},
		"yellow": {"gelb", "jaune", "amarillo", "giallo", "zolty", "geel", "amarelo"},
		"pink":   {"rosa", "rose"},
		"purple": {"lila"},
		"orange": {"arancione", "pomaranczowy", "oranje", "naranja"},
		"brown":  {"braun", "marron", "brun", "marrone", "brazowy", "bruin"},
		"grey":   {"gray", "grau", "gris", "grigio", "szary", "grijs", "cinza"},
		"silver": {"silber", "argent", "plata", "argento", "srebrny", "zilver", "prata"},
		"gold":   {"oro", "zloty", "goud", "ouro"},
		"violet": nil, "beige": nil, "navy": nil, "teal": nil, "turquoise": nil, "graphite": nil,
		"cyan": nil, "magenta": nil,
	})
	colourWords = keys(colourOf)
	modelWords  = set("plus", "pro", "max", "ultra", "mini", "lite", "air")
	sizeWords   = set("xxs", "xs", "xl", "xxl", "xxxl", "2xl", "3xl", "small", "medium", "large", "petite")
)

// Features of a pair of titles, in the order of the model's weights.
const (
	fCoverQuery  = iota // weighted share of the query's words the product has
	fCoverProd          // weighted share of the product's words the query has
	fCodeShared         // a code of one is in the other, as written
	fCodeVariant        // a code is in the other but for a trailing variant (letters)
	fCodeClash          // both have codes and none is in the other
	fCodeOneSide        // one has codes, the other none
	fNumberClash        // both have plain numbers and share none
	fUnitOneSide        // measures on one side only
	fColourOne          // a colour on one side only
	fAccessory          // an accessory word or "for" on one side only
	fLength             // |ln(words of query / words of product)|
	fSameTitle          // the folded titles are the same
	fCodeUnique         // a distinctive code of one stands in the other and in no other candidate
	numFeatures
)

// FeatureNames name the features, for the trainer and the docs.
var FeatureNames = [numFeatures]string{"cover_query", "cover_product", "code_shared", "code_variant",
	"code_clash", "code_one_side", "number_clash", "unit_one_side", "colour_one_side", "accessory_one_side",
	"length_ratio", "same_title", "code_unique"}

// codeIn reports how a code of one title shows in the other's squeezed
// title: 2 as written, 1 but for a trailing variant, 0 not at all. A
// number inside a code must not run on ("m315" is not in "m3150").
func codeIn(code string, f *facts) int {
	squeezed := f.squeezed
	if i := alignedAt(f, code); i >= 0 {
		return 2
	}
	if containsCode(squeezed, code) {
		return 1 // inside a longer code: "txsr876" in "txsr876b"
	}
	// A trailing variant: letters after the last digit ("txsr876b",
	// "mdrex35lpvb") or a colour suffix. The learned weight of this
	// evidence says how much such a difference is worth.
	base := strings.TrimRightFunc(code, unicode.IsLetter)
	if len(base) >= minCodeLen && len(code)-len(base) <= 3 && base != code && containsCode(squeezed, base) {
		return 1
	}
	return 0
}

// alignedAt returns where the code stands in the title as whole words
// ("tx-sr876" or "tx sr876" for "txsr876"), or -1.
func alignedAt(f *facts, code string) int {
	s := f.squeezed
	for from := 0; ; {
		i := strings.Index(s[from:], code)
		if i < 0 {
			return -1
		}
		i += from
		if f.bounds[i] && f.bounds[i+len(code)] {
			return i
		}
		from = i + 1
	}
}

func containsCode(s, code string) bool {
	digitEnd := code[len(code)-1] >= '0' && code[len(code)-1] <= '9'
	digitStart := code[0] >= '0' && code[0] <= '9'
	for from := 0; ; {
		i := strings.Index(s[from:], code)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(code)
		okEnd := !digitEnd || end == len(s) || s[end] < '0' || s[end] > '9'
		okStart := !digitStart || i == 0 || s[i-1] < '0' || s[i-1] > '9'
		if okEnd && okStart {
			return true
		}
		from = i + 1
	}
}

// veto reports the differences no other evidence outweighs: two measures
// of one unit that share no value (16gb and 32gb), two colours, sizes or
// plain numbers that share none (Flip 5 and Flip 6; the numbers not when
// a model code names the product, sharesModelCode), a model word on one
// side only ("Pro", "+"; not when a part number names the product,
// partNamed), an accessory on one side only.
func veto(a, b *facts) string {
	switch {
	case clash(a.colours, b.colours):
		return "colour"
	case clash(a.sizes, b.sizes):
		return "size"
	case (otherModel(a, b) || otherModel(b, a)) && !partNamed(a, b):
		return "model"
	case numberClash(a, b) && !sharesModelCode(a, b):
		return "number"
	case codeShapeClash(a, b):
		return "code"
	case suffixClash(a, b) || suffixClash(b, a):
		return "variant"
	case oneSided(a.names, b.names) > 0 && lacksAny(a.names, b.names) && lacksAny(b.names, a.names):
		return "line"
	}
	for _, x := range a.units {
		other := false
		for _, y := range b.units {
			if same, ok := sameMeasure(x, y); ok && !same {
				other = true
			}
		}
		if other && !sharesMeasure(a.units, b.units, x) {
			return "unit"
		}
	}
	// A laptop's memory module is not a desktop's.
	if a.module != "" && b.module != "" && a.module != b.module {
		return "module"
	}
	// A camera's body alone is not its kit with a lens.
	if kitOf(a, b) || kitOf(b, a) {
		return "kit"
	}
	// A card of one graphics chip is not one of another.
	if clash(a.chips, b.chips) {
		return "chip"
	}
	// A mono headset is not its duo.
	if a.channels != "" && b.channels != "" && a.channels != "both" && b.channels != "both" && a.channels != b.channels {
		return "channels"
	}
	// A pack of two is not a single pack.
	if a.pack > 0 && b.pack > 0 && a.pack != b.pack {
		return "pack"
	}
	// Another maker's supply (a "compatible" or "remanufactured" one) is
	// not the original, even when the original's title says what it is
	// "for".
	if thirdParty(a) != thirdParty(b) {
		return "accessory"
	}
	// An accessory named by one title alone, when the other names none
	// and is not "for" anything: a case is not the phone.
	accA, accB := accessoriesBeside(a, b), accessoriesBeside(b, a)
	if (len(accA) == 0) != (len(accB) == 0) {
		other := a
		if len(accA) > 0 {
			other = b
		}
		if !other.forWord {
			return "accessory"
		}
	}
	// Each names an accessory the other does not: a case is not a stand.
	if oneSided(accA, accB) > 0 && len(accA) > 0 && len(accB) > 0 && !subset(accA, accB) && !subset(accB, accA) {
		return "accessory"
	}
	return ""
}

// otherModel reports whether a has a model word that b lacks. A "+"
// glued to a token b lacks qualifies that token, not the product b
// names: "SFP+" is a port, "H.265+" a codec, "Focus+" a sensor; "S24+"
// is another phone than the "S24". b has the word written inside a
// longer token ("X470-PLUS", "UAP-AC-Lite") or run into a word of a's
// ("SanDiskUltra").
func otherModel(a, b *facts) bool {
	for _, m := range a.models {
		if contains(b.models, m) || contains(b.inside, m) || gluedModel(b, a, m) {
			continue
		}
		if m != "plus" {
			return true
		}
		for _, t := range a.plussed {
			if t == "" || alignedAt(b, t) >= 0 || hasDigit(t) && containsCode(b.squeezed, t) {
				return true
			}
		}
	}
	return false
}

// partNamed reports whether a model word one title alone has ("Pro",
// "Lite") only describes the product: the titles share a part number,
// which names the model ("IronWolf Pro ST6000NE000", a DVR's "2MP Lite").
// A "+" or "Plus" is the model's own when glued to a code or standing
// alone ("DS1517+", "DS218 +" are other models than the "DS1517" and
// the "DS218").
func partNamed(a, b *facts) bool {
	modelPlus := func(t string) bool { return t == "" || isCode(t) }
	return sharesCode(a, b, partNumber) && !slices.ContainsFunc(a.plussed, modelPlus) && !slices.ContainsFunc(b.plussed, modelPlus)
}

// gluedModel reports whether a title writes a model word run into a word
// of the other title before it ("SanDiskUltra", "ExtremePro" for "SanDisk
// Ultra", "Extreme Pro"): the title has the model word. A word run in
// that the other title lacks is a name of its own ("GoPro", "Flair").
func gluedModel(f, other *facts, m string) bool {
	for _, sp := range spans(f) {
		t := f.squeezed[sp[0]:sp[1]]
		if w, ok := strings.CutSuffix(t, m); ok && len(w) >= 3 && alignedAt(other, w) >= 0 {
			return true
		}
	}
	return false
}

// suffixClash reports whether a code of a's, followed by a letter of its
// own, stands in b without that letter after it.
func suffixClash(a, b *facts) bool {
	for _, s := range a.suffixed {
		code, _, _ := strings.Cut(s, " ")
		if contains(b.codes, code) && !contains(b.suffixed, s) && !initialOf(s[len(s)-1], b) {
			return true
		}
	}
	return false
}

// lineName reports whether a token is a short name of a model within a
// line: one or two letters, one or two digits, perhaps a letter ("t3",
// "t5i", "sl1", "a7", "i5").
func lineName(tok string) bool {
	i := 0
	for i < len(tok) && tok[i] >= 'a' && tok[i] <= 'z' {
		i++
	}
	if i < 1 || i > 2 {
		return false
	}
	j := i
	for j < len(tok) && tok[j] >= '0' && tok[j] <= '9' {
		j++
	}
	if j == i || j-i > 2 {
		return false
	}
	return j == len(tok) || j+1 == len(tok) && tok[j] >= 'a' && tok[j] <= 'z'
}

// lacksAny reports whether b lacks a value of a's (both non-empty).
func lacksAny(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return true
		}
	}
	return false
}

// initialOf reports whether a title has a word, not a code, that starts
// with a letter: "pfi-107 c" and "… cyan" say one colour.
func initialOf(letter byte, f *facts) bool {
	for _, sp := range spans(f) {
		if t := f.squeezed[sp[0]:sp[1]]; t[0] == letter && !hasDigit(t) {
			return true
		}
	}
	return false
}

// colourInPlace reports whether a colour word of a's stands where b has a
// word a lacks: after the nearest word before the colour that both have,
// b goes on with a word of its own ("… 4.8 L Empire Red" and "… 4.8 L
// Pistachio": another colour of the model). Where b ends there, or goes
// on with a word a has, the colour is a word a adds ("ATH-M40x Studio
// Headphones (Black)" and "ATH-M40x Professional Monitor Headphones").
func colourInPlace(a, b *facts) bool {
	sa, sb := spans(a), spans(b)
	for k, sp := range sa {
		if !colourWords[a.squeezed[sp[0]:sp[1]]] {
			continue
		}
		next := 0 // b's token after the shared word before the colour
		for j := k - 1; j >= 0; j-- {
			if at := alignedAt(b, a.squeezed[sa[j][0]:sa[j][1]]); at >= 0 {
				next = slices.IndexFunc(sb, func(s [2]int) bool { return s[0] >= at+sa[j][1]-sa[j][0] })
				break
			}
		}
		if next >= 0 && next < len(sb) && alignedAt(a, b.squeezed[sb[next][0]:sb[next][1]]) < 0 {
			return true
		}
	}
	return false
}

// codeShapeClash reports whether the titles have codes of one family
// that differ, and share no code: "5ksm125" and "5ksm175", "dcb304" and
// "dcb309" (letters where letters are, digits where digits are).
func codeShapeClash(a, b *facts) bool {
	for _, x := range a.codes {
		if codeIn(x, b) > 0 {
			return false
		}
	}
	for _, y := range b.codes {
		if codeIn(y, a) > 0 {
			return false
		}
	}
	for _, x := range a.codes {
		for _, y := range b.codes {
			if sameShape(x, y) {
				return true
			}
		}
	}
	return false
}

// sameShape reports whether two different codes have letters and digits
// in the same places, and the same letters.
func sameShape(x, y string) bool {
	if len(x) != len(y) || x == y || !hasLetter(x) {
		return false
	}
	for k := range len(x) {
		dx, dy := x[k] >= '0' && x[k] <= '9', y[k] >= '0' && y[k] <= '9'
		if dx != dy || !dx && x[k] != y[k] {
			return false
		}
	}
	return true
}

// numberClash reports whether each title has a plain number the other
// lacks, as a number or as the value of a measure ("1.75" and "1.75
// inches" share one), or each a range the other lacks (rangeClash): a
// range ("12-32" teeth) and a single number ("7" speeds) say different
// things.
func numberClash(a, b *facts) bool {
	return lacksNumber(a, b) && lacksNumber(b, a) || rangeClash(a, b)
}

// rangeClash reports whether each title has a range the other has in no
// form, plain or a measure's ("18-55 mm" and "18-135"), and one of them
// is plain: two measures' ranges are the unit veto's.
func rangeClash(a, b *facts) bool {
	la, plainA := lacksRange(a, b)
	lb, plainB := lacksRange(b, a)
	return la && lb && (plainA || plainB)
}

// lacksRange reports whether a has a range b has in no form, and
// whether one such is a plain number.
func lacksRange(a, b *facts) (lacks, plain bool) {
	for _, n := range a.numbers {
		if strings.Contains(n, "-") && !hasValue(b, n) {
			lacks, plain = true, true
		}
	}
	for _, u := range a.units {
		if v := valueOf(u); strings.Contains(v, "-") && !hasValue(b, v) {
			lacks = true
		}
	}
	return lacks, plain
}

// hasValue reports whether a title has a value as a plain number or as
// a measure's ("1.75" and "1.75 inches" share one).
func hasValue(f *facts, v string) bool {
	if contains(f.numbers, v) {
		return true
	}
	for _, u := range f.units {
		if valueOf(u) == v {
			return true
		}
	}
	return false
}

// sharesModelCode reports whether the titles share a model code
// (modelCode, one standing in the other as whole words, no number of
// one's own right after it) and each number one lacks is a single value:
// the code names the model, and a plain number beside it (a size, a
// speed, a count: "ST10000VN0008 … 7200") names no other. A range
// ("11-46" teeth of a cassette) makes another variant of the model.
func sharesModelCode(a, b *facts) bool { return sharesCode(a, b, modelCode) }

// sharesCode is sharesModelCode for the codes of one shape.
func sharesCode(a, b *facts, shape func(string) bool) bool {
	held := func(x, y *facts) bool {
		for _, code := range x.codes {
			if shape(code) && alignedAt(y, code) >= 0 &&
				!numberAfter(x, code, y) && !numberAfter(y, code, x) {
				return true
			}
		}
		return false
	}
	ranged := func(x, y *facts) bool {
		for _, n := range x.numbers {
			if strings.Contains(n, "-") && !contains(y.numbers, n) {
				return true
			}
		}
		return false
	}
	return (held(a, b) || held(b, a)) && !ranged(a, b) && !ranged(b, a)
}

// numberAfter reports whether the token right after a code in a title
// is a number the other title lacks: the code's generation or model
// within its line ("GT-2000 5" is not "GT-2000 4").
func numberAfter(f *facts, code string, other *facts) bool {
	i := alignedAt(f, code)
	if i < 0 {
		return false
	}
	for k, sp := range spans(f) {
		if sp[0] == i+len(code) {
			v := f.values[k]
			return v != "" && !contains(other.numbers, v)
		}
	}
	return false
}

// modelCode reports whether a code names a model: distinctive, with
// letters and three digits or more. A technology's code has fewer
// ("gddr6", "4 ddr4"), and digits alone are as often a list of speeds
// ("10/100/1000") as a part number.
func modelCode(code string) bool { return distinctive(code) && hasLetter(code) && digits(code) >= 3 }

// partNumber reports whether a code is a model code that names one
// product, not a number a line shares: "ST6000NE000", "CP5225dn", but not
// "3400G" (the Ryzen 5 3400G and the Ryzen 5 Pro 3400G) nor a component's
// code ("i5-1135G7" of an IdeaPad 5 and an IdeaPad 5 Pro).
func partNumber(code string) bool {
	return modelCode(code) && !modelNumber(code) && !componentCode(code)
}

// componentCode reports whether a code names a part a product is built
// with, not the product: a processor ("i5-1135G7"), a memory's or a
// Wi-Fi's standard ("DDR4-3200", "PC4-25600", "AC3000", "AX6000"), a
// graphics chip ("RTX3080", "GTX1660"). Many products of a line share it.
func componentCode(code string) bool {
	for _, p := range []string{"i3", "i5", "i7", "i9", "ddr", "lpddr", "pc3", "pc4", "gtx", "rtx", "rx", "ac", "ax"} {
		if rest, ok := strings.CutPrefix(code, p); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			switch p {
			case "ac", "ax", "rx":
				return isNumber(rest) || strings.TrimLeft(rest, "0123456789") == "xt"
			}
			return true
		}
	}
	return false
}

// modelNumber reports whether a token is a model number with a maker's
// suffix of a letter or two: three to five digits, no leading zero, then
// "k", "x", "u", "hq" … ("8700k", "2600x", "7200u", "6700hq"; "3400g"
// with four digits, as "256g" is a size). A zoom's "10x" or a screen's
// "4k" has one or two digits, and stays a measure.
func modelNumber(t string) bool { return modelSuffix(t) != "" }

// modelSuffix returns the maker's suffix of a model number (modelNumber),
// "" if the token is none.
func modelSuffix(t string) string {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i < 3 || i > 5 || t[0] == '0' {
		return ""
	}
	switch t[i:] {
	case "k", "kf", "ks", "x", "xt", "xe", "hq", "hk", "h", "u", "f", "t", "s":
		return t[i:]
	case "g":
		if i >= 4 {
			return t[i:]
		}
	}
	return ""
}

// modelNumberAt reports whether token k is a model number (modelNumber).
// Suffixes that are units as well ("2700K" a light's colour, "5000g" a
// weight, "20000h" a lamp's life, "400F" an oven's heat) are a model's
// only after a line's name or number: "Core i7 8700K", "Ryzen 5 3400G".
func modelNumberAt(tokens []string, k int) bool {
	switch modelSuffix(tokens[k]) {
	case "":
		return false
	case "k", "kf", "ks", "g", "h", "f":
		prev := ""
		if k > 0 {
			prev = tokens[k-1]
		}
		return lineName(prev) || len(prev) == 1 && prev[0] >= '1' && prev[0] <= '9'
	}
	return true
}

// digits counts the digits of a squeezed token.
func digits(t string) int {
	n := 0
	for _, r := range t {
		if r >= '0' && r <= '9' {
			n++
		}
	}
	return n
}

// lacksNumber reports whether a has a single number (no range) b has
// nowhere.
func lacksNumber(a, b *facts) bool {
	for _, n := range a.numbers {
		if !strings.Contains(n, "-") && !hasValue(b, n) {
			return true
		}
	}
	return false
}

// scales put the units of one dimension on one scale: "2tb" is not
// "250gb", and "1tb" is "1000gb" (or 1024: measures within 5% are one).
var scales = map[string]struct {
	dim    string
	factor float64
}{
	"kb": {"byte", 1e-6}, "mb": {"byte", 1e-3}, "gb": {"byte", 1}, "tb": {"byte", 1e3},
	"mhz": {"hz", 1e-3}, "ghz": {"hz", 1},
	"mm": {"length", 1e-3}, "cm": {"length", 1e-2},
	"g": {"mass", 1e-3}, "kg": {"mass", 1}, "mg": {"mass", 1e-6},
	"ml": {"volume", 1e-3}, "cl": {"volume", 1e-2}, "l": {"volume", 1},
	"w": {"power", 1}, "kw": {"power", 1e3},
}

// sameMeasure reports whether two measures are of one dimension (ok),
// and whether they are the same there.
func sameMeasure(x, y string) (same, ok bool) {
	ux, uy := unitOf(x), unitOf(y)
	if ux == uy {
		return x == y, true
	}
	sx, okx := scales[ux]
	sy, oky := scales[uy]
	if !okx || !oky || sx.dim != sy.dim {
		return false, false
	}
	vx, errx := strconv.ParseFloat(strings.TrimSuffix(x, ux), 64)
	vy, erry := strconv.ParseFloat(strings.TrimSuffix(y, uy), 64)
	if errx != nil || erry != nil {
		return false, false // a range ("18-55mm") against a value
	}
	vx, vy = vx*sx.factor, vy*sy.factor
	return math.Abs(vx-vy) <= 0.05*max(vx, vy), true
}

// sharesMeasure reports whether the titles have one measure in common of
// x's dimension: "16gb" and "32gb" on one side, "16gb" on the other is no
// clash.
func sharesMeasure(a, b []string, x string) bool {
	for _, m := range a {
		if _, ok := sameMeasure(m, x); !ok {
			continue
		}
		for _, y := range b {
			if same, _ := sameMeasure(m, y); same {
				return true
			}
		}
	}
	return false
}

// unitOf is a measure's unit: "18-55mm" is of "mm".
func unitOf(m string) string { return strings.TrimLeft(m, "0123456789.-") }

// valueOf is a measure's value: "18-55mm" is of "18-55".
func valueOf(m string) string { return strings.TrimRight(m, "abcdefghijklmnopqrstuvwxyz") }

// clash reports whether both lists are non-empty and share nothing.
func clash(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return false
			}
		}
	}
	return true
}

// subset reports whether every value of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// thirdParty reports whether a title is of another maker's supply.
func thirdParty(f *facts) bool {
	return slices.Contains(f.accessories, "compatible") || slices.Contains(f.accessories, "remanufactured")
}

// oneSided counts the values of a that b lacks, and of b that a lacks.
func oneSided(a, b []string) int {
	n := 0
	for _, x := range a {
		if !contains(b, x) {
			n++
		}
	}
	for _, y := range b {
		if !contains(a, y) {
			n++
		}
	}
	return n
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// codeFeatures weighs the codes of two titles that are not generic: a
// code many products have ("gddr5", "802.11n") names a technology, not a
// product.
func codeFeatures(x *[numFeatures]float64, a, b *facts, generic func(string) bool) {
	best, na, nb := 0, 0, 0
	for _, c := range a.codes {
		if !generic(c) {
			na++
			best = max(best, codeIn(c, b))
		}
	}
	for _, c := range b.codes {
		if !generic(c) {
			nb++
			best = max(best, codeIn(c, a))
		}
	}
	switch {
	case best == 2:
		x[fCodeShared] = 1
	case best == 1:
		x[fCodeVariant] = 1 // how much a variant letter matters, the weight learned says
	case na > 0 && nb > 0:
		x[fCodeClash] = 1
	case na > 0 || nb > 0:
		x[fCodeOneSide] = 1
	}
}

// pairFeatures fills the features that come from the facts of two
// titles; the word shares come from the scorer.
func pairFeatures(x *[numFeatures]float64, a, b *facts, wordsA, wordsB int, generic func(string) bool) {
	codeFeatures(x, a, b, generic)
	if clash(a.numbers, b.numbers) {
		x[fNumberClash] = 1
	}
	x[fUnitOneSide] = math.Min(float64(oneSided(a.units, b.units)), 3) / 3
	if (len(a.colours) == 0) != (len(b.colours) == 0) {
		x[fColourOne] = 1
	}
	if a.forWord != b.forWord || (len(a.accessories) == 0) != (len(b.accessories) == 0) {
		x[fAccessory] = 1
	}
	x[fLength] = math.Abs(math.Log(float64(max(wordsA, 1)) / float64(max(wordsB, 1))))
	if a.squeezed == b.squeezed {
		x[fSameTitle] = 1
	}
}

// distinctive reports whether a code names one product rather than a
// count or a measure: letters with digits, or five digits or more (a
// part number, longer than a year or most counts).
func distinctive(code string) bool {
	if len(code) >= 5 && isNumber(code) {
		return true
	}
	if len(code) < minCodeLen+1 || !hasLetter(code) {
		return false
	}
	if modelNumber(code) {
		return true
	}
	// Digits then other letters alone is a measure of a unit we do not
	// know ("1500va", "1024mb"), not a model.
	rest := strings.TrimLeft(code, "0123456789")
	return len(rest) == len(code) || strings.IndexFunc(rest, unicode.IsDigit) >= 0
}

// codeHeld reports whether a code stands in a title in full, alone or
// inside a longer code ("txsr876" in "txsr876b"), or the title has it but
// for a trailing variant of at most three letters ("txsr876b" for
// "txsr876").
func codeHeld(code string, f *facts) bool {
	if alignedAt(f, code) >= 0 || containsCode(f.squeezed, code) {
		return true
	}
	base := strings.TrimRightFunc(code, unicode.IsLetter)
	return len(base) >= minCodeLen+1 && hasLetter(base) && len(code)-len(base) <= 3 && base != code && alignedAt(f, base) >= 0
}

// uniqueCodes marks the candidates that hold a distinctive code of the
// query that no other candidate holds, or whose own distinctive code the
// query holds and no other candidate does: in the Walmart–Amazon training
// pairs, two records of one model number are the same product every time
// (docs/enrichment.md, Matching), and a code one product of the catalog has
// names that product.
// Candidates ruled out hold no code.
func uniqueCodes(q *facts, cands []*facts, ruledOut []bool) []bool {
	out := make([]bool, len(cands))
	holders := func(code string) int {
		n := 0
		for k := range cands {
			if !ruledOut[k] && codeHeld(code, cands[k]) {
				n++
			}
		}
		return n
	}
	for _, code := range q.codes {
		if !distinctive(code) {
			continue
		}
		if n := holders(code); n > 1 && n <= genericCodes {
			if k := oneListed(code, cands, ruledOut); k >= 0 {
				out[k] = true
			}
			continue
		} else if n != 1 {
			continue
		}
		for k := range cands {
			if !ruledOut[k] && alignedAt(cands[k], code) >= 0 {
				out[k] = true
			}
		}
	}
	for k := range cands {
		if out[k] || ruledOut[k] {
			continue
		}
		for _, code := range cands[k].codes {
			if distinctive(code) && alignedAt(q, code) >= 0 && holders(code) == 1 {
				out[k] = true
				break
			}
		}
	}
	// A code run together with a word of the other title (its maker, a
	// shop's word: "WellingtonDW00100036", "SRT6KRMXLIAPC") is that code.
	for k := range cands {
		if out[k] || ruledOut[k] {
			continue
		}
		for _, code := range q.codes {
			if r := unglued(code, cands[k]); r != "" && holders(code) == 0 && alignedAt(cands[k], r) >= 0 && holders(r) == 1 {
				out[k] = true
			}
		}
		for _, code := range cands[k].codes {
			if r := unglued(code, q); r != "" && alignedAt(q, r) >= 0 && holders(code) == 1 {
				out[k] = true
			}
		}
	}
	// A code one title writes with a region's or a retailer's suffix of
	// three letters or more ("UE55NU7400UXXU", "OLED55C8PLA") is the
	// other's, when the two name the same colours: a maker's suffix may
	// hold a colour ("5KSM175PSEAC", almond cream).
	for k := range cands {
		if out[k] || ruledOut[k] || oneSided(q.colours, cands[k].colours) > 0 {
			continue
		}
	suffixed:
		for _, code := range q.codes {
			for _, c := range cands[k].codes {
				if regionSuffixed(c, code) && holders(code) == 1 || regionSuffixed(code, c) && holders(c) == 1 {
					out[k] = true
					break suffixed
				}
			}
		}
	}
	for k := range cands {
		if out[k] && codeConflict(q, cands[k]) {
			out[k] = false
		}
	}
	return out
}

// regionSuffixed reports whether long is code with a suffix of three to
// six letters: a region's or a retailer's ("UE55NU7400UXXU",
// "QN50Q60TAFXZC"), or a word run into the code ("ST10000VN0008hard"),
// not a colour's or a model's one or two ("8700k", "orb153bk"), nor a
// model or edition word ("RTX2060SUPER"). The code is long enough to
// name a model alone: seven characters or more, letters and digits.
func regionSuffixed(long, code string) bool {
	suffix, ok := strings.CutPrefix(long, code)
	return ok && len(code) >= 7 && hasLetter(code) && digits(code) >= 2 &&
		len(suffix) >= 3 && len(suffix) <= 6 && strings.TrimFunc(suffix, unicode.IsLetter) == "" &&
		!modelWords[suffix] && !editionWords[suffix] && suffix != "super"
}

// oneListed returns the first of the candidates that hold a code when
// they are listings of one product: each holds it as whole words (no
// longer variant of it), and no two of them differ by a veto or by
// distinctive codes of their own (two part numbers of a line: each
// title has one the other lacks). Else it returns -1.
func oneListed(code string, cands []*facts, ruledOut []bool) int {
	var held []int
	for k := range cands {
		if ruledOut[k] || !codeHeld(code, cands[k]) {
			continue
		}
		if alignedAt(cands[k], code) < 0 {
			return -1
		}
		for _, j := range held {
			a, b := cands[j], cands[k]
			if veto(a, b) != "" || veto(b, a) != "" || ownCode(a, b) && ownCode(b, a) {
				return -1
			}
		}
		held = append(held, k)
	}
	if len(held) == 0 {
		return -1
	}
	return held[0]
}

// ownCode reports whether a title has a distinctive code that another
// does not hold.
func ownCode(a, b *facts) bool {
	for _, code := range a.codes {
		if distinctive(code) && !codeHeld(code, b) {
			return true
		}
	}
	return false
}

// SharedCode reports whether two titles share a distinctive model code
// (letters with digits, squeezed), one standing in the other as whole
// words: the evaluation's electronics-like part.
func SharedCode(a, b string) bool {
	fa, fb := analyze(a), analyze(b)
	for _, code := range fa.codes {
		if distinctive(code) && alignedAt(&fb, code) >= 0 {
			return true
		}
	}
	for _, code := range fb.codes {
		if distinctive(code) && alignedAt(&fa, code) >= 0 {
			return true
		}
	}
	return false
}

// CodeTierMiss says, for the evaluation, why the code tier does not
// answer with candidate k of a title's Candidates though the two share a
// code: another product holds the code too, each title has a code the
// other lacks, or the code is the product's alone but the titles' first
// words read as two makers, or a colour one of them names may make
// another variant. "" if the tier may take it (another candidate is
// taken as well).
func CodeTierMiss(title string, cands []Candidate, k int) string {
	q := analyze(title)
	fs := make([]*facts, len(cands))
	ruledOut := make([]bool, len(cands))
	for j := range cands {
		f := analyze(cands[j].Title)
		fs[j] = &f
		ruledOut[j] = cands[j].Vetoed != ""
	}
	unique := uniqueCodes(&q, fs, ruledOut)
	switch {
	case cands[k].Features[fCodeUnique] == 1:
		return ""
	case unique[k] && twoMakers(&q, fs[k]):
		return "two makers"
	case unique[k]:
		return "a colour"
	case codeConflict(&q, fs[k]):
		return "codes conflict"
	}
	return "held by another"
}

// codeConflict reports whether each title has a distinctive code the
// other lacks: two model numbers that share a memory speed ("pc3-10600")
// are two products. A code on one side only is a shop's part number, and
// no conflict; nor is a count run into a technology ("4ddr4", four DDR4
// slots, beside a shop's "90mb11b0-m0eay0"; "1x4gb").
func codeConflict(a, b *facts) bool {
	return lacksCode(a, b) && lacksCode(b, a)
}

// lacksCode reports whether a title has a distinctive code that another
// holds in no form, whole or in part, and that is no count run into a
// technology: one digit, then what is no code of its own ("4ddr4").
func lacksCode(x, y *facts) bool {
	for _, code := range x.codes {
		if !distinctive(code) || codeHeld(code, y) || heldBack(code, y) {
			continue
		}
		if rest := strings.TrimLeft(code, "0123456789"); len(rest) == len(code)-1 && !distinctive(rest) {
			continue
		}
		return true
	}
	return false
}

// heldBack reports whether a title's code holds the given code in part
// ("txsr876b" holds "txsr876"): a variant, not another model.
func heldBack(code string, f *facts) bool {
	for _, c := range f.codes {
		if strings.Contains(c, code) || strings.Contains(code, c) {
			return true
		}
	}
	return false
}

// synonyms maps each word of a list, and its head, to the head.
func synonyms(m map[string][]string) map[string]string {
	out := map[string]string{}
	for head, words := range m {
		out[head] = head
		for _, w := range words {
			out[w] = head
		}
	}
	return out
}

func keys(m map[string]string) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// memoryPair reads a phone's memory and storage written as one token,
// "4/128gb", "3gb/64gb" or "3+32gb", as the measures it holds (4gb and
// 128gb); nil if the token is not such a pair.
func memoryPair(tok string) []string {
	parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '/' || r == '+' })
	if len(parts) != 2 || len(parts[0])+len(parts[1])+1 != len(tok) {
		return nil
	}
	v, u, ok := measure(parts[1])
	if !ok || u != "gb" && u != "tb" {
		return nil
	}
	first := normNumber(parts[0]) + u
	if v0, u0, ok := measure(parts[0]); ok && u0 == u {
		first = v0 + u0
	} else if !isNumber(parts[0]) {
		return nil
	}
	return []string{first, v + u}
}

// dimensions reads a token of two measures joined by an "x" ("24mmx7m",
// a tape's width and length) as the two measures; nil if it is none. A
// count times a size ("2x8gb", a memory kit) has no unit before the "x".
func dimensions(tok string) []string {
	for i := 1; i+1 < len(tok); i++ {
		if tok[i] != 'x' {
			continue
		}
		v0, u0, ok0 := measure(tok[:i])
		v1, u1, ok1 := measure(tok[i+1:])
		if ok0 && ok1 && u0 != "pk" && u1 != "pk" {
			return []string{v0 + u0, v1 + u1}
		}
	}
	return nil
}

// unglued returns a distinctive code run together with a word of the
// other title, without that word: a maker or a shop's word glued to the
// code ("wellingtondw00100036", "srt6krmxliapc"), or "".
func unglued(code string, other *facts) string {
	if !distinctive(code) {
		return ""
	}
	lead := len(code) - len(strings.TrimLeftFunc(code, unicode.IsLetter))
	for n := lead; n >= 3; n-- {
		if r := code[n:]; distinctive(r) && alignedAt(other, code[:n]) >= 0 {
			return r
		}
	}
	trail := len(code) - len(strings.TrimRightFunc(code, unicode.IsLetter))
	for n := trail; n >= 3; n-- {
		if r := code[:len(code)-n]; distinctive(r) && alignedAt(other, code[len(code)-n:]) >= 0 {
			return r
		}
	}
	return ""
}

// packWords are the counts a word before "pack" says.
var packWords = map[string]int{"single": 1, "dual": 2, "twin": 2, "double": 2, "triple": 3}

// packCount returns how many of the product a title says it sells in
// one: "2 pack", "2-pack", "2pack", "12pk", "twin pack", "pack of 3", a
// shop's part number ending in one ("653124-b21-2pack"); 0 for none.
// Counts of pieces ("100 pcs") are not packs: a shop need not say them.
func packCount(tokens []string) int {
	n := 0
	count := func(s string) int {
		if v, ok := packWords[s]; ok {
			return v
		}
		if v, err := strconv.Atoi(s); err == nil && v > 0 && v < 1000 {
			return v
		}
		return 0
	}
	for k, tok := range tokens {
		next := ""
		if k+1 < len(tokens) {
			next = squeeze(tokens[k+1])
		}
		if next == "pack" || next == "pk" {
			n = max(n, count(squeeze(tok)))
		}
		if squeeze(tok) == "pack" && next == "of" && k+2 < len(tokens) {
			n = max(n, count(squeeze(tokens[k+2])))
		}
		// "2pack", "4-pack", "12pk", "653124-b21-2pack": the part after
		// the last hyphen, or the one before it ("4-pack"); no slice made,
		// as this runs on every token of every title asked.
		last, before, dashed := tok, "", false
		if i := strings.LastIndexByte(tok, '-'); i >= 0 {
			last, before, dashed = tok[i+1:], tok[:i], true
			if j := strings.LastIndexByte(before, '-'); j >= 0 {
				before = before[j+1:]
			}
		}
		for _, unit := range [...]string{"pack", "pk"} {
			if c, ok := strings.CutSuffix(last, unit); ok {
				if c == "" && dashed {
					c = before
				}
				n = max(n, count(c))
			}
		}
	}
	return n
}
