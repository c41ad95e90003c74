package match

import (
	"testing"

	"github.com/svc-project/svc"
)

// A letter a shop writes after a model code makes another product: the
// left-hinged "ORB153BK L" is not the "ORB153BK", and a query for one is
// never answered with the other (issue 37's real error).
func TestVariantSuffix(t *testing.T) {
	catalog := []string{
		"Gorenje ORB153BK L Retro Fridge Black",
		"Gorenje ORB153C Retro Fridge Cream",
		"Gorenje ORB153R Retro Fridge Red",
		"Bosch KGN39VLEB Fridge Freezer",
	}
	x := codeTierIndex(catalog...)
	for _, q := range []string{"gorenje orb153bk", "Gorenje ORB153BK retro fridge black"} {
		if h, ok := x.Lookup("b", Query{Title: q, MinConfidence: 0.01}); ok {
			t.Errorf("%q: Lookup = %q at %.3f; want no answer, the catalog has only the left-hinged one", q, h.Title, h.Confidence)
		}
	}
	both := codeTierIndex(append(catalog, "Gorenje ORB153BK Retro Fridge Black")...)
	if h, ok := both.Lookup("b", Query{Title: "gorenje orb153bk"}); !ok || h.Ref != 5 {
		t.Errorf("with both in the catalog, Lookup = %+v, %v; want product 5", h, ok)
	}
	if h, ok := both.Lookup("b", Query{Title: "gorenje orb153bk l"}); !ok || h.Ref != 1 {
		t.Errorf("the left-hinged one: Lookup = %+v, %v; want product 1", h, ok)
	}
}

// Measures of one dimension are compared on one scale, a range is one
// value, two short names of a line's models differ, and a colour or unit
// is one in every language: each pair here is two products, or one.
func TestMeasureVeto(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Crucial MX500 2TB SATA SSD", "Crucial MX500 250GB SATA SSD", true},
		{"Samsung 860 PRO 1TB SSD", "Samsung 860 PRO 1000GB SSD", false},
		{"WD Blue 4TB 64MB cache", "WD Blue 4TB", false},
		{"Corsair Vengeance 8GB 3000MHz", "Corsair Vengeance 8GB 3GHz", false},
		{"Canon EF-S 18-200mm f/3.5-5.6 IS", "Canon EF-S 18-55mm f/3.5-5.6 IS", true},
		{"Canon EF-S 18 55mm IS", "Canon EF-S 18-135mm IS USM", true},
		{"Canon EF-S 18-55mm IS", "Canon EF-S 18-55mm IS II lens", false},
		{"Shimano CS-R9100 cassette 11-25", "Shimano CS-R9100 cassette 11-28", true},
		{"HP 508429-001 400GB SAS", "HP 508429-001 400-GB SAS drive", false},
		// Two short names of models of one line.
		{"Canon EOS Rebel T6 DSLR with EF-S 18-55mm IS II", "Canon EOS Rebel T3 DSLR with EF-S 18-55mm IS", true},
		{"Intel Core i5 6400 2.7GHz", "Intel Core i7 6400 2.7GHz", true},
		{"Canon EOS Rebel T6 kit", "Canon EOS Rebel T6 DSLR camera", false},
		// A colour or a unit in another language is the same colour or unit.
		{"Samsung Portable SSD T7 Touch 1TB schwarz", "Samsung T7 Touch Black 1TB", false},
		{"Canon PGI-29 GY Ink cartridge gray", "Canon PGI29GY Grey Ink Tank", false},
		{"WD My Passport 4TB negro", "WD My Passport 4TB Blue", true},
		{"Samsung Galaxy A51 128 Go Bleu", "Samsung Galaxy A51 128GB Blue", false},
		{"Samsung Galaxy A51 128 Go Bleu", "Samsung Galaxy A51 64GB Blue", true},
		// A phone's memory and storage in one token.
		{"Galaxy A51 Dual SIM (4/128GB, schwarz)", "Samsung Galaxy A51 4GB 128GB Black", false},
		{"Xiaomi Redmi Note 9 3GB/64GB Polar White", "Xiaomi Redmi Note 9 64 GB Polar White", false},
		{"Samsung Galaxy A21s 3+32GB Black", "Samsung Galaxy A21s 32GB Black", false},
		{"Samsung Galaxy A21s 3+32GB Black", "Samsung Galaxy A21s 64GB Black", true},
		// Two measures joined by an "x" are the two measures; a count
		// times a size is a memory kit.
		{"D1-TAPE 9MM X 7M BLACK ON WHITE", "Dymo D1 Tape for Labelmakers 24mmx7m Black on White 53713", true},
		{"Dymo 24mm x 7m Black on White Label Tape", "Dymo D1 Tape for Labelmakers 24mmx7m Black on White 53713", false},
		{"Corsair Vengeance LPX 16GB (2x8GB) DDR4", "Corsair Vengeance LPX 16GB 2x8GB DDR4 kit", false},
		// A range with its unit after a space, and a cassette's teeth.
		{"Canon EF-S 18-55mm f3.5-5.6 IS Lens", "Canon EF-S 18-135 mm F3.5-5.6 IS USM", true},
		{"Canon EF-S 18-135 mm F3.5-5.6 IS USM", "Canon EF-S 18-135mm f/3.5-5.6 IS USM lens", false},
		{"Shimano Cassette Dura-Ace CS-R9100 11 Speed 11-28", "Shimano Dura-Ace CS-R9100 11-25T 11sp Cassette", true},
		{"Shimano Dura-Ace CS-R9100 Cassette 11-25", "Shimano Dura-Ace CS-R9100 11-25T 11sp Cassette", false},
		// A range and a single number say different things: teeth and speeds.
		{"PG730 7spd Cassette 12-32t", "PG-730 7-Speed Cassette", false},
		{"SRAM PG-730 Cassette 12-32", "SRAM PG-730 Cassette 12-26", true},
		// A measure's range against a plain one (a review's near misses).
		{"Canon EF-S 18-55 mm f/3.5-5.6 IS STM Lens", "Canon EF-S 18-135 f/3.5-5.6 IS STM Lens", true},
		{"Canon EF-S 18-55mm f/3.5-5.6 IS STM Lens", "Canon EF-S 18-135 f/3.5-5.6 IS STM Lens", true},
		{"Schwalbe Marathon Plus 700x35C 37-622 mm", "Schwalbe Marathon Plus 700x35C 40-622", true},
		{"Canon EF-S 18-55 mm f/3.5-5.6 IS STM Lens", "Canon EF-S 18-55 f/3.5-5.6 IS STM", false},
	})
}

// TestChipVeto: a card of one graphics chip is not a card of another,
// nor of the chip's SUPER, Ti or XT (WDC Products' training offers);
// cards of one chip are not told apart by it.
func TestChipVeto(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"ASUS GeForce GTX1660 DUAL EVO OC", "ASUS GeForce GTX 1660 SUPER DUAL EVO OC", true},
		{"Asus GTX1660S 6GB Dual EVO", "ASUS GeForce GTX 1660 SUPER Dual EVO OC 6GB", false},
		{"ASUS Dual GeForce RTX 2060 6G OC EVO Edition 192Bit GDDR6", "Asus DUAL-GTX1660S-O6G-EVO 6GB 192Bit GDDR6", true},
		{"MSI GeForce GTX 1660 Ti Gaming X 6G", "MSI GTX1660Ti Gaming X 6GB", false},
		{"Gigabyte Radeon RX 5500 XT OC 4GB GDDR6", "Gigabyte Radeon RX 5700 XT Gaming OC 8GB", true},
		{"Sony Cyber-shot RX100 VII", "Sony DSC-RX100M7 Cyber-shot RX100 VII", false},
		// A tier of two words, XTX and GRE; a brake's "BR-RX400" is no chip.
		{"MSI GeForce RTX 4070 Ti SUPER 16G Ventus 3X OC", "MSI GeForce RTX 4070 Ti Ventus 3X OC", true},
		{"MSI GeForce RTX 4070 Ti SUPER Ventus 3X OC", "MSI RTX 4070TiSUPER Ventus 3X OC", false},
		{"Sapphire Pulse Radeon RX 7900 GRE", "Sapphire Pulse Radeon RX 7900 XTX", true},
		{"Sapphire Nitro+ RX7900XTX Vapor-X", "Sapphire Nitro+ RX 7900 XT Vapor-X", true},
		{"Shimano L05A-RF resin disc brake pads for BR-RX400", "Shimano L05A-RF disc brake pads BR-RX810", false},
	})
}

// TestChannelsVeto: a mono headset is not its duo (stereo, binaural),
// the one real error of WDC Products' training offers at one model code
// (Jabra's BIZ 2300); a title that names neither is no evidence.
func TestChannelsVeto(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Jabra BIZ 2300 USB MS Mono Wired Headset", "Jabra BIZ2300 2399-823-109 DUO USB Headset MS", true},
		{"Jabra Evolve 40 UC Stereo USB headset", "Jabra Evolve 40 UC Duo headset", false},
		{"Jabra Evolve 40 UC Mono", "Jabra Evolve 40 UC Monaural headset", false},
		{"Jabra Evolve 40 UC Mono", "Jabra Evolve 40 UC headset", false},
		// A cable from stereo to mono names both.
		{"Hosa YMM-261 Stereo Breakout Cable 3.5mm TRS to Dual 1/4 in TS 6 ft", "Hosa Technology YMM-261 Stereo Breakout Cable Mono", false},
		{"StarTech 3.5mm Stereo to 2x RCA Mono Audio Cable", "StarTech 3.5mm Stereo to 2x RCA Audio Cable", false},
	})
}

// TestPackVeto: a pack of two is not a single pack, when both titles say
// how many they sell in one, in words or numbers; a title that says none
// is no evidence (LSPC computers' training products).
func TestPackVeto(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Corsair Air Series SP120 High Static Pressure Fan Dual Pack - CO-9050008-WW", "Corsair Air Series SP120 PWM High Performance Edition Single Pack, 120mm", true},
		{"Fujifilm Instax Mini Twin Pack Film", "Fujifilm Instax Mini Film 2-pack", false},
		{"Duracell AA batteries pack of 4", "Duracell AA batteries 12pk", true},
		{"Duracell AA batteries 4-pack", "Duracell AA batteries", false},
		{"Osprey Daylite Backpack 13L", "Osprey Daylite Backpack 13L Black", false},
	})
}

// TestNumberVetoModelCode: a plain number on each side rules a pair out
// ("Flip 5" and "Flip 6"), but not when the two share a model code that
// names the product; a technology's code, a range or a number right after
// the code still make another product. A decimal comma is a point and a
// ratio no number (numerals). Titles of WDC Products' and LSPC shoes'
// training products.
func TestNumberVetoModelCode(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{`HDD: 10 Tb (3.5\") 7200 Seagate IronWolf SATA III 256Mb (ST10000VN0008)`, "HDD 35 10TB Seagate IronWolf NAS ST10000VN0008", false},
		{"Bosch Serie 6 WAU28S80GB i-DOS Washing Machine", "Bosch WAU28S80GB 8kg 1400 Spin Washing Machine", false},
		{"D-Link DPE-301GI - PoE injector - 30 Watt", "1 Port Gigabit PoE Injector - DPE-301GI", false},
		{"JBL Flip 5 Portable Speaker", "JBL Flip 6 Portable Speaker", true},
		// Digits alone are no model code: a list of speeds.
		{"Netgear Switch 5 Port 10/100/1000", "Netgear Switch 8 Port 10/100/1000", true},
		// A technology's code: two cards of one memory.
		{"Gigabyte Radeon RX 5500 XT OC 4GB GDDR6", "Gigabyte GeForce GTX 1650 OC 4GB GDDR6", true},
		// A range of one model's variants: teeth of a cassette.
		{"Shimano Cassette 11s 11-46 CS-M8000", "CS-M8000 CASSETTE 11-40 XT 11-SPEED", true},
		// A decimal comma is a point, a ratio no number.
		{`Seagate IronWolf 6TB 3,5'' 256MB NAS HDD`, `Seagate IronWolf 6TB 3.5" NAS HDD 256MB`, false},
		{`Targus Privacy Filter 16:9 Widescreen`, `Targus Privacy Filter Widescreen 1 piece`, false},
		{`Ernie Ball Hybrid Slinky 9,5-46`, `Ernie Ball Hybrid Slinky 9-46`, true},
		// A number right after the code: the model's generation.
		{"GT-2000 5 LITE-SHOW Men's Road Running Shoes ASICS", "GT-2000 4 LITE-SHOW PLASMAGUARD Men GT Series ASICS", true},
	})
}

// TestPlusVeto: a "+" makes another model of what it is glued to ("S24+"
// is not the "S24"), not of a product whose other title lacks that
// token: "SFP+" is a port, "H.265+" a codec, "PoE+" a power standard.
// Titles of WDC Products' training products.
func TestPlusVeto(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"TP-Link T1700G-28TQ JetStream 24-Port Gigabit Stackable Smart Switch with 4x10GE SFP+ Slots L2+ IPv6 WEB/CLI", "TP-Link T1700G-28TQ JetStream 24-Port Gigabit Smart Switch", false},
		{"5 Pack: UniFi AC PRO In/Out 3x3 2.4 & 5GHz 802.3af-at PoE+ not incl (UAP-AC-PRO-5)", "Ubiquiti UniFi AC Pro 5-pack UAP-AC-PRO-5 Ubiquiti", false},
		{"Hikvision DS-2CD2143G0-I H.265+ 4MP dome", "Hikvision DS-2CD2143G0-I 4MP dome camera", false},
		{"Samsung Galaxy S24+ 256GB", "Samsung Galaxy S24 256GB", true},
		{"Synology DS1517+ 8GB", "Synology DS1517 8GB", true},
		{"Catalyst 2960 Plus 48 10/100 +", "Cisco Catalyst 2960 48 10/100", true},
		{"Samsung Galaxy S24 Plus 256GB", "Samsung Galaxy S24+ 256GB", false},
	})
}

// vetoCase is a pair of titles, and whether veto rules it out.
type vetoCase struct {
	a, b string
	veto bool
}

// checkVetoes checks each pair both ways: a veto says the titles are two
// products, whichever is asked and whichever is stored.
func checkVetoes(t *testing.T, cases []vetoCase) {
	t.Helper()
	for _, tc := range cases {
		a, b := analyze(tc.a), analyze(tc.b)
		if got := veto(&a, &b); (got != "") != tc.veto {
			t.Errorf("veto(%q, %q) = %q, want a veto: %v", tc.a, tc.b, got, tc.veto)
		}
		if got := veto(&b, &a); (got != "") != tc.veto {
			t.Errorf("veto(%q, %q) = %q, want a veto: %v", tc.b, tc.a, got, tc.veto)
		}
	}
}

// TestModelWordInside: a model word written inside a longer token, between
// hyphens or after a "+" within it, or run into a word of the other title,
// is the word the other title has ("X470-PLUS" is the "X470 Plus"); run
// into a word the other title lacks it is a name of its own. Titles of
// WDC Products' training products, the last made up.
func TestModelWordInside(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Asus TUF X470-PLUS GAMING - AMD X470 Chipset Socket AM4", "ASUS TUF X470 Plus Gaming ATX Motherboard", false},
		{"Seagate 1TB Backup Plus Slim USB 3.0 External Hard Drive, Red", "EXT 1TB SG BACKUP+SLIM RED", false},
		{"Ubiquiti UniFi AP AC Mesh PRO 802.11ac Dual Radio", "Ubiquiti Networks UAP-AC-M-PRO 1300Mbit/s", false},
		{"Ubiquiti Unifi Ap-AC Lite Wireless Access Point", "UbiQuiti Unfi UAP-AC-Lite Drahtlose Basisstation", false},
		{"SanDisk SDXC Ultra UHS-I 256GB Class 10", "SanDiskUltra SDXC Class 10 UHS-I 256GB", false},
		{"SanDisk 32GB Extreme Pro SDHC Memory Card C10", "SanDisk ExtremePro SD 32GB UHS-II", false},
		// Not a phone's memory and storage, nor a word the other lacks.
		{"Samsung Galaxy A21s Plus 3GB 32GB", "Samsung Galaxy A21s 3+32GB", true},
		{"Sennheiser HD 660S Pro", "Sennheiser StudioPro HD 660S", true},
	})
}

// TestPlusJoins: a "+" alone between two words joins what comes with the
// product ("32GB + SD Adapter", "White + Red Light") and makes no other
// model; after a code or a line's name it may be the model's "+"
// ("DS218 + 2-bay"), and at the end it is. Titles of WDC Products'
// training products, the last two made up.
func TestPlusJoins(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"SanDisk Extreme microSDHC 32GB + SD Adapter for Action Sports Cameras - 100MB/s A1 C10 V30 UHS-I U3", "SanDisk Extreme microSDHC 32GB 100/60 MB/s A1 V30 GoPro", false},
		{"Nitecore VCL10 Quick Charge 3.0 USB Car Charger With White + Red Light Flashlight", "Nitecore VCL10 Multi-functional USB Car Charger and LED Light", false},
		{"Continental Grand Prix 5000 Black-BW + Black Chili", "Continental Grand Prix 5000 Tires - 700 x 23c (Folding Bead)", false},
		{"Synology DS218 + 2-bay NAS", "Synology DS218 2-bay NAS", true},
		{"Synology DiskStation DS218 +", "Synology DiskStation DS218", true},
	})
}

// TestTowerCase: a tower's or a chassis's "case" is the product, not an
// accessory of it, and so is an ATX board's case, beside which another
// title's plain "Case" is that product too; a "Case Fan" cools one. A
// phone's case, "PC" (polycarbonate) or not, a laptop's "Computer Case"
// and a tower fan's case are still accessories, and so is the case of a
// title that only names a board's size. Titles of WDC Products' training
// products, the last seven made up.
func TestTowerCase(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Corsair Carbide Spec-01 Red LED Mid-Tower Case", "Corsair Carbide Series Spec-01", false},
		{"CORSAIR Crystal Series 570X RGB Mid Tower", "Corsair Crystal Series 570X RGB - Tempered Glass, Premium ATX Mid-Tower Case", false},
		{"Crystal Series 570X RGB ATX Mid-Tower Case — White", "Corsair 570X RGB 3x 120mm RGB LED Fan ATX Gaming Case White Trim", false},
		{"Cooler Master MasterBox TD500 Mesh ARGB Computer Case", "Cooler Master MasterBox TD500 ARGB Mesh Case", false},
		{"Cooler Master MASTERFAN MF200R RGB Cabinet Fan", "Cooler Master MF200R Hybrid Silent High Airflow RGB Rifle Bearing 200mm Case Fan", false},
		{"Fractal Design Define 7 Chassis Case", "Fractal Design Define 7 Black", false},
		{"Apple iPhone 13 Silicone Case", "Apple iPhone 13 128GB", true},
		{"Apple iPhone 13 Silicone Case", "Apple iPhone 13 PC Case", false},
		{"Apple iPhone 13 Hard PC Case", "Apple iPhone 13 128GB", true},
		{"Targus 15.6 inch Laptop Computer Case", "Targus 15.6 inch Laptop", true},
		{"Vornado 184 Tower Fan", "Vornado 184 Carry Case", true},
		{"ASUS Prime X570-P ATX Motherboard", "ASUS Prime X570-P Case", true},
		{"Corsair iCUE 4000D Airflow Case", "Corsair iCUE 4000D Case Fan", true},
	})
}

// TestBundledAccessory: an accessory a product comes "with" is part of it,
// not what it is, and a "Mount Lens" names the mount it fits; an
// accessory before the "with" is still one, and another maker's supply
// stays another's. The first three pairs are WDC Products' training
// products (one product each), the rest made up.
func TestBundledAccessory(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Apple Apple Airpods Pro with Wireless Charging Case (MWP22CH/A) A2190", "Apple APPLE AIRPODS PRO (2019)", false},
		{"Razer Viper Ultimate Gaming Mouse + Mouse Dock", "Razer Viper Ultimate Wireless Gaming Mouse", false},
		{"Sony SEL70200G 70-200mm Mount Lens", "Sony FE 70-200mm f/4 OSS Lens", false},
		{"Lenovo ThinkPad Stand with USB Hub", "Lenovo ThinkPad X1 Carbon", true},
		{"Lenovo ThinkPad X1 Carbon with Stand", "Lenovo ThinkPad Stand", true},
		{"Canon PG-545 Black Ink Cartridge", "Canon PG-545 Black Ink Cartridge with Remanufactured Head", true},
		{"Apple AirPods incl. Charging Case", "Apple AirPods", false},
		{"Apple AirPods w/Charging Case", "Apple AirPods", false},
		// "Compatible with" says what a case fits; a model's "+" is no bundle.
		{"ESR Compatible with iPhone 13 Case", "Apple iPhone 13 128GB", true},
		{"Kompatibel mit iPhone 13 Hülle", "Apple iPhone 13 128GB", true},
		{"Samsung Galaxy S10 + Case Clear", "Samsung Galaxy S10+ 128GB", true},
	})
}

// A model word one title alone has is the shop's description when the two
// share a part number: the number names the model ("IronWolf Pro
// ST6000NE000", a DVR's "2MP Lite"). A model number a line shares
// ("3400G" of the Ryzen 5 and the Ryzen 5 Pro) is no part number, and
// without a code the word makes another model. The first three pairs are
// WDC Products' training titles.
func TestModelWordPartNumber(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Seagate 6TB 7200rpm SATA-600 256MB NAS HDD ST6000NE000", "Seagate IronWolf Pro ST6000NE000 Interne Festplatte 3.5 Zoll 6000 GB Serial ATA III", false},
		{"HD-TVI TURBO HD 4.0 DVR: Hikvision DS-7332HQHI-K4 (32-ch, 2MP Lite, 15fps, H.265, HDMI, VGA)", "Hikvision DS-7332HQHI-K4 32 channel DVR Turbo 4.0", false},
		{"Audio Technica Headphones Air Dynamic Series ATH-AD500X", "Audio-Technica ATH AD500X - Headphones - full size - wired - 3.5 mm jack", false},
		{"AMD Ryzen 5 PRO 3400G 3.7GHz", "AMD Ryzen 5 3400G 3.7GHz", true},
		{"Apple iPhone 12 Pro 128GB", "Apple iPhone 12 128GB", true},
	})
}

// A model number with a maker's suffix ("8700K", "2600X", "7200U") is a
// code: the one product holding it is the answer, and another suffix or
// none is another product. A zoom's "10x" and a screen's "4K" stay
// measures, and "256G" a size.
func TestModelNumber(t *testing.T) {
	x := codeTierIndex(
		"AMD Ryzen 5 2600X 3.6GHz Hexa Core AM4 CPU",
		"AMD Ryzen 5 2600 3.4GHz Hexa Core AM4 CPU",
		"AMD Ryzen 7 2700X 3.7GHz Octa Core AM4 CPU",
		"Intel Core i5-8600K 3.6GHz Processor",
	)
	checkCodeTier(t, x, map[string]svc.ProductRef{
		"AMD Ryzen 5 2600X Processor (6 Core / 12 Threads)": 1,
		"amd ryzen 7 2700x box":                             3,
		"Intel Core i5 8600K":                               4,
	})
	if h, ok := x.Lookup("b", Query{Title: "AMD Ryzen 5 1600X Processor", MinConfidence: minAnswer}); ok {
		t.Errorf("a model number the catalog lacks: Lookup = %+v", h)
	}
	for tok, want := range map[string]bool{"8700k": true, "10700kf": true, "2600x": true, "7200u": true, "6700hq": true,
		"3400g": true, "256g": false, "10x": false, "4k": false, "1080p": false, "032g": false, "125": false} {
		if got := modelNumber(tok); got != want {
			t.Errorf("modelNumber(%q) = %v, want %v", tok, got, want)
		}
	}
	if f := analyze("Canon PowerShot 40x zoom 4K"); len(f.codes) != 0 || len(f.units) != 2 {
		t.Errorf("a zoom and a resolution: codes %v, units %v; want two measures", f.codes, f.units)
	}
}

// A model word that with the word after it names a technology or a kind
// of product is no model of a line: "Ultra HD" is a resolution, an "Air
// Purifier" a kind. A MacBook Air is still not a MacBook.
func TestKindPhrase(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{`LG 55" 4K Ultra HD Smart LED TV`, "LG 55 inch 4K Smart LED TV", false},
		{"Dyson Pure Cool Link Air Purifier White", "Dyson Pure Cool Link Tower White", false},
		{"Lezyne Alloy Floor Drive Air Pump", "Lezyne Alloy Floor Drive Floor Pump", false},
		{"Apple MacBook Air 13 256GB", "Apple MacBook 13 256GB", true},
		{"SanDisk Ultra 64GB microSDXC", "SanDisk 64GB microSDXC", true},
	})
}

// A "+" between a camera and its lens's focal length joins a kit, not a
// model's "+": "D3400 + AF-P 18-55mm" is the D3400's kit.
func TestLensKit(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Nikon D3400 + AF-P 18-55mm VR Kit", "Nikon D3400 18-55mm VR", false},
		{"Sony A6000 + 16-50mm f/3.5-5.6 Zwart", "Sony Alpha a6000 Mirrorless Camera with 16-50mm Lens Black", false},
		{"Canon EOS 80D + 18-135 IS USM", "Canon EOS 80D 18-135 IS USM Kit", false},
		{"Synology DS218 + 2-bay NAS", "Synology DS218 2-bay NAS", true},
	})
}

// A laptop's memory module (SO-DIMM) is not a desktop's (DIMM, UDIMM,
// "Desktop Memory"): the one does not fit the other's slot. Titles of WDC
// Products' training products but the last two.
func TestModuleVeto(t *testing.T) {
	checkVetoes(t, []vetoCase{
		{"Crucial 8GB DDR3L 1600MHz SO-DIMM", "Crucial 1x 8GB DDR3L 1600MHz ECC Unbuffered UDIMM RAM | Discount Computer Needs", true},
		{"Crucial 4GB DDR3L / 1600 C11 DIMM (Low volt.)", "Crucial 4GB DDR3L 1600MHz SO-DIMM Single Rank", true},
		{"Crucial DDR3L 1600MHz 4GB (1x4) Desktop Memory RAM CT51264BD160BJ | PCByte", "Crucial 4GB DDR3L 1600MHz SO-DIMM Single Rank", true},
		{"Crucial 8GB Single DDR3L 1600 MT/s SODIMM 204-Pin Laptop Memory", "Crucial 8 GB SO DIMM 204-pin DDR3L", false},
		{"Corsair Vengeance 16GB DDR4 3200MHz Desktop Memory", "Corsair Vengeance 16GB DDR4 3200MHz DIMM", false},
		{"Dell Latitude 7490 Laptop 16GB DDR4", "Dell OptiPlex 7070 Desktop 16GB DDR4", true},
	})
}
