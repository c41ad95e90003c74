package match

import (
	"slices"
	"testing"

	"github.com/svc-project/svc"
)

func TestSameWords(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
		part bool // b adds a part number: the other way round, no same words
	}{
		// Soft words, brackets, a platform on one side, words run together.
		{"microsoft office 2007 professional", "microsoft office professional 2007 (pc)", true, false},
		{"microsoft visio standard 2007 version upgrade", "microsoft visio standard 2007 upgrade", true, false},
		{"clickart 950 000 - premier image pack (dvd-rom)", "clickart 950000 - premier image pack (dvd-rom)", true, false},
		{"iogear solar bluetooth hands-free car kit", "iogear solar bluetooth hands free car kit", true, false},
		// A part number one shop adds; the maker one leaves out.
		{"smead a-z indexed expanding files 21 pockets", "smead 70121 - a-z indexed expanding files 21 pockets", true, true},
		{"inland pro dual lcd monitor arm", "inland pro dual lcd monitor arm 05321", true, true},
		{"imation rdx cartridge hard drive", "imation 26607 rdx cartridge hard drive", true, true},
		{"siig mini displayport to hdmi adapter", "mini displayport to hdmi adapter", true, false},
		{"motu digital performer 5 (win/mac)", "motu digital performer 5 mac", true, false},
		{"upgrade office 2007", "office 2007", false, false},
		// A maker of two words; not two words inside the title.
		{"acd systems acdsee pro 4-box full version", "acdsee pro 4 box full version", true, false},
		{"elite screens cinegray prime vision screen", "cinegray prime vision screen", true, false},
		{"acdsee photo editor pro 4", "acdsee pro 4", false, false},
		{"griffin technology formfit case for ipod touch 4g", "griffin formfit case for ipod touch 4g", true, false},
		{"griffin formfit case for ipod touch 4g technology", "griffin formfit case for ipod touch 4g", false, false},
		{"lorex simulated bullet style surveillance camera", "new-simulated bullet style surveillance camera - t53962", true, true},
		{"lorex simulated bullet style camera", "new-dummy bullet style camera - t53962", false, false},
		// A number for the measure the other gives, not for another one.
		{"case logic 18 laptop case", "case logic 18-inch laptop case", true, false},
		{"case logic 18 laptop case", "case logic 17-inch laptop case", false, false},
		{"case logic 18 laptop case", "case logic 18-pocket laptop case", false, false},
		// One number written two ways, an abbreviation for its word.
		{"adobe photoshop elements 5.0", "adobe photoshop elements 5 (win)", true, false},
		{"adobe photoshop elements 5.0", "adobe photoshop elements 5.5", false, false},
		{"nero 7 ultra edition", "nero v7.0 ultra edition", true, false},
		{"nero 7 ultra edition", "nero v8 ultra edition", false, false},
		{"quicken home & business 2 (mac)", "quicken home & business ii", true, false},
		{"civilization iv", "civilization 3", false, false},
		// Initials and a number for the words they stand for.
		{"adobe cs3 design premium", "adobe creative suite 3 design premium", true, false},
		{"adobe cs3 design premium", "adobe creative suite 4 design premium", false, false},
		{"adobe cs3 design premium", "adobe creative studio design premium 3", false, false},
		{"microsoft visual studio 2005 std", "microsoft visual studio 2005 standard edition", true, false},
		{"microsoft visual studio 2005 std", "microsoft visual studio 2005 professional", false, false},
		{"ms office 2007 pro", "microsoft office professional 2007", true, false},
		{"ms office 2007", "microsoft office professional 2007", false, false},
		// Editions, versions, years and platforms tell products apart.
		{"microsoft office 2007 professional", "microsoft office 2007 professional upgrade", false, false},
		{"microsoft office 2007 professional", "microsoft office 2003 professional", false, false},
		{"microsoft office professional 2007", "microsoft office professional", false, false},
		{"adobe photoshop cs3 academic", "adobe photoshop cs3", false, false},
		{"adobe cs3 web standard upgrade mac", "adobe cs3 web standard upgrade (windows)", false, false},
		{"norton antivirus 2008 oem", "norton antivirus 2008", false, false},
		{"microsoft encarta 2007 (dvd-rom)", "microsoft encarta 2007 cd-rom", false, false},
		{"microsoft encarta 2007 (dvd-rom)", "microsoft encarta 2007 windows", true, false},
		{"microsoft comfort optical mouse 3000 silver blue", "microsoft comfort optical mouse 3000", false, false},
		// Four digits are a part number when a code of the title ends with
		// them; alone they may be a year.
		{"avery self-adhesive filing labels clear 450 pack", "new-avery 5029 - self-adhesive filing labels clear 450 pack - ave5029", true, true},
		{"avery self-adhesive filing labels clear 450 pack", "avery 5029 - self-adhesive filing labels clear 450 pack", false, false},
		// A word or two of description one title adds to the other's, of
		// four words or more, whose words it has all; not a bundle, a
		// measure, a variant, a third word, nor to a short title or one
		// whose maker it leaves out; not words each title adds.
		{"fujifilm instax mini twin pack film", "fujifilm instax mini twin pack instant film", true, false},
		{"hp black notebook sleeve", "hp notebook sleeve - black stream pattern", true, false},
		{"Samsung 970 EVO Plus NVMe M.2 500GB", "500GB - Samsung 970 EVO Plus NVMe M.2 Internal SSD", true, false},
		{"sandisk cruzer glide 64gb", "sandisk cruzer glide 64gb usb flash drive", false, false},
		{"hp black notebook sleeve stream", "hp black notebook sleeve pattern", false, false},
		{"rca vhs adapter", "rca vhs cassette adapter", false, false},
		{"GoPro HERO9 Black Action Camera", "GoPro Battery for HERO9 Black Action Camera", false, false},
		{"hp black notebook sleeve", "hp 16-inch notebook sleeve - black stream pattern", false, false},
		{"hp black notebook sleeve", "hp notebook sleeve - black stream pattern design", false, false},
		{"lumiere 100w tungsten halogen video light", "lumiere 100w tungsten halogen video light with dimmer", false, false},
		{"logitech optical mouse usb", "logitech wireless optical mouse usb", false, false},
		{"innovera softskin gel wrist rest black", "gel wrist rest mousepad black", false, false},
		{"rca cassette adapter", "rca vhs cassette adapter", false, false},
		// Two codes that differ, and two first words that differ.
		{"bower ss2477 wrist strap", "bower ss2477bl wrist strap", false, false},
		{"imation 11864 slr-5 data cartridge", "qic data cartridge", false, false},
	} {
		a, b := analyze(tc.a), analyze(tc.b)
		if got, _ := sameWords(&a, &b); got != tc.want {
			t.Errorf("sameWords(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got, _ := sameWords(&b, &a); got != (tc.want && !tc.part) {
			t.Errorf("sameWords(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want && !tc.part)
		}
	}
}

var sameTierCatalog = []string{
	"Microsoft Office Professional 2007 (PC)",
	"Microsoft Office Professional 2007 Upgrade",
	"Microsoft Office Standard 2007",
	"Microsoft Office Professional 2003",
	"Adobe Creative Suite 3 Web Standard Upgrade for Mac",
	"Adobe Photoshop CS3 Extended",
	"Intuit QuickBooks Pro 2008",
}

// The one product with the query's words but soft ones is the answer, at
// the confidence the tier was measured at; a second such product (the
// other platform) takes the tier away.
func TestSameTier(t *testing.T) {
	query := Query{Title: "microsoft office 2007 professional", MinConfidence: minAnswer}
	x := codeTierIndex(sameTierCatalog...)
	for _, c := range x.Candidates("b", query.Title) {
		if c.Tier != "" && c.Tier != TierSame {
			t.Errorf("%q answered by the %s tier", c.Title, c.Tier)
		}
	}
	h, ok := x.Lookup("b", query)
	if !ok || h.Ref != 1 || h.Tier != TierSame {
		t.Fatalf("Lookup = %+v, %v; want product 1 by the same-words tier", h, ok)
	}
	both := codeTierIndex(append(sameTierCatalog, "Microsoft Office Professional 2007 (Mac)")...)
	if h, ok := both.Lookup("b", query); ok && h.Tier == TierSame {
		t.Errorf("with the product for both platforms in the catalog, Lookup = %+v at the same-words tier", h)
	}
	// A soft word that other shops use and this one never does is no
	// product this shop lacks.
	for k, brand := range []string{"x", "y"} {
		title := "Intuit QuickBooks Pro 2008 Software"
		x.Put(&svc.Product{Ref: svc.ProductRef(100 + k), BrandID: brand, ProductID: "q", Title: &title})
	}
	if ref, tier := tierPick(x, "microsoft office 2007 professional software"); ref != 1 || tier != TierSame {
		t.Errorf("with \"software\" at two other shops, the tiers pick product %d (%q); want product 1", ref, tier)
	}
	// "pro" for "professional": the model word's veto does not hold here.
	if h, ok := x.Lookup("b", Query{Title: "ms office pro 2007", MinConfidence: minAnswer}); !ok || h.Ref != 1 {
		t.Errorf("Lookup(\"ms office pro 2007\") = %+v, %v; want product 1", h, ok)
	}
	for _, title := range []string{"microsoft office 2007 professional academic", "microsoft office professional 2010", "ms office 2007 pro academic"} {
		if h, ok := x.Lookup("b", Query{Title: title}); ok {
			t.Errorf("Lookup(%q) = %+v, want none", title, h)
		}
	}
}

func TestSameWordsGlued(t *testing.T) {
	q, p := analyze("expo low-odor dry erase marker eraser cleaner"), analyze("new-expo 80054 - low-odor dry erase marker eraser cleaner")
	if same, _ := sameWords(&q, &p); !same {
		t.Errorf("sameWords(%q, %q) = false; \"new-expo\" is \"expo\"", "expo …", "new-expo …")
	}
	q, p = analyze("expo dry erase marker"), analyze("expos dry erase marker")
	if same, _ := sameWords(&q, &p); same {
		t.Error("sameWords took \"expos\" for \"expo\"")
	}
}

// Listings of one title are one product: the first is the answer; a
// catalog flooded with the title gives none.
func TestSameTierListings(t *testing.T) {
	dup := append(slices.Clone(sameTierCatalog), "Adobe Photoshop CS3 [Mac]", "adobe photoshop cs3 (mac)")
	x := codeTierIndex(dup...)
	query := Query{Title: "adobe photoshop cs3", MinConfidence: minAnswer}
	if h, ok := x.Lookup("b", query); !ok || h.Ref != 8 || h.Tier != TierSame {
		t.Errorf("two listings: Lookup = %+v, %v; want product 8 at the same-words tier", h, ok)
	}
	if ref, tier := tierPick(x, "adobe photoshop cs3 [mac]"); ref != 8 || tier != TierSame {
		t.Errorf("two listings, the query's title: the tiers pick product %d (%q); want product 8", ref, tier)
	}
	flooded := codeTierIndex(append(dup, "ADOBE PHOTOSHOP CS3 - MAC", "Adobe Photoshop CS3, Mac")...)
	if h, ok := flooded.Lookup("b", query); ok {
		t.Errorf("four listings: Lookup = %+v, want none", h)
	}
	other := codeTierIndex(append(dup, "Adobe Photoshop CS3 [Mac] Academic")...)
	if h, ok := other.Lookup("b", query); !ok || h.Ref != 8 {
		t.Errorf("two listings and an academic edition: Lookup = %+v, %v; want product 8", h, ok)
	}
	pc := codeTierIndex(append(dup, "Adobe Photoshop CS3 (PC)")...)
	if h, ok := pc.Lookup("b", query); ok {
		t.Errorf("two listings for the mac and one for the pc: Lookup = %+v, want none", h)
	}
}

// A colour the product's title adds to a query that names none is the
// query's product when no other gathered product is it in another colour,
// in none, or has the query's words in a colour the list lacks.
func TestSameTierAddedColour(t *testing.T) {
	catalog := []string{
		"Acme CW-48 48 Capacity Nylon Disc Wallet Blue",
		"Acme CW-24 24 Capacity Nylon Disc Wallet Black",
		"Acme Rolling Laptop Case Black",
		"Acme Padded Camera Bag Red",
	}
	query := Query{Title: "acme 48 capacity nylon disc wallet"}
	h, ok := codeTierIndex(catalog...).Lookup("b", query)
	if !ok || h.Ref != 1 || h.Tier != TierSame {
		t.Fatalf("Lookup = %+v, %v; want product 1 at the same-words tier", h, ok)
	}
	for _, twin := range []string{
		"Acme CW-48BK 48 Capacity Nylon Disc Wallet Black",          // another colour, its code
		"Acme CW-48 48 Capacity Nylon Disc Wallet Dark Grey",        // a shade
		"Acme CW-48 48 Capacity Nylon Disc Wallet with Strap Black", // another with the query's words
	} {
		if h, ok := codeTierIndex(append(slices.Clone(catalog), twin)...).Lookup("b", query); ok {
			t.Errorf("with %q in the catalog, Lookup = %+v, want none", twin, h)
		}
	}
	// The product in no colour is the query's.
	plain := codeTierIndex(append(slices.Clone(catalog), "Acme 48 Capacity Nylon Disc Wallet")...)
	if h, ok := plain.Lookup("b", query); !ok || h.Ref != 5 {
		t.Errorf("with the wallet in no colour, Lookup = %+v, %v; want product 5", h, ok)
	}
	// A query that names a colour is no query for another.
	if h, ok := codeTierIndex(catalog...).Lookup("b", Query{Title: "acme 48 capacity nylon disc wallet black"}); ok {
		t.Errorf("a black wallet: Lookup = %+v, want none", h)
	}
	a, b := analyze(query.Title), analyze(catalog[0])
	if same, _ := sameWords(&a, &b); same {
		t.Error("sameWords took an added colour for no difference without the catalog")
	}
}

// The kind of accessory a query names ("case") is no difference from a
// product "for" something that names none, when no other gathered product
// has the query's words.
func TestSameTierAccessoryKind(t *testing.T) {
	catalog := []string{
		"Acme Technology Shellguard for Phone 4 Pink Clear",
		"Acme Technology Shellguard for Phone 4 Black Clear",
		"Acme Armband for Phone 4 Black",
		"Acme Car Charger for Phone 4",
	}
	query := Query{Title: "acme phone 4 shellguard case pink clear", MinConfidence: minAnswer}
	h, ok := codeTierIndex(catalog...).Lookup("b", query)
	if !ok || h.Ref != 1 || h.Tier != TierSame {
		t.Fatalf("Lookup = %+v, %v; want product 1 at the same-words tier", h, ok)
	}
	// Another product with the query's words, a stand with it: either may
	// be meant.
	twin := codeTierIndex(append(slices.Clone(catalog), "Acme Shellguard Case for Phone 4 Pink Clear with Stand")...)
	if h, ok := twin.Lookup("b", query); ok {
		t.Errorf("with the case and stand in the catalog, Lookup = %+v, want none", h)
	}
	// Two kinds named are two differences.
	if h, ok := codeTierIndex(catalog...).Lookup("b", Query{Title: "acme phone 4 shellguard case strap pink clear", MinConfidence: minAnswer}); ok {
		t.Errorf("a case and a strap: Lookup = %+v, want none", h)
	}
	a, b := analyze(query.Title), analyze(catalog[0])
	if same, _ := sameWords(&a, &b); same {
		t.Error("sameWords took the accessory's kind for no difference without the catalog")
	}
}

// Three or four words of description that the product adds are no
// difference when no other gathered product has the query's words; five
// are.
func TestSameTierAddedWords(t *testing.T) {
	catalog := []string{
		"Acme Graphic Equalizer Half-DIN Crossover Car Stereo Head Units",
		"Acme Graphic Equalizer Double-DIN Car Stereo",
		"Acme Marine Amplifier Four Channel",
		"Acme Subwoofer Enclosure Dual Ported",
	}
	query := Query{Title: "acme graphic equalizer half-din crossover", MinConfidence: minAnswer}
	h, ok := codeTierIndex(catalog...).Lookup("b", query)
	if !ok || h.Ref != 1 || h.Tier != TierSame {
		t.Fatalf("Lookup = %+v, %v; want product 1 at the same-words tier", h, ok)
	}
	// Another listing with the query's words ("new-acme" is "acme"), and a
	// remote with it: either may be meant.
	twin := codeTierIndex(append(slices.Clone(catalog), "New-Acme Graphic Equalizer Half-DIN Crossover with Remote")...)
	if h, ok := twin.Lookup("b", query); ok {
		t.Errorf("with the equalizer and remote in the catalog, Lookup = %+v, want none", h)
	}
	five := slices.Clone(catalog)
	five[0] = "Acme Graphic Equalizer Half-DIN Crossover Car Marine Stereo Head Units"
	if h, ok := codeTierIndex(five...).Lookup("b", query); ok {
		t.Errorf("five words added: Lookup = %+v, want none", h)
	}
	a, b := analyze(query.Title), analyze(catalog[0])
	if same, _ := sameWords(&a, &b); same {
		t.Error("sameWords took four added words for no difference without the catalog")
	}
}

// tierPick is the product a tier answers a title with in brand "b", and
// the tier, whatever the calibration makes of it (0 and "" if none).
func tierPick(x *Index, title string) (svc.ProductRef, string) {
	for _, c := range x.Candidates("b", title) {
		if c.Tier != "" {
			return c.Ref, c.Tier
		}
	}
	return 0, ""
}

// A camera's "Body" on one side is a soft word: the body is the camera
// sold without a lens. A kit names its lens, and is another product.
func TestSameTierBody(t *testing.T) {
	x := codeTierIndex(
		"Canon EOS 80D Body",
		"Canon EOS 800D Body",
		"Apple iPhone 8 64GB Silver",
	)
	if h, ok := x.Lookup("b", Query{Title: "Canon EOS 80D", MinConfidence: minAnswer}); !ok || h.Ref != 1 {
		t.Errorf("Lookup(\"Canon EOS 80D\") = %+v, %v; want product 1", h, ok)
	}
	if h, ok := x.Lookup("b", Query{Title: "Canon EOS 80D + EF-S 18-135mm IS USM Kit", MinConfidence: minAnswer}); ok {
		t.Errorf("the kit against the body: Lookup = %+v; want none", h)
	}
}

// Two names of one colour ("Space Gray" and "Space Grey", "schwarz" and
// "black") are no difference between two titles of the same words.
func TestSameTierColourNames(t *testing.T) {
	x := codeTierIndex("Apple iPhone XR 64GB Black", "Apple iPhone XS 64GB Space Grey", "Samsung Portable SSD T7 Touch USB3.2 1TB schwarz", "Samsung Portable SSD T7 USB3.2 1TB blau")
	for title, want := range map[string]svc.ProductRef{
		"Apple iPhone XS 64GB Space Gray":                2,
		"Samsung Portable SSD T7 Touch USB3.2 1TB Black": 3,
	} {
		if h, ok := x.Lookup("b", Query{Title: title, MinConfidence: minAnswer}); !ok || h.Ref != want {
			t.Errorf("Lookup(%q) = %+v, %v; want product %d", title, h, ok, want)
		}
	}
	if h, ok := x.Lookup("b", Query{Title: "Apple iPhone XS 64GB Space Silver", MinConfidence: minAnswer}); ok {
		t.Errorf("another colour: Lookup = %+v; want none", h)
	}
}
