package match

import (
	"fmt"
	"slices"
	"testing"

	"github.com/svc-project/svc"
)

func codeTierIndex(titles ...string) *Index {
	x := New()
	for i, title := range titles {
		x.Put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: "b", ProductID: fmt.Sprint(i + 1), Title: &title})
	}
	return x
}

var codeTierCatalog = []string{
	"Onkyo TX-SR876 7.1 Network A/V Receiver with THX Certification",
	"Onkyo TX-SR606 7.1 Channel A/V Receiver",
	"Denon AVR-1912 7.1 Channel Networking Home Theater Receiver",
	"Yamaha RX-V671 7.2 Channel Network AV Receiver",
	"Sony STR-DH520 7.1 Channel 3D AV Receiver",
	"Pioneer VSX-921-K 7.1 Channel 3D Ready Audio Video Receiver",
}

// The one product that holds the query's distinctive code is the answer,
// with the confidence the code tier was measured at; a second holder (a
// variant of the code) or a conflicting code takes the tier away.
func TestCodeTier(t *testing.T) {
	// The tiers are tested at any confidence an answer gets: what the
	// calibration gives a catalog of a few titles is not the point here.
	query := Query{Title: "onkyo txsr876 home theatre receiver 7.1 black", MinConfidence: minAnswer}
	x := codeTierIndex(codeTierCatalog...)
	h, ok := x.Lookup("b", query)
	if !ok || h.Ref != 1 || h.Tier != TierCode {
		t.Fatalf("Lookup = %+v, %v; want product 1 by the code tier", h, ok)
	}

	variant := codeTierIndex(append(codeTierCatalog, "Onkyo TX-SR876B 7.1 Network A/V Receiver")...)
	if h, ok := variant.Lookup("b", query); ok && h.Tier == TierCode {
		t.Errorf("with a variant of the code in the catalog, Lookup = %+v at the code tier", h)
	}

	conflict := Query{Title: "onkyo txsr876 ht-s9100thx home theatre receiver"}
	other := codeTierIndex(append(codeTierCatalog[1:], "Onkyo HT-S9200THX TX-SR876 system")...)
	if h, ok := other.Lookup("b", conflict); ok && h.Tier == TierCode {
		t.Errorf("with conflicting codes, Lookup = %+v at the code tier", h)
	}
}

func TestCodeConflict(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"corsair hx3x12g1333c9 12 gb pc3-10600 kit", "kingston kvr1333d3n9 2 gb pc3-10600", true},
		{"onkyo tx-sr876 receiver", "onkyo txsr876b receiver 2663b001", false}, // a variant and a part number
		{"canon cli-221 magenta 2948b001", "canon cli-221 ink tank magenta", false},
		// A count run into a technology is no code: four DDR4 slots, one 4 GB module.
		{"mb asus prime x570-pro am4 4ddr4 hdmi", "asus prime x570-pro (am4) (90mb11b0-m0eay0)", false},
		{"crucial 4gb (1x4gb) single channel (ddr3l 1600)", "crucial ddr3l 1600mhz 4gb desktop memory ct51264bd160bj", false},
		// A count before a code that is one of its own is not.
		{"asus tuf 3-rx5700xt-o8g-gaming radeon rx 5700 xt", "asus radeon dual evo rx5500 xt 8gb gddr6", true},
	} {
		a, b := analyze(tc.a), analyze(tc.b)
		if got := codeConflict(&a, &b); got != tc.want {
			t.Errorf("codeConflict(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	for code, want := range map[string]bool{"txsr876": true, "1500va": false, "1024mb": false, "m315": false, "pc312800": true, "25432": true, "2007": false, "8031101": true} {
		if got := distinctive(code); got != want {
			t.Errorf("distinctive(%q) = %v, want %v", code, got, want)
		}
	}
}

// Listings of one product that hold the query's code, and differ by no
// veto or code of their own, are one answer; two variants of a line, each
// with its own part number, are none.
func TestCodeTierListings(t *testing.T) {
	query := Query{Title: "ape case ac165 digital camera case"}
	x := codeTierIndex(append(codeTierCatalog,
		"Ape Case AC165 Digital Camera Case interior dim 2.5 L x 3.625 W x 5H",
		"Ape Case AC165 compact digital camera case")...)
	h, ok := x.Lookup("b", query)
	if !ok || h.Ref != 7 && h.Ref != 8 || h.Tier != TierCode {
		t.Fatalf("Lookup = %+v, %v; want product 7 or 8 at the code tier", h, ok)
	}
	variants := codeTierIndex(append(codeTierCatalog,
		"Wintec FileMate Imagine Series M2810 USB Mouse - white with light green 3FMNM2810UGN-R",
		"Wintec FileMate Imagine Series M2810 USB Mouse - white with light pink 3FMNM2810WPK-R")...)
	if h, ok := variants.Lookup("b", Query{Title: "filemate imagine series m2810 usb mouse"}); ok && h.Tier == TierCode {
		t.Errorf("with two variants of the code, Lookup = %+v at the code tier", h)
	}
}

// Two makers' cards with one chip's code are two products.
func TestCodeTierTwoMakers(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		"XFX ATI Radeon HD6770 1 GB DDR5 VGA DVI HDMI PCI-Express Video Card")...)
	if h, ok := x.Lookup("b", Query{Title: "VisionTek Radeon HD6770 1GB GDDR5 graphics card"}); ok && h.Tier == TierCode {
		t.Errorf("another maker's card: Lookup = %+v at the code tier", h)
	}
	if h, ok := x.Lookup("b", Query{Title: "New-XFX Radeon HD6770 1GB GDDR5 graphics card"}); !ok || h.Ref != 7 {
		t.Errorf("the maker behind \"new-\": Lookup = %+v, %v; want product 7", h, ok)
	}
}

// One maker's name written short by one shop ("HIK", "SRM", "WD") is no
// second maker: the one product with the code is the answer. A name that
// is not the other's letters in order is still another maker's.
func TestCodeTierOneMaker(t *testing.T) {
	for _, tc := range []struct {
		product, query string
		want           bool
	}{
		{"Hikvision 8-Channel 720p HD-TVL Turbo DVR - DS-7208HQHI-K1", "HIK 8-CH TURBO 4.0 DVR, DS-7208HQHI-K1", true},
		{"SRAM Red XG-1090 X-Dome 10-Speed Cassette (Silver) (11-23T)", "SRM CASSETTE NEW RED XG1090 P.DOME 11/23", true},
		{"WD BLUE 1TB SN550 NVME M.2 2280 SSD", "Western Digital Blue SN550 M.2-2280 1TB", true},
		{"XFX ATI Radeon HD6770 1 GB DDR5 VGA DVI HDMI PCI-Express Video Card", "VisionTek Radeon HD6770 1GB GDDR5 graphics card", false},
		// Two makers, though the letters of one stand in the other's name.
		{"Logitech K120 Keyboard YU0039", "LG Keyboard YU0039", false},
		{"HyperX Cloud II Headset KHX-HSCP-RD", "HP Cloud II Headset KHX-HSCP-RD", false},
		{"Asustor AS5304T NAS", "Asus AS5304T NAS", false},
	} {
		x := codeTierIndex(append(codeTierCatalog, tc.product)...)
		h, ok := x.Lookup("b", Query{Title: tc.query, MinConfidence: minAnswer})
		if got := ok && h.Ref == 7 && h.Tier == TierCode; got != tc.want {
			t.Errorf("%q for %q: Lookup = %+v, %v; want the code tier's answer %v", tc.query, tc.product, h, ok, tc.want)
		}
	}
}

// A remanufactured supply is not the original, though the original's
// title says what it is for.
func TestCodeTierThirdParty(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		"LD Xerox Phaser 8550 8560 Remanufactured 108R00676 Extended-Capacity Maintenance Kit")...)
	if h, ok := x.Lookup("b", Query{Title: "xerox 108r00676 extended-capacity maintenance kit for phaser 8550 printer"}); ok {
		t.Errorf("the original's title: Lookup = %+v, want none", h)
	}
	if h, ok := x.Lookup("b", Query{Title: "remanufactured xerox 108r00676 maintenance kit"}); !ok || h.Ref != 7 {
		t.Errorf("a remanufactured one's title: Lookup = %+v, %v; want product 7", h, ok)
	}
}

// checkCodeTier checks that the code tier answers each title with the
// product given.
func checkCodeTier(t *testing.T, x *Index, want map[string]svc.ProductRef) {
	t.Helper()
	for title, ref := range want {
		h, ok := x.Lookup("b", Query{Title: title, MinConfidence: minAnswer})
		if !ok || h.Ref != ref || h.Tier != TierCode {
			t.Errorf("Lookup(%q) = %+v, %v; want product %d by the code tier", title, h, ok, ref)
		}
	}
}

// A code run together with a word of the other title (the maker, a
// shop's word) is that code: the one product holding it is the answer.
func TestCodeTierGlued(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		"Ladies Daniel Wellington Sheffield Rose 36mm Watch DW00100036",
		"Daniel Wellington Classic Petite Melrose 32mm Watch DW00100163",
		"APC Smart UPS SRT 6000VA / 230V On Line / Web Card - SRT6KRMXLI")...)
	checkCodeTier(t, x, map[string]svc.ProductRef{
		"Daniel WellingtonDW00100036 Classic Sheffield watch": 7,
		"SRT6KRMXLIAPC Smart-UPS SRT 6000VA RM 230V":          9,
	})
	for code, want := range map[string]string{"wellingtondw00100036": "dw00100036", "srt6krmxliapc": "srt6krmxli", "dw00100036": "", "txsr876": ""} {
		f := analyze("Daniel Wellington APC Smart-UPS")
		if got := unglued(code, &f); got != want {
			t.Errorf("unglued(%q) = %q, want %q", code, got, want)
		}
	}
}

// A reference of digits in dotted groups (a watch's) is a code, and the
// one product holding it is the answer; a number with one dot is not.
// The first two titles are WDC Products' training products.
func TestCodeTierDotted(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		"Swiss Military Hanowa FLAGSHIP 06-5161.2.04.007 Men's Watch",
		"Omega Seamaster Aqua Terra 150M Quartz 28mm 220.10.28.60.55.001")...)
	checkCodeTier(t, x, map[string]svc.ProductRef{
		"Swiss Military Hanowa FLAGSHIP 06-5161.2.04.007 Herrenuhr": 7,
		"Omega Seamaster 220.10.28.60.55.001":                       8,
	})
	for tok, want := range map[string]bool{"215.30.46.51.01.001": true, "06-5161.2.04.007": true, "470.713.595": true,
		"3.5": false, "1,050": false, "1..2": false, "v1.2.3": false, "10.15.7": false, "01.05.2020": false} {
		if got := dottedReference(tok); got != want {
			t.Errorf("dottedReference(%q) = %v, want %v", tok, got, want)
		}
	}
}

// Titles the same but for a colour one of them names are another colour
// of the model, unless the title without the colour has no word of its
// own: the shop that sells one colour need not name it.
func TestCodeTierColourAdded(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog, "Shimano PD-R550 SPD-SL Pedal", "Shimano RC7 Road Shoes Black")...)
	if h, ok := x.Lookup("b", Query{Title: "Shimano PD-R550 SPD-SL Road Pedal Black", MinConfidence: minAnswer}); !ok || h.Ref != 7 || h.Tier != TierCode {
		t.Errorf("the colour added: Lookup = %+v, %v; want product 7 by the code tier", h, ok)
	}
	// The colour where the other title has no word of its own: a word
	// the title adds (WDC Products' training titles).
	z := codeTierIndex(append(codeTierCatalog, "Audio Technica ATH-M40x Professional Monitor Headphones", "Sram PG 1130 11sp cassette 11-36T")...)
	checkCodeTier(t, z, map[string]svc.ProductRef{
		"Audio Technica ATH M40x Studio Headphones (Black)":     7,
		"SRAM SRAM PG-1130 Cassette - 11 Speed, 11-36t, Silver": 8,
	})
	y := codeTierIndex(append(codeTierCatalog, "KitchenAid Artisan 5KSM125 Stand Mixer (4.8 L Pistachio)")...)
	if h, ok := y.Lookup("b", Query{Title: "KitchenAid Artisan 5KSM125 Stand Mixer (4.8 L Empire Red)", MinConfidence: minAnswer}); ok && h.Tier == TierCode {
		t.Errorf("a word in place of the colour: Lookup = %+v at the code tier", h)
	}
}

// CodeTierMiss names what keeps the code tier from a product that shares
// the query's code, for BenchmarkTrainingMisses.
func TestCodeTierMiss(t *testing.T) {
	for _, tc := range []struct {
		product, query, want string
	}{
		{"XFX ATI Radeon HD6770 1 GB DDR5 VGA DVI HDMI PCI-Express Video Card", "VisionTek Radeon HD6770 1GB GDDR5 graphics card", "two makers"},
		{"Onkyo HT-S9200THX TX-SR876 system", "onkyo txsr876 ht-s9100thx home theatre receiver", "codes conflict"},
		{"Onkyo TX-SR876B 7.1 Network A/V Receiver", "onkyo txsr876 home theatre receiver 7.1 black", "held by another"},
	} {
		x := codeTierIndex(append(codeTierCatalog, tc.product)...)
		cands := x.Candidates("b", tc.query)
		k := slices.IndexFunc(cands, func(c Candidate) bool { return c.Title == tc.product })
		if k < 0 {
			t.Fatalf("%q: %q not gathered", tc.query, tc.product)
		}
		if got := CodeTierMiss(tc.query, cands, k); got != tc.want {
			t.Errorf("CodeTierMiss(%q, %q) = %q, want %q", tc.query, tc.product, got, tc.want)
		}
	}
}

// A code one title writes with a region's or a retailer's suffix of three
// letters or more is the other's code: the one product holding it is the
// answer. A suffix of one or two letters (a colour, a CPU's "K") or a
// model word ("SUPER") makes another product.
func TestCodeTierRegionSuffix(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		`Samsung UE55NU7400 55" 4K Ultra HD Smart TV`,
		"LG OLED55C8PLA 55 inch OLED 4K TV",
		"Seagate IronWolf Pro ST16000NE000hard drive - 16 TB - SATA 6Gb/s",
		"Intel Core i7-8700K 3.7GHz Processor",
		"MSI GeForce RTX2060SUPER Ventus OC 8GB")...)
	checkCodeTier(t, x, map[string]svc.ProductRef{
		"Samsung UE55NU7400UXXU 55 Inch TV":            7,
		`LG OLED55C8 55" OLED TV`:                      8,
		"16TB IronWolf Pro ST16000NE000, 7200 RPM HDD": 9,
	})
	for _, title := range []string{"Intel Core i7-8700 3.2GHz", "MSI GeForce RTX2060 Ventus OC 6GB"} {
		if h, ok := x.Lookup("b", Query{Title: title, MinConfidence: minAnswer}); ok && h.Tier == TierCode {
			t.Errorf("Lookup(%q) = %+v at the code tier; want none", title, h)
		}
	}
	for long, want := range map[string]bool{"ue55nu7400uxxu": true, "oled55c8pla": true, "i78700k": false, "rtx2060super": false, "orb153bk": false} {
		code := map[string]string{"ue55nu7400uxxu": "ue55nu7400", "oled55c8pla": "oled55c8", "i78700k": "i78700", "rtx2060super": "rtx2060", "orb153bk": "orb153"}[long]
		if got := regionSuffixed(long, code); got != want {
			t.Errorf("regionSuffixed(%q, %q) = %v, want %v", long, code, got, want)
		}
	}
}

// A region's or a retailer's part after a slash ("/EU", "/AM", "/00") is
// no part of the code: other shops write the code without it. A colour's
// letter ("/S"), a capacity ("/16"), lists ("10/100/1000") and short codes
// keep their slashes.
func TestCodeTierRegionSlash(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		"Samsung WW90K5413UW 9kg 1400rpm Washing Machine White",
		"MZ-V7S500B/AM Samsung Evo Plus Series 500GB M.2 NVMe SSD",
		"Philips 243V7QDSB/00 23.8 inch IPS FHD Monitor")...)
	checkCodeTier(t, x, map[string]svc.ProductRef{
		"Samsung WW90K5413UW/EU":                        7,
		"Samsung 970 EVO Plus MZ-V7S500B - 500 GB NVMe": 8,
		"PHILIPS MONITOR LED IPS FULLHD HDMI 243V7QDSB": 9,
	})
	for tok, want := range map[string][]string{
		"ww90k5413uw/eu": {"ww90k5413uw", "eu"},
		"10/100/1000":    {"10/100/1000"},
		"243v7qdsb/00":   {"243v7qdsb", "00"},
		"dcs-5000l/e":    {"dcs-5000l/e"},
		"wh-1000xm4/s":   {"wh-1000xm4/s"},
		"kf432c16bb/16":  {"kf432c16bb/16"},
		"pgi-72/gy":      {"pgi-72/gy"},
	} {
		if got := regionSlashes([]string{tok}); !slices.Equal(got, want) {
			t.Errorf("regionSlashes(%q) = %q, want %q", tok, got, want)
		}
	}
}

// A network port's speeds ("10/100/1000") are no code: every switch has
// them, and the code tier answered a TP-Link switch with the one D-Link
// switch of a shop on them (WDC Products' training offers).
func TestCodeTierEthernetSpeeds(t *testing.T) {
	x := codeTierIndex(append(codeTierCatalog,
		"Switch D-Link DGS-1210-24P 24 p 10/100/1000 Mbps 4 x SFP")...)
	if h, ok := x.Lookup("b", Query{Title: "TP-LINK jetstream - switch - 24 x 10/100/1000 - montabile su rack", MinConfidence: minAnswer}); ok && h.Tier == TierCode {
		t.Errorf("Lookup = %+v at the code tier; want none: the two share only the port's speeds", h)
	}
	for tok, want := range map[string]bool{"10/100": true, "10/100/1000": true, "100/1000/10000": true,
		"7880/9880": false, "10/100/1001": false, "1000": false} {
		if got := ethernetSpeeds(tok); got != want {
			t.Errorf("ethernetSpeeds(%q) = %v, want %v", tok, got, want)
		}
	}
}
